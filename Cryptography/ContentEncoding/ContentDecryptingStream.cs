// A read-only Stream that decodes an encrypted body (RFC 8188 framing) in constant memory. It reads
// records and one byte more (Tink's shape): that byte, or the source's end, says whether the records
// end the body, so ContentDecryptor.Open applies the end-of-body rule with every fact known. Every byte
// is counted as it arrives, so a source exception loses nothing. Opted-in parallelism opens ~512 KiB
// batches on several threads while a background task reads the next batch: ciphertext only, as every
// record is opened inside a call of the caller's.

using System;
using System.IO;
using System.Numerics;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>
/// A read-only stream that verifies and decrypts an encrypted body (RFC 8188 <c>aes128gcm</c>, or this
/// library's <c>aes256gcmsiv</c>) read from an underlying stream.
/// </summary>
/// <remarks>
/// <para>Data is returned only once its record has verified; a failure throws a
/// <see cref="ContentEncodingException"/>, and so does every later read. A record is opened once the
/// byte after it has arrived, or the source has ended: that byte says whether it is the last one.
/// Reading returns 0 only after the last record, with the source ended right after it. Data of earlier
/// records has been returned by then: a consumer that must not act on a body that later fails should
/// buffer, or act only at the end. An exception from the source (such as an <see cref="IOException"/>
/// or an <see cref="OperationCanceledException"/>) loses nothing: a later read resumes.</para>
/// <para>Memory: one pinned buffer of up to 64 KiB, or the record size if larger (at most
/// <see cref="ContentEncodingOptions.MaxRecordSize"/>), grown only as data arrives, so a header
/// announcing large records costs nothing until the data comes. With <see cref="MaxDegreeOfParallelism"/>
/// above 1, past the first 1 MiB (records of at most 512 KiB), two buffers of about 512 KiB: a background
/// task reads the next batch while the caller reads this one. Not safe for concurrent use,
/// <see cref="Stream.Dispose()"/> included. Disposing wipes the keys and the buffers.</para>
/// </remarks>
public sealed class ContentDecryptingStream : RecordStreamBase
{
    // The buffer's first size: what a body holds before it has sent more. Records up to 64 KiB never
    // grow it; larger ones pay one copy of at most rs bytes, once.
    internal const int InitialRecordBuffer = 65536;

    // How long disposing waits for a background read to end.
    private static readonly TimeSpan StopWait = TimeSpan.FromSeconds(1);

    private readonly Stream _source;
    private readonly bool _leaveOpen;
    private readonly ContentEncodingOptions _options;
    private readonly ContentKeyProvider? _keyProvider;
    private byte[]? _inputKeyingMaterial;
    private ContentDecryptor? _decryptor;
    private int _recordsPerBatch = 1;
    private Batch? _batch;
    private Batch? _spare;      // the buffer the background task reads the next batch into
    private Task? _reading;     // that task, while it runs
    private bool _ready;        // the next records are in _batch, to be opened
    private Batch? _filling;    // the batch the caller's source reads go into
    private bool _endOfBody;
    private bool _disposed;
    private ExceptionDispatchInfo? _failure;

    /// <summary>Creates a stream that decodes the body read from <paramref name="source"/> with one key.</summary>
    /// <param name="source">The stream the encrypted body is read from.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty. A copy is kept until the header has been read.</param>
    /// <param name="options">The coding the body was sealed with, the largest record size to accept (and so the largest
    /// buffer the stream may grow to) and the parallelism; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <param name="leaveOpen">Whether to leave <paramref name="source"/> open when this stream is disposed.</param>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not readable, or the keying material is empty.</exception>
    public ContentDecryptingStream(Stream source, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null, bool leaveOpen = false)
        : this(source, options, leaveOpen)
    {
        if (inputKeyingMaterial.IsEmpty)
        {
            throw new ArgumentException(ContentEncodingMessages.EmptyKeyingMaterial, nameof(inputKeyingMaterial));
        }

        _inputKeyingMaterial = PinnedBuffers.Copy(inputKeyingMaterial);
    }

    /// <summary>Creates a stream that decodes the body read from <paramref name="source"/> with the key its header's key id names.</summary>
    /// <param name="source">The stream the encrypted body is read from.</param>
    /// <param name="keyProvider">Maps the header's key id to the keying material; called once, at the first read.</param>
    /// <param name="options">The coding the body was sealed with, the largest record size to accept (and so the largest
    /// buffer the stream may grow to) and the parallelism; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <param name="leaveOpen">Whether to leave <paramref name="source"/> open when this stream is disposed.</param>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> or <paramref name="keyProvider"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not readable.</exception>
    public ContentDecryptingStream(Stream source, ContentKeyProvider keyProvider, ContentEncodingOptions? options = null, bool leaveOpen = false)
        : this(source, options, leaveOpen)
    {
        ArgumentNullException.ThrowIfNull(keyProvider);
        _keyProvider = keyProvider;
    }

