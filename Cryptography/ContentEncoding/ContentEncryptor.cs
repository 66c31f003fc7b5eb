// The encoding side of the RFC 8188 record layer: the header, then records sealed with consecutive
// sequence numbers, each but the last exactly rs bytes (section 2: data || 0x01 || zero padding, or
// 0x02 for the last). The one-shots and the encrypting stream are built on it; it is public for
// callers that frame records themselves or choose their own padding.

using System;
using System.Security.Cryptography;
using System.Threading.Tasks;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>Seals the records of an encrypted body (RFC 8188 framing) one at a time.</summary>
/// <remarks>
/// <para>Write <see cref="Header"/> first (<see cref="ContentEncodingHeader.WriteTo"/>), then the records
/// <see cref="EncryptRecord"/> produces, in order, ending with one marked as the last.</para>
/// <para>An instance is not safe for concurrent use, but for <see cref="Dispose"/>, which wipes the keys and may
/// run while another thread seals records: each record is sealed with the real keys or the call throws
/// <see cref="ObjectDisposedException"/>, as with <see cref="AesGcmSiv"/>.</para>
/// </remarks>
public sealed class ContentEncryptor : IDisposable
{
    private readonly RecordCipher _cipher;
    private bool _disposed;

    /// <summary>Derives the keys for a new body.</summary>
    /// <param name="inputKeyingMaterial">The shared secret (IKM) both sides know; not empty. 16 or 32 random bytes are typical.</param>
    /// <param name="options">The coding, record size and key id; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <param name="salt">The 16-byte salt, or empty for a fresh random one. Never reuse a salt with the
    /// same keying material: under <see cref="ContentCoding.Aes128Gcm"/> that repeats keys and nonces.</param>
    /// <exception cref="ArgumentException">The keying material is empty, or the salt is not 0 or 16 bytes.</exception>
    public ContentEncryptor(ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null, ReadOnlySpan<byte> salt = default)
    {
        options = ContentEncodingOptions.Or(options);
        Span<byte> freshSalt = stackalloc byte[ContentEncryption.SaltSize];
        if (salt.IsEmpty)
        {
            RandomNumberGenerator.Fill(freshSalt);
        }

        Header = new ContentEncodingHeader(salt.IsEmpty ? freshSalt : salt, options.RecordSize, options.KeyId.Span);
        Coding = options.Coding;
        _cipher = RecordCipher.Create(Coding, inputKeyingMaterial, Header.Salt.Span);
    }

    /// <summary>Gets the header to send before the first record.</summary>
    public ContentEncodingHeader Header { get; }

    /// <summary>Gets the coding the records are sealed with.</summary>
    public ContentCoding Coding { get; }

    /// <summary>Gets the record size.</summary>
    public int RecordSize => Header.RecordSize;

    /// <summary>Gets the most data one record carries: the record size less the delimiter and the 16-byte tag.</summary>
    public int MaxRecordDataLength => Header.RecordSize - 1 - ContentEncryption.TagSize;

    /// <summary>Gets the number of records sealed so far, which is the next record's sequence number.</summary>
    public long RecordCount { get; private set; }

    /// <summary>Gets a value that indicates whether the last record has been sealed.</summary>
    public bool IsComplete { get; private set; }

    /// <summary>Seals the next record.</summary>
    /// <param name="data">The record's content, at most <see cref="MaxRecordDataLength"/> less <paramref name="paddingLength"/> bytes.</param>
    /// <param name="destination">Receives the record: <paramref name="data"/>.Length + 1 + <paramref name="paddingLength"/> + 16 bytes.
    /// <paramref name="data"/> may start where it starts (in place), but must not overlap it otherwise.</param>
    /// <param name="isLastRecord">Whether this is the body's last record (delimiter 0x02). Every other record
    /// must fill the record size exactly: data + 1 + padding + 16 = <see cref="RecordSize"/>.</param>
    /// <param name="paddingLength">Zero bytes to add after the delimiter, to hide the data's length.</param>
    /// <returns>The record's length.</returns>
    /// <exception cref="ArgumentException">The lengths do not fit the record size, <paramref name="destination"/> is too short, or the buffers overlap.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="paddingLength"/> is negative.</exception>
    /// <exception cref="InvalidOperationException">The last record has already been sealed.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int EncryptRecord(ReadOnlySpan<byte> data, Span<byte> destination, bool isLastRecord, int paddingLength = 0)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentOutOfRangeException.ThrowIfNegative(paddingLength);
        if (IsComplete)
        {
            throw new InvalidOperationException(ContentEncodingMessages.EncryptorComplete);
        }

        long recordLength = (long)data.Length + 1 + paddingLength + ContentEncryption.TagSize;
        if (isLastRecord ? recordLength > RecordSize : recordLength != RecordSize)
        {
            string format = isLastRecord ? ContentEncodingMessages.LastRecordLength : ContentEncodingMessages.RecordLength;
            throw new ArgumentException(ContentEncodingMessages.Format(format, data.Length, paddingLength, RecordSize), nameof(data));
        }

