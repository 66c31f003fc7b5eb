// A write-only Stream that encodes what is written to it as an encrypted body (RFC 8188 framing), in
// constant memory: pinned buffers from PinnedBuffers, wiped before they go back. A full record is
// sealed only when more data arrives, since only then is it known not to be the last; FlushFinalBlock
// (or a CopyFrom that read its source to the end) seals the last one. Dispose never does: it runs on
// the exception path too, where it cannot see the exception, and a last record written there turned a
// failed copy into a shorter body that verified (issue 47, item 0). Opted-in parallelism seals ~512 KiB batches on several threads into
// one of two output buffers while a background task writes the one before: ciphertext only, as every
// record is sealed inside a call of the caller's.

using System;
using System.IO;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>
/// A write-only stream that encrypts what is written to it into an encrypted body (RFC 8188
/// <c>aes128gcm</c>, or this library's <c>aes256gcmsiv</c>) on an underlying stream.
/// </summary>
/// <remarks>
/// <para>The header goes out with the first record; each full record as soon as a byte beyond it is
/// written; the last one only when the writer says the body is complete: <see cref="FlushFinalBlock"/> or
/// <see cref="FlushFinalBlockAsync"/>, or a <see cref="CopyFrom"/> or <see cref="CopyFromAsync(Stream, CancellationToken)"/> that read
/// its source to the end. Disposing a stream whose body is not complete writes nothing more (it is
/// <see cref="Abort"/>), so the receiver rejects the body as truncated: a copy that failed or was
/// cancelled half way, with the stream disposed by <c>using</c> on the way out, never passes for a whole
/// body. A failed or cancelled write to the destination may lose records, so it ends the body the same
/// way by itself: every later call throws <see cref="InvalidOperationException"/>. An exception from the
/// source of <see cref="CopyFrom"/> loses nothing, and the copy may be resumed.</para>
/// <example>
/// A whole source: <see cref="CopyFromAsync(Stream, CancellationToken)"/> ends the body once it has read the source to its end.
/// <code>
/// await using var encrypting = new ContentEncryptingStream(output, inputKeyingMaterial);
/// await encrypting.CopyFromAsync(input, cancellationToken);
/// </code>
/// Any other writer ends the body itself, after its last write:
/// <code>
/// await using var encrypting = new ContentEncryptingStream(output, inputKeyingMaterial);
/// await input.CopyToAsync(encrypting, cancellationToken);
/// await encrypting.FlushFinalBlockAsync(cancellationToken);   // the body is complete only now
/// </code>
/// If anything before the last line throws, disposing leaves the body without its last record.
/// </example>
/// <para>Memory: one record buffer. With <see cref="MaxDegreeOfParallelism"/> above 1, past the first 1 MiB
/// (records of at most 512 KiB), batches of about 512 KiB are sealed on several threads and written by a
/// background task while the caller goes on: three buffers of that size, four while <see cref="CopyFrom"/>
/// reads the next batch during the sealing. An error of the destination surfaces at the next call. Not
/// safe for concurrent use, <see cref="Stream.Dispose()"/> included. Disposing wipes the keys and the buffers.</para>
/// </remarks>
public sealed class ContentEncryptingStream : RecordStreamBase
{
    private readonly Stream _destination;
    private readonly bool _leaveOpen;
    private readonly ContentEncryptor _encryptor;
    private readonly int _maxData;
    private int _recordsPerBatch = 1;
    private byte[]? _buffer;    // the data: one record's, sealed there in place, or a batch's
    private int _count;         // the data bytes in it
    private byte[]? _output;    // a batch's sealed records, on the parallel path
    private byte[]? _spare;     // the batch of records the background task writes
    private Task? _writing;     // that task, while it runs
    private byte[]? _nextData;  // CopyFrom on the parallel path: the next batch's data, read while this one is sealed
    private int _nextCount;

    // CopyFrom's one byte read past a full buffer (pinned, and zeroed after each use).
    private byte[]? _probe;
    private bool _headerWritten;
    private bool _finished;
    private bool _disposed;

    // A write to the destination that failed or was cancelled part way may have lost records, so the
    // body can no longer be finished. Sticky, as age's stream keeps its error: every later call throws
    // and the body is never finished (issue 31, defect 2: a resumed body verified with a batch lost).
    private Exception? _fault;

