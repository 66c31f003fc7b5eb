// PushSubscription (issue 50, item 2): the browser's PushSubscription.toJSON() read and written with
// System.Text.Json (JsonSerializer with reflection and with the source generator, Parse and ToJson),
// fed to the Web Push APIs; every malformed subscription refused as a JsonException that says why;
// an ASP.NET Core minimal API endpoint (Kestrel on 127.0.0.1) binds it from the request body as
// docs/web-push.md shows, and answers 400 to a malformed one.

using System;
using System.Buffers.Text;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading.Tasks;
using Cryptography.WebPush;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class PushSubscriptionTests
{
    // The RFC 8291 example's user agent keys, in a subscription as Chrome's toJSON() writes it.
    private const string P256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    private const string Auth = "BTBZMqHH6r4Tts7J_aSIgg";
    private const string Endpoint = "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH?x=1&y=2";
    private const string BrowserJson = "{\"endpoint\":\"" + Endpoint + "\",\"expirationTime\":null,\"keys\":{\"p256dh\":\"" + P256dh + "\",\"auth\":\"" + Auth + "\"}}";

    public sealed record Registration(string User, PushSubscription Subscription);

    [Test]
    public void TheBrowsersJsonParsesEveryWay()
    {
        PushSubscription parsed = PushSubscription.Parse(BrowserJson);
        PushSubscription fromBytes = PushSubscription.Parse(System.Text.Encoding.UTF8.GetBytes(BrowserJson));
        PushSubscription deserialized = JsonSerializer.Deserialize<PushSubscription>(BrowserJson)!;
        PushSubscription generated = JsonSerializer.Deserialize(BrowserJson, SubscriptionJsonContext.Default.PushSubscription)!;
        Registration nested = JsonSerializer.Deserialize<Registration>("{\"User\":\"ann\",\"Subscription\":" + BrowserJson + "}")!;
        Assert.Multiple(() =>
        {
            foreach (PushSubscription subscription in new[] { parsed, fromBytes, deserialized, generated, nested.Subscription })
            {
                Assert.That(subscription.Endpoint.OriginalString, Is.EqualTo(Endpoint));
                Assert.That(subscription.ExpirationTime, Is.Null);
                Assert.That(subscription.Keys.GetP256dhBase64Url(), Is.EqualTo(P256dh));
                Assert.That(subscription.Keys.GetAuthBase64Url(), Is.EqualTo(Auth));
            }
        });
    }

    [Test]
    public void ItWritesWhatTheBrowserWrites()
    {
        PushSubscription subscription = PushSubscription.Parse(BrowserJson);
        Assert.Multiple(() =>
        {
            Assert.That(subscription.ToJson(), Is.EqualTo(BrowserJson.Replace("&", "\\u0026", StringComparison.Ordinal)));
            Assert.That(JsonSerializer.Serialize(subscription), Is.EqualTo(subscription.ToJson()));
            Assert.That(JsonSerializer.Serialize(subscription, SubscriptionJsonContext.Default.PushSubscription), Is.EqualTo(subscription.ToJson()));
            Assert.That(PushSubscription.Parse(subscription.ToJson()).ToJson(), Is.EqualTo(subscription.ToJson()));
        });
    }

    [Test]
    public void ExpirationTimeIsMillisecondsSince1970()
    {
        string json = BrowserJson.Replace("null", "1767225600000.75", StringComparison.Ordinal);
        PushSubscription subscription = PushSubscription.Parse(json);
        Assert.That(subscription.ExpirationTime, Is.EqualTo(new DateTimeOffset(2026, 1, 1, 0, 0, 0, TimeSpan.Zero)));
        Assert.That(subscription.ToJson(), Does.Contain("\"expirationTime\":1767225600000,"));
    }

    [Test]
    public void MembersItDoesNotKnowAreIgnoredAndPaddingIsAccepted()
    {
        string json = "{\"future\":[1,{\"a\":2}],\"keys\":{\"extra\":true,\"auth\":\"" + Auth + "==\",\"p256dh\":\"" + P256dh + "\"},\"endpoint\":\"" + Endpoint + "\"}";
        PushSubscription subscription = PushSubscription.Parse(json);
        Assert.That(subscription.Keys.GetAuthBase64Url(), Is.EqualTo(Auth));
        Assert.That(subscription.ExpirationTime, Is.Null);
    }

    [Test]
    public async Task ASubscriptionFeedsWebPushContentAndVapid()
    {
        // The user agent's side: a key pair and auth secret, published as toJSON() would.
        using var userAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        var published = new PushSubscription(new Uri("https://push.example.net/push/42"), WebPushSubscriptionKeys.FromKey(userAgent, RandomNumberGenerator.GetBytes(16)));
        string json = published.ToJson();

        // The application server's side, as docs/web-push.md writes it.
        PushSubscription subscription = PushSubscription.Parse(json);
        using VapidKeyPair vapid = VapidKeyPair.Generate();
        using var request = new HttpRequestMessage(HttpMethod.Post, subscription.Endpoint)
        {
            Content = new WebPushContent("hello"u8, subscription.Keys, timeToLive: TimeSpan.FromMinutes(5)),
        };
        request.Headers.Authorization = vapid.CreateAuthorization(subscription.Endpoint, "mailto:ops@example.com");

        byte[] body = await request.Content.ReadAsByteArrayAsync();
        Assert.That(WebPushEncryption.Decrypt(body, userAgent, published.Keys.Auth.Span), Is.EqualTo("hello"u8.ToArray()));
        (_, byte[] k) = VapidTests.Parse(request.Headers.Authorization);
        Assert.That(Base64Url.EncodeToString(k), Is.EqualTo(vapid.PublicKey));
    }

    [Test]
    public async Task AnAspNetCoreEndpointBindsItFromTheBodyAndAnswers400ToAMalformedOne()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
        await using WebApplication app = builder.Build();
        PushSubscription? received = null;
        app.MapPost("/subscriptions", (PushSubscription subscription) =>
        {
            received = subscription;
            return Results.NoContent();
        });
        await app.StartAsync();
        var address = new Uri(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single());
        Assert.That(address.Host, Is.EqualTo("127.0.0.1"));
        using var client = new HttpClient { BaseAddress = address };

        using HttpResponseMessage ok = await client.PostAsync("/subscriptions", new StringContent(BrowserJson, Encoding.UTF8, "application/json"));
        Assert.That(ok.StatusCode, Is.EqualTo(HttpStatusCode.NoContent));
        Assert.That(received?.ToJson(), Is.EqualTo(PushSubscription.Parse(BrowserJson).ToJson()));

        received = null;
        string malformed = BrowserJson.Replace(Auth, Auth[..20], StringComparison.Ordinal);
        using HttpResponseMessage bad = await client.PostAsync("/subscriptions", new StringContent(malformed, Encoding.UTF8, "application/json"));
        Assert.That(bad.StatusCode, Is.EqualTo(HttpStatusCode.BadRequest));
        Assert.That(received, Is.Null);
    }

    [TestCase("", "JSON")]
    [TestCase("[]", "JSON object")]
    [TestCase("null", "JSON object")]
    [TestCase("""{"keys":{"p256dh":"P","auth":"A"}}""", "no endpoint")]
    [TestCase("""{"endpoint":"E"}""", "no keys")]
    [TestCase("""{"endpoint":"E","keys":{"auth":"A"}}""", "no keys.p256dh")]
    [TestCase("""{"endpoint":"E","keys":{"p256dh":"P"}}""", "no keys.auth")]
    [TestCase("""{"endpoint":"E","keys":"P"}""", "keys are a JSON object")]
    [TestCase("""{"endpoint":42,"keys":{"p256dh":"P","auth":"A"}}""", "endpoint must be a JSON string")]
    [TestCase("""{"endpoint":"/push/1","keys":{"p256dh":"P","auth":"A"}}""", "absolute https")]
    [TestCase("""{"endpoint":"ftp://push.example.net/1","keys":{"p256dh":"P","auth":"A"}}""", "absolute https")]
    [TestCase("""{"endpoint":"E","endpoint":"E","keys":{"p256dh":"P","auth":"A"}}""", "endpoint more than once")]
    [TestCase("""{"endpoint":"E","expirationTime":"soon","keys":{"p256dh":"P","auth":"A"}}""", "expirationTime")]
    [TestCase("""{"endpoint":"E","expirationTime":1e300,"keys":{"p256dh":"P","auth":"A"}}""", "expirationTime")]
    [TestCase("""{"endpoint":"E","keys":{"p256dh":"P","auth":"BTBZMqHH6r4Tts7J_aSI"}}""", "auth secret is 15 bytes")]
    [TestCase("""{"endpoint":"E","keys":{"p256dh":"P","auth":"BTBZMqHH6r4Tts7J/aSIgg"}}""", "not valid base64url")]
    [TestCase("""{"endpoint":"E","keys":{"p256dh":"BCVxsr7M_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"A"}}""", "not a point on the P-256 curve")]
    [TestCase("""{"endpoint":"E","keys":{"p256dh":"P","auth":"A"}} {}""", "")]           // the reader's own message
    public void AMalformedSubscriptionIsAJsonExceptionThatSaysWhy(string template, string expected)
    {
        string json = template.Replace("\"E\"", $"\"{Endpoint}\"", StringComparison.Ordinal)
            .Replace("\"P\"", $"\"{P256dh}\"", StringComparison.Ordinal)
            .Replace("\"A\"", $"\"{Auth}\"", StringComparison.Ordinal);
        Assert.Multiple(() =>
        {
            Assert.That(() => PushSubscription.Parse(json), Throws.InstanceOf<JsonException>().With.Message.Contains(expected), "Parse");
            if (json is not "null" and not "")
            {
                Assert.That(() => JsonSerializer.Deserialize<PushSubscription>(json), Throws.InstanceOf<JsonException>(), "JsonSerializer");
            }
        });
    }

    [Test]
    public void TheConstructorChecksItsArguments()
    {
        var keys = WebPushSubscriptionKeys.FromBase64Url(P256dh, Auth);
        Assert.Multiple(() =>
        {
            Assert.That(() => new PushSubscription(null!, keys), Throws.ArgumentNullException);
            Assert.That(() => new PushSubscription(new Uri("https://push.example.net/1"), null!), Throws.ArgumentNullException);
            Assert.That(() => new PushSubscription(new Uri("/push/1", UriKind.Relative), keys), Throws.ArgumentException.With.Property("ParamName").EqualTo("endpoint"));
            Assert.That(() => PushSubscription.Parse((string)null!), Throws.ArgumentNullException);
        });
    }
}

[JsonSerializable(typeof(PushSubscription))]
internal sealed partial class SubscriptionJsonContext : JsonSerializerContext
{
}
