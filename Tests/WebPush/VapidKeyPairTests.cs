// VapidKeyPair (issue 50, item 2): a VAPID key pair generated, exported as the two base64url strings
// Web Push stacks store (public: the 65-byte uncompressed point, the page's applicationServerKey;
// private: the 32-byte scalar), imported back, and checked: a public key that is not the private
// key's, a bad scalar and bad base64url are refused. The RFC 8291 example's application server key
// pair (Appendix A) is an outside vector for the format. Interop with npm web-push's own key strings:
// WebPushInteropTests.WebPushAcceptsTheKeyPairsMadeHereAndTheOtherWayRound.

using System;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class VapidKeyPairTests
{
    // RFC 8291 Appendix A, the application server's key pair (Tests/Vectors/rfc8291-example.json).
    private const string RfcPublicKey = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    private const string RfcPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";

    [Test]
    public void AGeneratedPairExportsAsTheStringsPushStacksStore()
    {
        using VapidKeyPair pair = VapidKeyPair.Generate();
        string privateKey = pair.ExportPrivateKey();
        byte[] point = Base64Url.DecodeFromChars(pair.PublicKey);
        Assert.Multiple(() =>
        {
            Assert.That(pair.PublicKey, Has.Length.EqualTo(87).And.Match("^[A-Za-z0-9_-]+$"));
            Assert.That(point, Has.Length.EqualTo(65));
            Assert.That(point[0], Is.EqualTo(0x04), "uncompressed point");
            Assert.That(privateKey, Has.Length.EqualTo(43).And.Match("^[A-Za-z0-9_-]+$"));
            Assert.That(Base64Url.DecodeFromChars(privateKey), Is.EqualTo(pair.Key.ExportParameters(true).D));
            Assert.That(pair.PublicKey, Is.EqualTo(VapidAuthorization.GetPublicKey(pair.Key)));
            // A subscription's p256dh is the same kind of value: the point is on the curve.
            Assert.That(() => new WebPushSubscriptionKeys(point, new byte[16]), Throws.Nothing);
        });

        using VapidKeyPair other = VapidKeyPair.Generate();
        Assert.That(other.PublicKey, Is.Not.EqualTo(pair.PublicKey));
    }

    [Test]
    public void AnExportedPairImportsBackAndSignsForTheSamePublicKey()
    {
        using VapidKeyPair pair = VapidKeyPair.Generate();
        using VapidKeyPair back = VapidKeyPair.FromBase64Url(pair.PublicKey, pair.ExportPrivateKey());
        Assert.That(back.PublicKey, Is.EqualTo(pair.PublicKey));
        Assert.That(back.ExportPrivateKey(), Is.EqualTo(pair.ExportPrivateKey()));

        var endpoint = new Uri("https://push.example.net/push/abc");
        (string token, byte[] k) = VapidTests.Parse(back.CreateAuthorization(endpoint, "mailto:ops@example.com"));
        Assert.That(Base64Url.EncodeToString(k), Is.EqualTo(pair.PublicKey));
        string[] parts = token.Split('.');
        Assert.That(pair.Key.VerifyData(Encoding.ASCII.GetBytes(parts[0] + "." + parts[1]), Base64Url.DecodeFromChars(parts[2]), HashAlgorithmName.SHA256), Is.True);
    }

    [Test]
    public void TheRfc8291ExampleKeyPairImports()
    {
        using VapidKeyPair pair = VapidKeyPair.FromBase64Url(RfcPublicKey, RfcPrivateKey);
        Assert.That(pair.PublicKey, Is.EqualTo(RfcPublicKey));
        Assert.That(pair.ExportPrivateKey(), Is.EqualTo(RfcPrivateKey));

        // With RFC 4648 padding, as some stores keep it.
        using VapidKeyPair padded = VapidKeyPair.FromBase64Url(RfcPublicKey + "=", RfcPrivateKey + "=");
        Assert.That(padded.PublicKey, Is.EqualTo(RfcPublicKey));
    }

    [Test]
    public void APublicKeyThatIsNotThePrivateKeysIsRefused()
    {
        using VapidKeyPair other = VapidKeyPair.Generate();
        Assert.That(() => VapidKeyPair.FromBase64Url(other.PublicKey, RfcPrivateKey),
            Throws.ArgumentException.With.Property("ParamName").EqualTo("publicKey").And.Message.Contains("not the public key"));

        // A public key of the right length whose point differs in one bit.
        byte[] point = Base64Url.DecodeFromChars(RfcPublicKey);
        point[64] ^= 1;
        Assert.That(() => VapidKeyPair.FromBase64Url(Base64Url.EncodeToString(point), RfcPrivateKey),
            Throws.ArgumentException.With.Property("ParamName").EqualTo("publicKey"));
    }

    [TestCase("", "privateKey")]
    [TestCase("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "privateKey")]                 // d = 0
    [TestCase("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB", "privateKey")]                // 33 bytes
    [TestCase("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oR", "privateKey")]                // 31 bytes
    [TestCase("yfWPiYE+n46HLnH0KqZOF1fJJU3MYrct3AELtAQ+oRw", "privateKey")]               // base64, not base64url
    [TestCase(" yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw", "privateKey")]              // whitespace
    public void ABadPrivateKeyIsRefusedNamingIt(string privateKey, string parameter)
    {
        Assert.That(() => VapidKeyPair.FromBase64Url(RfcPublicKey, privateKey),
            Throws.ArgumentException.With.Property("ParamName").EqualTo(parameter));
    }

    [Test]
    public void BadArgumentsAreRefused()
    {
        Assert.Multiple(() =>
        {
            Assert.That(() => VapidKeyPair.FromBase64Url(null!, RfcPrivateKey), Throws.ArgumentNullException);
            Assert.That(() => VapidKeyPair.FromBase64Url(RfcPublicKey, null!), Throws.ArgumentNullException);
            Assert.That(() => VapidKeyPair.FromBase64Url(RfcPublicKey + "!", RfcPrivateKey), Throws.ArgumentException.With.Property("ParamName").EqualTo("publicKey"));
        });
    }

    [Test]
    public void AfterDisposeEveryUseOfTheKeyThrows()
    {
        VapidKeyPair pair = VapidKeyPair.Generate();
        string publicKey = pair.PublicKey;
        pair.Dispose();
        pair.Dispose();
        Assert.Multiple(() =>
        {
            Assert.That(pair.PublicKey, Is.EqualTo(publicKey), "the public key is public: it stays readable");
            Assert.That(() => pair.Key, Throws.TypeOf<ObjectDisposedException>());
            Assert.That(() => pair.ExportPrivateKey(), Throws.TypeOf<ObjectDisposedException>());
            Assert.That(() => pair.CreateAuthorization(new Uri("https://push.example.net/x"), "mailto:ops@example.com"), Throws.TypeOf<ObjectDisposedException>());
        });
    }
}
