// A read-only Stream that decodes an encrypted body (RFC 8188 framing) from an underlying stream in
// constant memory: one pinned record buffer, which grows with the bytes received (never to more
// than the record size) and is wiped before it goes back to PinnedBuffers. Every byte read from the
// source is counted as it arrives, so an exception from the source leaves nothing half done.
// A record's plaintext is released only after its tag verified and its padding checked; end of
// data is reported only after a record marked as the last one was opened and nothing followed it.
// When the caller opts in (MaxDegreeOfParallelism > 1), past the first 1 MiB of records
// (RecordPipeline.StartBytes) an OpeningPipeline (RecordPipeline.cs) takes over:
// background stages read ahead and open batches on several threads, under the same rules.

using System;
using System.Globalization;
using System.IO;
using System.Runtime.ExceptionServices;
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
/// <para>The header is read at the first read. Data is returned a record at a time, and only once the
/// record has verified: a failure throws a <see cref="ContentEncodingException"/> (header, truncated or
/// corrupted) before any of that record's data is returned. Reading returns 0 (end of data) only after
/// the last record has been opened and the source has ended right after it. Data of earlier records
/// has been returned by then: a consumer that must not act on a body that later fails should buffer,
/// or act only once the stream has reported its end.</para>
/// <para>After a failure (a <see cref="ContentEncodingException"/>), every later read throws the same
/// exception. An exception from the source (such as an <see cref="IOException"/> or an
/// <see cref="OperationCanceledException"/>) loses nothing: a later read resumes where the source left
/// off, and the end of the body is reported only after all of its verified data was returned.</para>
/// <para>Memory: one pinned record buffer, which starts at the smaller of the record size and 64 KiB and
/// doubles only when the data received fills it, up to the body's record size (at most
/// <c>maxRecordSize</c>): a header announcing a large record size costs nothing until the data
/// arrives. From a seekable source (a file, a <see cref="MemoryStream"/>) it grows at once to what the
/// source still holds, up to the record size, since those bytes exist already. With <see cref="MaxDegreeOfParallelism"/>
/// above 1, past the first 1 MiB of a body with records of at most 512 KiB, a background task reads
/// ahead and opens batches of about 512 KiB on up to <see cref="MaxDegreeOfParallelism"/> threads
/// while the caller reads the batch before: then the stream holds eight buffers of about 512 KiB.
/// An instance is not safe for concurrent use. Disposing wipes the keys and the buffers.</para>
/// </remarks>
public sealed class ContentDecryptingStream : Stream
{
    // The record buffer's first size when the record size is larger: the memory a body holds before
    // it has sent more. It doubles as data arrives (see NextRecordRead). 64 KiB: bodies with records
    // up to that size (RFC 8188's examples use 4096) never grow the buffer or copy; larger records pay
    // one copy of at most rs bytes, during the first record only.
    internal const int InitialRecordBuffer = 65536;

    private readonly Stream _source;
    private readonly bool _leaveOpen;
    private readonly ContentCoding _coding;
    private readonly int _maxRecordSize;
    private readonly ContentKeyProvider? _keyProvider;
    private byte[]? _inputKeyingMaterial;
    private ContentDecryptor? _decryptor;
    private readonly byte[] _probe = new byte[1];
    private byte[]? _header;
    private int _headerReceived;
    private byte[]? _record;
    private int _recordReceived;
    private bool _probePending;
    private bool _sourceEnded;
    private int _plaintextStart;
    private int _plaintextEnd;
    private bool _endOfBody;
    private bool _disposed;
    private ExceptionDispatchInfo? _failure;
    private readonly int _maxDegreeOfParallelism = RecordPipeline.DefaultParallelism;
    private OpeningPipeline? _pipeline;
    private OpeningPipeline.Batch? _batch;
    private bool _pipelineStopped;

