// Overlapping the file I/O with the cryptography. The copy loop works on one batch of records while a
// reader thread fills the next blocks of input (BlockReader) and a writer thread writes the batches
// already done (BatchWriter). Each side has a small ring of buffers and its own long-lived thread.
//
// Why threads of their own, and rings rather than one spare buffer: measured on a 2-core VM, a
// thread-pool task per block waited 0.25-0.35 ms on average to start (an idle core has to be woken),
// close to the 0.5 ms a 2 MiB read itself took, so the loop stood waiting for its next block for
// 70-330 ms per GiB. A reader that runs ahead by several blocks pays that wake-up only when it has
// got ahead, while the loop still has blocks in hand.
//
// Whoever holds a buffer wipes it: the loop's side on Dispose, or the reader or writer thread itself
// if it is still inside a read or write then (a pipe that does not end), once that call returns.
// Errors from the threads surface on the loop's thread, at its next call.

using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.ExceptionServices;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.Tool;

/// <summary>Reads the input in blocks of a fixed size, each read in full (only the last block is
/// shorter), so that blocks line up with records; a thread of its own reads up to
/// <c>depth</c> − 1 blocks ahead of the caller.</summary>
internal sealed class BlockReader : IDisposable
{
    private readonly Stream _inner;
    private readonly byte[][] _buffers;
    private readonly int[] _lengths;
    private readonly SemaphoreSlim _free;
    private readonly SemaphoreSlim _filled = new(0);
    private readonly object _gate = new();
    private ExceptionDispatchInfo? _error;
    private bool _stopping;
    private int _reading = -1;
    private int _next;
    private bool _holding;
    private bool _ended;

    public BlockReader(Stream inner, int blockSize, int depth)
    {
        _inner = inner;
        _buffers = new byte[depth][];
        for (int i = 0; i < depth; i++)
        {
            // Pinned, so that the GC never leaves copies of the content (encrypt's plaintext) behind.
            _buffers[i] = GC.AllocateUninitializedArray<byte>(blockSize, pinned: true);
        }

        _lengths = new int[depth];
        _free = new SemaphoreSlim(depth);
        new Thread(ReadAll) { IsBackground = true, Name = "aesgcmsiv reader" }.Start();
    }

    /// <summary>How many bytes the caller has taken: where the caller is in the input.</summary>
    public long BytesConsumed { get; private set; }

    /// <summary>Returns the next block where it was read to, without a copy: valid until the next call.
    /// Every block but the last is full. Empty at the end of the input.</summary>
    public ReadOnlyMemory<byte> ReadBlock()
    {
        if (_holding)
        {
            // The caller is done with the previous block: the reader may fill it again.
            _holding = false;
            _free.Release();
        }

        if (_ended)
        {
            return ReadOnlyMemory<byte>.Empty;
        }

        _filled.Wait();
        int index = _next++ % _buffers.Length;
        int length = _lengths[index];
        if (length < 0)
        {
            _ended = true;
            _error!.Throw();
        }

        // A short block means the input has ended.
        _ended = length < _buffers[index].Length;
        _holding = true;
        BytesConsumed += length;
        return _buffers[index].AsMemory(0, length);
    }

    public void Dispose()
    {
        int reading;
        lock (_gate)
        {
            _stopping = true;
            reading = _reading;
        }

        // Let a reader waiting for a free buffer see _stopping and leave.
        _free.Release();
        for (int i = 0; i < _buffers.Length; i++)
        {
            if (i != reading)
            {
                CryptographicOperations.ZeroMemory(_buffers[i]);
            }
        }
    }

    // The reader thread: fills the buffers in turn until the input ends or a read fails.
    private void ReadAll()
    {
        for (int index = 0; ; index = (index + 1) % _buffers.Length)
        {
            _free.Wait();
            lock (_gate)
            {
                if (_stopping)
                {
                    return;
                }

                _reading = index;
            }

            byte[] buffer = _buffers[index];
            int length;
            try
            {
                // Fills the buffer unless the input ends first: a pipe's short reads are gathered.
                length = _inner.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
            }
            catch (Exception exception)
            {
                _error = ExceptionDispatchInfo.Capture(exception);
                length = -1;
            }

            lock (_gate)
            {
                _reading = -1;
                if (_stopping)
                {
                    // Disposed during the read: the caller left this buffer to us.
                    CryptographicOperations.ZeroMemory(buffer);
                    return;
                }
            }

            _lengths[index] = length;
            _filled.Release();
            if (length != buffer.Length)
            {
                return;
            }
        }
    }
}

