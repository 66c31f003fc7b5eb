// The response body while the middleware encrypts it: the IHttpResponseBodyFeature (Stream, PipeWriter, SendFileAsync,
// StartAsync, CompleteAsync) in front of the server's, as ASP.NET Core's response compression puts its own in front.
// Whether to encrypt is decided when the response starts (its first write, flush or StartAsync, or the end of the
// pipeline), when the status code and headers are known and can still be changed: then Content-Encoding gets the coding
// and Content-Length, when the endpoint set one, becomes the encrypted body's length. The headers go out at once, so
// Response.HasStarted is true as soon as any of the body was written and no error handler can clear plaintext that
// waits in the record buffer and write a page after it.

using System;
using System.IO;
using System.IO.Pipelines;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Net.Http.Headers;

namespace Cryptography.AspNetCore;

internal sealed class EncryptingResponseBody(HttpContext context, IHttpResponseBodyFeature inner, ContentEncodingOptions options, IContentKeyRing keyRing)
    : Stream, IHttpResponseBodyFeature
{
    // Kestrel's own message for a synchronous write it refuses.
    internal const string SynchronousIODisallowed = "Synchronous operations are disallowed. Call WriteAsync or set AllowSynchronousIO to true instead.";

    private ContentEncryptingStream? _encrypting;
    private PipeWriter? _writer;
    private bool _started;
    private bool _finished;     // no more writes: the body is being ended
    private bool _ended;        // the last record went out
    private bool _released;

    Stream IHttpResponseBodyFeature.Stream => this;

    public PipeWriter Writer => _writer ??= PipeWriter.Create(this, new StreamPipeWriterOptions(leaveOpen: true));

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => !_finished && !_released;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public void DisableBuffering() => inner.DisableBuffering();

    public Task StartAsync(CancellationToken cancellationToken = default) => StartCoreAsync(cancellationToken);

    public async Task SendFileAsync(string path, long offset, long? count, CancellationToken cancellationToken = default)
    {
        await StartCoreAsync(cancellationToken).ConfigureAwait(false);
        await SendFileFallback.SendFileAsync(this, path, offset, count, cancellationToken).ConfigureAwait(false);
    }

    // The endpoint says the response is complete (HttpResponse.CompleteAsync): the body ends here.
    public async Task CompleteAsync()
    {
        await FinishAsync().ConfigureAwait(false);
        await inner.CompleteAsync().ConfigureAwait(false);
    }

    /// <summary>Ends the body: what the PipeWriter holds, then the last record. Only on success.</summary>
    public async Task FinishAsync()
    {
        if (_finished)
        {
            return;
        }

        if (_writer is not null)
        {
            await _writer.FlushAsync(context.RequestAborted).ConfigureAwait(false);
        }

        await StartCoreAsync(context.RequestAborted).ConfigureAwait(false);
        _finished = true;
        if (_encrypting is not null)
        {
            await _encrypting.FlushFinalBlockAsync(context.RequestAborted).ConfigureAwait(false);
            _ended = true;
        }
    }

    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_released, this);
        if (_finished)
        {
            throw new InvalidOperationException("The response body is complete: nothing more can be written.");
        }

        await StartCoreAsync(cancellationToken).ConfigureAwait(false);
        await (_encrypting ?? inner.Stream).WriteAsync(buffer, cancellationToken).ConfigureAwait(false);
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    // Synchronous writes follow the server's rule (IHttpBodyControlFeature.AllowSynchronousIO, off in Kestrel by default),
    // checked here because the encrypting stream buffers up to a record: without the check a small synchronous write
    // would pass and a large one fail, depending on the record size.
    public override void Write(ReadOnlySpan<byte> buffer)
    {
        ObjectDisposedException.ThrowIf(_released, this);
        ThrowIfSynchronousIODisallowed();
        if (_finished)
        {
            throw new InvalidOperationException("The response body is complete: nothing more can be written.");
        }

        StartCoreAsync(CancellationToken.None).GetAwaiter().GetResult();
        (_encrypting ?? inner.Stream).Write(buffer);
    }

    public override async Task FlushAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_released, this);
        await StartCoreAsync(cancellationToken).ConfigureAwait(false);
        if (!_finished)
        {
            await (_encrypting ?? inner.Stream).FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    public override void Flush()
    {
        ObjectDisposedException.ThrowIf(_released, this);
        ThrowIfSynchronousIODisallowed();
        FlushAsync(CancellationToken.None).GetAwaiter().GetResult();
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    // Endpoints and serializers dispose the response stream they were given; the middleware owns it, so that releases
    // nothing (as the server's own response stream ignores it).
    protected override void Dispose(bool disposing)
    {
    }

    public override ValueTask DisposeAsync() => default;

    /// <summary>Releases the encrypting stream: after <see cref="FinishAsync"/> it only wipes; before, it aborts the body,
    /// which writes nothing more, so the body stays truncated.</summary>
    public async Task ReleaseAsync()
    {
        if (_released)
        {
            return;
        }

        _released = true;
        if (_writer is not null && !_finished)
        {
            await _writer.CompleteAsync(new OperationCanceledException("The response failed.")).ConfigureAwait(false);
        }

        if (_ended)
        {
            await _encrypting!.DisposeAsync().ConfigureAwait(false);
        }
        else if (_encrypting is not null)
        {
            // Abort says what happened, and writes no last record on every version of the core package (in
            // 1.0.0-preview.2, disposing an unfinished stream still wrote it). It does no I/O; with parallel sealing
            // (Responses.MaxDegreeOfParallelism above 1) it waits for a background write already under way.
            _encrypting.Abort();
        }
    }

    private void ThrowIfSynchronousIODisallowed()
    {
        if (context.Features.Get<IHttpBodyControlFeature>() is { AllowSynchronousIO: false })
        {
            throw new InvalidOperationException(SynchronousIODisallowed);
        }
    }

    private async Task StartCoreAsync(CancellationToken cancellationToken)
    {
        if (_started)
        {
            return;
        }

        _started = true;
        HttpResponse response = context.Response;
        if (response.HasStarted)
        {
            // Something wrote past this feature: its headers went out without the coding. Fail rather than send plaintext.
            throw new InvalidOperationException("The response started before the encrypted-content middleware could encrypt it.");
        }

        if (ShouldEncrypt(context))
        {
            _encrypting = CreateEncryptingStream();
            response.Headers.ContentEncoding = response.Headers.ContentEncoding.Count == 0
                ? ContentEncryption.GetName(options.Coding)
                : $"{response.Headers.ContentEncoding}, {ContentEncryption.GetName(options.Coding)}";
            if (response.ContentLength is long length)
            {
                response.ContentLength = ContentEncryption.GetEncryptedLength(length, options);
            }

            response.Headers.Remove(HeaderNames.AcceptRanges);
        }

        await inner.StartAsync(cancellationToken).ConfigureAwait(false);
    }

    // RFC 9110 sections 6.4.1 and 9.3.2: these responses have no content, whatever their headers say; a response the
    // endpoint encrypted itself is left as it is.
    private static bool ShouldEncrypt(HttpContext context)
    {
        int status = context.Response.StatusCode;
        if (HttpMethods.IsHead(context.Request.Method) || status < 200 || status is StatusCodes.Status204NoContent or StatusCodes.Status304NotModified)
        {
            return false;
        }

        string[] codings = context.Response.Headers.ContentEncoding.ToString().Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        return codings.Length == 0 || !ContentEncryption.TryGetCoding(codings[^1], out _);
    }

    private ContentEncryptingStream CreateEncryptingStream()
    {
        Span<byte> key = stackalloc byte[ContentEncryption.MaxKeyingMaterialSize];
        try
        {
            if (!keyRing.TryCopyKey(options.KeyId.Span, options.Coding, key, out int length) || length is < 1 or > ContentEncryption.MaxKeyingMaterialSize)
            {
                throw new InvalidOperationException(EncryptedContentExtensions.NoResponseKey(options));
            }

            return new ContentEncryptingStream(inner.Stream, key[..length], options, leaveOpen: true);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }
}
