// A forward-only source for the stream tests: at most `chunk` bytes a read, and an IOException
// (or, with cancels, an OperationCanceledException) once, at read number failAt or (failOnceAtEnd) at
// the first read after the last byte, or (failEvery) at every failEvery-th read. Position says how
// far it has been read; it cannot be set.

using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace Tests.ContentEncodingTests;

internal sealed class FlakySource(byte[] data, int chunk, int failAt = -1, bool failOnceAtEnd = false, bool cancels = false, int failEvery = 0) : SourceStreamBase
{
    private int _position;
    private bool _failedAtEnd;

    public int Reads { get; private set; }

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => _position; set => throw new NotSupportedException(); }

    public override int Read(Span<byte> buffer)
    {
        Reads++;
        if (Reads - 1 == failAt || (failEvery > 0 && Reads % failEvery == 0) || (failOnceAtEnd && _position == data.Length && !_failedAtEnd))
        {
            _failedAtEnd = _position == data.Length;
            throw cancels ? new OperationCanceledException("transient") : new IOException("transient");
        }

        int count = Math.Min(Math.Min(buffer.Length, chunk), data.Length - _position);
        data.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromResult(Read(buffer.Span));

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
