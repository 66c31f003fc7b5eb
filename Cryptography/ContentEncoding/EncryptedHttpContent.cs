// HttpClient integration, sending side. Content-Length is computed when the inner content's length
// is known; otherwise the body goes out chunked.

using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>An <see cref="HttpContent"/> that sends another content encrypted with an encrypted content coding (RFC 8188
/// <c>aes128gcm</c>, or this library's <c>aes256gcmsiv</c>), streaming, in constant memory.</summary>
/// <remarks>
/// The inner content's headers are copied, except <c>Content-Length</c>, which is recomputed, and the coding's name is
/// appended to <c>Content-Encoding</c>. Each serialization uses a fresh salt. If the inner content fails while being copied,
/// the body is left without its last record, so the receiver rejects it as truncated. Disposing wipes the keying material
/// and disposes the inner content. It may run while another thread serializes the content, as <see cref="AesGcmSiv"/>'s
/// <see cref="AesGcmSiv.Dispose"/> may run under its calls: a serialization that is deriving its body's keys finishes
/// with the real keying material, which is wiped as it does; one that starts later throws <see cref="ObjectDisposedException"/>.
/// No body is ever sealed under a wiped key.
/// </remarks>
public sealed class EncryptedHttpContent : RecordHttpContentBase
{
    private readonly HttpContent _content;
    private readonly byte[] _inputKeyingMaterial;
    private readonly ContentEncodingOptions _options;

    // Serializations deriving keys from _inputKeyingMaterial, and the disposed flag: the rule of
    // AesGcmSiv (Internal/CallCounter.cs). Dispose never wipes the keying material under a derivation;
    // the last one out does. Without it, a serialization that passed the disposed check while Dispose
    // ran sealed its body under keys derived from a zeroed IKM, which anyone can derive (issue 47, item 3).
    private CallCounter _calls;
    private int _disposed;

    /// <summary>Creates a content that sends <paramref name="content"/> encrypted.</summary>
    /// <param name="content">The content to encrypt.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty. A copy is kept, in pinned memory, until disposal.</param>
    /// <param name="options">The coding, record size and key id (so the receiver can pick the key); <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="content"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The keying material is empty.</exception>
    public EncryptedHttpContent(HttpContent content, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(content);
        if (inputKeyingMaterial.IsEmpty)
        {
            throw new ArgumentException(ContentEncodingMessages.EmptyKeyingMaterial, nameof(inputKeyingMaterial));
        }

        _content = content;
        _options = ContentEncodingOptions.Or(options);
        _inputKeyingMaterial = PinnedBuffers.Copy(inputKeyingMaterial);
        CopyHeaders(content, this, keepContentEncoding: true);
        Headers.ContentEncoding.Add(ContentEncryption.GetName(_options.Coding));
    }

    /// <summary>Gets the coding the content is sent with.</summary>
    public ContentCoding Coding => _options.Coding;

    /// <inheritdoc cref="SerializeToStreamAsync(Stream, TransportContext?, CancellationToken)"/>
    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
        SerializeToStreamAsync(stream, context, CancellationToken.None);

    /// <summary>Encrypts the inner content onto <paramref name="stream"/>.</summary>
    /// <param name="stream">The transport stream.</param>
    /// <param name="context">The transport context.</param>
    /// <param name="cancellationToken">Cancels the copy.</param>
    /// <returns>A task that completes when the whole body has been written.</returns>
    /// <exception cref="ObjectDisposedException">The content has been disposed.</exception>
    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
    {
        ContentEncryptingStream encrypting = EncryptingStream(stream);
        await using (encrypting.ConfigureAwait(false))
        {
            // The body is complete only at FlushFinalBlockAsync: if the inner content fails first, disposing
            // leaves it without its last record, and the receiver rejects it as truncated.
            await _content.CopyToAsync(encrypting, cancellationToken).ConfigureAwait(false);
            await encrypting.FlushFinalBlockAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc cref="SerializeToStreamAsync(Stream, TransportContext?, CancellationToken)"/>
    protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken)
    {
        using ContentEncryptingStream encrypting = EncryptingStream(stream);
        _content.CopyTo(encrypting, context, cancellationToken);
        encrypting.FlushFinalBlock();
    }

    /// <summary>Computes the encrypted length when the inner content's length is known.</summary>
    /// <param name="length">The encrypted body's length.</param>
    /// <returns><see langword="true"/> when the inner content has a known length and the encrypted one fits in an <see cref="long"/>.</returns>
    protected override bool TryComputeLength(out long length)
    {
        length = 0;
        return _content.Headers.ContentLength is long plaintextLength
            && ContentEncryption.TryGetEncryptedLength(plaintextLength, _options.RecordSize, _options.KeyId.Length, out length);
    }

    /// <summary>Wipes the keying material (at once, or as the serialization deriving keys from it on another thread
    /// finishes) and disposes the inner content. Serializations that start later throw <see cref="ObjectDisposedException"/>.</summary>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing && Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            if (_calls.Close())
            {
                CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            }

            _content.Dispose();
        }

        base.Dispose(disposing);
    }

    // The one use of the keying material: the body's keys are derived from it (with a fresh salt) as the
    // stream is made, inside a registered call; the stream keeps only what it derived.
    private ContentEncryptingStream EncryptingStream(Stream stream)
    {
        ObjectDisposedException.ThrowIf(!_calls.TryEnter(), this);
        try
        {
            return new ContentEncryptingStream(stream, _inputKeyingMaterial, _options, leaveOpen: true);
        }
        finally
        {
            if (_calls.Exit())
            {
                CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            }
        }
    }

    // Copies a content's headers to the content that re-encodes it, but Content-Length (the new content's
    // own), and Content-Encoding unless asked.
    internal static void CopyHeaders(HttpContent from, HttpContent to, bool keepContentEncoding)
    {
        foreach (var header in from.Headers)
        {
            if (!string.Equals(header.Key, "Content-Length", StringComparison.OrdinalIgnoreCase)
                && (keepContentEncoding || !string.Equals(header.Key, "Content-Encoding", StringComparison.OrdinalIgnoreCase)))
            {
                to.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
        }
    }
}