    /// <summary>Creates a stream that decodes the body read from <paramref name="source"/> with one key.</summary>
    /// <param name="source">The stream the encrypted body is read from.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty. A copy is kept until the header has been read.</param>
    /// <param name="coding">The coding the body was sealed with.</param>
    /// <param name="leaveOpen">Whether to leave <paramref name="source"/> open when this stream is disposed.</param>
    /// <param name="maxRecordSize">The largest record size to accept, and so the largest buffer the stream may grow to.</param>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not readable, or the keying material is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coding"/> or <paramref name="maxRecordSize"/> is out of range.</exception>
    public ContentDecryptingStream(Stream source, ReadOnlySpan<byte> inputKeyingMaterial, ContentCoding coding = ContentCoding.Aes128Gcm, bool leaveOpen = false, int maxRecordSize = ContentEncryption.MaxRecordSize)
        : this(source, coding, leaveOpen, maxRecordSize)
    {
        if (inputKeyingMaterial.IsEmpty)
        {
            throw new ArgumentException(ContentEncodingMessages.EmptyKeyingMaterial, nameof(inputKeyingMaterial));
        }

        _inputKeyingMaterial = GC.AllocateArray<byte>(inputKeyingMaterial.Length, pinned: true);
        inputKeyingMaterial.CopyTo(_inputKeyingMaterial);
    }

    /// <summary>Creates a stream that decodes the body read from <paramref name="source"/> with the key its header's key id names.</summary>
    /// <param name="source">The stream the encrypted body is read from.</param>
    /// <param name="keyProvider">Maps the header's key id to the keying material; called once, at the first read.</param>
    /// <param name="coding">The coding the body was sealed with.</param>
    /// <param name="leaveOpen">Whether to leave <paramref name="source"/> open when this stream is disposed.</param>
    /// <param name="maxRecordSize">The largest record size to accept, and so the largest buffer the stream may grow to.</param>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> or <paramref name="keyProvider"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not readable.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coding"/> or <paramref name="maxRecordSize"/> is out of range.</exception>
    public ContentDecryptingStream(Stream source, ContentKeyProvider keyProvider, ContentCoding coding = ContentCoding.Aes128Gcm, bool leaveOpen = false, int maxRecordSize = ContentEncryption.MaxRecordSize)
        : this(source, coding, leaveOpen, maxRecordSize)
    {
        ArgumentNullException.ThrowIfNull(keyProvider);
        _keyProvider = keyProvider;
    }