    private ContentDecryptingStream(Stream source, ContentEncodingOptions? options, bool leaveOpen)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!source.CanRead)
        {
            throw new ArgumentException("The source stream is not readable.", nameof(source));
        }

        _source = source;
        _options = ContentEncodingOptions.Or(options);
        _leaveOpen = leaveOpen;
    }

    /// <summary>Gets the body's header once the first read has read it; <see langword="null"/> before.</summary>
    public ContentEncodingHeader? Header => _decryptor?.Header;

    /// <summary>Gets the number of records that have verified so far, including those of the current
    /// batch whose data has not been returned yet.</summary>
    /// <remarks>After a <see cref="ContentEncodingException"/> with a <see cref="ContentEncodingException.RecordIndex"/>,
    /// a count above that index means the record itself verified and what followed it failed.</remarks>
    public long RecordCount => _decryptor?.RecordCount ?? 0;

    /// <summary>Gets how many threads may open records at once in a body larger than about 1 MiB
    /// (<see cref="ContentEncodingOptions.MaxDegreeOfParallelism"/>).</summary>
    public int MaxDegreeOfParallelism => _options.MaxDegreeOfParallelism;

    /// <inheritdoc/>
    public override bool CanRead => !_disposed;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => false;

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    public override long Length => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    /// <summary>Reads verified, decrypted data. When <paramref name="buffer"/> has room for the records
    /// read, they decrypt straight into it.</summary>
    /// <param name="buffer">Receives the data.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for an empty <paramref name="buffer"/>).</returns>
    /// <exception cref="ContentEncodingHeaderException">The header is short or invalid, or no key is known for its key id.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The body ended before its last record.</exception>
    /// <exception cref="ContentEncodingCorruptedException">A record does not verify, has bad padding, or data follows the last record.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override int Read(Span<byte> buffer)
    {
        ThrowIfUnusable();
        while (!buffer.IsEmpty)
        {
            if (Delivered(Pump(buffer.Length, out ReadOnlyMemory<byte> chunk), chunk.Span, buffer) is int read)
            {
                return read;
            }
        }

        return 0;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <param name="buffer">Receives the data.</param>
    /// <param name="offset">Where to put the data in <paramref name="buffer"/>.</param>
    /// <param name="count">The most bytes to read.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for <paramref name="count"/> 0).</returns>
    /// <inheritdoc cref="Read(Span{byte})" path="/exception"/>
    public override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        return Read(buffer.AsSpan(offset, count));
    }

    /// <summary>Reads one verified, decrypted byte, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <returns>The byte, or -1 at the verified end of the body.</returns>
    /// <inheritdoc cref="Read(Span{byte})" path="/exception"/>
    public override int ReadByte()
    {
        byte value = 0;
        return Read(MemoryMarshal.CreateSpan(ref value, 1)) == 0 ? -1 : value;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <param name="buffer">Receives the data.</param>
    /// <param name="cancellationToken">Cancels the reads from the source.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for an empty <paramref name="buffer"/>).</returns>
    /// <inheritdoc cref="Read(Span{byte})" path="/exception"/>
    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ThrowIfUnusable();
        while (!buffer.IsEmpty)
        {
            (Need need, ReadOnlyMemory<byte> chunk) = await PumpAsync(buffer.Length, cancellationToken).ConfigureAwait(false);
            if (Delivered(need, chunk.Span, buffer.Span) is int read)
            {
                return read;
            }
        }

        return 0;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <param name="buffer">Receives the data.</param>
    /// <param name="offset">Where to put the data in <paramref name="buffer"/>.</param>
    /// <param name="count">The most bytes to read.</param>
    /// <param name="cancellationToken">Cancels the reads from the source.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for <paramref name="count"/> 0).</returns>
    /// <inheritdoc cref="Read(Span{byte})" path="/exception"/>
    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
    }

    /// <summary>Writes the verified, decrypted data to <paramref name="destination"/> from the stream's own
    /// buffer, which is pinned and wiped: no copy of the plaintext is left (<see cref="Stream"/>'s own
    /// implementation would leave one in a shared pool).</summary>
    /// <param name="destination">The stream to write to.</param>
    /// <param name="bufferSize">Unused: the data goes out as its records are opened.</param>
    /// <exception cref="ContentEncodingException">The body fails; the data before the failure has been written.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override void CopyTo(Stream destination, int bufferSize)
    {
        ValidateCopyToArguments(destination, bufferSize);
        ThrowIfUnusable();
        Need need;
        while ((need = Pump(int.MaxValue, out ReadOnlyMemory<byte> chunk)) != Need.End)
        {
            if (need == Need.Open)
            {
                Open(default);
            }
            else
            {
                destination.Write(chunk.Span);
            }
        }
    }

    /// <summary>Writes the verified, decrypted data to <paramref name="destination"/>, as <see cref="CopyTo(Stream, int)"/> does.</summary>
    /// <param name="destination">The stream to write to.</param>
    /// <param name="bufferSize">Unused: the data goes out as its records are opened.</param>
    /// <param name="cancellationToken">Cancels the reads from the source and the writes to <paramref name="destination"/>.</param>
    /// <returns>A task that completes when the whole verified content has been written.</returns>
    /// <inheritdoc cref="CopyTo(Stream, int)" path="/exception"/>
    public override async Task CopyToAsync(Stream destination, int bufferSize, CancellationToken cancellationToken)
    {
        ValidateCopyToArguments(destination, bufferSize);
        ThrowIfUnusable();
        while (await PumpAsync(int.MaxValue, cancellationToken).ConfigureAwait(false) is var (need, chunk) && need != Need.End)
        {
            if (need == Need.Open)
            {
                Open(default);
            }
            else
            {
                await destination.WriteAsync(chunk, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>Does nothing: the stream is read-only.</summary>
    public override void Flush()
    {
    }

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="buffer">Unused.</param>
    /// <param name="offset">Unused.</param>
    /// <param name="count">Unused.</param>
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="offset">Unused.</param>
    /// <param name="origin">Unused.</param>
    /// <returns>Never returns.</returns>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <summary>Not supported: throws <see cref="NotSupportedException"/>.</summary>
    /// <param name="value">Unused.</param>
    public override void SetLength(long value) => throw new NotSupportedException();

    /// <summary>Wipes the keys and the buffers and disposes the source unless it was to be left open. A
    /// background read still running is given a moment to end; if it does not, its buffer is wiped when it does.</summary>
    /// <returns>A task that completes when the stream has been released.</returns>
    public override async ValueTask DisposeAsync()
    {
        await ReleaseAsync(useAsync: true).ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <inheritdoc cref="DisposeAsync()"/>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            ContentEncryptingStream.Wait(ReleaseAsync(useAsync: false));
        }

        base.Dispose(disposing);
    }

    // A background read still running is given a moment to end, so that it stops using the source
    // before the source is disposed or handed back (leaveOpen), without blocking (DisposeAsync) or
    // for long (Dispose): a source that sends nothing more would hold it forever. A read that has not
    // ended by then keeps its buffer until it does; the buffer is wiped and given back then.
    private async ValueTask ReleaseAsync(bool useAsync)
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _decryptor?.Dispose();
        if (_inputKeyingMaterial is not null)
        {
            CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
        }

        _batch?.Release();
        if (_reading is { IsCompleted: false } reading)
        {
            // Failed or still stuck: either way the stream is done with it.
            Task waiting = reading.WaitAsync(StopWait);
            await (useAsync ? waiting : ContentEncryptingStream.Waited(waiting)).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }

        if (_spare is { } spare && _reading is { IsCompleted: false } stuck)
        {
            _ = stuck.ContinueWith(_ => spare.Release(), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
        else
        {
            _spare?.Release();
        }

        if (!_leaveOpen)
        {
            await (useAsync ? _source.DisposeAsync() : ContentEncryptingStream.Disposed(_source)).ConfigureAwait(false);
        }
    }

    // What a read returns once Pump has done its step: the verified data it brought, the end (0), or,
    // when records are ready to open, the data of one opened straight into the caller's buffer; null
    // when they opened into the stream's buffer and the read goes on.
    private int? Delivered(Need need, ReadOnlySpan<byte> chunk, Span<byte> buffer)
    {
        chunk.CopyTo(buffer);
        return need != Need.Open ? chunk.Length : Open(buffer) is > 0 and int direct ? direct : null;
    }

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _failure?.Throw();
    }

    // What Step needs done before it can go on.
    private enum Need
    {
        Data,       // verified data is ready: the chunk
        Bytes,      // bytes from the source, in the space it names
        Background, // the background read to end
        Open,       // the next records are in the buffer: the caller opens them (into its own span, if one fits)
        End,        // the verified end of the body
    }

    // The stream's reading logic, written once and free of I/O: Pump and PumpAsync do what it asks for
    // (a source read, a wait for the background read) and call it again, so the sync and async paths
    // cannot drift, and a read on the sync path runs no async machinery per record.
    private Need Step(int max, bool useAsync, out ReadOnlyMemory<byte> chunk, out Memory<byte> space)
    {
        chunk = default;
        space = default;
        if (_batch is { } batch && (batch.Taken < batch.DataLength || batch.Error is not null))
        {
            int count = Math.Min(max, batch.DataLength - batch.Taken);
            if (count == 0)
            {
                throw batch.Error!;
            }

            batch.Taken += count;
            chunk = batch.Buffer.AsMemory(batch.Taken - count, count);
            return Need.Data;
        }

        if (_ready || _endOfBody)
        {
            return _ready ? Need.Open : Need.End;
        }

        Batch current = _batch ??= new Batch();
        if (_decryptor is null && !HeaderRead(current, out space))
        {
            _filling = current;
            return Need.Bytes;
        }

        int recordSize = _decryptor!.Header.RecordSize;
        if (current.Spent && RecordBatch.Applies(MaxDegreeOfParallelism, recordSize) && _decryptor.RecordCount * (recordSize - ContentEncryption.TagSize) >= RecordBatch.StartBytes)
        {
            _recordsPerBatch = RecordBatch.RecordsPerBatch(recordSize);
        }

        if (_recordsPerBatch == 1)
        {
            current.Carry(current, recordSize);
            if (NextRecordsRead(_filling = current, out space))
            {
                return Need.Bytes;
            }
        }
        else
        {
            if (_reading is { } reading)
            {
                if (!reading.IsCompleted)
                {
                    return Need.Background;
                }

                // A source error of the background read comes out here, once; the bytes it read are kept.
                _reading = null;
                if (reading.Exception?.InnerException is { } error)
                {
                    ExceptionDispatchInfo.Throw(error);
                }
            }

            Batch next = _spare ??= new Batch();
            next.Carry(current, recordSize);
            if (NextRecordsRead(_filling = next, out space))
            {
                return Need.Bytes;
            }

            (_batch, _spare) = (next, current);
            if (!next.SourceEnded)
            {
                // The background task only reads: it never touches the keys or a record's plaintext.
                current.Carry(next, recordSize);
                _reading = ReadAhead(current, useAsync);
            }
        }

        _filling = null;
        _ready = true;
        return Need.Open;
    }

    private Need Pump(int max, out ReadOnlyMemory<byte> chunk)
    {
        try
        {
            while (true)
            {
                switch (Step(max, useAsync: false, out chunk, out Memory<byte> space))
                {
                    case Need.Bytes:
                        _filling!.Deliver(_source.Read(space.Span));
                        break;
                    case Need.Background:
                        ((IAsyncResult)_reading!).AsyncWaitHandle.WaitOne();
                        break;
                    case var need:
                        return need;
                }
            }
        }
        catch (ContentEncodingException exception)
        {
            throw Fail(exception);
        }
    }

    private async ValueTask<(Need Need, ReadOnlyMemory<byte> Chunk)> PumpAsync(int max, CancellationToken cancellationToken)
    {
        try
        {
            while (true)
            {
                switch (Step(max, useAsync: true, out ReadOnlyMemory<byte> chunk, out Memory<byte> space))
                {
                    case Need.Bytes:
                        _filling!.Deliver(await _source.ReadAsync(space, cancellationToken).ConfigureAwait(false));
                        break;
                    case Need.Background:
                        // Step sees how the read ended; a cancelled wait leaves the read running.
                        await ((Task)_reading!.ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default)).WaitAsync(cancellationToken).ConfigureAwait(false);
                        break;
                    case var need:
                        return (need, chunk);
                }
            }
        }
        catch (ContentEncodingException exception)
        {
            throw Fail(exception);
        }
    }

    // A failure of the body is final; the buffers, which may hold plaintext, are wiped at once.
    private ContentEncodingException Fail(ContentEncodingException exception)
    {
        _failure = ExceptionDispatchInfo.Capture(exception);
        _batch?.Wipe();
        if (_reading is null)
        {
            _spare?.Wipe();
        }

        return exception;
    }

    // Reads the header into the batch's buffer: its fixed part, then the key id that part announces,
    // and whatever records the same reads bring. Once it is complete (or the source ended: a short
    // header, which Parse rejects), derives the keys and leaves the records' bytes in the buffer.
    private bool HeaderRead(Batch batch, out Memory<byte> space)
    {
        batch.Buffer ??= PinnedBuffers.Rent(InitialRecordBuffer + 1);
        batch.Spent = false;
        ReadOnlySpan<byte> received = batch.Buffer.AsSpan(0, batch.Received);
        int wanted = ContentEncodingHeader.TryGetLength(received, out int length) ? length : ContentEncodingHeader.FixedLength;
        space = batch.Buffer.AsMemory(batch.Received, InitialRecordBuffer + 1 - batch.Received);
        if (batch.Received < wanted && !batch.SourceEnded)
        {
            return false;
        }

        ContentEncodingHeader header = ContentEncodingHeader.Parse(received[..Math.Min(wanted, received.Length)], _options.MaxRecordSize);
        _decryptor = _keyProvider is not null
            ? ContentEncryption.CreateDecryptor(_keyProvider, header, _options)
            : new ContentDecryptor(header, _inputKeyingMaterial, _options);
        if (_inputKeyingMaterial is not null)
        {
            CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            _inputKeyingMaterial = null;
        }

        received[header.Length..].CopyTo(batch.Buffer);
        batch.Received -= header.Length;
        return true;
    }

    // Where the batch's next bytes go: it is ready to open once it holds its records and one byte more,
    // or what the source held up to its end (then this returns false). A read asks for no more: reads
    // of 64 KiB ahead of 4 KiB records ran 20% slower in BenchmarkDotNet (records read from L2
    // rather than L1, probably; not measured).
    private bool NextRecordsRead(Batch batch, out Memory<byte> space)
    {
        int recordSize = _decryptor!.Header.RecordSize;
        int target = (_recordsPerBatch * recordSize) + 1;
        space = default;
        if (batch.SourceEnded || batch.Received >= target)
        {
            return false;
        }

        if (batch.Buffer is null || batch.Received == batch.Buffer.Length)
        {
            Grow(batch, target);
        }

        space = batch.Buffer.AsMemory(batch.Received, Math.Min(batch.Buffer!.Length, target) - batch.Received);
        return true;
    }

    // Its own method: a lambda capturing Step's parameters would allocate its closure at every call.
    private Task ReadAhead(Batch batch, bool useAsync) => Task.Run(async () =>
    {
        while (NextRecordsRead(batch, out Memory<byte> space))
        {
            batch.Deliver(useAsync ? await _source.ReadAsync(space).ConfigureAwait(false) : _source.Read(space.Span));
        }
    });

    // The buffer starts small and doubles when full (to the pool's next size class), up to the batch:
    // memory follows the bytes that have arrived, not the record size the header claims. A seekable
    // source says how many bytes it still holds: those exist already, so the buffer takes them at once.
    private void Grow(Batch batch, int target)
    {
        int size = batch.Buffer is null ? Math.Min(target, InitialRecordBuffer + 1) : (int)Math.Min(target, 2L << BitOperations.Log2((uint)batch.Buffer.Length));
        long held = SourceBytesLeft();
        if (held > size - batch.Received)
        {
            size = (int)Math.Min(target, batch.Received + held);
        }

        byte[] grown = PinnedBuffers.Rent(size);
        if (batch.Buffer is { } old)
        {
            // What was received is ciphertext; what lies beyond it may be an earlier batch's plaintext.
            old.AsSpan(0, batch.Received).CopyTo(grown);
            PinnedBuffers.Return(old, batch.Used);
        }

        batch.Buffer = grown;
        batch.Used = batch.Received;
    }

    // The bytes a seekable source holds after its position; -1 when it cannot say.
    private long SourceBytesLeft()
    {
        try
        {
            return _source.CanSeek ? Math.Max(0, _source.Length - _source.Position) : -1;
        }
        catch (Exception exception) when (exception is NotSupportedException or IOException or ObjectDisposedException)
        {
            return -1;
        }
    }

    // Opens the current batch's records from Start: the byte after them (or the source's end) says
    // whether the last of them ends the body. When `direct` has room for the next record, that one
    // decrypts straight into it (its data's length is returned) and the rest wait in the buffer for
    // the next reads; otherwise they all open in place, their data moved together at the buffer's start.
    private int Open(Span<byte> direct)
    {
        _ready = false;
        Batch batch = _batch!;
        int recordSize = _decryptor!.Header.RecordSize;
        bool isFinal = batch.SourceEnded;
        int end = batch.RecordsEnd(recordSize);
        int next = Math.Min(recordSize, end - batch.Start);
        int records = (end - batch.Start + recordSize - 1) / recordSize;
        if (batch.Lengths.Length < Math.Max(1, records))
        {
            batch.Lengths = new int[Math.Max(1, records)];
        }

        batch.Used = Math.Max(batch.Used, batch.Received);
        batch.Taken = batch.DataLength = 0;
        ContentEncodingException? error;
        if (next > 0 && _recordsPerBatch == 1 && direct.Length >= next - ContentEncryption.TagSize)
        {
            // The sequential path's usual case. Decrypting at the caller's buffer's start keeps the
            // cipher's vector loads and stores aligned, probably why records packed one after another
            // there ran 20-30% slower in BenchmarkDotNet; the records after it need no source read.
            bool last = batch.Start + next == end;
            int opened = _decryptor.Open(batch.Buffer.AsSpan(batch.Start, next), direct, recordSize, batch.Lengths, last ? isFinal : false, out error) == 1 ? batch.Lengths[0] : 0;
            batch.Start += next;
            batch.Error = error;
            _ready = !last && error is null;
            batch.Spent = !_ready;
            _endOfBody = last && isFinal;
            return opened;
        }

        int released = _decryptor.Open(batch.Buffer.AsMemory(batch.Start, end - batch.Start), batch.Buffer.AsMemory(batch.Start), recordSize, batch.Lengths, isFinal, _recordsPerBatch == 1 ? 1 : MaxDegreeOfParallelism, out error);
        batch.Error = error;
        int data = 0;
        for (int i = 0; i < released; i++)
        {
            // Record i's data starts at Start + i × rs; they move down to follow each other at the buffer's start.
            batch.Buffer.AsSpan(batch.Start + (i * recordSize), batch.Lengths[i]).CopyTo(batch.Buffer.AsSpan(data));
            data += batch.Lengths[i];
        }

        batch.DataLength = data;
        batch.Spent = true;
        _endOfBody = isFinal;
        return 0;
    }

    /// <summary>A buffer of records and what has become of them.</summary>
    internal sealed class Batch
    {
        public byte[]? Buffer;                     // pinned (PinnedBuffers), null before the first read
        public int Received;                       // bytes from the source, from the buffer's start
        public int Start;                          // where the records not opened yet start
        public int Used;                           // how far plaintext may reach: the furthest ever filled
        public bool SourceEnded;
        public bool Spent = true;                  // opened: the next fill starts over
        public int[] Lengths = [];
        public int DataLength;                     // the verified data, moved to the buffer's start
        public int Taken;                          // how much of it was handed out
        public ContentEncodingException? Error;    // reported once the data before it is taken

        // Where the records to open end: at the source's end, or before the last byte received (the
        // first of the next record, which says whether the records end the body).
        public int RecordsEnd(int recordSize) => SourceEnded ? Received : (Received - 1) / recordSize * recordSize;

        // Starts over after `previous`'s records were opened, with the bytes received past them (the
        // start of the next record); does nothing if not spent.
        public void Carry(Batch previous, int recordSize)
        {
            if (!Spent)
            {
                return;
            }

            int from = previous.RecordsEnd(recordSize);
            int rest = previous.Received - from;
            if (rest > 0 && (Buffer is null || Buffer.Length < rest))
            {
                Release();
                (Buffer, Used) = (PinnedBuffers.Rent(Math.Max(InitialRecordBuffer + 1, rest)), 0);
            }

            previous.Buffer.AsSpan(from, rest).CopyTo(Buffer);

            Received = rest;
            Start = 0;
            SourceEnded = false;
            Spent = false;
            DataLength = Taken = 0;
            Error = null;
        }

        // Counts what a source read returned. Every byte is counted as it arrives, so an exception from
        // the source (which skips this) loses nothing and a retry resumes.
        public void Deliver(int read)
        {
            Received += read;
            SourceEnded = read == 0;
        }

        public void Wipe()
        {
            DataLength = Taken = 0;
            if (Buffer is not null)
            {
                CryptographicOperations.ZeroMemory(Buffer);
            }
        }

        public void Release()
        {
            DataLength = Taken = 0;
            if (Buffer is { } buffer)
            {
                Buffer = null;
                PinnedBuffers.Return(buffer, Math.Max(Used, Received));
            }
        }
    }
}
