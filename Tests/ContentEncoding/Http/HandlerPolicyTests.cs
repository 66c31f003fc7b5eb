// ContentDecryptingHandler and unencrypted responses (issue 17, finding 7): by default a response
// that is not encrypted passes through as it is; with RequireEncryption, one that could carry content
// and is not encrypted (no Content-Encoding, or an outermost coding that is not one of ours, such as
// "aes128gcm, identity") fails with an HttpRequestException instead of reaching the caller.

using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class HandlerPolicyTests
{
    private static readonly byte[] Ikm = Enumerable.Range(1, 16).Select(i => (byte)i).ToArray();
    private static readonly byte[] Content = "attack at dawn"u8.ToArray();

    private static HttpResponseMessage Plain(params string[] encodings)
    {
        var content = new ByteArrayContent(Content);
        foreach (string encoding in encodings)
        {
            content.Headers.ContentEncoding.Add(encoding);
        }

        return new HttpResponseMessage(HttpStatusCode.OK) { Content = content };
    }

    private static HttpResponseMessage Encrypted(ContentCoding coding)
    {
        var content = new ByteArrayContent(ContentEncryption.Encrypt(Content, Ikm, new ContentEncodingOptions { Coding = coding }));
        content.Headers.ContentEncoding.Add(ContentEncryption.GetName(coding));
        return new HttpResponseMessage(HttpStatusCode.OK) { Content = content };
    }

    private static HttpClient Client(Func<HttpResponseMessage> respond, bool? requireEncryption)
    {
        var handler = new ContentDecryptingHandler(KeyProviders.Always(Ikm), new StubHandler(respond));
        if (requireEncryption is { } require)
        {
            handler.RequireEncryption = require;
        }

        return new HttpClient(handler) { BaseAddress = new Uri("http://example.invalid/") };
    }

    [Test]
    public async Task ByDefaultAPlainResponsePassesThrough()
    {
        using HttpClient client = Client(() => Plain(), requireEncryption: null);
        Assert.That(await client.GetByteArrayAsync("x"), Is.EqualTo(Content));
    }

    [TestCase("")]
    [TestCase("aes128gcm,identity")]
    [TestCase("gzip")]
    public async Task WhenRequiredAPlainResponseIsRefused(string contentEncoding)
    {
        string[] encodings = contentEncoding.Split(',', StringSplitOptions.RemoveEmptyEntries);
        using HttpClient client = Client(() => Plain(encodings), requireEncryption: true);
        var exception = await Assert.CatchAsync<HttpRequestException>(() => client.GetByteArrayAsync("x"));
        TestContext.Out.WriteLine(exception!.Message);
        Assert.That(exception.Message, Does.Contain("not encrypted").And.Contain("RequireEncryption"));
        Assert.That(exception.HttpRequestError, Is.EqualTo(HttpRequestError.InvalidResponse));
    }

    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public async Task WhenRequiredAnEncryptedResponseStillDecodes(ContentCoding coding)
    {
        using HttpClient client = Client(() => Encrypted(coding), requireEncryption: true);
        Assert.That(await client.GetByteArrayAsync("x"), Is.EqualTo(Content));
    }

    [Test]
    public async Task WhenRequiredResponsesWithoutContentPass()
    {
        using HttpClient client = Client(() => new HttpResponseMessage(HttpStatusCode.NoContent), requireEncryption: true);
        using HttpResponseMessage noContent = await client.GetAsync("x");
        Assert.That(noContent.StatusCode, Is.EqualTo(HttpStatusCode.NoContent));

        using HttpClient headClient = Client(() => Plain(), requireEncryption: true);
        using HttpResponseMessage head = await headClient.SendAsync(new HttpRequestMessage(HttpMethod.Head, "x"));
        Assert.That(head.StatusCode, Is.EqualTo(HttpStatusCode.OK));
    }

    [Test]
    public void WhenRequiredTheSynchronousSendRefusesToo()
    {
        using HttpClient client = Client(() => Plain(), requireEncryption: true);
        Assert.Throws<HttpRequestException>(() => client.Send(new HttpRequestMessage(HttpMethod.Get, "x")));
    }

    internal sealed class StubHandler(Func<HttpResponseMessage> respond) : HttpMessageHandlerBase
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken) =>
            Task.FromResult(Send(request, cancellationToken));

        protected override HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            HttpResponseMessage response = respond();
            response.RequestMessage = request;
            return response;
        }
    }
}
