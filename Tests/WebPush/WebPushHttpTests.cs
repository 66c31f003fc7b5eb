// A push service's receiving end over real HTTP: Kestrel on 127.0.0.1 (an ephemeral port) with a
// push endpoint that insists on what RFC 8030 and RFC 8291 require of a push request
// (Content-Encoding exactly aes128gcm, a TTL, a body of at most 4096 bytes) and then decrypts the
// body as the subscribed user agent would. HttpClient sends WebPushContent to it.

using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
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
[NonParallelizable]
public class WebPushHttpTests
{
    private readonly ECDiffieHellman _userAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
    private readonly byte[] _auth = RandomNumberGenerator.GetBytes(16);
    private readonly ConcurrentDictionary<string, (byte[] Message, string Ttl, string? Urgency, string? Topic)> _delivered = new();
    private WebApplication _server = null!;
    private HttpClient _client = null!;

    private WebPushSubscriptionKeys Subscription => WebPushSubscriptionKeys.FromKey(_userAgent, _auth);

    [OneTimeSetUp]
    public async Task StartPushService()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
        _server = builder.Build();

        // POST /push/{id}: RFC 8030 section 5's push message request. 201 Created with a Location on
        // delivery; 400 for a request a push service would refuse, with the reason as the body.
        _server.MapPost("/push/{id}", async (HttpContext context, string id) =>
        {
            HttpRequest request = context.Request;
            string? refusal =
                request.Headers.ContentEncoding.ToString() != "aes128gcm" ? "Content-Encoding must be exactly aes128gcm"
                : !long.TryParse(request.Headers["TTL"].ToString(), out long ttl) || ttl < 0 ? "TTL missing or invalid"
                : request.ContentLength is not long length || length > WebPushEncryption.MaxBodySize ? "body over 4096 bytes or without a length"
                : null;
            if (refusal is not null)
            {
                context.Response.StatusCode = StatusCodes.Status400BadRequest;
                await context.Response.WriteAsync(refusal);
                return;
            }

            using var buffer = new MemoryStream();
            await request.Body.CopyToAsync(buffer);
            try
            {
                byte[] message = WebPushEncryption.Decrypt(buffer.ToArray(), _userAgent, _auth);
                _delivered[id] = (message, request.Headers["TTL"].ToString(), request.Headers["Urgency"].FirstOrDefault(), request.Headers["Topic"].FirstOrDefault());
                context.Response.StatusCode = StatusCodes.Status201Created;
                context.Response.Headers.Location = "/message/" + id;
            }
            catch (ContentEncodingException exception)
            {
                context.Response.StatusCode = StatusCodes.Status400BadRequest;
                await context.Response.WriteAsync(exception.GetType().Name);
            }
        });

        await _server.StartAsync();
        var address = new Uri(_server.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single());
        Assert.That(address.Host, Is.EqualTo("127.0.0.1"));
        _client = new HttpClient { BaseAddress = address };
    }

    [OneTimeTearDown]
    public async Task StopPushService()
    {
        _client.Dispose();
        await _server.DisposeAsync();
        _userAgent.Dispose();
    }

    [TestCase(0, 0)]
    [TestCase(100, 0)]
    [TestCase(200, 300)]
    [TestCase(3993, 0)]
    public async Task APushMessageIsDeliveredAndDecrypted(int length, int padding)
    {
        byte[] message = RandomNumberGenerator.GetBytes(length);
        string id = $"m{length}-{padding}";
        using var content = new WebPushContent(message, Subscription, TimeSpan.FromMinutes(10), padding) { Urgency = WebPushUrgency.Low, Topic = "t" + length };
        using HttpResponseMessage response = await _client.PostAsync("/push/" + id, content);

        Assert.That(response.StatusCode, Is.EqualTo(HttpStatusCode.Created), await response.Content.ReadAsStringAsync());
        Assert.That(response.Headers.Location, Is.Not.Null);
        var delivered = _delivered[id];
        Assert.Multiple(() =>
        {
            Assert.That(delivered.Message, Is.EqualTo(message));
            Assert.That(delivered.Ttl, Is.EqualTo("600"));
            Assert.That(delivered.Urgency, Is.EqualTo("low"));
            Assert.That(delivered.Topic, Is.EqualTo("t" + length));
        });
    }

    [Test]
    public async Task SendingTheSameContentAgainResendsTheSameMessage()
    {
        using var content = new WebPushContent("retry"u8, Subscription, TimeSpan.Zero);
        using (HttpResponseMessage first = await _client.PostAsync("/push/retry1", content))
        using (HttpResponseMessage second = await _client.PostAsync("/push/retry2", content))
        {
            Assert.That((first.StatusCode, second.StatusCode), Is.EqualTo((HttpStatusCode.Created, HttpStatusCode.Created)));
        }

        Assert.That(_delivered["retry1"].Message, Is.EqualTo(_delivered["retry2"].Message).And.EqualTo("retry"u8.ToArray()));
        Assert.That(_delivered["retry1"].Ttl, Is.EqualTo("0"));
    }

    [Test]
    public async Task TheEndpointRefusesWhatAPushServiceWould()
    {
        // The endpoint's checks can fail: without these, the delivery test above could not fail either.
        byte[] body = WebPushEncryption.Encrypt("x"u8, Subscription);

        using var noTtl = new ByteArrayContent(body);
        noTtl.Headers.ContentEncoding.Add("aes128gcm");
        Assert.That(await Refusal("/push/no-ttl", noTtl), Is.EqualTo("TTL missing or invalid"));

        using var twoCodings = new ByteArrayContent(body);
        twoCodings.Headers.ContentEncoding.Add("gzip");
        twoCodings.Headers.ContentEncoding.Add("aes128gcm");
        twoCodings.Headers.TryAddWithoutValidation("TTL", "60");
        Assert.That(await Refusal("/push/two-codings", twoCodings), Is.EqualTo("Content-Encoding must be exactly aes128gcm"));

        byte[] tampered = (byte[])body.Clone();
        tampered[^1] ^= 1;
        using var damaged = new ByteArrayContent(tampered);
        damaged.Headers.ContentEncoding.Add("aes128gcm");
        damaged.Headers.TryAddWithoutValidation("TTL", "60");
        Assert.That(await Refusal("/push/tampered", damaged), Is.EqualTo(nameof(ContentEncodingCorruptedException)));

        using var otherUserAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        using var forSomeoneElse = new WebPushContent("x"u8, WebPushSubscriptionKeys.FromKey(otherUserAgent, _auth), TimeSpan.FromSeconds(1));
        Assert.That(await Refusal("/push/someone-else", forSomeoneElse), Is.EqualTo(nameof(ContentEncodingCorruptedException)));
        Assert.That(_delivered.Keys, Has.None.EqualTo("tampered").And.None.EqualTo("someone-else"));
    }

    private async Task<string> Refusal(string path, HttpContent content)
    {
        using HttpResponseMessage response = await _client.PostAsync(path, content);
        Assert.That(response.StatusCode, Is.EqualTo(HttpStatusCode.BadRequest));
        return await response.Content.ReadAsStringAsync();
    }
}
