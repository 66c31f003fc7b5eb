// RFC 8292 VAPID: the Authorization header's shape, its JWT's header and claims (audience = the
// endpoint's origin, expiry within 24 hours, subject), and its ES256 signature verified with the
// public key the header carries; plus the argument checks.

using System;
using System.Buffers.Text;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Cryptography;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class VapidTests
{
    private static readonly DateTimeOffset Now = new(2025, 1, 2, 3, 4, 5, TimeSpan.Zero);

    internal static (string Token, byte[] PublicKey) Parse(AuthenticationHeaderValue header)
    {
        Assert.That(header.Scheme, Is.EqualTo("vapid"));
        Match match = Regex.Match(header.Parameter!, "^t=([A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$");
        Assert.That(match.Success, Is.True, header.Parameter);
        return (match.Groups[1].Value, Base64Url.DecodeFromChars(match.Groups[2].Value));
    }

    [Test]
    public void TheTokenIsAnEs256JwtForTheEndpointsOriginSignedByTheKeyInK()
    {
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        AuthenticationHeaderValue header = VapidAuthorization.Create(new Uri("https://push.example.net:8443/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV"), "mailto:ops@example.com", key, TimeSpan.FromHours(2), Now);
        (string token, byte[] publicKey) = Parse(header);
        string[] parts = token.Split('.');

        using JsonDocument jwtHeader = JsonDocument.Parse(Base64Url.DecodeFromChars(parts[0]));
        using JsonDocument claims = JsonDocument.Parse(Base64Url.DecodeFromChars(parts[1]));
        using ECDsa verifier = ECDsa.Create(new ECParameters
        {
            Curve = ECCurve.NamedCurves.nistP256,
            Q = new ECPoint { X = publicKey[1..33], Y = publicKey[33..] },
        });
        Assert.Multiple(() =>
        {
            Assert.That(jwtHeader.RootElement.GetProperty("alg").GetString(), Is.EqualTo("ES256"));
            Assert.That(jwtHeader.RootElement.GetProperty("typ").GetString(), Is.EqualTo("JWT"));
            Assert.That(claims.RootElement.GetProperty("aud").GetString(), Is.EqualTo("https://push.example.net:8443"));
            Assert.That(claims.RootElement.GetProperty("exp").GetInt64(), Is.EqualTo(Now.AddHours(2).ToUnixTimeSeconds()));
            Assert.That(claims.RootElement.GetProperty("sub").GetString(), Is.EqualTo("mailto:ops@example.com"));
            Assert.That(publicKey, Has.Length.EqualTo(65));
            Assert.That(Base64Url.EncodeToString(publicKey), Is.EqualTo(VapidAuthorization.GetPublicKey(key)));
            Assert.That(verifier.VerifyData(Encoding.ASCII.GetBytes(parts[0] + "." + parts[1]), Base64Url.DecodeFromChars(parts[2]), HashAlgorithmName.SHA256), Is.True);
            Assert.That(verifier.VerifyData(Encoding.ASCII.GetBytes(parts[0] + "." + parts[1] + "x"), Base64Url.DecodeFromChars(parts[2]), HashAlgorithmName.SHA256), Is.False);
        });
    }

    [Test]
    public void TheDefaultOriginDropsTheDefaultPortAndTheValidityIsTwelveHours()
    {
        using ECDsa key = VapidAuthorization.ImportPrivateKey(Base64Url.DecodeFromChars("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"));
        (string token, _) = Parse(VapidAuthorization.Create(new Uri("https://fcm.googleapis.com/fcm/send/abc?x=1"), "https://example.com/contact", key, null, Now));
        using JsonDocument claims = JsonDocument.Parse(Base64Url.DecodeFromChars(token.Split('.')[1]));
        Assert.That(claims.RootElement.GetProperty("aud").GetString(), Is.EqualTo("https://fcm.googleapis.com"));
        Assert.That(claims.RootElement.GetProperty("exp").GetInt64(), Is.EqualTo(Now.AddHours(12).ToUnixTimeSeconds()));
        Assert.That(VapidAuthorization.GetPublicKey(key), Is.EqualTo("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"));
    }

    [Test]
    public void BadArgumentsAreRefused()
    {
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var endpoint = new Uri("https://push.example.net/push/1");
        Assert.Throws<ArgumentOutOfRangeException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", key, TimeSpan.FromHours(24.01)));
        Assert.Throws<ArgumentOutOfRangeException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", key, TimeSpan.Zero));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "a@example.com", key));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "http://example.com", key));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(new Uri("/push/1", UriKind.Relative), "mailto:a@example.com", key));
        Assert.Throws<ArgumentNullException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", null!));
        using ECDsa p384 = ECDsa.Create(ECCurve.NamedCurves.nistP384);
        Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", p384));
        using ECDsa publicOnly = ECDsa.Create(key.ExportParameters(false));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.Create(endpoint, "mailto:a@example.com", publicOnly));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.ImportPrivateKey(new byte[31]));
        Assert.Throws<ArgumentException>(() => VapidAuthorization.ImportPrivateKey(new byte[32]));
        Assert.That(VapidAuthorization.Create(endpoint, "mailto:a@example.com", key, VapidAuthorization.MaxValidity).Scheme, Is.EqualTo("vapid"));
    }
}