        int length = (int)recordLength;
        if (destination.Length < length)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, length), nameof(destination));
        }

        bool inPlace = data.Overlaps(destination, out int offset);
        if (inPlace && offset != 0)
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }

        // AES-GCM takes its plaintext in one piece, so data, delimiter and padding are assembled in
        // the destination (unless the data is there already) and sealed in place.
        Span<byte> plaintext = destination[..(length - ContentEncryption.TagSize)];
        if (!inPlace)
        {
            data.CopyTo(plaintext);
        }

        plaintext[data.Length] = isLastRecord ? (byte)2 : (byte)1;
        plaintext[(data.Length + 1)..].Clear();
        _cipher.Seal(RecordCount, plaintext, plaintext, destination.Slice(plaintext.Length, ContentEncryption.TagSize));
        RecordCount++;
        IsComplete = isLastRecord;
        return length;
    }

    /// <summary>Seals consecutive full records, none of them the last, on up to
    /// <paramref name="maxDegreeOfParallelism"/> threads: the same output as <see cref="EncryptRecord"/> once per
    /// piece with no padding, for callers with large buffers and spare cores. Seal the last record with
    /// <see cref="EncryptRecord"/>. The sequence numbers are taken before any record is sealed, so even a call
    /// that fails part way never lets a later one reuse them.</summary>
    /// <param name="data">A whole number of <see cref="MaxRecordDataLength"/>-byte pieces, one per record; may be empty.</param>
    /// <param name="destination">Receives the records, <see cref="RecordSize"/> bytes each; must not overlap <paramref name="data"/>.</param>
    /// <param name="maxDegreeOfParallelism">How many threads may seal records at once, the calling thread included.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException">The lengths do not fit, or the buffers overlap.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxDegreeOfParallelism"/> is less than 1.</exception>
    /// <exception cref="InvalidOperationException">The last record has already been sealed.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int EncryptRecords(ReadOnlyMemory<byte> data, Memory<byte> destination, int maxDegreeOfParallelism = 1)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        RecordBatch.Validate(maxDegreeOfParallelism, nameof(maxDegreeOfParallelism));
        if (IsComplete)
        {
            throw new InvalidOperationException(ContentEncodingMessages.EncryptorComplete);
        }

        int maxData = MaxRecordDataLength;
        if (data.Length % maxData != 0)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.BatchDataLength, data.Length, maxData), nameof(data));
        }

        int count = data.Length / maxData;
        long length = (long)count * RecordSize;
        if (destination.Length < length)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, length), nameof(destination));
        }

        if (data.Span.Overlaps(destination.Span))
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingBatch, nameof(destination));
        }

        if (count == 0)
        {
            return 0;
        }

        SealFullRecordsAsync(data, maxData, destination, count, maxDegreeOfParallelism, meanwhile: null).GetAwaiter().GetResult();
        return (int)length;
    }

    // Seals `count` full records, none of them the last: record i's data is data[i × dataStride ..]
    // (MaxRecordDataLength bytes), the record goes to destination[i × rs ..]; the calling thread does
    // `meanwhile` first while the helpers start (RecordBatch.RunAsync).
    internal async ValueTask SealFullRecordsAsync(ReadOnlyMemory<byte> data, int dataStride, Memory<byte> destination, int count, int threads, Func<ValueTask>? meanwhile)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (IsComplete)
        {
            throw new InvalidOperationException(ContentEncodingMessages.EncryptorComplete);
        }

        long first = RecordCount;
        RecordCount = first + count;
        try
        {
            await RecordBatch.RunAsync(count, threads, (Cipher: _cipher, Data: data, Stride: dataStride, Destination: destination, First: first, MaxData: MaxRecordDataLength, RecordSize),
                static (batch, worker, start, end) =>
                {
                    RecordCipher cipher = batch.Cipher.ForWorker(worker);
                    for (int i = start; i < end; i++)
                    {
                        // As EncryptRecord: data || 0x01, sealed in place in the destination.
                        Span<byte> record = batch.Destination.Span.Slice(i * batch.RecordSize, batch.RecordSize);
                        Span<byte> plaintext = record[..(batch.MaxData + 1)];
                        batch.Data.Span.Slice(i * batch.Stride, batch.MaxData).CopyTo(plaintext);
                        plaintext[batch.MaxData] = 1;
                        cipher.Seal(batch.First + i, plaintext, plaintext, record[(batch.MaxData + 1)..]);
                    }
                },
                meanwhile).ConfigureAwait(false);
        }
        catch
        {
            // Nothing expected throws here (the arguments were checked), but a record's plaintext is
            // copied into the destination before it is sealed in place: leave none of it behind.
            CryptographicOperations.ZeroMemory(destination.Span[..(count * RecordSize)]);
            throw;
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
}
