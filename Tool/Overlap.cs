// Overlapping the file I/O with the cryptography. The copy loop works on one batch of records while
// a thread-pool task reads the next batch (ReadAheadStream) and another writes the previous one
// (BatchWriter). Each side has two buffers: the one the loop works on and the one a task is
// reading into or writing from. Errors surface on the loop's thread, at the next call.

using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using System.Threading.Tasks;

namespace Cryptography.Tool;

/// <summary>Reads the input in blocks of a fixed size, each read in full (only the last block is
/// shorter), so that blocks line up with records; the next block is read while the caller works on the
/// current one.</summary>
internal sealed class ReadAheadStream : ReadOnlyForwardStream
{
    private readonly Stream _inner;
    private byte[] _current;
    private byte[] _next;
    private int _position;
    private int _length;
    private Task<int>? _pending;

    public ReadAheadStream(Stream inner, int blockSize)
    {
        _inner = inner;
        // Pinned, so that the GC never leaves copies of the content (encrypt's plaintext) behind.
        _current = GC.AllocateUninitializedArray<byte>(blockSize, pinned: true);
        _next = GC.AllocateUninitializedArray<byte>(blockSize, pinned: true);
        _pending = StartRead(_next);
    }

    /// <summary>How many bytes the caller has taken: where the caller is in the input.</summary>
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

    /// <summary>Returns the next block (or the rest of the current one) where it was read to, without a
    /// copy: valid until the next call. Every block but the last is full. Empty at the end of the input.</summary>
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
        if (disposing)
        {
            // The blocks may hold plaintext (encrypt's input): wipe them. A read still under way (a pipe
            // that has not ended) is left to finish on its own, and its buffer is not touched under it.
            CryptographicOperations.ZeroMemory(_current);
            if (_pending is null || _pending.IsCompleted)
            {
                CryptographicOperations.ZeroMemory(_next);
            }

            _pending = null;
        }

        base.Dispose(disposing);
    }

    // Fills the buffer unless the input ends first: a pipe's short reads are gathered into a full block.
    private Task<int> StartRead(byte[] buffer) => Task.Run(() => _inner.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false));

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
        // has finished with) is free for the next one. A short block means the input has ended.
        _length = _pending.GetAwaiter().GetResult();
        _position = 0;
        (_current, _next) = (_next, _current);
        _pending = _length == _current.Length ? StartRead(_next) : null;
        return _length > 0;
    }
}

/// <summary>Collects a batch of output in <see cref="Buffer"/> as a list of pieces (<see cref="Append"/>),
/// then writes it from a thread-pool task (<see cref="Submit"/>) while the caller fills the other buffer.
/// The pieces let decrypt write each record's data where it was decrypted, with no copy to close the
/// gaps. The buffers are wiped on dispose: they hold the content.</summary>
internal sealed class BatchWriter : IDisposable
{
    private readonly Sink _sink;
    private byte[] _filling;
    private byte[] _spare;
    private List<(int Start, int Length)> _pieces = [];
    private List<(int Start, int Length)> _sparePieces = [];
    private Task _pending = Task.CompletedTask;

    public BatchWriter(Sink sink, int capacity)
    {
        _sink = sink;
        // Pinned, so that the GC never leaves copies of the content (decrypt's plaintext) behind.
        _filling = GC.AllocateUninitializedArray<byte>(capacity, pinned: true);
        _spare = GC.AllocateUninitializedArray<byte>(capacity, pinned: true);
    }

    /// <summary>The buffer to fill with the next batch; it changes at each <see cref="Submit"/>.</summary>
    public Memory<byte> Buffer => _filling;

    /// <summary>Adds <paramref name="length"/> bytes of <see cref="Buffer"/> at <paramref name="start"/> to the batch.</summary>
    public void Append(int start, int length)
    {
        if (length > 0)
        {
            _pieces.Add((start, length));
        }
    }

    /// <summary>Waits for the previous batch to be written (throwing its error, if any), then starts
    /// writing this one.</summary>
    public void Submit()
    {
        _pending.GetAwaiter().GetResult();
        if (_pieces.Count == 0)
        {
            return;
        }

        byte[] full = _filling;
        List<(int Start, int Length)> pieces = _pieces;
        (_filling, _spare) = (_spare, full);
        (_pieces, _sparePieces) = (_sparePieces, pieces);
        _pieces.Clear();
        _pending = Task.Run(() =>
        {
            foreach ((int start, int length) in pieces)
            {
                _sink.Write(full.AsSpan(start, length));
            }
        });
    }

    /// <summary>Writes what was appended and waits until everything has been written.</summary>
    public void Flush()
    {
        Submit();
        _pending.GetAwaiter().GetResult();
        _sink.Flush();
    }

    public void Dispose()
    {
        // Unsubmitted pieces are dropped (a failure brought us here); wait for the write under way, so
        // that the file can be closed and deleted, then wipe both buffers.
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
}
