// The members every forward-only stream of the tool answers the same way: Source reads, Sink
// writes, neither seeks or knows its length.

using System;
using System.IO;

namespace Cryptography.Tool;

/// <summary>A forward-only stream that can only be read; the derived class supplies Read(Span).</summary>
internal abstract class ReadOnlyForwardStream : Stream
{
    public sealed override bool CanRead => true;

    public sealed override bool CanSeek => false;

    public sealed override bool CanWrite => false;

    public sealed override long Length => throw new NotSupportedException();

    public sealed override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public abstract override int Read(Span<byte> buffer);

    public sealed override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        return Read(buffer.AsSpan(offset, count));
    }

    public sealed override void Flush()
    {
    }

    public sealed override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public sealed override void SetLength(long value) => throw new NotSupportedException();

    public sealed override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}

/// <summary>A forward-only stream that can only be written; the derived class supplies Write(ReadOnlySpan) and Flush.</summary>
internal abstract class WriteOnlyForwardStream : Stream
{
    public sealed override bool CanRead => false;

    public sealed override bool CanSeek => false;

    public sealed override bool CanWrite => true;

    public sealed override long Length => throw new NotSupportedException();

    public sealed override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public abstract override void Write(ReadOnlySpan<byte> buffer);

    public sealed override void Write(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        Write(buffer.AsSpan(offset, count));
    }

    public sealed override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public sealed override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public sealed override void SetLength(long value) => throw new NotSupportedException();
}