/// <summary>Collects a batch of output in <see cref="Buffer"/> as a list of pieces (<see cref="Append"/>),
/// then hands it to a writer thread (<see cref="Submit"/>) while the caller fills the next buffer of a
/// small ring. The pieces let decrypt write each record's data where it was decrypted, with no copy to
/// close the gaps. The buffers are wiped on dispose: they hold the content.</summary>
internal sealed class BatchWriter : IDisposable
{
    private readonly Sink _sink;
    private readonly byte[][] _buffers;
    private readonly List<(int Start, int Length)>[] _pieces;
    private readonly SemaphoreSlim _free;
    private readonly SemaphoreSlim _queued = new(0);
    private readonly Thread _thread;
    private volatile ExceptionDispatchInfo? _error;
    private volatile bool _stopping;
    private int _filling;

    public BatchWriter(Sink sink, int capacity, int depth)
    {
        _sink = sink;
        _buffers = new byte[depth][];
        _pieces = new List<(int Start, int Length)>[depth];
        for (int i = 0; i < depth; i++)
        {
            // Pinned, so that the GC never leaves copies of the content (decrypt's plaintext) behind.
            _buffers[i] = GC.AllocateUninitializedArray<byte>(capacity, pinned: true);
            _pieces[i] = [];
        }

        // Buffers the caller may move on to: all but the one it fills.
        _free = new SemaphoreSlim(depth - 1);
        _thread = new Thread(WriteAll) { IsBackground = true, Name = "aesgcmsiv writer" };
        _thread.Start();
    }

    /// <summary>The buffer to fill with the next batch; it changes at each <see cref="Submit"/>.</summary>
    public Memory<byte> Buffer => _buffers[_filling];

    /// <summary>Adds <paramref name="length"/> bytes of <see cref="Buffer"/> at <paramref name="start"/> to the batch.</summary>
    public void Append(int start, int length)
    {
        if (length > 0)
        {
            _pieces[_filling].Add((start, length));
        }
    }

    /// <summary>Queues this batch for writing and moves on to the next buffer, waiting for it only if
    /// every other buffer is still queued. Throws the writer's error, if a write failed.</summary>
    public void Submit()
    {
        _error?.Throw();
        if (_pieces[_filling].Count == 0)
        {
            return;
        }

        // The writer takes buffers in the order they are queued, so the next one in the ring is the
        // first to come free.
        _queued.Release();
        _free.Wait();
        _filling = (_filling + 1) % _buffers.Length;
        _error?.Throw();
    }

    /// <summary>Writes what was appended and waits until everything has been written.</summary>
    public void Flush()
    {
        Submit();
        int others = _buffers.Length - 1;
        for (int i = 0; i < others; i++)
        {
            _free.Wait();
        }

        _free.Release(others);
        _error?.Throw();
        _sink.Flush();
    }

    public void Dispose()
    {
        // Batches still queued are dropped (a failure brought us here); the write under way is waited
        // for, so that the file can be closed and deleted. Then both the thread and we are done with
        // every buffer.
        _stopping = true;
        _queued.Release();
        _thread.Join();
        foreach (byte[] buffer in _buffers)
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    // The writer thread: writes queued batches in order; after a failure, or once disposed, it only
    // hands buffers back.
    private void WriteAll()
    {
        for (int index = 0; ; index = (index + 1) % _buffers.Length)
        {
            _queued.Wait();
            if (_stopping)
            {
                return;
            }

            List<(int Start, int Length)> pieces = _pieces[index];
            if (_error is null)
            {
                try
                {
                    // Pieces come in order and do not overlap. Decrypt leaves a gap after each record's
                    // data (its delimiter and padding): rather than one system call per piece (256 per
                    // MiB at 4 KiB records), close the gaps here, off the loop's thread, and write once.
                    byte[] buffer = _buffers[index];
                    int first = pieces.Count > 0 ? pieces[0].Start : 0;
                    int end = first;
                    foreach ((int start, int length) in pieces)
                    {
                        if (start != end)
                        {
                            buffer.AsSpan(start, length).CopyTo(buffer.AsSpan(end));
                        }

                        end += length;
                    }

                    _sink.Write(buffer.AsSpan(first, end - first));
                }
                catch (Exception exception)
                {
                    _error = ExceptionDispatchInfo.Capture(exception);
                }
            }

            pieces.Clear();
            _free.Release();
        }
    }
}
