// Request.Body while the middleware decrypts it: the ContentDecryptingStream, plus a note that it failed, so that the
// middleware answers 400 only for its own failures and not for a ContentEncodingException the endpoint raised elsewhere.

using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;

namespace Cryptography.AspNetCore;

internal sealed class DecryptingRequestBody(ContentDecryptingStream decrypting) : Stream
{
    public bool Failed { get; private set; }

    public override bool CanRead => decrypting.CanRead;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        try
        {
            return decrypting.Read(buffer);
        }
        catch (ContentEncodingException)
        {
            Failed = true;
            throw;
        }
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        try
        {
            return await decrypting.ReadAsync(buffer, cancellationToken).ConfigureAwait(false);
        }
        catch (ContentEncodingException)
        {
            Failed = true;
            throw;
        }
    }

    public override async Task CopyToAsync(Stream destination, int bufferSize, CancellationToken cancellationToken)
    {
        try
        {
            await decrypting.CopyToAsync(destination, bufferSize, cancellationToken).ConfigureAwait(false);
        }
        catch (ContentEncodingException)
        {
            Failed = true;
            throw;
        }
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override async ValueTask DisposeAsync()
    {
        await decrypting.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
    }

    protected override void Dispose(bool disposing)
    {
        // The middleware disposes this asynchronously; an endpoint's synchronous Dispose releases the decryptor only
        // (it reads nothing, so no synchronous I/O reaches the server).
        if (disposing)
        {
            decrypting.Dispose();
        }

        base.Dispose(disposing);
    }
}
