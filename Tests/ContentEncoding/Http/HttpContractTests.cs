// The public contract of the HTTP types where the server tests do not reach it: ContentDecryptingHandler's
// and EncryptedHttpContent's argument checks, the headers each copies and drops, the synchronous paths,
// what a failing inner content leaves behind, and what Dispose releases. No server: the handler sends
// through a stub. Mutation testing (docs/testing.md) found each of these untested.

using System;
using System.IO;
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
public class HttpContractTests
{
    private static readonly byte[] Ikm = Enumerable.Range(1, 16).Select(i => (byte)(i * 3)).ToArray();
    private static readonly byte[] Content = Enumerable.Range(0, 10_000).Select(i => (byte)(i * 7)).ToArray();

    private static HttpClient Client(Func<HttpResponseMessage> respond, ContentEncodingOptions? options = null, Action<ContentDecryptingHandler>? configure = null)
    {
        var handler = new ContentDecryptingHandler(KeyProviders.Always(Ikm), new HandlerPolicyTests.StubHandler(respond), options);
        configure?.Invoke(handler);
        return new HttpClient(handler) { BaseAddress = new Uri("http://example.invalid/") };
    }

    private static HttpResponseMessage Encrypted(HttpContent content) => new(HttpStatusCode.OK) { Content = content };

    // Under either coding: the handler's behaviour does not depend on it, and the Mono leg has aes256gcmsiv only.
    private static TrackingContent EncryptedBody(ContentCoding coding, int recordSize = 4096, params string[] encodings)
    {
        var content = new TrackingContent(ContentEncryption.Encrypt(Content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }));
        foreach (string encoding in encodings)
        {
            content.Headers.ContentEncoding.Add(encoding);
        }

