// HttpClient integration, receiving side: the decoding content reads through ContentDecryptingStream.

using System;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>
/// A <see cref="DelegatingHandler"/> that decodes responses whose outermost <c>Content-Encoding</c> is <c>aes128gcm</c>
/// (RFC 8188) or <c>aes256gcmsiv</c> (this library), choosing the key by the key id in each body's header.
/// </summary>
/// <remarks>
/// <para>The decoded content streams: memory stays at one record. Its <c>Content-Encoding</c> loses the decoded coding and
/// its <c>Content-Length</c> is dropped. On a bad body, reading it throws a <see cref="ContentEncodingException"/> before
/// handing out any of the bad record: from the stream's reads with <see cref="HttpCompletionOption.ResponseHeadersRead"/>,
/// or from <see cref="HttpClient"/>'s call when it buffers the content (the default).</para>
/// <para>A response that is not encrypted (no <c>Content-Encoding</c>, or an outermost coding that is not one of these)
/// passes through unchanged unless <see cref="RequireEncryption"/> is set: an attacker on the path, or a misconfigured
/// server, can then hand the caller plaintext that nothing verified.</para>
/// </remarks>
public sealed class ContentDecryptingHandler : RecordHandlerBase
{
    private readonly ContentKeyProvider _keyProvider;
    private readonly ContentEncodingOptions _options;

    // The one-key form's keying material (pinned, wiped by Dispose under the lock), or null.
    private readonly byte[]? _inputKeyingMaterial;
    private bool _disposed;

    /// <summary>Creates a handler to put in a handler chain (its inner handler is set later).</summary>
    /// <param name="keyProvider">Maps a body's key id to the keying material.</param>
    /// <param name="options">The largest record size a response may declare (<see cref="ContentEncodingOptions.MaxRecordSize"/>) and
    /// the parallelism of the decoding streams; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>. The coding
    /// comes from each response's <c>Content-Encoding</c>, so <see cref="ContentEncodingOptions.Coding"/> is not used.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keyProvider"/> is <see langword="null"/>.</exception>
    public ContentDecryptingHandler(ContentKeyProvider keyProvider, ContentEncodingOptions? options = null)
    {
        _keyProvider = keyProvider ?? throw new ArgumentNullException(nameof(keyProvider));
        _options = ContentEncodingOptions.Or(options);
    }

    /// <summary>Creates a handler that sends requests through <paramref name="innerHandler"/>.</summary>
    /// <param name="keyProvider">Maps a body's key id to the keying material.</param>
    /// <param name="innerHandler">The handler that sends the requests, such as a <see cref="SocketsHttpHandler"/>.</param>
    /// <param name="options">As for <see cref="ContentDecryptingHandler(ContentKeyProvider, ContentEncodingOptions?)"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keyProvider"/> or <paramref name="innerHandler"/> is <see langword="null"/>.</exception>
    public ContentDecryptingHandler(ContentKeyProvider keyProvider, HttpMessageHandler innerHandler, ContentEncodingOptions? options = null)
        : base(innerHandler)
    {
        _keyProvider = keyProvider ?? throw new ArgumentNullException(nameof(keyProvider));
        _options = ContentEncodingOptions.Or(options);
    }

    /// <summary>Creates a handler with one shared key, used whatever key id a body names, to put in a handler chain (its inner
    /// handler is set later).</summary>
    /// <param name="inputKeyingMaterial">The shared secret (IKM): 1 to <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.
    /// The handler keeps a pinned copy and wipes it when it is disposed.</param>
    /// <param name="options">As for <see cref="ContentDecryptingHandler(ContentKeyProvider, ContentEncodingOptions?)"/>.</param>
    /// <exception cref="ArgumentException">The keying material is empty or longer than <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.</exception>
    public ContentDecryptingHandler(ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null)
    {
        _inputKeyingMaterial = CopyKey(inputKeyingMaterial);
        _keyProvider = TheOneKey;
        _options = ContentEncodingOptions.Or(options);
    }

    /// <summary>Creates a handler with one shared key, used whatever key id a body names, that sends requests through
    /// <paramref name="innerHandler"/>.</summary>
    /// <param name="inputKeyingMaterial">As for <see cref="ContentDecryptingHandler(ReadOnlySpan{byte}, ContentEncodingOptions?)"/>.</param>
    /// <param name="innerHandler">The handler that sends the requests, such as a <see cref="SocketsHttpHandler"/>.</param>
    /// <param name="options">As for <see cref="ContentDecryptingHandler(ContentKeyProvider, ContentEncodingOptions?)"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="innerHandler"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The keying material is empty or longer than <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.</exception>
    public ContentDecryptingHandler(ReadOnlySpan<byte> inputKeyingMaterial, HttpMessageHandler innerHandler, ContentEncodingOptions? options = null)
        : base(innerHandler)
    {
        _inputKeyingMaterial = CopyKey(inputKeyingMaterial);
        _keyProvider = TheOneKey;
        _options = ContentEncodingOptions.Or(options);
    }

    /// <summary>Gets the options the decoding streams use: the largest record size a response may declare and the parallelism.</summary>
    public ContentEncodingOptions Options => _options;

