// RFC 8291's worked example (section 5 and Appendix A), byte for byte, with every intermediate
// value the RFC prints checked where this library computes it, so a failure says which step is
// wrong: ECDH, PRK_key, key_info, IKM, PRK, CEK and NONCE (with their info strings), header,
// ciphertext, and the whole body; then the body opened as the user agent does.

using System;
using System.Buffers.Text;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class Rfc8291Tests
{
    private static readonly JsonElement Example = LoadExample();

    private static byte[] V(string name) => Base64Url.DecodeFromChars(Example.GetProperty(name).GetString());

    private static JsonElement LoadExample()
    {
        using Stream stream = typeof(Rfc8291Tests).Assembly.GetManifestResourceStream("Vectors.rfc8291-example.json")
            ?? throw new FileNotFoundException("Embedded test vectors not found: rfc8291-example.json");
        using JsonDocument document = JsonDocument.Parse(stream);
        return document.RootElement.Clone();
    }

    [Test]
    public void TheKeyPairsOfTheExampleAreTheOnesItPrints()
    {
        using ECDiffieHellman applicationServer = WebPushEncryption.ImportPrivateKey(V("asPrivate"));
        using ECDiffieHellman userAgent = WebPushEncryption.ImportPrivateKey(V("uaPrivate"));
        Assert.Multiple(() =>
        {
            Assert.That(WebPushSubscriptionKeys.FromKey(applicationServer, V("authSecret")).P256dh.ToArray(), Is.EqualTo(V("asPublic")), "as_public");
            Assert.That(WebPushSubscriptionKeys.FromKey(userAgent, V("authSecret")).P256dh.ToArray(), Is.EqualTo(V("uaPublic")), "ua_public");
        });
    }

    [Test]
    public void EveryIntermediateValueMatches()
    {
        using ECDiffieHellman applicationServer = WebPushEncryption.ImportPrivateKey(V("asPrivate"));
        using ECDiffieHellman userAgentPublic = new WebPushSubscriptionKeys(V("uaPublic"), V("authSecret")).ImportPublicKey();
        byte[] ecdhSecret = applicationServer.DeriveRawSecretAgreement(userAgentPublic.PublicKey);

        byte[] prkKey = new byte[32];
        WebPushEncryption.ExtractAuthenticationKey(ecdhSecret, V("authSecret"), prkKey);
        byte[] keyInfo = new byte[WebPushEncryption.KeyInfoLength];
        WebPushEncryption.WriteKeyInfo(V("uaPublic"), V("asPublic"), keyInfo);
        byte[] ikm = new byte[32];
        WebPushEncryption.DeriveInputKeyingMaterial(ecdhSecret, V("authSecret"), V("uaPublic"), V("asPublic"), ikm);

        // RFC 8188's schedule, as the record layer runs it: PRK is its HKDF-Extract; CEK and NONCE its outputs.
        byte[] prk = HKDF.Extract(HashAlgorithmName.SHA256, ikm, V("salt"));
        byte[] cek = new byte[16], nonce = new byte[12];
        RecordCipher.DeriveKeys(ContentCoding.Aes128Gcm, ikm, V("salt"), cek, nonce);

        Assert.Multiple(() =>
        {
            Assert.That(ecdhSecret, Is.EqualTo(V("ecdhSecret")), "ecdh_secret");
            Assert.That(prkKey, Is.EqualTo(V("prkKey")), "PRK_key");
            Assert.That(keyInfo, Is.EqualTo(V("keyInfo")), "key_info");
            Assert.That(ikm, Is.EqualTo(V("ikm")), "IKM");
            Assert.That(prk, Is.EqualTo(V("prk")), "PRK");
            Assert.That(ContentCodingInfo.Of(ContentCoding.Aes128Gcm).KeyInfo.ToArray(), Is.EqualTo(V("cekInfo")), "cek_info");
            Assert.That(cek, Is.EqualTo(V("cek")), "CEK");
            Assert.That(ContentCodingInfo.Of(ContentCoding.Aes128Gcm).NonceInfo.ToArray(), Is.EqualTo(V("nonceInfo")), "nonce_info");
            Assert.That(nonce, Is.EqualTo(V("nonce")), "NONCE");
        });
    }

    [Test]
    public void EncryptingTheExampleGivesItsBodyByteForByte()
    {
        using ECDiffieHellman applicationServer = WebPushEncryption.ImportPrivateKey(V("asPrivate"));
        var subscription = new WebPushSubscriptionKeys(V("uaPublic"), V("authSecret"));
        byte[] body = new byte[WebPushEncryption.GetEncryptedLength(V("plaintext").Length)];
        int written = WebPushEncryption.Encrypt(V("plaintext"), subscription, 0, applicationServer, V("salt"), body);

        Assert.Multiple(() =>
        {
            Assert.That(Encoding.ASCII.GetString(V("plaintext")), Is.EqualTo("When I grow up, I want to be a watermelon"));
            Assert.That(written, Is.EqualTo(body.Length));
            Assert.That(body[..WebPushEncryption.HeaderSize], Is.EqualTo(V("header")), "header");
            Assert.That(body[WebPushEncryption.HeaderSize..], Is.EqualTo(V("ciphertext")), "ciphertext");
            Assert.That(body, Is.EqualTo(V("body")), "section 5 body");
        });
    }

    [Test]
    public void TheUserAgentOpensTheExampleBody()
    {
        using ECDiffieHellman userAgent = WebPushEncryption.ImportPrivateKey(V("uaPrivate"));
        Assert.That(WebPushEncryption.Decrypt(V("body"), userAgent, V("authSecret")), Is.EqualTo(V("plaintext")));
        Assert.That(WebPushEncryption.Decrypt(V("body"), V("uaPrivate"), V("authSecret")), Is.EqualTo(V("plaintext")));
    }

    [Test]
    public void TheExampleSubscriptionParsesFromTheBase64UrlStringsABrowserGives()
    {
        var keys = WebPushSubscriptionKeys.FromBase64Url(Example.GetProperty("uaPublic").GetString()!, Example.GetProperty("authSecret").GetString()!);
        Assert.Multiple(() =>
        {
            Assert.That(keys.P256dh.ToArray(), Is.EqualTo(V("uaPublic")));
            Assert.That(keys.Auth.ToArray(), Is.EqualTo(V("authSecret")));
            Assert.That(keys.GetP256dhBase64Url(), Is.EqualTo(Example.GetProperty("uaPublic").GetString()));
            Assert.That(keys.GetAuthBase64Url(), Is.EqualTo(Example.GetProperty("authSecret").GetString()));
        });
    }

    [Test]
    public void ThePushRequestContentCarriesTheExampleHeaders()
    {
        // Section 5's request: TTL: 10, Content-Encoding: aes128gcm, and the body's length.
        var subscription = new WebPushSubscriptionKeys(V("uaPublic"), V("authSecret"));
        using var content = new WebPushContent(V("plaintext"), subscription, TimeSpan.FromSeconds(Example.GetProperty("ttl").GetInt32()));
        Assert.Multiple(() =>
        {
            Assert.That(content.Headers.ContentEncoding, Is.EqualTo(new[] { "aes128gcm" }));
            Assert.That(content.Headers.GetValues("TTL"), Is.EqualTo(new[] { "10" }));
            Assert.That(content.Headers.ContentLength, Is.EqualTo(V("body").Length));
            Assert.That(content.Headers.ContentType!.MediaType, Is.EqualTo("application/octet-stream"));
        });
    }
}