    /// <summary>Creates a stream that writes an encrypted body to <paramref name="destination"/>.</summary>
    /// <param name="destination">The stream that receives the body.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty. It is not kept: the keys are derived at once.</param>
    /// <param name="options">The coding, record size, key id and parallelism; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <param name="salt">The 16-byte salt, or empty for a fresh random one. Never reuse a salt with the same keying material.</param>
    /// <param name="leaveOpen">Whether to leave <paramref name="destination"/> open when this stream is disposed.</param>
    /// <exception cref="ArgumentNullException"><paramref name="destination"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is not writable, the keying material is empty, or the salt has a wrong length.</exception>
    public ContentEncryptingStream(Stream destination, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null, ReadOnlySpan<byte> salt = default, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(destination);
        if (!destination.CanWrite)
        {
            throw new ArgumentException("The destination stream is not writable.", nameof(destination));
        }

        options = ContentEncodingOptions.Or(options);
        _encryptor = new ContentEncryptor(inputKeyingMaterial, options, salt);
        _destination = destination;
        _leaveOpen = leaveOpen;
        _maxData = _encryptor.MaxRecordDataLength;
        MaxDegreeOfParallelism = options.MaxDegreeOfParallelism;
        _buffer = PinnedBuffers.Rent(options.RecordSize);
    }

    /// <summary>Gets how many threads may seal records at once in a body larger than about 1 MiB
    /// (<see cref="ContentEncodingOptions.MaxDegreeOfParallelism"/>).</summary>
    public int MaxDegreeOfParallelism { get; }

    /// <summary>Gets the header this stream writes (its salt, record size and key id).</summary>
    public ContentEncodingHeader Header => _encryptor.Header;

    /// <inheritdoc/>
    public override bool CanRead => false;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => !_disposed && !_finished;

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    public override long Length => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    /// <summary>Encrypts <paramref name="buffer"/>, writing each record to the destination once it is known not to be the last.</summary>
    /// <param name="buffer">The data.</param>
    /// <exception cref="InvalidOperationException">The last record has been written, or an earlier write to the destination failed.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override void Write(ReadOnlySpan<byte> buffer)
    {
        ThrowIfNotWritable();
        while (!buffer.IsEmpty)
        {
            if (_count == Capacity && !AdvancedInline())
            {
                Wait(AdvanceAsync(useAsync: false, CancellationToken.None));
            }

            buffer = buffer[Take(buffer)..];
        }
    }

    /// <summary>Encrypts data, as <see cref="Write(ReadOnlySpan{byte})"/> does.</summary>
    /// <param name="buffer">The data.</param>
    /// <param name="offset">Where the data starts in <paramref name="buffer"/>.</param>
    /// <param name="count">The data's length.</param>
    /// <inheritdoc cref="Write(ReadOnlySpan{byte})" path="/exception"/>
    public override void Write(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        Write(buffer.AsSpan(offset, count));
    }

    /// <summary>Encrypts one byte, as <see cref="Write(ReadOnlySpan{byte})"/> does.</summary>
    /// <param name="value">The byte.</param>
    /// <inheritdoc cref="Write(ReadOnlySpan{byte})" path="/exception"/>
    public override void WriteByte(byte value) => Write(MemoryMarshal.CreateSpan(ref value, 1));

