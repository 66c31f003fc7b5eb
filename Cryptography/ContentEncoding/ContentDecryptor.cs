// The decoding side of the RFC 8188 record layer, one record at a time. It enforces the rules of
// section 2: record i opens only with nonce i (so reordering, removal and substitution fail the
// tag); the plaintext, stripped of trailing zeros, ends in 0x01 for a record that is followed by
// another or 0x02 for the last; a record shorter than rs is the last one; nothing follows the
// last record. Plaintext leaves a record only after its tag has verified and its padding checked;
// on any failure the record's output is zeroed.

using System;
using System.Globalization;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography;

/// <summary>Opens the records of an encrypted body (RFC 8188 framing) one at a time.</summary>
/// <remarks>
/// <para>Parse the header with <see cref="ContentEncodingHeader.Parse"/>, then pass each record (exactly
/// <see cref="ContentEncodingHeader.RecordSize"/> bytes, fewer only for the body's final one) to
/// <see cref="DecryptRecord"/> in order, and call <see cref="Complete"/> at the end of the body.</para>
/// <para>An instance is not safe for concurrent use. <see cref="Dispose"/> wipes the keys.</para>
/// </remarks>
public sealed class ContentDecryptor : IDisposable
{
    private readonly RecordCipher _cipher;
    private bool _disposed;

    /// <summary>Derives the keys for the body that <paramref name="header"/> starts.</summary>
    /// <param name="header">The body's header.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty.</param>
    /// <param name="coding">The coding the body was sealed with.</param>
    /// <exception cref="ArgumentNullException"><paramref name="header"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The keying material is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coding"/> is out of range.</exception>
    public ContentDecryptor(ContentEncodingHeader header, ReadOnlySpan<byte> inputKeyingMaterial, ContentCoding coding = ContentCoding.Aes128Gcm)
    {
        ArgumentNullException.ThrowIfNull(header);
        ContentCodingInfo.Validate(coding, nameof(coding));
        Header = header;
        Coding = coding;
        _cipher = RecordCipher.Create(coding, inputKeyingMaterial, header.Salt.Span);
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
    /// <param name="record">The record: <see cref="ContentEncodingHeader.RecordSize"/> bytes, or fewer for the body's final record.</param>
    /// <param name="destination">Receives the record's plaintext with its delimiter and padding:
    /// at least <paramref name="record"/>.Length - 16 bytes. The data is the first (returned) bytes;
    /// the rest of those bytes is zeroed. It may start at the very same place as <paramref name="record"/>
    /// (in place) but must not overlap it otherwise. On failure those bytes are zeroed.</param>
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

        long index = RecordCount;
        if (IsComplete)
        {
            throw new ContentEncodingCorruptedException(Format(ContentEncodingMessages.RecordAfterLast, index - 1), index - 1);
        }

        if (record.Length < 1 + ContentEncoding.TagSize)
        {
            throw new ContentEncodingCorruptedException(Format(ContentEncodingMessages.RecordTooShort, index, record.Length), index);
        }

        int plaintextLength = record.Length - ContentEncoding.TagSize;
        if (destination.Length < plaintextLength)
        {
            throw new ArgumentException(Format(ContentEncodingMessages.DestinationTooShort, plaintextLength), nameof(destination));
        }

        if (record.Overlaps(destination, out int offset) && offset != 0)
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }

        Span<byte> plaintext = destination[..plaintextLength];
        if (!_cipher.Open(index, record[..plaintextLength], record[plaintextLength..], plaintext))
        {
            throw new ContentEncodingCorruptedException(Format(ContentEncodingMessages.RecordAuthenticationFailed, index), index);
        }

        // The padding is zeros up to the delimiter, the last non-zero byte.
        int delimiterAt = plaintext.LastIndexOfAnyExcept((byte)0);
        byte delimiter = delimiterAt < 0 ? (byte)0 : plaintext[delimiterAt];
        ContentEncodingException? error = delimiter switch
        {
            0 => new ContentEncodingCorruptedException(Format(ContentEncodingMessages.NoDelimiter, index), index),
            1 when record.Length != Header.RecordSize => new ContentEncodingTruncatedException(Format(ContentEncodingMessages.ShortNonLastRecord, index, record.Length, Header.RecordSize), index),
            1 or 2 => null,
            _ => new ContentEncodingCorruptedException(Format(ContentEncodingMessages.BadDelimiter, index, delimiter), index),
        };
        if (error is not null)
        {
            CryptographicOperations.ZeroMemory(plaintext);
            throw error;
        }

        plaintext[delimiterAt..].Clear();
        RecordCount = index + 1;
        isLastRecord = delimiter == 2;
        IsComplete = isLastRecord;
        return delimiterAt;
    }

    /// <summary>Checks, at the end of the body, that its last record has been opened.</summary>
    /// <exception cref="ContentEncodingTruncatedException">No record marked as the last one has been opened: the body was truncated.</exception>
    public void Complete()
    {
        if (!IsComplete)
        {
            throw RecordCount == 0
                ? new ContentEncodingTruncatedException(ContentEncodingMessages.NoRecords)
                : new ContentEncodingTruncatedException(Format(ContentEncodingMessages.NoLastRecord, RecordCount - 1), RecordCount - 1);
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

    private static string Format(string format, params object[] arguments) => string.Format(CultureInfo.InvariantCulture, format, arguments);
}
