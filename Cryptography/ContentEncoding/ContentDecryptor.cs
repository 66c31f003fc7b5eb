// The decoding side of the RFC 8188 record layer (section 2): record i opens only with nonce i, so
// reordering, removal and substitution fail the tag; the plaintext, less trailing zeros, ends in 0x01,
// or 0x02 for the last record; a record shorter than rs is the last; nothing follows the last. Data
// leaves a record only once its tag and padding have been checked; on failure its output is zeroed.
// Every decoder goes through Open, which owns the end-of-body rule.

using System;
using System.Buffers;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>Opens the records of an encrypted body (RFC 8188 framing).</summary>
/// <remarks>
/// <para>Parse the header with <see cref="ContentEncodingHeader.Parse"/>, then pass each record (exactly
/// <see cref="ContentEncodingHeader.RecordSize"/> bytes, fewer only for the body's final one) to
/// <see cref="DecryptRecord"/> in order, and call <see cref="Complete"/> at the end of the body.</para>
/// <para>An instance is not safe for concurrent use, but for <see cref="Dispose"/>, which wipes the keys and may
/// run while another thread opens records: each record is opened with the real keys or the call throws
/// <see cref="ObjectDisposedException"/>, as with <see cref="AesGcmSiv"/>.</para>
/// </remarks>
public sealed class ContentDecryptor : IDisposable
{
    private readonly RecordCipher _cipher;
    private bool _disposed;

    /// <summary>Derives the keys for the body that <paramref name="header"/> starts.</summary>
    /// <param name="header">The body's header.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty.</param>
    /// <param name="options">The coding the body was sealed with; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="header"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The keying material is empty.</exception>
    public ContentDecryptor(ContentEncodingHeader header, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(header);
        Header = header;
        Coding = ContentEncodingOptions.Or(options).Coding;
        _cipher = RecordCipher.Create(Coding, inputKeyingMaterial, header.Salt.Span);
    }

    /// <summary>Gets the body's header.</summary>
    public ContentEncodingHeader Header { get; }

    /// <summary>Gets the coding the records are opened with.</summary>
    public ContentCoding Coding { get; }

    /// <summary>Gets the number of records opened so far, which is the next record's sequence number.</summary>
    public long RecordCount { get; private set; }

    /// <summary>Gets a value that indicates whether the last record (delimiter 0x02) has been opened.</summary>
    public bool IsComplete { get; private set; }

    /// <summary>Verifies and decrypts the next record.</summary>
    /// <param name="record">The record: <see cref="ContentEncodingHeader.RecordSize"/> bytes, fewer only for the body's final record.</param>
    /// <param name="destination">Receives the plaintext: at least <paramref name="record"/>.Length - 16 bytes, the data
    /// first, the rest zeroed (all of it on failure). It may start where <paramref name="record"/> starts (in place)
    /// but must not overlap it otherwise.</param>
    /// <param name="isLastRecord">Whether the record is marked as the last one.</param>
    /// <returns>The length of the record's data.</returns>
    /// <exception cref="ContentEncodingCorruptedException">The tag does not verify, the padding or delimiter is
    /// invalid, the record is shorter than 17 bytes, or a record already was the last.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The record is shorter than the record size but not marked as the last.</exception>
    /// <exception cref="ArgumentException"><paramref name="record"/> is longer than the record size, <paramref name="destination"/> is too short, or the buffers overlap.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int DecryptRecord(ReadOnlySpan<byte> record, Span<byte> destination, out bool isLastRecord)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (record.Length > Header.RecordSize)
        {
            throw new ArgumentException(ContentEncodingMessages.RecordLongerThanRecordSize, nameof(record));
        }