    /// <summary>Encrypts data, as <see cref="Write(ReadOnlySpan{byte})"/> does.</summary>
    /// <param name="buffer">The data.</param>
    /// <param name="cancellationToken">Cancels the writes to the destination.</param>
    /// <returns>A task that completes when the data has been taken.</returns>
    /// <inheritdoc cref="Write(ReadOnlySpan{byte})" path="/exception"/>
    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ThrowIfNotWritable();
        while (!buffer.IsEmpty)
        {
            if (_count == Capacity)
            {
                await AdvanceAsync(useAsync: true, cancellationToken).ConfigureAwait(false);
            }

            buffer = buffer[Take(buffer.Span)..];
        }
    }

    /// <summary>Encrypts data, as <see cref="Write(ReadOnlySpan{byte})"/> does.</summary>
    /// <param name="buffer">The data.</param>
    /// <param name="offset">Where the data starts in <paramref name="buffer"/>.</param>
    /// <param name="count">The data's length.</param>
    /// <param name="cancellationToken">Cancels the writes to the destination.</param>
    /// <returns>A task that completes when the data has been taken.</returns>
    /// <inheritdoc cref="Write(ReadOnlySpan{byte})" path="/exception"/>
    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
    }

    /// <summary>Encrypts everything <paramref name="source"/> holds, from where it is to its end, reading it
    /// straight into this stream's record buffers, and ends the body: the same body as writing the same
    /// data and calling <see cref="FlushFinalBlock"/>, without a copy through a buffer of the caller's.
    /// The last record is written only once <paramref name="source"/> has been read to its end; the
    /// stream then takes no more data.</summary>
    /// <param name="source">The stream to read the data from; read until a read returns 0.</param>
    /// <returns>The number of bytes read from <paramref name="source"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not readable.</exception>
    /// <exception cref="InvalidOperationException">The last record has been written, or an earlier write to the destination failed.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    /// <remarks>An exception from <paramref name="source"/> (or a cancellation) writes no last record and
    /// leaves what was read before it in the stream: call <see cref="CopyFrom"/> again to resume, or
    /// dispose the stream (or <see cref="Abort"/> it), and the receiver rejects the body as truncated.</remarks>
    public long CopyFrom(Stream source)
    {
        ValidateSource(source);
        return Wait(CopyFromAsync(source, useAsync: false, CancellationToken.None));
    }

    /// <summary>Encrypts everything <paramref name="source"/> holds, as <see cref="CopyFrom(Stream)"/> does, reading asynchronously.</summary>
    /// <param name="source">The stream to read the data from; read until a read returns 0.</param>
    /// <param name="cancellationToken">Cancels the reads from the source and the writes to the destination.</param>
    /// <returns>The number of bytes read from <paramref name="source"/>.</returns>
    /// <inheritdoc cref="CopyFrom(Stream)" path="/exception"/>
    public async ValueTask<long> CopyFromAsync(Stream source, CancellationToken cancellationToken = default)
    {
        ValidateSource(source);
        return await CopyFromAsync(source, useAsync: true, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Flushes the destination, once a batch the background task is writing (if any) is out.
    /// Buffered data stays buffered: a record goes out only when it is full and more data follows, or at
    /// <see cref="FlushFinalBlock"/>.</summary>
    /// <exception cref="InvalidOperationException">An earlier write to the destination failed.</exception>
    public override void Flush()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        Wait(FlushAsync(useAsync: false, CancellationToken.None));
    }

    /// <inheritdoc cref="Flush"/>
    /// <param name="cancellationToken">Cancels the flush.</param>
    /// <returns>A task that completes when the destination has been flushed.</returns>
    public override Task FlushAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return FlushAsync(useAsync: true, cancellationToken).AsTask();
    }

    /// <summary>Ends the body: writes the last record (and the header, if nothing was written yet) and flushes
    /// the destination. Until this (or a <see cref="CopyFrom"/> that read its source to the end) returns,
    /// the body is not complete, and disposing the stream leaves it truncated. Later writes throw; calling
    /// it again does nothing.</summary>
    /// <exception cref="InvalidOperationException">An earlier write to the destination failed: the body cannot be finished.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public void FlushFinalBlock() => Wait(FinishBodyAsync(useAsync: false, CancellationToken.None));

    /// <inheritdoc cref="FlushFinalBlock"/>
    /// <param name="cancellationToken">Cancels the writes to the destination.</param>
    /// <returns>A task that completes when the last record has been written and the destination flushed.</returns>
    public async ValueTask FlushFinalBlockAsync(CancellationToken cancellationToken = default) =>
        await FinishBodyAsync(useAsync: true, cancellationToken).ConfigureAwait(false);

    /// <summary>Releases the stream without writing the last record, so that the body written so far is
    /// rejected as truncated: for when the data source failed. Wipes the keys and the buffer. Disposing a
    /// stream whose body is not complete does the same; after <see cref="FlushFinalBlock"/> it only releases.</summary>
    public void Abort() => Dispose();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="buffer">Unused.</param>
    /// <param name="offset">Unused.</param>
    /// <param name="count">Unused.</param>
    /// <returns>Never returns.</returns>
    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="offset">Unused.</param>
    /// <param name="origin">Unused.</param>
    /// <returns>Never returns.</returns>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="value">Unused.</param>
    public override void SetLength(long value) => throw new NotSupportedException();

    /// <summary>Wipes the keys and the buffers (plaintext not yet sealed included) and disposes the destination
    /// unless it was to be left open. Writes nothing: a body not ended by <see cref="FlushFinalBlock"/>,
    /// <see cref="FlushFinalBlockAsync"/> or a <see cref="CopyFrom"/> that read its source to the end stays
    /// without its last record, and every decoder rejects it as truncated (as after <see cref="Abort"/>).</summary>
    /// <returns>A task that completes when the stream has been released.</returns>
    public override async ValueTask DisposeAsync()
    {
        await DisposeAsync(useAsync: true).ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <inheritdoc cref="DisposeAsync()"/>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Wait(DisposeAsync(useAsync: false));
        }

        base.Dispose(disposing);
    }

    internal static void Wait(ValueTask task)
    {
        if (!task.IsCompletedSuccessfully)
        {
            task.AsTask().GetAwaiter().GetResult();
        }
    }

    private static T Wait<T>(ValueTask<T> task) => task.IsCompletedSuccessfully ? task.Result : task.AsTask().GetAwaiter().GetResult();

    private async ValueTask DisposeAsync(bool useAsync)
    {
        if (_disposed)
        {
            return;
        }

        // No last record here: Dispose also runs when the writer's copy failed, and cannot tell.
        await ReleaseAsync(useAsync).ConfigureAwait(false);
        if (!_leaveOpen)
        {
            await (useAsync ? _destination.DisposeAsync() : Disposed(_destination)).ConfigureAwait(false);
        }
    }

    internal static ValueTask Disposed(Stream stream)
    {
        stream.Dispose();
        return default;
    }

    // The data a full buffer holds: whole records' data.
    private int Capacity => _recordsPerBatch * _maxData;

    // The destination is the caller's: a batch the background task is writing goes out (or fails)
    // before disposing returns, so nothing writes to it afterwards and an aborted body ends at a record.
    private async ValueTask ReleaseAsync(bool useAsync)
    {
        _disposed = true;
        _finished = true;
        await Guard(WrittenAsync(useAsync, CancellationToken.None)).AsTask().ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        _encryptor.Dispose();

        // Data, and sealed records (unless sealing the last record failed after its data was copied
        // in): all wiped (once per stream, not per batch).
        foreach (byte[]? buffer in (ReadOnlySpan<byte[]?>)[_buffer, _nextData, _output, _spare])
        {
            if (buffer is not null)
            {
                PinnedBuffers.Return(buffer);
            }
        }

        _buffer = _nextData = _output = _spare = null;
    }

    private void ValidateSource(Stream source)
    {
        ArgumentNullException.ThrowIfNull(source);
        ThrowIfNotWritable();
        if (!source.CanRead)
        {
            throw new ArgumentException("The source stream is not readable.", nameof(source));
        }
    }

    private void ThrowIfFaulted()
    {
        if (_fault is { } fault)
        {
            throw new InvalidOperationException(ContentEncodingMessages.EncryptingStreamFaulted, fault);
        }
    }

    private void ThrowIfNotWritable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ThrowIfFaulted();
        if (_finished)
        {
            throw new InvalidOperationException("The last record has been written; the stream takes no more data.");
        }
    }

    // Copies what fits of `data` into the buffer; returns how much.
    private int Take(ReadOnlySpan<byte> data)
    {
        int take = Math.Min(Capacity - _count, data.Length);
        data[..take].CopyTo(_buffer.AsSpan(_count));
        _count += take;
        return take;
    }

    // Seals the buffered data: every full record but, at the end of the body, the final one, which is
    // sealed as the last. One record is sealed in place; a batch, on several threads, into _output.
    // Returns the length of the records.
    private async ValueTask<int> SealAsync(bool isLast, Func<ValueTask>? meanwhile)
    {
        if (_recordsPerBatch == 1)
        {
            int sealedLength = _encryptor.EncryptRecord(_buffer.AsSpan(0, _count), _buffer, isLast);
            _count = 0;
            return sealedLength;
        }

        int recordSize = _encryptor.RecordSize;
        byte[] records = _output ??= PinnedBuffers.Rent(_recordsPerBatch * recordSize);
        int full = isLast ? Math.Max(0, _count - 1) / _maxData : _count / _maxData;
        await _encryptor.SealFullRecordsAsync(_buffer, _maxData, records, full, MaxDegreeOfParallelism, meanwhile).ConfigureAwait(false);
        int length = full * recordSize;
        if (isLast)
        {
            length += _encryptor.EncryptRecord(_buffer.AsSpan(full * _maxData, _count - (full * _maxData)), records.AsSpan(length), isLastRecord: true);
        }

        _count = 0;
        return length;
    }

    // Each operation below is written once, for both paths (CryptoStream's pattern): with useAsync
    // false every call it makes is synchronous but for the waits for a background task.

    // A failure between taking data and writing its records may lose some, so it faults the stream for good.
    private async ValueTask Guard(ValueTask operation)
    {
        try
        {
            await operation.ConfigureAwait(false);
        }
        catch (Exception exception)
        {
            _fault ??= exception;
            throw;
        }
    }

    // The buffer is full and more data follows: seal its records and send them, and past the first
    // 1 MiB start batches if the caller opted in.
    private async ValueTask AdvanceAsync(bool useAsync, CancellationToken cancellationToken, Func<ValueTask>? meanwhile = null)
    {
        if (useAsync || !AdvancedInline())
        {
            await Guard(SendAsync(isLast: false, useAsync, cancellationToken, meanwhile)).ConfigureAwait(false);
            StartBatchesWhenDue();
        }
    }

    // The synchronous sequential path's steady state, a record at a time: SendAsync's steps without
    // its async machinery, which cost 4 KiB records about 5% of their time (in-process A/B). False when it does not apply.
    private bool AdvancedInline()
    {
        if (_recordsPerBatch != 1 || !_headerWritten || _writing is not null)
        {
            return false;
        }

        try
        {
            _destination.Write(_buffer.AsSpan(0, _encryptor.EncryptRecord(_buffer.AsSpan(0, _count), _buffer, isLastRecord: false)));
        }
        catch (Exception exception)
        {
            _fault ??= exception;
            throw;
        }

        _count = 0;
        StartBatchesWhenDue();
        return true;
    }

    private void StartBatchesWhenDue()
    {
        int recordSize = _encryptor.RecordSize;
        if (_recordsPerBatch == 1 && RecordBatch.Applies(MaxDegreeOfParallelism, recordSize) && _encryptor.RecordCount * _maxData >= RecordBatch.StartBytes)
        {
            _recordsPerBatch = RecordBatch.RecordsPerBatch(recordSize);
            PinnedBuffers.Return(_buffer!, 0);   // a sealed record only: ciphertext
            _buffer = PinnedBuffers.Rent(Capacity);
        }
    }

    // Seals the buffered records and sends them, after the header before the first. On the parallel
    // path a background task writes a batch while the caller fills the next, once it has finished the
    // batch before (whose buffer is the next to seal into); the last records go out from here.
    private async ValueTask SendAsync(bool isLast, bool useAsync, CancellationToken cancellationToken, Func<ValueTask>? meanwhile = null)
    {
        int length = await SealAsync(isLast, meanwhile).ConfigureAwait(false);
        if (!_headerWritten)
        {
            byte[] header = new byte[_encryptor.Header.Length];
            _encryptor.Header.WriteTo(header);
            await WriteAsync(header, useAsync, cancellationToken).ConfigureAwait(false);
            _headerWritten = true;
        }

        await WrittenAsync(useAsync, cancellationToken).ConfigureAwait(false);
        if (_recordsPerBatch == 1 || isLast)
        {
            await WriteAsync((_recordsPerBatch == 1 ? _buffer : _output).AsMemory(0, length), useAsync, cancellationToken).ConfigureAwait(false);
            return;
        }

        byte[] sealedBatch = _output!;
        (_output, _spare) = (_spare, sealedBatch);
        _writing = WriteBehind(sealedBatch.AsMemory(0, length), useAsync);
    }

    // Its own method: a lambda capturing SendAsync's parameters would allocate its closure at every call.
    private Task WriteBehind(ReadOnlyMemory<byte> records, bool useAsync) =>
        Task.Run(async () => await WriteAsync(records, useAsync, CancellationToken.None).ConfigureAwait(false));

    // Waits for the background write, if one runs; its failure comes out here.
    private async ValueTask WrittenAsync(bool useAsync, CancellationToken cancellationToken)
    {
        if (_writing is { } writing)
        {
            await (useAsync ? writing.WaitAsync(cancellationToken) : writing).ConfigureAwait(false);
            _writing = null;
        }
    }

    private ValueTask WriteAsync(ReadOnlyMemory<byte> data, bool useAsync, CancellationToken cancellationToken)
    {
        if (useAsync)
        {
            return _destination.WriteAsync(data, cancellationToken);
        }

        _destination.Write(data.Span);
        return default;
    }

    private async ValueTask FlushAsync(bool useAsync, CancellationToken cancellationToken)
    {
        await Guard(WrittenAsync(useAsync, cancellationToken)).ConfigureAwait(false);
        await (useAsync ? new ValueTask(_destination.FlushAsync(cancellationToken)) : Flushed(_destination)).ConfigureAwait(false);
    }

    private static ValueTask Flushed(Stream stream)
    {
        stream.Flush();
        return default;
    }

    private async ValueTask<long> CopyFromAsync(Stream source, bool useAsync, CancellationToken cancellationToken)
    {
        long total = 0;
        byte[] probe = _probe ??= GC.AllocateArray<byte>(1, pinned: true);
        while (true)
        {
            // A full buffer's records go out only once more data is known to follow: one byte is read
            // first. Otherwise the data is read straight into the buffer, a whole batch at a time.
            bool full = _count == Capacity;
            Memory<byte> space = full ? probe : _buffer.AsMemory(_count, Capacity - _count);
            int read = useAsync ? await source.ReadAsync(space, cancellationToken).ConfigureAwait(false) : source.Read(space.Span);
            total += read;
            if (read == 0 || !full)
            {
                _count += read;
                if (read == 0)
                {
                    // The source ended: the one point where the whole copy is known to have succeeded.
                    await FinishBodyAsync(useAsync, cancellationToken).ConfigureAwait(false);
                    return total;
                }

                continue;
            }

            try
            {
                if (_recordsPerBatch == 1)
                {
                    await AdvanceAsync(useAsync, cancellationToken).ConfigureAwait(false);
                    Take(probe);
                }
                else
                {
                    total += await AdvanceReadingAsync(source, useAsync, cancellationToken).ConfigureAwait(false);
                }
            }
            finally
            {
                probe[0] = 0;
            }
        }
    }

    // CopyFrom on the parallel path, once the probe byte says more data follows: the caller reads the
    // rest of the next batch into a second data buffer while the helper threads seal this one, then
    // joins them, so that reading and sealing overlap with no task of their own. What it reads is
    // counted as it arrives and kept, whatever fails; its error comes out once the batch went out.
    // Returns the bytes read.
    private async ValueTask<int> AdvanceReadingAsync(Stream source, bool useAsync, CancellationToken cancellationToken)
    {
        byte[] next = _nextData ??= PinnedBuffers.Rent(Capacity);
        next[0] = _probe![0];
        _nextCount = 1;
        Exception? readError = null;
        try
        {
            await AdvanceAsync(useAsync, cancellationToken, async () =>
            {
                try
                {
                    for (int read = 1; read > 0 && _nextCount < Capacity; _nextCount += read)
                    {
                        Memory<byte> space = next.AsMemory(_nextCount, Capacity - _nextCount);
                        read = useAsync ? await source.ReadAsync(space, cancellationToken).ConfigureAwait(false) : source.Read(space.Span);
                    }
                }
                catch (Exception exception)
                {
                    readError = exception;
                }
            }).ConfigureAwait(false);
        }
        finally
        {
            (_buffer, _nextData) = (next, _buffer);
            _count = _nextCount;
        }

        if (readError is not null)
        {
            ExceptionDispatchInfo.Throw(readError);
        }

        return _count - 1;
    }

    internal static Task Waited(Task task)
    {
        ((IAsyncResult)task).AsyncWaitHandle.WaitOne();
        return task;
    }

    private async ValueTask FinishBodyAsync(bool useAsync, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ThrowIfFaulted();
        if (!_finished)
        {
            await Guard(SendAsync(isLast: true, useAsync, cancellationToken)).ConfigureAwait(false);
            _finished = true;
            await FlushAsync(useAsync, cancellationToken).ConfigureAwait(false);
        }
    }
}
