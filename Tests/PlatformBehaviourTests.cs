// What this library takes from the .NET runtime it runs on, pinned (issue 35). The package targets
// net10.0 and users run it on .NET 11 by rolling forward; .NET 11 already changed one thing the library
// relied on (ECDsa.Create / ECDiffieHellman.Create no longer validate a private key eagerly: see
// Tests/WebPush/KeyValidationTests). Each test here states one platform behaviour the library's code
// or documentation depends on, so that a runtime which changes it fails here, by name, on the CI leg
// that runs it (.ci/net11 runs this suite on .NET 11.0.0; `dotnet test` on .NET 10).

using System;
using System.Net.Http;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class PlatformBehaviourTests
{
    [Test]
    public void TheRuntimeIsNamed()
    {
        // .ci/net11 greps this line to prove its legs ran on .NET 11, not the SDK's runtime.
        TestContext.Out.WriteLine($"Runtime: {RuntimeInformation.FrameworkDescription} ({Environment.Version}), {RuntimeInformation.RuntimeIdentifier}");
        Assert.That(Environment.Version.Major, Is.GreaterThanOrEqualTo(10));
    }

    [Test]
    public void AesGcmTakesTwelveByteNoncesAndTagsOfTwelveToSixteenBytes()
    {
        // GuardedAesGcm forwards these, and its guard keys the history on a 12-byte nonce and keeps
        // tag copies of at most 16 bytes (IGuardedAead.NonceSize, MaxTagSize).
        Assert.Multiple(() =>
        {
            Assert.That((AesGcm.NonceByteSizes.MinSize, AesGcm.NonceByteSizes.MaxSize), Is.EqualTo((12, 12)));
            Assert.That((AesGcm.TagByteSizes.MinSize, AesGcm.TagByteSizes.MaxSize, AesGcm.TagByteSizes.SkipSize), Is.EqualTo((12, 16, 1)));
            Assert.That(GuardedAesGcm.TagByteSizes.MaxSize, Is.EqualTo(16));
        });
        using var aead = new AesGcm(new byte[16], tagSizeInBytes: 16);
        byte[] data = new byte[5];
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[12], data, data, new byte[17]), "a 17-byte tag");
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[16], data, data, new byte[16]), "a 16-byte nonce");
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[8], data, data, new byte[16]), "an 8-byte nonce");
    }

    [Test]
    public void ChaCha20Poly1305TakesTwelveByteNoncesAndSixteenByteTags()
    {
        Assume.That(ChaCha20Poly1305.IsSupported, Is.True, "ChaCha20Poly1305 is not supported here");
        // The type exposes no size properties: the sizes are what it accepts.
        using var aead = new ChaCha20Poly1305(new byte[32]);
        byte[] data = new byte[5];
        aead.Encrypt(new byte[12], data, data, new byte[16]);
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[12], data, data, new byte[12]), "a 12-byte tag");
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[12], data, data, new byte[17]), "a 17-byte tag");
        Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[24], data, data, new byte[16]), "a 24-byte (XChaCha) nonce");
    }

    [Test]
    public void AFailedDecryptionIsAnAuthenticationTagMismatchException()
    {
        // The guards' and the record layer's docs promise this type; it derives from CryptographicException.
        using var aead = new AesGcm(new byte[16], tagSizeInBytes: 16);
        byte[] data = new byte[5];
        var exception = Assert.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(new byte[12], data, new byte[16], data));
        Assert.That(exception, Is.InstanceOf<CryptographicException>());
    }

    [Test]
    public void HkdfComputesRfc5869TestCase1()
    {
        // RFC 8291 section 3.3 and RFC 8188 section 2.2 are HKDF-SHA-256 through System.Security.Cryptography.HKDF.
        byte[] ikm = Convert.FromHexString("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
        byte[] salt = Convert.FromHexString("000102030405060708090a0b0c");
        byte[] info = Convert.FromHexString("f0f1f2f3f4f5f6f7f8f9");
        byte[] prk = new byte[32];
        HKDF.Extract(HashAlgorithmName.SHA256, ikm, salt, prk);
        byte[] okm = new byte[42];
        HKDF.Expand(HashAlgorithmName.SHA256, prk, okm, info);
        Assert.Multiple(() =>
        {
            Assert.That(Convert.ToHexStringLower(prk), Is.EqualTo("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"));
            Assert.That(Convert.ToHexStringLower(okm), Is.EqualTo("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"));
        });
    }

    [Test]
    public void AnEcdhKeyWithoutItsPrivatePartCannotAgreeAndDecryptNamesIt()
    {
        // WebPushEncryption.Decrypt documents ArgumentException for a key without its private part; it
        // relies on DeriveRawSecretAgreement throwing CryptographicException for such a key.
        using var full = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        using var publicOnly = ECDiffieHellman.Create(full.ExportParameters(includePrivateParameters: false));
        using var peer = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        Assert.Throws(Is.InstanceOf<CryptographicException>(), () => publicOnly.DeriveRawSecretAgreement(peer.PublicKey));

        byte[] auth = new byte[16];
        byte[] body = WebPushEncryption.Encrypt("x"u8, WebPushSubscriptionKeys.FromKey(full, auth));
        Assert.That(Assert.Throws<ArgumentException>(() => WebPushEncryption.Decrypt(body, publicOnly, auth))!.ParamName, Is.EqualTo("userAgentKey"));
    }

    [Test]
    public void AnEcdsaKeyWithoutItsPrivatePartCannotSignAndVapidNamesIt()
    {
        // VapidAuthorization.Create documents ArgumentException for a key without its private part; it
        // relies on SignData throwing CryptographicException for such a key. And a key on another curve
        // is named too (ExportParameters gives its curve).
        using var full = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        using var publicOnly = ECDsa.Create(full.ExportParameters(includePrivateParameters: false));
        Assert.Throws(Is.InstanceOf<CryptographicException>(), () => publicOnly.SignData(new byte[1], HashAlgorithmName.SHA256));
        var endpoint = new Uri("https://push.example.net/1");
        Assert.That(Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", publicOnly))!.ParamName, Is.EqualTo("applicationServerKey"));
        using var p384 = ECDsa.Create(ECCurve.NamedCurves.nistP384);
        Assert.That(Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", p384))!.ParamName, Is.EqualTo("applicationServerKey"));
    }

    [Test]
    public void ContentHeadersTakeThePushHeadersAsWebPushContentSetsThem()
    {
        // WebPushContent sets TTL, Urgency and Topic with TryAddWithoutValidation on the content's headers
        // and Content-Encoding through the typed collection; HttpClient must send them as set.
        using var content = new ByteArrayContent([]);
        Assert.Multiple(() =>
        {
            Assert.That(content.Headers.TryAddWithoutValidation("TTL", "60"), Is.True);
            Assert.That(content.Headers.TryAddWithoutValidation("Urgency", "high"), Is.True);
            Assert.That(content.Headers.TryAddWithoutValidation("Topic", "news_1-A"), Is.True);
        });
        content.Headers.ContentEncoding.Add("aes128gcm");
        Assert.Multiple(() =>
        {
            Assert.That(content.Headers.GetValues("TTL"), Is.EqualTo(new[] { "60" }));
            Assert.That(content.Headers.GetValues("Topic"), Is.EqualTo(new[] { "news_1-A" }));
            Assert.That(content.Headers.ToString(), Does.Contain("Content-Encoding: aes128gcm"));
        });
    }
}
