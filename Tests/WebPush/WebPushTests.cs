// RFC 8291 both ways with fresh keys: round trips at every length that matters (0, 1, the 3993-byte
// limit) with and without padding, a fresh ephemeral key and salt per message; and every kind of bad
// input the issue names (key id not 65 bytes, a point off the curve, the wrong auth secret, a body
// over 4096 bytes) plus the other ways a body can be wrong, each with its own exception and the
// destination left zeroed.

using System;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class WebPushTests
{
    /// <summary>A user agent's P-256 key pair, auth secret and the subscription keys it would publish.</summary>
    internal static (ECDiffieHellman Key, byte[] Auth, WebPushSubscriptionKeys Subscription) NewUserAgent()
    {
        var key = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] auth = RandomNumberGenerator.GetBytes(16);
        return (key, auth, WebPushSubscriptionKeys.FromKey(key, auth));
    }

    private static byte[] Message(int length) => Enumerable.Range(0, length).Select(i => (byte)(i * 7 + 1)).ToArray();

    // A body as an application server would make it but with the record layer's parameters chosen
    // freely (record size, delimiter, key id), to build the malformed bodies a decoder must refuse.
    private static byte[] CustomBody(WebPushSubscriptionKeys subscription, byte[] plaintext, int recordSize, bool last = true, int padding = 0)
    {
        using var ephemeral = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] asPublic = WebPushSubscriptionKeys.FromKey(ephemeral, new byte[16]).P256dh.ToArray();
        using ECDiffieHellman ua = subscription.ImportPublicKey();
        byte[] ecdh = ephemeral.DeriveRawSecretAgreement(ua.PublicKey);
        byte[] ikm = new byte[32];
        WebPushEncryption.DeriveInputKeyingMaterial(ecdh, subscription.Auth.Span, subscription.P256dh.Span, asPublic, ikm);
        if (last)
        {
            return ContentEncryption.Encrypt(plaintext, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = recordSize, KeyId = asPublic });
        }

        using var encryptor = new ContentEncryptor(ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = recordSize, KeyId = asPublic });
        byte[] body = new byte[encryptor.Header.Length + recordSize];
        int at = encryptor.Header.WriteTo(body);
        encryptor.EncryptRecord(plaintext, body.AsSpan(at), isLastRecord: false, recordSize - 17 - plaintext.Length);
        return body;
    }

    [TestCase(0, 0)]
    [TestCase(1, 0)]
    [TestCase(41, 0)]
    [TestCase(100, 50)]
    [TestCase(0, 3993)]
    [TestCase(3000, 993)]
    [TestCase(3993, 0)]
    public void RoundTrip(int length, int padding)
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] message = Message(length);
            byte[] body = WebPushEncryption.Encrypt(message, subscription, padding);
            Assert.Multiple(() =>
            {
                Assert.That(body, Has.Length.EqualTo(86 + length + 1 + padding + 16).And.Length.EqualTo(WebPushEncryption.GetEncryptedLength(length, padding)));
                Assert.That(body, Has.Length.LessThanOrEqualTo(WebPushEncryption.MaxBodySize));
                Assert.That(body.AsSpan(16, 4).ToArray(), Is.EqualTo(new byte[] { 0, 0, 0x10, 0 }), "rs = 4096");
                Assert.That(body[20], Is.EqualTo(65), "idlen");
                Assert.That(body[21], Is.EqualTo(0x04), "keyid is an uncompressed point");
                Assert.That(WebPushEncryption.Decrypt(body, key, auth), Is.EqualTo(message));
            });
        }
    }

    [Test]
    public void EveryMessageHasAFreshEphemeralKeyAndSalt()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] a = WebPushEncryption.Encrypt("same"u8, subscription);
            byte[] b = WebPushEncryption.Encrypt("same"u8, subscription);
            Assert.Multiple(() =>
            {
                Assert.That(a[..16], Is.Not.EqualTo(b[..16]), "salt");
                Assert.That(a[21..86], Is.Not.EqualTo(b[21..86]), "ephemeral public key (keyid)");
                Assert.That(WebPushEncryption.Decrypt(a, key, auth), Is.EqualTo("same"u8.ToArray()));
                Assert.That(WebPushEncryption.Decrypt(b, key, auth), Is.EqualTo("same"u8.ToArray()));
            });
        }
    }

    [Test]
    public void TheStringOverloadTakesTheBase64UrlKeysWithOrWithoutPadding()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt("hi"u8, subscription.GetP256dhBase64Url(), subscription.GetAuthBase64Url() + "==");
            Assert.That(WebPushEncryption.Decrypt(body, key, auth), Is.EqualTo("hi"u8.ToArray()));
            Assert.That(WebPushEncryption.Decrypt(body, key.ExportParameters(true).D, auth), Is.EqualTo("hi"u8.ToArray()));
        }
    }

    [Test]
    public void AMessageOverTheLimitIsRefusedBeforeAnythingIsEncrypted()
    {
        var (key, _, subscription) = NewUserAgent();
        using (key)
        {
            var tooLong = Assert.Throws<ArgumentException>(() => WebPushEncryption.Encrypt(new byte[3994], subscription))!;
            Assert.That(tooLong.ParamName, Is.EqualTo("plaintext"));
            Assert.That(tooLong.Message, Does.Contain("3993").And.Contain("4096"));
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Encrypt(new byte[3990], subscription, paddingLength: 4));
            Assert.Throws<ArgumentOutOfRangeException>(() => WebPushEncryption.Encrypt(new byte[1], subscription, paddingLength: -1));
            Assert.Throws<ArgumentException>(() => new WebPushContent(new byte[3994], subscription, TimeSpan.FromMinutes(1)).Dispose());
        }
    }

    [Test]
    public void ABodyOverTheLimitIsRefusedAndNothingIsReleased()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            // A well-formed, authentic body that is simply too long for a push message.
            byte[] body = CustomBody(subscription, Message(4000), recordSize: 8192);
            Assert.That(body, Has.Length.GreaterThan(4096));
            byte[] destination = Enumerable.Repeat((byte)0xAA, body.Length).ToArray();
            var exception = Assert.Throws<ContentEncodingException>(() => WebPushEncryption.Decrypt(body, destination, key, auth))!;
            Assert.That(exception.Message, Does.Contain("4096"));
            Assert.That(destination, Is.All.EqualTo(0));
        }
    }

    [TestCase(0)]
    [TestCase(64)]
    [TestCase(66)]
    [TestCase(33)]
    public void AKeyIdThatIsNot65BytesIsRefused(int keyIdLength)
    {
        var (key, auth, _) = NewUserAgent();
        using (key)
        {
            byte[] keyId = new byte[keyIdLength];
            if (keyIdLength > 0)
            {
                keyId[0] = 0x04;
            }

            byte[] body = ContentEncryption.Encrypt("x"u8, new byte[32], new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 4096, KeyId = keyId });
            byte[] destination = Enumerable.Repeat((byte)0xAA, 4096).ToArray();
            var exception = Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(body, destination, key, auth))!;
            Assert.That(exception.Message, Does.Contain($"{keyIdLength} bytes").And.Contain("65"));
            Assert.That(destination, Is.All.EqualTo(0));
        }
    }

    [Test]
    public void AKeyIdThatIsNotAPointOnTheCurveIsRefused()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt("x"u8, subscription);
            body[86 - 1] ^= 1; // the last byte of Y: (X, Y') is off the curve (except with negligible chance)
            var exception = Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(body, key, auth))!;
            Assert.That(exception.Message, Does.Contain("not an uncompressed point on the P-256 curve"));

            body = WebPushEncryption.Encrypt("x"u8, subscription);
            body[21] = 0x03; // a compressed-point prefix is not the uncompressed form RFC 8291 requires
            Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(body, key, auth));
        }
    }

    [Test]
    public void ASubscriptionKeyThatIsNotAPointOnTheCurveIsRefused()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] p256dh = subscription.P256dh.ToArray();
            p256dh[64] ^= 1;
            var offCurve = Assert.Throws<ArgumentException>(() => new WebPushSubscriptionKeys(p256dh, auth))!;
            Assert.That(offCurve.ParamName, Is.EqualTo("p256dh"));
            Assert.That(offCurve.Message, Does.Contain("not a point on the P-256 curve"));

            Assert.That(Assert.Throws<ArgumentException>(() => new WebPushSubscriptionKeys(p256dh[..64], auth))!.Message, Does.Contain("64 bytes"));
            Assert.Throws<ArgumentException>(() => new WebPushSubscriptionKeys(new byte[65], auth));
            Assert.That(Assert.Throws<ArgumentException>(() => new WebPushSubscriptionKeys(subscription.P256dh.Span, new byte[15]))!.ParamName, Is.EqualTo("auth"));
            Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url("not base64url!", "AAAAAAAAAAAAAAAAAAAAAA"));
            Assert.Throws<ArgumentNullException>(() => WebPushSubscriptionKeys.FromBase64Url(null!, "AAAAAAAAAAAAAAAAAAAAAA"));
        }
    }

    [Test]
    public void TheWrongAuthSecretOrPrivateKeyFailsAuthenticationAndNothingIsReleased()
    {
        var (key, auth, subscription) = NewUserAgent();
        var (otherKey, otherAuth, _) = NewUserAgent();
        using (key)
        using (otherKey)
        {
            byte[] body = WebPushEncryption.Encrypt(Message(500), subscription);
            foreach (var (k, a, what) in new[] { (key, otherAuth, "auth secret"), (otherKey, auth, "private key") })
            {
                byte[] destination = Enumerable.Repeat((byte)0xAA, 600).ToArray();
                var exception = Assert.Throws<ContentEncodingCorruptedException>(() => WebPushEncryption.Decrypt(body, destination, k, a), what)!;
                Assert.That(exception.Message, Does.Contain("auth secret").And.Contain("failed authentication"), what);
                Assert.That(destination, Is.All.EqualTo(0), what);
            }
        }
    }

    [Test]
    public void ATamperedBodyFailsAuthentication()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt(Message(100), subscription);
            foreach (int at in new[] { 0, 15, 100, body.Length - 1 })
            {
                byte[] copy = (byte[])body.Clone();
                copy[at] ^= 0x80;
                Assert.Throws<ContentEncodingCorruptedException>(() => WebPushEncryption.Decrypt(copy, key, auth), $"byte {at}");
            }
        }
    }

    [Test]
    public void AMessageOfSeveralRecordsOrWithoutTheLastRecordDelimiterIsRefused()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            // RFC 8291 section 4: a single record; the delimiter must be 0x02.
            byte[] twoRecords = CustomBody(subscription, Message(100), recordSize: 64);
            Assert.That(Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(twoRecords, key, auth))!.Message, Does.Contain("single record"));

            byte[] notLast = CustomBody(subscription, Message(10), recordSize: 100, last: false);
            byte[] destination = Enumerable.Repeat((byte)0xAA, 200).ToArray();
            Assert.Throws<ContentEncodingTruncatedException>(() => WebPushEncryption.Decrypt(notLast, destination, key, auth));
            Assert.That(destination, Is.All.EqualTo(0));

            byte[] headerOnly = WebPushEncryption.Encrypt("x"u8, subscription)[..86];
            Assert.Throws<ContentEncodingTruncatedException>(() => WebPushEncryption.Decrypt(headerOnly, key, auth));
            Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(headerOnly[..40], key, auth));
        }
    }

    [Test]
    public void BadKeysForDecryptionAreArgumentErrors()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt("x"u8, subscription);
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, key, new byte[15]));
            Assert.Throws<ArgumentNullException>(() => WebPushEncryption.Decrypt(body, (ECDiffieHellman)null!, auth));
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, new byte[31], auth));
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, new byte[32], auth), "zero is not a valid scalar");
            using var p384 = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP384);
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, p384, auth));
            using var publicOnly = subscription.ImportPublicKey();
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, publicOnly, auth));
            Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, new byte[1], key, auth), "destination too short");
        }
    }

    [Test]
    public void TheContentSetsTheHeadersAPushServiceNeeds()
    {
        var (key, auth, subscription) = NewUserAgent();
        using (key)
        {
            using var content = new WebPushContent("hello"u8, subscription, TimeSpan.FromHours(1.5), paddingLength: 10)
            {
                Urgency = WebPushUrgency.High,
                Topic = "news_1-A",
            };
            Assert.Multiple(() =>
            {
                Assert.That(content.Headers.ContentEncoding, Is.EqualTo(new[] { "aes128gcm" }), "exactly one coding (RFC 8291 section 4)");
                Assert.That(content.Headers.GetValues("TTL"), Is.EqualTo(new[] { "5400" }));
                Assert.That(content.Headers.GetValues("Urgency"), Is.EqualTo(new[] { "high" }));
                Assert.That(content.Headers.GetValues("Topic"), Is.EqualTo(new[] { "news_1-A" }));
                Assert.That(content.Headers.ContentLength, Is.EqualTo(86 + 5 + 1 + 10 + 16));
                Assert.That(WebPushEncryption.Decrypt(content.Body.Span, key, auth), Is.EqualTo("hello"u8.ToArray()));
            });

            content.Urgency = WebPushUrgency.Normal;
            content.Topic = null;
            Assert.That(content.Headers.Contains("Urgency") || content.Headers.Contains("Topic"), Is.False);
            Assert.Throws<ArgumentException>(() => content.Topic = "has space");
            Assert.Throws<ArgumentException>(() => content.Topic = new string('a', 33));
            Assert.Throws<ArgumentOutOfRangeException>(() => content.Urgency = (WebPushUrgency)42);
            Assert.Throws<ArgumentOutOfRangeException>(() => new WebPushContent("x"u8, subscription, TimeSpan.FromSeconds(-1)).Dispose());
            Assert.Throws<ArgumentNullException>(() => new WebPushContent("x"u8, null!, TimeSpan.Zero).Dispose());
        }
    }
}
