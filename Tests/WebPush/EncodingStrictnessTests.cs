// Two defects a review found (issue 31, defects 4 and 5), each pinned so it stays fixed:
// - the VAPID token's audience is the endpoint's origin (RFC 8292 section 2: scheme, host and port,
//   RFC 6454), so userinfo in the endpoint (user:secret@) is not copied into every push request,
//   and (issue 47, item 2) an internationalised host is in its ASCII form, as browsers give it;
// - the subscription's base64url values are read strictly: unpadded base64url (as
//   PushSubscription.toJSON() gives them) or with exactly the padding RFC 4648 section 4 would add,
//   and nothing else: no extra '=', no whitespace inside, no bits past the last byte.

using System;
using System.Buffers.Text;
using System.Linq;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text.Json;
using Cryptography;
using Cryptography.WebPush;
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

    // An internationalised host goes in its ASCII form (IDNA: lower case, then punycode per label), as
    // browsers' new URL(endpoint).origin and the npm web-push package give it, which is what a push
    // service compares the token's aud with (issue 47, item 2: it was sent in Unicode).
    // WebPushInteropTests asks node for the same origins.
    [TestCase("https://user:secret@push.example.net/x", "https://push.example.net")]
    [TestCase("https://user@push.example.net:8443/x?y=1#z", "https://push.example.net:8443")]
    [TestCase("https://PUSH.Example.NET:443/x", "https://push.example.net")]
    [TestCase("http://user:pw@[::1]:8080/x", "http://[::1]:8080")]
    [TestCase("https://bücher.example/push/1", "https://xn--bcher-kva.example")]
    [TestCase("https://BÜCHER.Example:8443/push/1?x=1", "https://xn--bcher-kva.example:8443")]
    [TestCase("https://user:secret@push.münchen.example:443/x", "https://push.xn--mnchen-3ya.example")]
    [TestCase("http://例え.テスト:8080/x", "http://xn--r8jz45g.xn--zckzah:8080")]
    [TestCase("https://xn--bcher-kva.example/x", "https://xn--bcher-kva.example")]
    public void TheAudienceIsTheAsciiOriginWithoutUserinfo(string endpoint, string origin)
    {
        string audience = Audience(endpoint);
        Assert.That(audience, Is.EqualTo(origin));
        Assert.That(audience, Does.Not.Contain("@").And.Not.Contain("secret"));
        Assert.That(audience.All(char.IsAscii), Is.True, audience);
    }

    private static readonly string P256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    private static readonly string Auth = "BTBZMqHH6r4Tts7J_aSIgg";

    [Test]
    public void UnpaddedAndCorrectlyPaddedValuesAreAccepted()
    {
        var unpadded = WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth);
        var padded = WebPushSubscriptionKeys.FromBase64Url(P256dh + "=", Auth + "==");
        Assert.Multiple(() =>
        {
            Assert.That(unpadded.GetP256dhBase64Url(), Is.EqualTo(P256dh));
            Assert.That(unpadded.GetAuthBase64Url(), Is.EqualTo(Auth));
            Assert.That(padded.P256dh.ToArray(), Is.EqualTo(unpadded.P256dh.ToArray()));
            Assert.That(padded.Auth.ToArray(), Is.EqualTo(unpadded.Auth.ToArray()));
        });
    }

    [TestCase("=====", "", TestName = "p256dh with five '='")]
    [TestCase("==", "", TestName = "p256dh with two '=' where one belongs")]
    [TestCase("", "=", TestName = "auth with one '=' where two belong")]
    [TestCase("", "===", TestName = "auth with three '='")]
    [TestCase(" ", "", TestName = "p256dh with a trailing space")]
    [TestCase("", "\n", TestName = "auth with a trailing newline")]
    public void WrongPaddingOrTrailingWhitespaceIsRefused(string p256dhSuffix, string authSuffix)
    {
        string name = p256dhSuffix.Length > 0 ? "p256dh" : "auth";
        var exception = Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh + p256dhSuffix, Auth + authSuffix))!;
        Assert.That(exception.ParamName, Is.EqualTo(name));
        Assert.That(exception.Message, Does.Contain($"The {name} value is not valid base64url"));
    }

    [TestCase(" ")]
    [TestCase("\t")]
    [TestCase("\n")]
    [TestCase("\r\n")]
    public void WhitespaceInsideAValueIsRefused(string whitespace)
    {
        Assert.Multiple(() =>
        {
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh[..40] + whitespace + P256dh[40..], Auth))!.ParamName, Is.EqualTo("p256dh"));
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth[..8] + whitespace + Auth[8..]))!.ParamName, Is.EqualTo("auth"));
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(whitespace + P256dh, Auth))!.ParamName, Is.EqualTo("p256dh"));
        });
    }

    [Test]
    public void OtherAlphabetsAndImpossibleLengthsAreRefused()
    {
        Assert.Multiple(() =>
        {
            // Standard base64's '+' and '/' are not base64url.
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh.Replace('-', '+'), Auth))!.ParamName, Is.EqualTo("p256dh"));
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth.Replace('_', '/')))!.ParamName, Is.EqualTo("auth"));
            // 23 characters: a length no encoding has (4k + 1).
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth + "A"))!.ParamName, Is.EqualTo("auth"));
            // '=' in the middle.
            Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth[..10] + "=" + Auth[11..]))!.ParamName, Is.EqualTo("auth"));
        });
    }

    [Test]
    public void BitsPastTheLastByteAreRefused()
    {
        // 16 bytes are 22 characters whose last carries 2 data bits and 4 that must be zero:
        // 'g' (32) is canonical here, 'h' (33) sets one of the four, and decodes to the same bytes
        // in a lax decoder; so would a 65-byte p256dh (87 characters, 2 spare bits) ending in '5' instead of '4'.
        Assert.That(Auth[^1], Is.EqualTo('g'));
        Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth[..^1] + "h"))!.ParamName, Is.EqualTo("auth"));
        Assert.That(P256dh[^1], Is.EqualTo('4'));
        Assert.That(Assert.Throws<ArgumentException>(() => WebPushSubscriptionKeys.FromBase64Url(P256dh[..^1] + "5", Auth))!.ParamName, Is.EqualTo("p256dh"));
    }
}
