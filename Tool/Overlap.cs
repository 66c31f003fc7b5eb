// Overlapping the file I/O with the cryptography: on two cores, reading the next block and writing
// the previous one cost no time while the current one is encrypted or decrypted. Each side has two
// buffers: the one the copy loop works on, and the one a thread-pool task is reading into or writing
// from. Errors surface on the copy loop's thread, at the next call. Memory: 2 x 1 MiB per side.

using System;
using System.IO;
using System.Security.Cryptography;
using System.Threading.Tasks;

namespace Cryptography.Tool;

/// <summary>Reads the next block of the inner stream while the caller consumes the current one. A read
/// returns as soon as the inner stream returns anything, so a pipe's data is not held back.</summary>
internal sealed class ReadAheadStream : ReadOnlyForwardStream
{
    private readonly Stream _inner;
    private byte[] _current;
    private byte[] _next;
    private int _position;
    private int _length;
    private Task<int>? _pending;

    public ReadAheadStream(Stream inner, int bufferSize)
    {
        _inner = inner;
        _current = GC.AllocateUninitializedArray<byte>(bufferSize);
        _next = GC.AllocateUninitializedArray<byte>(bufferSize);
        _pending = StartRead(_next);
    }

    /// <summary>How many bytes the caller has read: where the caller is in the input.</summary>
    public long BytesConsumed { get; private set; }

    public override int Read(Span<byte> buffer)
    {
        if (buffer.IsEmpty || !Fill())
        {
            return 0;
        }

        int count = Math.Min(buffer.Length, _length - _position);
        _current.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        BytesConsumed += count;
        return count;
    }

    /// <summary>Returns the rest of the current block where it was read to, without a copy: valid until
    /// the next call. Empty at the end of the input.</summary>
    public ReadOnlyMemory<byte> ReadBlock()
    {
        if (!Fill())
        {
            return ReadOnlyMemory<byte>.Empty;
        }

        ReadOnlyMemory<byte> block = _current.AsMemory(_position, _length - _position);
        _position = _length;
        BytesConsumed += block.Length;
        return block;
    }

    protected override void Dispose(bool disposing)
    {
        // A read still under way (a pipe that has not ended) is left to finish on its own: the inner
        // stream belongs to the caller, and the buffers hold input, not secrets.
        _pending = null;
        base.Dispose(disposing);
    }

    private Task<int> StartRead(byte[] buffer) => Task.Run(() => _inner.Read(buffer, 0, buffer.Length));

    // Makes data available in _current; false at the end of the input.
    private bool Fill()
    {
        if (_position < _length)
        {
            return true;
        }

        if (_pending is null)
        {
            return false;
        }

        // The read into _next is the only one under way; once it is done, _current (which the caller
        // has finished with) is free for the next one.
        _length = _pending.GetAwaiter().GetResult();
        _position = 0;
        (_current, _next) = (_next, _current);
        _pending = _length == 0 ? null : StartRead(_next);
        return _length > 0;
    }
}

/// <summary>Writes a full block to the inner stream while the caller fills the next one. Flush waits
/// for everything to be written; an inner write's error is thrown by the next Write or Flush.</summary>
internal sealed class WriteBehindStream : WriteOnlyForwardStream
{
    private readonly Stream _inner;
    private byte[] _filling;
    private byte[] _spare;
    private int _count;
    private Task _pending = Task.CompletedTask;

    public WriteBehindStream(Stream inner, int bufferSize)
    {
        _inner = inner;
        _filling = GC.AllocateUninitializedArray<byte>(bufferSize);
        _spare = GC.AllocateUninitializedArray<byte>(bufferSize);
    }

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        while (!buffer.IsEmpty)
        {
            int take = Math.Min(_filling.Length - _count, buffer.Length);
            buffer[..take].CopyTo(_filling.AsSpan(_count));
            _count += take;
            buffer = buffer[take..];
            if (_count == _filling.Length)
            {
                HandOff();
            }
        }
    }

    /// <summary>The free part of the block being filled, for a producer that writes into it directly
    /// (then calls <see cref="Advance"/>): one copy fewer than <see cref="Write(ReadOnlySpan{byte})"/>.</summary>
    public Span<byte> FreeSpace => _filling.AsSpan(_count);

    /// <summary>Takes <paramref name="count"/> bytes written into <see cref="FreeSpace"/>.</summary>
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _filling.Length - _count);
        _count += count;
        if (_count == _filling.Length)
        {
            HandOff();
        }
    }

    public override void Flush()
    {
        if (_count > 0)
        {
            HandOff();
        }

        _pending.GetAwaiter().GetResult();
        _inner.Flush();
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            // Unflushed data is dropped (a failure brought us here); wait for the write under way, so
            // that the file can be closed and deleted, and wipe both buffers: they held the content.
            try
            {
                _pending.GetAwaiter().GetResult();
            }
            catch (Exception exception) when (exception is ToolException || Errors.IsFileError(exception))
            {
                // The failure that brought us here is the one to report.
            }

            CryptographicOperations.ZeroMemory(_filling);
            CryptographicOperations.ZeroMemory(_spare);
        }

        base.Dispose(disposing);
    }

    // Waits for the previous block's write (which frees _spare), then writes the full block from a task.
    private void HandOff()
    {
        _pending.GetAwaiter().GetResult();
        byte[] full = _filling;
        int count = _count;
        (_filling, _spare) = (_spare, full);
        _count = 0;
        _pending = Task.Run(() => _inner.Write(full, 0, count));
    }
}
