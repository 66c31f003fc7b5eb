// Two defects a review found (issue 31, defects 4 and 5), each pinned so it stays fixed:
// - the VAPID token's audience is the endpoint's origin (RFC 8292 section 2: scheme, host and port,
//   RFC 6454), so userinfo in the endpoint (user:secret@) is not copied into every push request;

using System;
using System.Buffers.Text;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text.Json;
using Cryptography;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class EncodingStrictnessTests
{
    private static readonly DateTimeOffset Now = new(2025, 1, 2, 3, 4, 5, TimeSpan.Zero);

    private static string Audience(string endpoint)
    {
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        AuthenticationHeaderValue header = VapidAuthorization.Create(new Uri(endpoint), "mailto:ops@example.com", key, null, Now);
        (string token, _) = VapidTests.Parse(header);
        using JsonDocument claims = JsonDocument.Parse(Base64Url.DecodeFromChars(token.Split('.')[1]));
        return claims.RootElement.GetProperty("aud").GetString()!;
    }

    [TestCase("https://user:secret@push.example.net/x", "https://push.example.net")]
    [TestCase("https://user@push.example.net:8443/x?y=1#z", "https://push.example.net:8443")]
    [TestCase("https://PUSH.Example.NET:443/x", "https://push.example.net")]
    [TestCase("http://user:pw@[::1]:8080/x", "http://[::1]:8080")]
    public void TheAudienceIsTheOriginWithoutUserinfo(string endpoint, string origin)
    {
        string audience = Audience(endpoint);
        Assert.That(audience, Is.EqualTo(origin));
        Assert.That(audience, Does.Not.Contain("@").And.Not.Contain("secret"));
    }
}
