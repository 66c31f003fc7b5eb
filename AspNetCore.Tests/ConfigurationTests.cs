// The registration, the options and the key ring, where no socket is needed: ASP.NET Core's TestHost.

using System;
using System.Net;
using System.Net.Http;
using System.Threading.Tasks;
using Cryptography.AspNetCore;
using Cryptography.ContentEncoding;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using NUnit.Framework;

namespace AspNetCore.Tests;

[TestFixture]
public class ConfigurationTests
{
    private static WebApplication Build(Action<IServiceCollection> services)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseTestServer();
        services(builder.Services);
        return builder.Build();
    }

    private static async Task<WebApplication> StartAsync(Action<EncryptedContentOptions> configure)
    {
        WebApplication app = Build(services => services.AddEncryptedContent(Keys.Ring(), configure));
        app.UseEncryptedContent();
        app.MapPost("/", async context => await context.Response.WriteAsync("answer"));
        app.MapGet("/public/page", async context => await context.Response.WriteAsync("public"));
        await app.StartAsync();
        return app;
    }

    [Test]
    public async Task AMissingKeyRingOrResponseKeyFailsAtStartup()
    {
        await using WebApplication noRing = Build(services => services.AddEncryptedContent(options => { }));
        Assert.That(() => noRing.UseEncryptedContent(), Throws.InvalidOperationException.With.Message.Contains("No IContentKeyRing is registered"));

        await using WebApplication noKey = Build(services => services.AddEncryptedContent(
            Keys.Ring(), options => options.Responses = new ContentEncodingOptions { KeyId = "k3"u8.ToArray() }));
        Assert.That(() => noKey.UseEncryptedContent(), Throws.InvalidOperationException.With.Message.Contains("'6B33'"));

        // The ring from dependency injection, registered by the application itself.
        await using WebApplication ownRing = Build(services => services
            .AddSingleton<IContentKeyRing>(new ContentKeyRing().Add([], Keys.K1))
            .AddEncryptedContent(options => { }));
        Assert.That(() => ownRing.UseEncryptedContent(), Throws.Nothing, "an empty key id names the key responses use by default");
    }

    [Test]
    public async Task RequireEncryptedRequestsRefusesPlainBodies()
    {
        await using WebApplication app = await StartAsync(options =>
        {
            options.RequireEncryptedRequests = true;
            options.Responses = new ContentEncodingOptions { KeyId = "k1"u8.ToArray() };
        });
        using HttpClient client = app.GetTestClient();
        using HttpResponseMessage plain = await client.PostAsync("/", new ByteArrayContent(new byte[10]));
        Assert.That(plain.StatusCode, Is.EqualTo(HttpStatusCode.UnsupportedMediaType));
        Assert.That(await plain.Content.ReadAsStringAsync(), Does.Contain("must be encrypted"));

        using var encrypted = new EncryptedHttpContent(new ByteArrayContent(new byte[10]), Keys.K1, new ContentEncodingOptions { KeyId = "k1"u8.ToArray() });
        using HttpResponseMessage accepted = await client.PostAsync("/", encrypted);
        Assert.That(accepted.StatusCode, Is.EqualTo(HttpStatusCode.OK));
    }

    [Test]
    public async Task EncryptResponsesChoosesTheRequests()
    {
        await using WebApplication app = await StartAsync(options =>
        {
            options.Responses = new ContentEncodingOptions { KeyId = "k1"u8.ToArray() };
            options.EncryptResponses = context => !context.Request.Path.StartsWithSegments("/public");
        });
        using HttpClient client = app.GetTestClient();
        using HttpResponseMessage page = await client.GetAsync("/public/page");
        Assert.That((page.Content.Headers.ContentEncoding.Count, await page.Content.ReadAsStringAsync()), Is.EqualTo((0, "public")));
        using HttpResponseMessage answer = await client.PostAsync("/", null);
        Assert.That(answer.Content.Headers.ContentEncoding, Is.EqualTo(new[] { "aes256gcmsiv" }));
        Assert.That(ContentEncryption.Decrypt(await answer.Content.ReadAsByteArrayAsync(), Keys.K1), Is.EqualTo("answer"u8.ToArray()));
    }

    // An exception handler inside the middleware: its page is encrypted when the endpoint failed before writing. Once the
    // endpoint wrote, the response has started (the middleware starts it at the first write, /started shows it), so no
    // handler may clear it and append a page to plaintext still waiting in the record buffer; the endpoint's exception
    // goes on and the body gets no last record.
    [Test]
    public async Task AnExceptionHandlerInsideTheMiddleware()
    {
        await using WebApplication app = Build(services => services.AddEncryptedContent(
            Keys.Ring(), options => options.Responses = new ContentEncodingOptions { KeyId = "k1"u8.ToArray() }));
        app.UseEncryptedContent();
        app.UseExceptionHandler(error => error.Run(async context => await context.Response.WriteAsync("error page")));
        app.MapGet("/before", context => throw new InvalidOperationException("before writing"));
        app.MapGet("/started", async context =>
        {
            await context.Response.Body.WriteAsync("x"u8.ToArray());   // the stream: HttpResponse.WriteAsync(string) starts the response itself
            await context.Response.Body.WriteAsync(context.Response.HasStarted ? "started"u8.ToArray() : "not started"u8.ToArray());
        });
        app.MapGet("/after", async context =>
        {
            await context.Response.Body.WriteAsync("partial "u8.ToArray());
            throw new InvalidOperationException("after writing");
        });
        await app.StartAsync();
        using HttpClient client = app.GetTestClient();

        using HttpResponseMessage before = await client.GetAsync("/before");
        Assert.That(before.StatusCode, Is.EqualTo(HttpStatusCode.InternalServerError));
        Assert.That(ContentEncryption.Decrypt(await before.Content.ReadAsByteArrayAsync(), Keys.K1), Is.EqualTo("error page"u8.ToArray()));

        using HttpResponseMessage started = await client.GetAsync("/started");
        Assert.That(ContentEncryption.Decrypt(await started.Content.ReadAsByteArrayAsync(), Keys.K1), Is.EqualTo("xstarted"u8.ToArray()));

        // TestHost hands the endpoint's exception, which the handler could not handle, to the client (wrapped or not).
        Exception? failure = null;
        try
        {
            await client.GetByteArrayAsync("/after");
        }
        catch (Exception exception)
        {
            failure = exception;
        }

        Assert.That(failure, Is.Not.Null, "the handler did not turn the failure into a page");
        while (failure!.Message != "after writing" && failure.InnerException is not null)
        {
            failure = failure.InnerException;
        }

        Assert.That(failure.Message, Is.EqualTo("after writing"));
    }

    [Test]
    public void TheOptionsCheckTheirValues()
    {
        var options = new EncryptedContentOptions();
        Assert.That(options.Requests.MaxRecordSize, Is.EqualTo(ContentEncryption.DefaultRecordSize));
        Assert.That(options.Responses, Is.SameAs(ContentEncodingOptions.Default));
        Assert.Throws<ArgumentNullException>(() => options.Requests = null!);
        Assert.Throws<ArgumentNullException>(() => options.Responses = null!);
        Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddEncryptedContent((Action<EncryptedContentOptions>)null!));
        Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddEncryptedContent((ContentKeyRing)null!));
    }

    [Test]
    public void TheKeyRingCopiesRotatesAndWipes()
    {
        byte[] key = [1, 2, 3];
        var ring = new ContentKeyRing().Add("a", key);
        key[0] = 9;
        Span<byte> destination = stackalloc byte[ContentEncryption.MaxKeyingMaterialSize];
        Assert.That(ring.TryCopyKey("a"u8, ContentCoding.Aes128Gcm, destination, out int written), Is.True);
        Assert.That(destination[..written].ToArray(), Is.EqualTo(new byte[] { 1, 2, 3 }), "the ring keeps a copy");
        Assert.That(ring.TryCopyKey("b"u8, ContentCoding.Aes128Gcm, destination, out written), Is.False);
        Assert.That(written, Is.Zero);

        Assert.That(() => ring.Add("a", key), Throws.ArgumentException.With.Property("ParamName").EqualTo("keyId"));
        Assert.That(() => ring.Add(new byte[256], key), Throws.ArgumentException.With.Property("ParamName").EqualTo("keyId"));
        Assert.That(() => ring.Add("c", []), Throws.ArgumentException.With.Property("ParamName").EqualTo("inputKeyingMaterial"));
        Assert.That(() => ring.Add("c", new byte[ContentEncryption.MaxKeyingMaterialSize + 1]), Throws.ArgumentException.With.Property("ParamName").EqualTo("inputKeyingMaterial"));
        Assert.That(() => ring.Add((string)null!, key), Throws.ArgumentNullException);

        Assert.That(ring.Remove("a"u8), Is.True);
        Assert.That(ring.Remove("a"u8), Is.False);
        Assert.That(ring.TryCopyKey("a"u8, ContentCoding.Aes128Gcm, new byte[256], out _), Is.False);

        ring.Add("d", key);
        ring.Dispose();
        Assert.That(() => ring.TryCopyKey("d"u8, ContentCoding.Aes128Gcm, new byte[256], out _), Throws.TypeOf<ObjectDisposedException>());
        Assert.That(() => ring.Add("e", key), Throws.TypeOf<ObjectDisposedException>());
    }
}