    private ContentDecryptingStream(Stream source, ContentCoding coding, bool leaveOpen, int maxRecordSize)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!source.CanRead)
        {
            throw new ArgumentException("The source stream is not readable.", nameof(source));
        }

        ContentCodingInfo.Validate(coding, nameof(coding));
        ContentEncryption.ValidateRecordSize(maxRecordSize, nameof(maxRecordSize));
        _source = source;
        _coding = coding;
        _leaveOpen = leaveOpen;
        _maxRecordSize = maxRecordSize;
    }

    /// <summary>Gets the body's header once the first read has read it; <see langword="null"/> before.</summary>
    public ContentEncodingHeader? Header => _decryptor?.Header;

    /// <summary>Gets the number of records that have verified so far, including records read ahead whose
    /// data has not been returned yet and a last record held back until the source is known to end.</summary>
    /// <remarks>After a <see cref="ContentEncodingException"/> with a <see cref="ContentEncodingException.RecordIndex"/>,
    /// a count above that index means the record itself verified and what followed it failed.</remarks>
    public long RecordCount => _decryptor?.RecordCount ?? 0;

    /// <summary>Gets or sets how many threads may open records at once in a body larger than about 1 MiB
    /// (a background task reads ahead and opens batches while the caller reads). The default, 1, starts
    /// no background work: records are read and opened on the caller's thread, in one record buffer.
    /// Above 1 is for a caller with cores to spare for one large body, such as a file tool.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxDegreeOfParallelism
    {
        get => _maxDegreeOfParallelism;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maxDegreeOfParallelism = value;
        }
    }

    /// <inheritdoc/>
    public override bool CanRead => !_disposed;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => false;

    /// <summary>Not supported.</summary>
    /// <exception cref="NotSupportedException">Always.</exception>
    public override long Length => throw new NotSupportedException();

    /// <summary>Not supported.</summary>
    /// <exception cref="NotSupportedException">Always.</exception>
    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    /// <summary>Reads verified, decrypted data.</summary>
    /// <param name="buffer">Receives the data. When it has room for a whole record, the record decrypts straight into it.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for an empty <paramref name="buffer"/>).</returns>
    /// <exception cref="ContentEncodingHeaderException">The header is short or invalid, or no key is known for its key id.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The body ended before its last record.</exception>
    /// <exception cref="ContentEncodingCorruptedException">A record does not verify, has bad padding, or data follows the last record.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    /// <exception cref="IOException">The source failed (passed on as it is); nothing it returned before is lost, and a later read resumes.</exception>
    public override int Read(Span<byte> buffer)
    {
        ThrowIfUnusable();
        if (buffer.IsEmpty)
        {
            return 0;
        }

        int written = Pump(buffer, buffer.Length, out ReadOnlyMemory<byte> chunk);
        chunk.Span.CopyTo(buffer);
        return written + chunk.Length;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <param name="buffer">Receives the data.</param>
    /// <param name="offset">Where to put the data in <paramref name="buffer"/>.</param>
    /// <param name="count">The most bytes to read.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for <paramref name="count"/> 0).</returns>
    /// <exception cref="ContentEncodingException">The header, a record or the body's end fails to verify.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        return Read(buffer.AsSpan(offset, count));
    }

    /// <inheritdoc cref="Read(Span{byte})"/>
    public override int ReadByte()
    {
        byte value = 0;
        return Read(new Span<byte>(ref value)) == 0 ? -1 : value;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <param name="buffer">Receives the data. When it has room for a whole record, the record decrypts straight into it.</param>
    /// <param name="cancellationToken">Cancels the reads from the source.</param>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for an empty <paramref name="buffer"/>).</returns>
    /// <exception cref="ContentEncodingException">The header, a record or the body's end fails to verify.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ThrowIfUnusable();
        if (buffer.IsEmpty)
        {
            return 0;
        }

        (int written, ReadOnlyMemory<byte> chunk) = await PumpAsync(buffer, buffer.Length, cancellationToken).ConfigureAwait(false);
        chunk.CopyTo(buffer);
        return written + chunk.Length;
    }

    /// <summary>Reads verified, decrypted data, as <see cref="Read(Span{byte})"/> does.</summary>
    /// <returns>The number of bytes read; 0 only at the verified end of the body (or for <paramref name="count"/> 0).</returns>
    /// <exception cref="ContentEncodingException">The header, a record or the body's end fails to verify.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    /// <param name="buffer">Receives the data.</param>
    /// <param name="offset">Where to put the data in <paramref name="buffer"/>.</param>
    /// <param name="count">The most bytes to read.</param>
    /// <param name="cancellationToken">Cancels the reads from the source.</param>
    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
    }

    /// <summary>Writes the verified, decrypted data to <paramref name="destination"/>; once a background task
    /// opens the records, each batch goes out from where it was decrypted, without a copy.</summary>
    /// <param name="destination">The stream to write to.</param>
    /// <param name="bufferSize">The buffer size while the data comes a record at a time.</param>
    /// <exception cref="ContentEncodingException">The body fails; the data before the failure has been written.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    public override void CopyTo(Stream destination, int bufferSize)
    {
        ValidateCopyToArguments(destination, bufferSize);
        ThrowIfUnusable();
        byte[] buffer = PinnedBuffers.Rent(bufferSize);
        try
        {
            while (true)
            {
                // A batch's data goes out from where it was decrypted; a record's through the buffer.
                int written = Pump(buffer.AsSpan(0, bufferSize), int.MaxValue, out ReadOnlyMemory<byte> chunk);
                if (written + chunk.Length == 0)
                {
                    return;
                }

                destination.Write(chunk.IsEmpty ? buffer.AsSpan(0, written) : chunk.Span);
            }
        }
        finally
        {
            PinnedBuffers.Return(buffer);
        }
    }

    /// <summary>Writes the verified, decrypted data to <paramref name="destination"/>; once a background task
    /// opens the records, each batch goes out from where it was decrypted, without a copy.</summary>
    /// <param name="destination">The stream to write to.</param>
    /// <param name="bufferSize">The buffer size while the data comes a record at a time.</param>
    /// <param name="cancellationToken">Cancels the reads from the source and the writes to <paramref name="destination"/>.</param>
    /// <returns>A task that completes when the whole verified content has been written.</returns>
    /// <exception cref="ContentEncodingException">The body fails; the data before the failure has been written.</exception>
    /// <exception cref="ObjectDisposedException">The stream has been disposed.</exception>
    /// <remarks>The buffer is pinned and wiped before it is released, as for <see cref="CopyTo(Stream, int)"/>;
    /// <see cref="Stream"/>'s own implementation would leave the plaintext in a shared pool.</remarks>
    public override async Task CopyToAsync(Stream destination, int bufferSize, CancellationToken cancellationToken)
    {
        ValidateCopyToArguments(destination, bufferSize);
        ThrowIfUnusable();
        byte[] buffer = PinnedBuffers.Rent(bufferSize);
        try
        {
            while (true)
            {
                (int written, ReadOnlyMemory<byte> chunk) = await PumpAsync(buffer.AsMemory(0, bufferSize), int.MaxValue, cancellationToken).ConfigureAwait(false);
                if (written + chunk.Length == 0)
                {
                    return;
                }

                await destination.WriteAsync(chunk.IsEmpty ? buffer.AsMemory(0, written) : chunk, cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            PinnedBuffers.Return(buffer);
        }
    }

    /// <summary>Wipes the keys and the buffers and disposes the source unless it was to be left open,
    /// without blocking a thread while the background task (if one runs) stops.</summary>
    /// <returns>A task that completes when the stream has been released.</returns>
    public override async ValueTask DisposeAsync()
    {
        if (!_disposed && _pipeline is { } pipeline)
        {
            _pipeline = null;
            _batch = null;
            await pipeline.DisposeAsync().ConfigureAwait(false);
        }

        Dispose();
    }

    /// <summary>Does nothing: the stream is read-only.</summary>
    public override void Flush()
    {
    }

    /// <summary>Not supported.</summary>
    /// <param name="buffer">Unused.</param>
    /// <param name="offset">Unused.</param>
    /// <param name="count">Unused.</param>
    /// <exception cref="NotSupportedException">Always.</exception>
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <summary>Not supported.</summary>
    /// <param name="offset">Unused.</param>
    /// <param name="origin">Unused.</param>
    /// <returns>Never returns.</returns>
    /// <exception cref="NotSupportedException">Always.</exception>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <summary>Not supported.</summary>
    /// <param name="value">Unused.</param>
    /// <exception cref="NotSupportedException">Always.</exception>
    public override void SetLength(long value) => throw new NotSupportedException();

    /// <summary>Wipes the keys and the buffer and disposes the source unless it was to be left open.</summary>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing && !_disposed)
        {
            _disposed = true;
            _plaintextStart = _plaintextEnd = 0;   // the buffer is wiped as it goes back to PinnedBuffers

            // The pipeline's stage uses the decryptor and the source: it stops first.
            _batch = null;
            _pipeline?.Dispose();
            _decryptor?.Dispose();
            if (_inputKeyingMaterial is not null)
            {
                CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            }

            if (_record is { } record)
            {
                _record = null;
                PinnedBuffers.Return(record);
            }

            if (!_leaveOpen)
            {
                _source.Dispose();
            }
        }

        base.Dispose(disposing);
    }

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _failure?.Throw();
    }

    private ContentEncodingException Fail(ContentEncodingException exception)
    {
        Wipe();
        _probePending = false;
        _failure = ExceptionDispatchInfo.Capture(exception);
        return exception;
    }

    private void Wipe()
    {
        _plaintextStart = _plaintextEnd = 0;
        if (_record is not null)
        {
            CryptographicOperations.ZeroMemory(_record);
        }
    }

    private int TakeBuffered(Span<byte> buffer)
    {
        int count = Math.Min(buffer.Length, _plaintextEnd - _plaintextStart);
        if (count > 0)
        {
            _record.AsSpan(_plaintextStart, count).CopyTo(buffer);
            _plaintextStart += count;
        }

        return count;
    }

    // Where the next read from the source goes while the header is incomplete: its fixed part
    // first, then the key id the fixed part announces; empty once it is complete. Every byte read is
    // counted at once (Received), so an exception from the source loses nothing and a retry resumes.
    private Memory<byte> NextHeaderRead()
    {
        _header ??= new byte[ContentEncodingHeader.FixedLength + 255];
        int wanted = ContentEncodingHeader.TryGetLength(_header.AsSpan(0, _headerReceived), out int length) ? length : ContentEncodingHeader.FixedLength;
        return _header.AsMemory(_headerReceived, wanted - _headerReceived);
    }

    // Where the next read of the current record goes; empty once a whole record (rs bytes) is in.
    // The buffer starts small and doubles when full, up to rs: memory follows the bytes that have
    // arrived, not the record size the header claims (a header costs an attacker 21 bytes). A
    // seekable source (a file, a MemoryStream) says how many bytes it still holds: those exist
    // already, so the buffer may take them in one step. That spares the copies and the garbage of
    // the doubling steps, which for a 16 MiB record would hold 8 MiB beside the 16.
    private Memory<byte> NextRecordRead()
    {
        int recordSize = _decryptor!.Header.RecordSize;
        if (_recordReceived == recordSize)
        {
            return Memory<byte>.Empty;
        }

        if (_record is null || _recordReceived == Math.Min(_record.Length, recordSize))
        {
            int size = _record is null ? Math.Min(recordSize, InitialRecordBuffer) : Math.Min(recordSize, 2 * _record.Length);
            long held = SourceBytesLeft();
            if (held > size - _recordReceived)
            {
                size = (int)Math.Min(recordSize, _recordReceived + held);
            }

            byte[] grown = PinnedBuffers.Rent(size);
            if (_record is { } old)
            {
                // The buffer only grows while the first full record arrives, so it holds ciphertext
                // alone (no record has been decrypted in it yet): nothing to wipe.
                old.AsSpan(0, _recordReceived).CopyTo(grown);
                _record = null;
                PinnedBuffers.Return(old, holdsOnlyPublicData: true);
            }

            _record = grown;
        }

        return _record.AsMemory(_recordReceived, Math.Min(_record.Length, recordSize) - _recordReceived);
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

    // Counts what a read from the source returned; false at the end of the source.
    private bool Received(int count)
    {
        if (_decryptor is null)
        {
            _headerReceived += count;
        }
        else
        {
            _recordReceived += count;
        }

        return count > 0;
    }

    // Past the first 1 MiB of records, at a record boundary with nothing buffered, the
    // pipeline takes over the reading and opening.
    private bool PipelineIsDue() =>
        _decryptor is { } decryptor && _recordReceived == 0 && !_probePending && !_endOfBody && _plaintextEnd == _plaintextStart
        && RecordPipeline.Applies(_maxDegreeOfParallelism, decryptor.Header.RecordSize)
        && decryptor.RecordCount * (decryptor.Header.RecordSize - ContentEncryption.TagSize) >= RecordPipeline.StartBytes;

    private void StartPipeline(bool async)
    {
        if (_record is { } record)
        {
            _record = null;
            PinnedBuffers.Return(record);
        }

        _pipeline = new OpeningPipeline(_source, _decryptor!, _maxDegreeOfParallelism, async);
    }

    // What Step needs done before it can go on: nothing (the data, or the end, is ready), bytes from
    // the source in the space it names, or the pipeline's next item.
    private enum Need
    {
        Nothing,
        SourceBytes,
        PipelineItem,
    }

    // The stream's reading logic, written once and free of I/O: Pump and PumpAsync do what it asks
    // for, a source read or a wait for the pipeline, and call it again, so the sync and async paths
    // cannot drift. It returns Need.Nothing with either data in `buffer` (`written` bytes), a batch's
    // data in place (`chunk`, up to `max` bytes), or neither: the verified end of the body.
    private Need Step(Span<byte> buffer, int max, bool useAsync, out int written, out ReadOnlyMemory<byte> chunk, out Memory<byte> space)
    {
        written = 0;
        chunk = ReadOnlyMemory<byte>.Empty;
        space = Memory<byte>.Empty;
        while (true)
        {
            if (_pipeline is not null)
            {
                chunk = TakeFromBatch(max);
                return chunk.IsEmpty && !_endOfBody ? Need.PipelineItem : Need.Nothing;
            }

            if (_probePending)
            {
                space = _probe;
                return Need.SourceBytes;
            }

            written = TakeBuffered(buffer);
            if (written > 0 || _endOfBody)
            {
                return Need.Nothing;
            }

            if (PipelineIsDue())
            {
                StartPipeline(useAsync);
                continue;
            }

            // A source read that returned 0 ends the header or record being read: what was
            // received is parsed or opened as it is (a short header or record fails there).
            bool sourceEnded = _sourceEnded;
            _sourceEnded = false;
            if (_decryptor is null)
            {
                if (!sourceEnded && NextHeaderRead() is { IsEmpty: false } headerSpace)
                {
                    space = headerSpace;
                    return Need.SourceBytes;
                }

                StartBody();
                sourceEnded = false;
            }

            if (!sourceEnded && NextRecordRead() is { IsEmpty: false } recordSpace)
            {
                space = recordSpace;
                return Need.SourceBytes;
            }

            written = OpenRecord(buffer);
            if (written > 0)
            {
                return Need.Nothing;
            }
        }
    }

    // Counts what a source read into Step's space returned. Every byte is counted as it arrives, so an
    // exception from the source (which skips this) loses nothing and a retry resumes.
    private void Deliver(int count)
    {
        if (_probePending)
        {
            EndBody(count);
        }
        else if (!Received(count))
        {
            _sourceEnded = true;
        }
    }

    private int Pump(Span<byte> buffer, int max, out ReadOnlyMemory<byte> chunk)
    {
        try
        {
            while (true)
            {
                switch (Step(buffer, max, useAsync: false, out int written, out chunk, out Memory<byte> space))
                {
                    case Need.Nothing:
                        return written;
                    case Need.SourceBytes:
                        Deliver(_source.Read(space.Span));
                        break;
                    default:
                        Accept(_pipeline!.Next());
                        break;
                }
            }
        }
        catch (ContentEncodingException exception)
        {
            throw Fail(exception);
        }
    }

    private async ValueTask<(int Written, ReadOnlyMemory<byte> Chunk)> PumpAsync(Memory<byte> buffer, int max, CancellationToken cancellationToken)
    {
        try
        {
            while (true)
            {
                switch (Step(buffer.Span, max, useAsync: true, out int written, out ReadOnlyMemory<byte> chunk, out Memory<byte> space))
                {
                    case Need.Nothing:
                        return (written, chunk);
                    case Need.SourceBytes:
                        Deliver(await _source.ReadAsync(space, cancellationToken).ConfigureAwait(false));
                        break;
                    default:
                        Accept(await _pipeline!.NextAsync(cancellationToken).ConfigureAwait(false));
                        break;
                }
            }
        }
        catch (ContentEncodingException exception)
        {
            throw Fail(exception);
        }
    }

    private ReadOnlyMemory<byte> TakeFromBatch(int max)
    {
        if (_batch is { } batch)
        {
            int count = Math.Min(max, batch.DataLength - batch.Taken);
            if (count > 0)
            {
                ReadOnlyMemory<byte> chunk = batch.Plaintext.AsMemory(batch.Taken, count);
                batch.Taken += count;
                return chunk;
            }

            _batch = null;
            _pipeline!.Return(batch);
        }

        if (_pipelineStopped)
        {
            _pipelineStopped = false;
            _pipeline!.Restart();
        }

        return ReadOnlyMemory<byte>.Empty;
    }

    private void Accept(OpeningPipeline.Item item)
    {
        if (item.Batch is { } batch)
        {
            _batch = batch;
        }
        else if (item.Error is { } error)
        {
            // A failure of the body is final (Fail keeps it); one of the source is not: the stage
            // stopped with what it had read kept, and the next read starts it again.
            _pipelineStopped = error.SourceException is not ContentEncodingException;
            error.Throw();
        }
        else
        {
            _endOfBody = true;
        }
    }

    private void StartBody()
    {
        ContentEncodingHeader parsed = ContentEncodingHeader.Parse(_header.AsSpan(0, _headerReceived), _maxRecordSize);
        _decryptor = _keyProvider is not null
            ? ContentEncryption.CreateDecryptor(_keyProvider, parsed, _coding)
            : new ContentDecryptor(parsed, _inputKeyingMaterial, _coding);
        _header = null;
        if (_inputKeyingMaterial is not null)
        {
            CryptographicOperations.ZeroMemory(_inputKeyingMaterial);
            _inputKeyingMaterial = null;
        }
    }

    // Opens the record now in the buffer (its whole rs bytes, or fewer at the end of the source):
    // straight into `buffer` when it has room for the record's whole plaintext (returning the data's
    // length), otherwise in place (returning 0, the data waiting in the record buffer). After a
    // full-size last record the source must be probed for data after it before anything is released,
    // so that record's data is kept in the record buffer until the probe has answered: if the probe
    // throws, a retry probes again and nothing is lost.
    private int OpenRecord(Span<byte> buffer)
    {
        ContentDecryptor decryptor = _decryptor!;
        int received = _recordReceived;
        _recordReceived = 0;
        if (received == 0)
        {
            _endOfBody = decryptor.CheckEnd(sourceEnded: true);
            return 0;
        }

        ReadOnlySpan<byte> record = _record.AsSpan(0, received);
        bool direct = buffer.Length >= received - ContentEncryption.TagSize;

        // On failure DecryptRecord zeroes what it wrote, so the caller's buffer holds nothing of the record.
        int length = direct
            ? decryptor.DecryptRecord(record, buffer, out bool isLast)
            : decryptor.DecryptRecord(record, _record, out isLast);

        if (isLast && received == decryptor.Header.RecordSize)
        {
            if (direct)
            {
                // Take the data back from the caller's buffer until the probe has answered.
                buffer[..length].CopyTo(_record);
                CryptographicOperations.ZeroMemory(buffer[..length]);
            }

            _plaintextStart = 0;
            _plaintextEnd = length;
            _probePending = true;
            return 0;
        }

        if (isLast)
        {
            _endOfBody = true;
        }
        else if (received < decryptor.Header.RecordSize)
        {
            // DecryptRecord rejects a short record that is not the last; this cannot be reached.
            throw new ContentEncodingTruncatedException(string.Format(CultureInfo.InvariantCulture, ContentEncodingMessages.ShortNonLastRecord, decryptor.RecordCount - 1, received, decryptor.Header.RecordSize), decryptor.RecordCount - 1);
        }

        if (direct)
        {
            return length;
        }

        _plaintextStart = 0;
        _plaintextEnd = length;
        return 0;
    }

    // The probe after a full-size last record answered: the source must end here. If it does not,
    // the record's data, waiting in the record buffer, is wiped (by Fail) and the body rejected.
    private void EndBody(int bytesAfterLastRecord)
    {
        _probePending = false;
        _endOfBody = _decryptor!.CheckEnd(sourceEnded: bytesAfterLastRecord == 0);
    }
}