        content.Headers.ContentEncoding.Add(ContentEncryption.GetName(coding));
        Assert.That(content.Headers.ContentLength, Is.Not.Null, "the encrypted content has a Content-Length header");
        return content;
    }

    [Test]
    public void TheHandlerChecksItsArguments()
    {
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptingHandler((ContentKeyProvider)null!))!.ParamName, Is.EqualTo("keyProvider"));
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptingHandler((ContentKeyProvider)null!, new HttpClientHandler()))!.ParamName, Is.EqualTo("keyProvider"));
        Assert.That(Assert.Throws<ArgumentException>(() => new ContentDecryptingHandler(ReadOnlySpan<byte>.Empty))!.ParamName, Is.EqualTo("inputKeyingMaterial"));
        Assert.That(Assert.Throws<ArgumentException>(() => new ContentDecryptingHandler(new byte[ContentEncryption.MaxKeyingMaterialSize + 1]))!.ParamName, Is.EqualTo("inputKeyingMaterial"));
        Assert.Throws<ArgumentNullException>(() => new ContentDecryptingHandler(Ikm, (HttpMessageHandler)null!));
        using var handler = new ContentDecryptingHandler(KeyProviders.Always(Ikm));
        Assert.That(handler.Options, Is.SameAs(ContentEncodingOptions.Default));
        using var limited = new ContentDecryptingHandler(Ikm, new ContentEncodingOptions { MaxRecordSize = 4096 });
        Assert.That(limited.Options.MaxRecordSize, Is.EqualTo(4096));
    }

    // Issue 50, item 3: one shared key in one line. The key is used whatever key id a body names, and a body read after the
    // handler was disposed fails with ObjectDisposedException instead of being opened under the wiped (all-zero) key.
    [Test]
    public async Task TheOneKeyFormDecodesAndStopsAtDispose()
    {
        byte[] body = ContentEncryption.Encrypt(Content, Ikm, new ContentEncodingOptions { KeyId = "any id"u8.ToArray() });
        var stub = new HandlerPolicyTests.StubHandler(() =>
        {
            var content = new ByteArrayContent(body);
            content.Headers.ContentEncoding.Add(ContentEncryption.Aes256GcmSivName);
            return Encrypted(content);
        });
        var handler = new ContentDecryptingHandler(Ikm, stub);
        using (var client = new HttpClient(handler, disposeHandler: false) { BaseAddress = new Uri("http://example.invalid/") })
        {
            Assert.That(await client.GetByteArrayAsync("x"), Is.EqualTo(Content));
        }

        using var invoker = new HttpMessageInvoker(handler, disposeHandler: false);
        using HttpResponseMessage response = await invoker.SendAsync(new HttpRequestMessage(HttpMethod.Get, "http://example.invalid/x"), CancellationToken.None);
        handler.Dispose();
        Assert.That(async () => await response.Content.ReadAsByteArrayAsync(), Throws.InstanceOf<HttpRequestException>().With.InnerException.InstanceOf<ObjectDisposedException>());

    }

    // A body whose record size is above the handler's limit is refused when it is read.
    [Test]
    public async Task TheHandlersRecordSizeLimitApplies([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding)
    {
        using HttpClient client = Client(() => Encrypted(EncryptedBody(coding, recordSize: 5000)), new ContentEncodingOptions { MaxRecordSize = 4999 });
        Assert.That(async () => await client.GetByteArrayAsync("x"), Throws.InstanceOf<ContentEncodingHeaderException>());

        using HttpClient roomy = Client(() => Encrypted(EncryptedBody(coding, recordSize: 5000)), new ContentEncodingOptions { MaxRecordSize = 5000 });
        Assert.That(await roomy.GetByteArrayAsync("x"), Is.EqualTo(Content));
    }

    // The decoded content keeps the encrypted one's headers but its length and the decoded coding, and
    // claims no length of its own: it is known only once the body has been read.
    [Test]
    public async Task TheDecodedContentKeepsTheOtherHeadersAndTheInnerCodings([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding)
    {
        using HttpClient client = Client(() =>
        {
            TrackingContent content = EncryptedBody(coding, 4096, "gzip", "br");
            content.Headers.ContentType = new("application/json");
            content.Headers.ContentLanguage.Add("fr");
            return Encrypted(content);
        });
        using HttpResponseMessage response = await client.GetAsync("x", HttpCompletionOption.ResponseHeadersRead);
        Assert.That(response.Content.Headers.ContentType!.MediaType, Is.EqualTo("application/json"));
        Assert.That(response.Content.Headers.ContentLanguage, Is.EqualTo(new[] { "fr" }));
        Assert.That(response.Content.Headers.ContentEncoding, Is.EqualTo(new[] { "gzip", "br" }));
        Assert.That(response.Content.Headers.ContentLength, Is.Null);
        Assert.That(response.Content.Headers.Contains("Content-Length"), Is.False);
        Assert.That(await response.Content.ReadAsByteArrayAsync(), Is.EqualTo(Content));
    }

    [Test]
    public void TheSynchronousSendDecodesBufferedAndStreamed()
    {
        using HttpClient client = Client(() => Encrypted(EncryptedBody(ContentCoding.Aes128Gcm)));
        using (HttpResponseMessage buffered = client.Send(new HttpRequestMessage(HttpMethod.Get, "x")))
        {
            var output = new MemoryStream();
            buffered.Content.ReadAsStream().CopyTo(output);
            Assert.That(output.ToArray(), Is.EqualTo(Content));
        }

        using (HttpResponseMessage streamed = client.Send(new HttpRequestMessage(HttpMethod.Get, "x"), HttpCompletionOption.ResponseHeadersRead))
        {
            var output = new MemoryStream();
            streamed.Content.ReadAsStream().CopyTo(output);
            Assert.That(output.ToArray(), Is.EqualTo(Content));
        }
    }

    [Test]
    public async Task DisposingTheResponseDisposesTheEncryptedContent([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding)
    {
        TrackingContent? inner = null;
        using HttpClient client = Client(() => Encrypted(inner = EncryptedBody(coding)));
        HttpResponseMessage response = await client.GetAsync("x", HttpCompletionOption.ResponseHeadersRead);
        Assert.That(inner!.Disposed, Is.False);
        HttpContent decoded = response.Content;
        response.Dispose();
        Assert.That(inner.Disposed, Is.True);
        Assert.Throws<ObjectDisposedException>(() => decoded.ReadAsStream());
    }

    // The decoding stream owns the encrypted content's stream: disposing it closes that too.
    [Test]
    public async Task DisposingTheDecodedStreamClosesTheEncryptedOne([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Values(false, true)] bool async)
    {
        var source = new TrackingStream(ContentEncryption.Encrypt(Content, Ikm, new ContentEncodingOptions { Coding = coding }));
        var inner = new StreamContent(source);
        inner.Headers.ContentEncoding.Add(ContentEncryption.GetName(coding));
        using HttpClient client = Client(() => Encrypted(inner));
        using HttpResponseMessage response = async
            ? await client.GetAsync("x", HttpCompletionOption.ResponseHeadersRead)
            : client.Send(new HttpRequestMessage(HttpMethod.Get, "x"), HttpCompletionOption.ResponseHeadersRead);
        Stream decoded = async ? await response.Content.ReadAsStreamAsync() : response.Content.ReadAsStream();
        byte[] first = new byte[100];
        decoded.ReadExactly(first);
        Assert.That(first, Is.EqualTo(Content.AsSpan(0, 100).ToArray()));
        Assert.That(source.Closed, Is.False);
        decoded.Dispose();
        Assert.That(source.Closed, Is.True);
    }

    [TestCase("", "no Content-Encoding")]
    [TestCase("gzip", "Content-Encoding 'gzip'")]
    [TestCase("aes128gcm,identity", "Content-Encoding 'aes128gcm, identity'")]
    public async Task ARefusedResponseIsDescribedInTheError(string encodings, string described)
    {
        using HttpClient client = Client(
            () =>
            {
                var content = new ByteArrayContent(Content);
                foreach (string encoding in encodings.Split(',', StringSplitOptions.RemoveEmptyEntries))
                {
                    content.Headers.ContentEncoding.Add(encoding);
                }

                return new HttpResponseMessage(HttpStatusCode.Accepted) { Content = content };
            },
            configure: handler => handler.RequireEncryption = true);
        var error = (await Assert.CatchAsync<HttpRequestException>(() => client.GetAsync("x")))!;
        Assert.That(error.Message, Is.EqualTo($"The response (202 Accepted) is not encrypted: it has {described}, and RequireEncryption is set."));
        Assert.That(error.StatusCode, Is.EqualTo(HttpStatusCode.Accepted));
        Assert.That(error.HttpRequestError, Is.EqualTo(HttpRequestError.InvalidResponse));
    }

    [Test]
    public void EncryptedContentChecksItsArguments()
    {
        Assert.That(Assert.Throws<ArgumentNullException>(() => new EncryptedHttpContent(null!, Ikm))!.ParamName, Is.EqualTo("content"));
        Assert.Throws<ArgumentException>(() => new EncryptedHttpContent(new ByteArrayContent(Content), ReadOnlySpan<byte>.Empty));
        Assert.Throws<ArgumentOutOfRangeException>(() => new EncryptedHttpContent(new ByteArrayContent(Content), Ikm, new ContentEncodingOptions { RecordSize = 17 }));
    }

    // The inner content's headers go along, but its length, which the encrypted body's replaces; the
    // coding is appended to the inner codings.
    [Test]
    public async Task EncryptedContentCopiesTheHeadersButTheLength()
    {
        var inner = new ByteArrayContent(Content);
        inner.Headers.ContentType = new("text/plain");
        inner.Headers.ContentEncoding.Add("gzip");
        Assert.That(inner.Headers.ContentLength, Is.EqualTo(Content.Length));

        using var content = new EncryptedHttpContent(inner, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 1000 });
        Assert.That(content.Headers.ContentType!.MediaType, Is.EqualTo("text/plain"));
        Assert.That(content.Headers.ContentEncoding, Is.EqualTo(new[] { "gzip", "aes256gcmsiv" }));
        long expected = ContentEncryption.GetEncryptedLength(Content.Length, new ContentEncodingOptions { RecordSize = 1000 });
        Assert.That(content.Headers.ContentLength, Is.EqualTo(expected));

        byte[] body = await content.ReadAsByteArrayAsync();
        Assert.That(body, Has.Length.EqualTo(expected));
        Assert.That(ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }), Is.EqualTo(Content));
    }

    [Test]
    public void EncryptedContentSerializesSynchronouslyWithAFreshSaltEachTime()
    {
        using var content = new EncryptedHttpContent(new ByteArrayContent(Content), Ikm);
        var first = new MemoryStream();
        var second = new MemoryStream();
        content.CopyTo(first, null, CancellationToken.None);
        content.CopyTo(second, null, CancellationToken.None);
        Assert.That(ContentEncryption.Decrypt(first.ToArray(), Ikm), Is.EqualTo(Content));
        Assert.That(ContentEncryption.Decrypt(second.ToArray(), Ikm), Is.EqualTo(Content));
        Assert.That(first.ToArray().AsSpan(0, 16).SequenceEqual(second.ToArray().AsSpan(0, 16)), Is.False);
    }

    // If the inner content fails part way, the body goes out without its last record: the receiver
    // rejects it as truncated instead of taking a short body for the whole.
    [Test]
    public void AFailingInnerContentLeavesATruncatedBody()
    {
        using var content = new EncryptedHttpContent(new FailingContent(Content, 5000), Ikm, new ContentEncodingOptions { RecordSize = 1000 });
        var asyncOutput = new MemoryStream();
        Assert.That(() => content.CopyToAsync(asyncOutput), Throws.TypeOf<InvalidDataException>());
        Assert.That(asyncOutput.Length, Is.GreaterThan(21));
        Assert.Throws<ContentEncodingTruncatedException>(() => ContentEncryption.Decrypt(asyncOutput.ToArray(), Ikm));

        var syncOutput = new MemoryStream();
        Assert.Throws<InvalidDataException>(() => content.CopyTo(syncOutput, null, CancellationToken.None));
        Assert.That(syncOutput.Length, Is.GreaterThan(21));
        Assert.Throws<ContentEncodingTruncatedException>(() => ContentEncryption.Decrypt(syncOutput.ToArray(), Ikm));
    }

    [Test]
    public void DisposingEncryptedContentDisposesTheInnerOneAndLaterSendsThrow()
    {
        var inner = new TrackingContent(Content);
        var content = new EncryptedHttpContent(inner, Ikm);
        var ikmCopy = Internals.InputKeyingMaterial(content);
        Assert.That(ikmCopy, Is.EqualTo(Ikm));
        content.Dispose();
        Assert.That(inner.Disposed, Is.True);
        Assert.That(ikmCopy.All(b => b == 0), Is.True, "the keying material is wiped");
        Assert.That(Assert.Throws<ObjectDisposedException>(() => content.CopyTo(new MemoryStream(), null, CancellationToken.None))!.ObjectName, Is.EqualTo(typeof(EncryptedHttpContent).FullName));
        Assert.That(() => content.CopyToAsync(new MemoryStream()), Throws.TypeOf<ObjectDisposedException>());
    }

    private sealed class TrackingStream(byte[] bytes) : MemoryStream(bytes, writable: false)
    {
        public bool Closed { get; private set; }

        protected override void Dispose(bool disposing)
        {
            Closed |= disposing;
            base.Dispose(disposing);
        }
    }

    private sealed class TrackingContent(byte[] bytes) : ByteArrayContent(bytes)
    {
        public bool Disposed { get; private set; }

        protected override void Dispose(bool disposing)
        {
            Disposed |= disposing;
            base.Dispose(disposing);
        }
    }

    // Writes its first failAfter bytes, then fails, in both the asynchronous and the synchronous path.
    private sealed class FailingContent(byte[] bytes, int failAfter) : HttpContentBase
    {
        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        {
            await stream.WriteAsync(bytes.AsMemory(0, failAfter));
            throw new InvalidDataException("the inner content failed");
        }

        protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            stream.Write(bytes, 0, failAfter);
            throw new InvalidDataException("the inner content failed");
        }

        protected override bool TryComputeLength(out long length)
        {
            length = bytes.Length;
            return true;
        }
    }
}