    /// <summary>Gets or sets whether every response that can carry content must be encrypted: <see langword="false"/> by default.</summary>
    /// <remarks>
    /// <para>When set, a response whose outermost <c>Content-Encoding</c> is not <c>aes128gcm</c> or <c>aes256gcmsiv</c> (none at
    /// all, <c>gzip</c>, or <c>aes128gcm, identity</c>), error responses included, is disposed and the send fails with an
    /// <see cref="HttpRequestException"/> (<see cref="HttpRequestError.InvalidResponse"/>). Responses that carry no content by
    /// definition pass (1xx, 204 No Content, 304 Not Modified, and responses to HEAD).</para>
    /// <para>It is off by default because the handler sits under every request an <see cref="HttpClient"/> sends, and servers
    /// commonly answer errors, redirects and endpoints that are not secret without encryption: refusing those would break such
    /// clients for no security reason. Set it whenever the caller relies on the responses being authenticated: otherwise
    /// whoever can alter them can remove the encryption and substitute any body.</para>
    /// </remarks>
    public bool RequireEncryption { get; set; }

    /// <summary>Sends the request and, if the response is encrypted with one of the codings, decodes it as it is read.</summary>
    /// <param name="request">The request.</param>
    /// <param name="cancellationToken">Cancels the request.</param>
    /// <returns>The response, its content replaced by the decoding one when it was encrypted.</returns>
    /// <exception cref="HttpRequestException"><see cref="RequireEncryption"/> is set and the response is not encrypted.</exception>
    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken) =>
        Decode(await base.SendAsync(request, cancellationToken).ConfigureAwait(false));

    /// <inheritdoc cref="SendAsync"/>
    protected override HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken) =>
        Decode(base.Send(request, cancellationToken));

    private HttpResponseMessage Decode(HttpResponseMessage response)
    {
        HttpContent? content = response.Content;
        if (content is null || !ContentEncryption.TryGetCoding(content.Headers.ContentEncoding.LastOrDefault(), out ContentCoding coding))
        {
            if (RequireEncryption && CanHaveContent(response))
            {
                string received = content is null || content.Headers.ContentEncoding.Count == 0 ? "no Content-Encoding" : $"Content-Encoding '{string.Join(", ", content.Headers.ContentEncoding)}'";
                HttpStatusCode status = response.StatusCode;
                response.Dispose();
                string message = ContentEncodingMessages.Format(ContentEncodingMessages.ResponseNotEncrypted, (int)status, status, received);
                throw new HttpRequestException(HttpRequestError.InvalidResponse, message, inner: null, status);
            }

            return response;
        }

        var decoded = new DecryptedHttpContent(content, _keyProvider, WithCoding(_options, coding));
        EncryptedHttpContent.CopyHeaders(content, decoded, keepContentEncoding: false);
        foreach (string inner in content.Headers.ContentEncoding.Take(content.Headers.ContentEncoding.Count - 1))
        {
            decoded.Headers.ContentEncoding.Add(inner);
        }

        response.Content = decoded;
        return response;
    }

    private static ContentEncodingOptions WithCoding(ContentEncodingOptions options, ContentCoding coding) => new()
    {
        Coding = coding,
        MaxRecordSize = options.MaxRecordSize,
        MaxDegreeOfParallelism = options.MaxDegreeOfParallelism,
    };

    private static byte[] CopyKey(ReadOnlySpan<byte> inputKeyingMaterial)
    {
        if (inputKeyingMaterial.IsEmpty || inputKeyingMaterial.Length > ContentEncryption.MaxKeyingMaterialSize)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.KeyingMaterialLength, ContentEncryption.MaxKeyingMaterialSize), nameof(inputKeyingMaterial));
        }

        return PinnedBuffers.Copy(inputKeyingMaterial);
    }

    // The one-key form's provider. The lock makes Dispose wait for a copy in progress, and a body read after Dispose fails
    // instead of deriving its keys from the wiped (all-zero) keying material, under which anyone could forge a body.
    private bool TheOneKey(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten)
    {
        lock (_inputKeyingMaterial!)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _inputKeyingMaterial.CopyTo(destination);
            bytesWritten = _inputKeyingMaterial.Length;
            return true;
        }
    }

    /// <summary>Releases the inner handler and, in the one-key form, wipes the keying material: a response read after that
    /// throws <see cref="ObjectDisposedException"/>.</summary>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing && _inputKeyingMaterial is not null)
        {
            lock (_inputKeyingMaterial)
            {
                _disposed = true;
                CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            }
        }

        base.Dispose(disposing);
    }

    // RFC 9110 sections 6.4.1 and 9.3.2: these responses have no content, whatever their headers say.
    private static bool CanHaveContent(HttpResponseMessage response) =>
        response.RequestMessage?.Method != HttpMethod.Head
        && (int)response.StatusCode >= 200
        && response.StatusCode is not HttpStatusCode.NoContent and not HttpStatusCode.NotModified;

    /// <summary>A response content decoded as it is read.</summary>
    private sealed class DecryptedHttpContent(HttpContent encrypted, ContentKeyProvider keyProvider, ContentEncodingOptions options) : RecordHttpContentBase
    {
        protected override async Task<Stream> CreateContentReadStreamAsync(CancellationToken cancellationToken) =>
            new ContentDecryptingStream(await encrypted.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false), keyProvider, options);

        protected override Task<Stream> CreateContentReadStreamAsync() => CreateContentReadStreamAsync(CancellationToken.None);

        protected override Stream CreateContentReadStream(CancellationToken cancellationToken) =>
            new ContentDecryptingStream(encrypted.ReadAsStream(cancellationToken), keyProvider, options);

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
            SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            Stream decrypting = await CreateContentReadStreamAsync(cancellationToken).ConfigureAwait(false);
            await using (decrypting.ConfigureAwait(false))
            {
                await decrypting.CopyToAsync(stream, cancellationToken).ConfigureAwait(false);
            }
        }

        protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            using Stream decrypting = CreateContentReadStream(cancellationToken);
            decrypting.CopyTo(stream);
        }

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false;
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                encrypted.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