        int plaintextLength = Math.Max(0, record.Length - ContentEncryption.TagSize);
        if (destination.Length < plaintextLength)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, plaintextLength), nameof(destination));
        }

        if (record.Overlaps(destination, out int offset) && offset != 0)
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }

        Span<int> length = [0];
        Open(record, destination, plaintextLength, length, isFinal: null, out ContentEncodingException? error);
        isLastRecord = IsComplete;
        return error is null ? length[0] : throw error;
    }

    /// <summary>Verifies and decrypts consecutive full-size records on up to
    /// <paramref name="maxDegreeOfParallelism"/> threads, with the checks of <see cref="DecryptRecord"/> in order.</summary>
    /// <param name="records">A whole number of <see cref="ContentEncodingHeader.RecordSize"/>-byte records, the next
    /// ones in the body; may be empty. A shorter final record goes to <see cref="DecryptRecord"/>.</param>
    /// <param name="destination">Receives record i's plaintext at i × (record size − 16): its data, then zeros.
    /// Must not overlap <paramref name="records"/>.</param>
    /// <param name="dataLengths">Receives each record's data length.</param>
    /// <param name="maxDegreeOfParallelism">How many threads may open records at once, the calling thread included.</param>
    /// <returns>The number of records opened.</returns>
    /// <remarks>A full-size record may be the last one; a record after it fails. On failure the exception is the
    /// one the first bad record gives (see <see cref="ContentEncodingException.RecordIndex"/>); the records before
    /// it verified (<see cref="RecordCount"/> counts them) and their plaintext and lengths are in place, and
    /// everything from the bad record on is zeroed.</remarks>
    /// <exception cref="ContentEncodingCorruptedException">A record does not verify, has bad padding, or follows the last one.</exception>
    /// <exception cref="ArgumentException">The lengths do not fit, or the buffers overlap.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxDegreeOfParallelism"/> is less than 1.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int DecryptRecords(ReadOnlyMemory<byte> records, Memory<byte> destination, Span<int> dataLengths, int maxDegreeOfParallelism = 1)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        RecordBatch.Validate(maxDegreeOfParallelism, nameof(maxDegreeOfParallelism));
        int recordSize = Header.RecordSize;
        if (records.Length % recordSize != 0)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.BatchRecordsLength, records.Length, recordSize), nameof(records));
        }

        int count = records.Length / recordSize;
        int stride = recordSize - ContentEncryption.TagSize;
        if (destination.Length < (long)count * stride)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, (long)count * stride), nameof(destination));
        }

        if (dataLengths.Length < count)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.BatchLengthsTooShort, dataLengths.Length, count), nameof(dataLengths));
        }

        if (records.Span.Overlaps(destination.Span))
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingBatch, nameof(destination));
        }

        Open(records, destination, stride, dataLengths, isFinal: null, maxDegreeOfParallelism, out ContentEncodingException? error);
        return error is null ? count : throw error;
    }

    /// <summary>Checks, at the end of the body, that its last record has been opened.</summary>
    /// <exception cref="ContentEncodingTruncatedException">No record marked as the last one has been opened: the body was truncated.</exception>
    public void Complete()
    {
        if (!IsComplete)
        {
            throw Truncated();
        }
    }

    /// <summary>Wipes the keys. Later calls throw <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _cipher.Dispose();
        }
    }

    /// <summary>
    /// Opens the next records in order and applies RFC 8188's end-of-body rule: the one place it is
    /// written. Record i is <paramref name="records"/>[i × rs ..], full-size but the last; its plaintext
    /// goes to <paramref name="destination"/>[i × <paramref name="stride"/> ..] (stride rs: in place).
    /// <paramref name="isFinal"/>: whether the body ends right after these records, as a stream knows
    /// from the byte it read past them (Tink's shape); then the final record must be marked as the last
    /// and no other may be. <see langword="null"/> (the public methods) leaves the end to <see cref="Complete"/>.
    /// </summary>
    /// <returns>How many records are released (verified, lengths set, padding zeroed). From the first
    /// record not released on everything is zeroed, and <paramref name="error"/> says why.</returns>
    internal int Open(ReadOnlyMemory<byte> records, Memory<byte> destination, int stride, Span<int> lengths, bool? isFinal, int threads, out ContentEncodingException? error) =>
        Open(records.Span, destination.Span, stride, lengths, isFinal, out error, threads == 1 ? null : (records, destination, threads));

    // The same on spans (a caller's buffer may be the destination), on this thread, or on several when
    // `parallel` gives the same memory and a thread count.
    internal int Open(ReadOnlySpan<byte> records, Span<byte> destination, int stride, Span<int> lengths, bool? isFinal, out ContentEncodingException? error, (ReadOnlyMemory<byte> Records, Memory<byte> Destination, int Threads)? parallel = null)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        int recordSize = Header.RecordSize;
        int count = (records.Length + recordSize - 1) / recordSize;
        long first = RecordCount;
        error = count == 0 ? (isFinal == true ? Truncated() : null) : IsComplete ? DataAfterLastRecord() : null;
        if (count == 0 || error is not null)
        {
            return 0;
        }

        // Each worker writes only its own records' entries. Spans cannot cross threads, hence a pooled
        // array there; a few records on this thread use the stack.
        OpenedRecord[]? rented = parallel is null && count <= 32 ? null : ArrayPool<OpenedRecord>.Shared.Rent(count);
        Span<OpenedRecord> outcomes = rented is null ? stackalloc OpenedRecord[count] : rented;
        try
        {
            if (parallel is { } memory)
            {
                RecordBatch.Run(count, memory.Threads, (Cipher: _cipher, memory.Records, memory.Destination, Outcomes: rented!, First: first, RecordSize: recordSize, Stride: stride),
                    static (batch, worker, start, end) =>
                    {
                        RecordCipher cipher = batch.Cipher.ForWorker(worker);
                        for (int i = start; i < end; i++)
                        {
                            ReadOnlySpan<byte> record = batch.Records.Span[(i * batch.RecordSize)..Math.Min(batch.Records.Length, (i + 1) * batch.RecordSize)];
                            batch.Outcomes[i] = OpenOne(cipher, batch.First + i, record, batch.Destination.Span[(i * batch.Stride)..]);
                        }
                    });
            }
            else
            {
                for (int i = 0; i < count; i++)
                {
                    outcomes[i] = OpenOne(_cipher, first + i, records[(i * recordSize)..Math.Min(records.Length, (i + 1) * recordSize)], destination[(i * stride)..]);
                }
            }

            return Release(outcomes[..count], records.Length, destination, stride, lengths, isFinal, out error);
        }
        catch
        {
            // Nothing expected throws here (a bad record is an outcome, not an exception), but
            // plaintext written before its tag was checked must not be left behind.
            Wipe(destination, 0, count, records.Length, stride);
            throw;
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<OpenedRecord>.Shared.Return(rented);
            }
        }
    }

    // Goes through the outcomes in order, as one record at a time would meet them: the first failure wins.
    private int Release(ReadOnlySpan<OpenedRecord> outcomes, int recordsLength, Span<byte> destination, int stride, Span<int> lengths, bool? isFinal, out ContentEncodingException? error)
    {
        int recordSize = Header.RecordSize;
        int count = outcomes.Length;
        long first = RecordCount;
        error = IsComplete ? DataAfterLastRecord() : null;
        int released = 0;
        for (; released < count && error is null; released++)
        {
            OpenedRecord outcome = outcomes[released];
            long index = first + released;
            int length = Math.Min(recordSize, recordsLength - (released * recordSize));
            bool moreFollow = released < count - 1 || isFinal == false;
            if (outcome.Outcome != RecordOutcome.Opened)
            {
                error = Error(outcome, index);
                break;
            }

            if (outcome.Delimiter == 2 && moreFollow)
            {
                IsComplete = true;
                error = new ContentEncodingCorruptedException(ContentEncodingMessages.Format(ContentEncodingMessages.RecordAfterLast, index), index);
                if (isFinal is not null)
                {
                    RecordCount = index + 1;   // it verified; what follows it is the failure
                    break;
                }
            }
            else if (outcome.Delimiter == 1 && length < recordSize)
            {
                error = new ContentEncodingTruncatedException(ContentEncodingMessages.Format(ContentEncodingMessages.ShortNonLastRecord, index, length, recordSize), index);
                break;
            }
            else if (outcome.Delimiter == 1 && isFinal == true && !moreFollow)
            {
                // The body ends after a record not marked as the last: its data is authentic and is
                // released, as every record's before it was, before the truncation is reported.
                error = new ContentEncodingTruncatedException(ContentEncodingMessages.Format(ContentEncodingMessages.NoLastRecord, index), index);
            }

            IsComplete |= outcome.Delimiter == 2;
            lengths[released] = outcome.DelimiterAt;
            destination.Slice((released * stride) + outcome.DelimiterAt, length - ContentEncryption.TagSize - outcome.DelimiterAt).Clear();
            RecordCount = index + 1;
        }

        Wipe(destination, released, count, recordsLength, stride);
        return released;
    }

    // Zeroes the plaintext of records [from, count).
    private void Wipe(Span<byte> destination, int from, int count, int recordsLength, int stride)
    {
        int recordSize = Header.RecordSize;
        for (int i = from; i < count; i++)
        {
            int length = Math.Min(recordSize, recordsLength - (i * recordSize)) - ContentEncryption.TagSize;
            CryptographicOperations.ZeroMemory(destination.Slice(i * stride, Math.Max(0, Math.Min(length, destination.Length - (i * stride)))));
        }
    }

    // What opening one record found: Opened (the tag verified, the delimiter is 0x01 or 0x02), or why
    // not: the tag, no delimiter (all zeros), another last non-zero byte, or under 17 bytes.
    private enum RecordOutcome : byte
    {
        Opened,
        AuthenticationFailed,
        NoDelimiter,
        BadDelimiter,
        TooShort,
    }

    // Where the delimiter is and its value (the bad byte for BadDelimiter; TooShort's length in DelimiterAt).
    private readonly record struct OpenedRecord(RecordOutcome Outcome, int DelimiterAt = 0, byte Delimiter = 0);

    // Opens one record into `plaintext` (record length − 16 bytes) and finds its delimiter, the last
    // non-zero byte; the padding is cleared later. Unless Opened, the plaintext has been zeroed.
    private static OpenedRecord OpenOne(RecordCipher cipher, long index, ReadOnlySpan<byte> record, Span<byte> plaintext)
    {
        int length = record.Length - ContentEncryption.TagSize;
        if (length < 1)
        {
            return new(RecordOutcome.TooShort, record.Length);
        }

        plaintext = plaintext[..length];
        if (!cipher.TryOpen(index, record[..length], record[length..], plaintext))
        {
            return new(RecordOutcome.AuthenticationFailed);
        }

        int delimiterAt = plaintext.LastIndexOfAnyExcept((byte)0);
        if (delimiterAt < 0)
        {
            return new(RecordOutcome.NoDelimiter);
        }

        byte delimiter = plaintext[delimiterAt];
        if (delimiter is 1 or 2)
        {
            return new(RecordOutcome.Opened, delimiterAt, delimiter);
        }

        CryptographicOperations.ZeroMemory(plaintext);
        return new(RecordOutcome.BadDelimiter, delimiterAt, delimiter);
    }

    private static ContentEncodingCorruptedException Error(OpenedRecord opened, long index) => opened.Outcome switch
    {
        RecordOutcome.AuthenticationFailed => new(ContentEncodingMessages.Format(ContentEncodingMessages.RecordAuthenticationFailed, index), index),
        RecordOutcome.NoDelimiter => new(ContentEncodingMessages.Format(ContentEncodingMessages.NoDelimiter, index), index),
        RecordOutcome.TooShort => new(ContentEncodingMessages.Format(ContentEncodingMessages.RecordTooShort, index, opened.DelimiterAt), index),
        _ => new(ContentEncodingMessages.Format(ContentEncodingMessages.BadDelimiter, index, opened.Delimiter), index),
    };

    private ContentEncodingTruncatedException Truncated() => RecordCount == 0
        ? new(ContentEncodingMessages.NoRecords)
        : new(ContentEncodingMessages.Format(ContentEncodingMessages.NoLastRecord, RecordCount - 1), RecordCount - 1);

    private ContentEncodingCorruptedException DataAfterLastRecord() =>
        new(ContentEncodingMessages.Format(ContentEncodingMessages.RecordAfterLast, RecordCount - 1), RecordCount - 1);
}
