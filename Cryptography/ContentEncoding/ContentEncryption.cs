// Encrypted content encoding (RFC 8188) in one call, over whole bodies in memory, plus the layer's
// constants and the codings' HTTP names. Larger bodies go through the streams; all share ContentEncryptor/ContentDecryptor.

using System;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>
/// Writes the input keying material for a key id found in a body's header into <paramref name="destination"/>, a buffer
/// the library owns and wipes as soon as it has derived the body's keys: no copy of the key is left to the garbage collector.
/// </summary>
/// <param name="keyId">The header's key id (possibly empty).</param>
/// <param name="coding">The coding the body is being decoded with.</param>
/// <param name="destination">Receives the keying material: room for <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.</param>
/// <param name="bytesWritten">The keying material's length (at least 1).</param>
/// <returns><see langword="true"/> when the key id is known; <see langword="false"/> when it is not
/// (a <see cref="ContentEncodingHeaderException"/> naming the key id follows).</returns>
public delegate bool ContentKeyProvider(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten);

/// <summary>
/// Encrypted content encoding: the <c>aes128gcm</c> coding of RFC 8188 and this library's <c>aes256gcmsiv</c> coding
/// (same framing, AES-256-GCM-SIV records, not an IETF standard), over whole bodies in memory.
/// </summary>
/// <remarks>
/// A body is a header (salt, record size, key id) followed by records; each record but the last is exactly the record
/// size long, tag included. Decoding rejects truncation, reordering, records after the last, bad padding, record sizes
/// below 18 or above the decoder's limit (<see cref="MaxRecordSize"/>, 16 MiB, by default) and short headers, with a
/// <see cref="ContentEncodingException"/>.
/// </remarks>
public static class ContentEncryption
{
    /// <summary>The HTTP <c>Content-Encoding</c> name of <see cref="ContentCoding.Aes128Gcm"/>: <c>aes128gcm</c>.</summary>
    public const string Aes128GcmName = "aes128gcm";

    /// <summary>The HTTP <c>Content-Encoding</c> name of <see cref="ContentCoding.Aes256GcmSiv"/>: <c>aes256gcmsiv</c> (not registered with IANA).</summary>
    public const string Aes256GcmSivName = "aes256gcmsiv";

    /// <summary>The salt's length: 16 bytes.</summary>
    public const int SaltSize = 16;

    /// <summary>The length of each record's authentication tag: 16 bytes.</summary>
    public const int TagSize = 16;

    /// <summary>The smallest record size RFC 8188 allows: 18 bytes (one byte of data, the delimiter, the tag).</summary>
    public const int MinRecordSize = 18;

    /// <summary>The largest record size this library writes or, by default, accepts: 16 MiB. RFC 8188 allows up to 2^32 - 1,
    /// but a decoder holds one whole record in memory before it may release any of it, so a header must not be able to make
    /// it allocate gigabytes.</summary>
    public const int MaxRecordSize = 16 * 1024 * 1024;

    /// <summary>The most keying material a <see cref="ContentKeyProvider"/> may write: 256 bytes.</summary>
    public const int MaxKeyingMaterialSize = 256;

    /// <summary>The record size used when none is given: 64 KiB, where the per-record cost is negligible (RFC 8188's examples and Web Push use 4096).</summary>
    public const int DefaultRecordSize = 64 * 1024;

    /// <summary>Gets the HTTP <c>Content-Encoding</c> name of a coding.</summary>
    /// <param name="coding">The coding.</param>
    /// <returns><see cref="Aes128GcmName"/> or <see cref="Aes256GcmSivName"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coding"/> is out of range.</exception>
    public static string GetName(ContentCoding coding) => ContentCodingInfo.Of(coding, nameof(coding)).Name;

    /// <summary>Finds the coding an HTTP <c>Content-Encoding</c> name stands for (case-insensitive).</summary>
    /// <param name="name">The name, such as <c>aes128gcm</c>.</param>
    /// <param name="coding">The coding, when found.</param>
    /// <returns><see langword="true"/> when <paramref name="name"/> names one of the codings.</returns>
    public static bool TryGetCoding(string? name, out ContentCoding coding)
    {
        ContentCodingInfo? info = ContentCodingInfo.FindByName(name);
        coding = info?.Coding ?? ContentCoding.Aes128Gcm;
        return info is not null;
    }

    /// <summary>Gets the length of the body that encrypting <paramref name="plaintextLength"/> bytes produces, without padding.</summary>
    /// <param name="plaintextLength">The content's length.</param>
    /// <param name="options">The record size and key id; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <returns>Header plus records: 21 + key id + plaintext + 17 per record, with at least one record.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plaintextLength"/> is negative, or the body would be longer than <see cref="long.MaxValue"/> bytes.</exception>
    public static long GetEncryptedLength(long plaintextLength, ContentEncodingOptions? options = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(plaintextLength);
        options = ContentEncodingOptions.Or(options);
        return TryGetEncryptedLength(plaintextLength, options.RecordSize, options.KeyId.Length, out long length)
            ? length
            : throw new ArgumentOutOfRangeException(nameof(plaintextLength), plaintextLength, ContentEncodingMessages.EncryptedLengthOverflow);
    }

    // The 17 bytes each record adds can take a length near long.MaxValue past it: that is no length
    // (issue 31, defect 6: it came out negative, and EncryptedHttpContent sent it as Content-Length).
    internal static bool TryGetEncryptedLength(long plaintextLength, int recordSize, int keyIdLength, out long length)
    {
        long records = plaintextLength == 0 ? 1 : ((plaintextLength - 1) / (recordSize - 1 - TagSize)) + 1;
        Int128 total = (Int128)ContentEncodingHeader.FixedLength + keyIdLength + plaintextLength + ((Int128)(1 + TagSize) * records);
        bool fits = total <= long.MaxValue;
        length = fits ? (long)total : 0;
        return fits;
    }

    /// <summary>Encrypts a whole body.</summary>
    /// <inheritdoc cref="TryEncrypt"/>
    /// <returns>The encrypted body: header and records, with a fresh random salt.</returns>
    /// <exception cref="ArgumentException">The keying material is empty.</exception>
    public static byte[] Encrypt(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null)
    {
        byte[] body = new byte[checked((int)GetEncryptedLength(plaintext.Length, options))];
        Encrypt(plaintext, inputKeyingMaterial, body, options);
        return body;
    }

    /// <summary>Encrypts a whole body into a buffer of at least <see cref="GetEncryptedLength"/> bytes, without allocating.</summary>
    /// <inheritdoc cref="TryEncrypt"/>
    /// <returns>The body's length.</returns>
    /// <exception cref="ArgumentException">The keying material is empty, the salt has a wrong length, or <paramref name="destination"/> is too short or overlaps <paramref name="plaintext"/>.</exception>
    public static int Encrypt(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> inputKeyingMaterial, Span<byte> destination, ContentEncodingOptions? options = null, ReadOnlySpan<byte> salt = default) =>
        TryEncrypt(plaintext, inputKeyingMaterial, destination, out int written, options, salt)
            ? written
            : throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, GetEncryptedLength(plaintext.Length, options)), nameof(destination));

    /// <summary>Encrypts a whole body into a buffer, without allocating, unless the buffer is too short.</summary>
    /// <param name="plaintext">The content.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty.</param>
    /// <param name="destination">Receives the body; must not overlap <paramref name="plaintext"/>.</param>
    /// <param name="bytesWritten">The body's length, or 0 when <paramref name="destination"/> is shorter than <see cref="GetEncryptedLength"/>.</param>
    /// <param name="options">The coding, record size and key id; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <param name="salt">The 16-byte salt, or empty for a fresh random one. Never reuse a salt with the same keying material.</param>
    /// <returns><see langword="false"/> when <paramref name="destination"/> is too short (nothing is written).</returns>
    /// <exception cref="ArgumentException">The keying material is empty, the salt has a wrong length, or the buffers overlap.</exception>
    public static bool TryEncrypt(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> inputKeyingMaterial, Span<byte> destination, out int bytesWritten, ContentEncodingOptions? options = null, ReadOnlySpan<byte> salt = default)
    {
        bytesWritten = 0;
        if (destination.Length < GetEncryptedLength(plaintext.Length, options))
        {
            return false;
        }

        ThrowIfOverlapping(plaintext, destination);
        using var encryptor = new ContentEncryptor(inputKeyingMaterial, options, salt);
        int written = encryptor.Header.WriteTo(destination);
        int maxData = encryptor.MaxRecordDataLength;
        do
        {
            int take = Math.Min(maxData, plaintext.Length);
            written += encryptor.EncryptRecord(plaintext[..take], destination[written..], isLastRecord: take == plaintext.Length);
            plaintext = plaintext[take..];
        }
        while (!encryptor.IsComplete);

        bytesWritten = written;
        return true;
    }

    /// <summary>Gets an upper bound on the length of a body's content: the body less its header and 16 bytes of tag per record.</summary>
    /// <param name="body">The encrypted body, or at least its header and its length.</param>
    /// <param name="bodyLength">The body's full length.</param>
    /// <returns>How large a destination <see cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ContentEncodingOptions?)"/> needs.</returns>
    /// <exception cref="ContentEncodingHeaderException">The header is short or invalid.</exception>
    public static long GetMaxDecryptedLength(ReadOnlySpan<byte> body, long bodyLength) =>
        MaxContentLength(ContentEncodingHeader.Parse(body), bodyLength);

    /// <summary>Verifies and decrypts a whole body.</summary>
    /// <inheritdoc cref="TryDecrypt"/>
    /// <returns>The content.</returns>
    /// <exception cref="ArgumentException">The keying material is empty.</exception>
    public static byte[] Decrypt(ReadOnlySpan<byte> body, ReadOnlySpan<byte> inputKeyingMaterial, ContentEncodingOptions? options = null)
    {
        options = ContentEncodingOptions.Or(options);
        using var decryptor = new ContentDecryptor(ContentEncodingHeader.Parse(body, options.MaxRecordSize), inputKeyingMaterial, options);
        return DecryptToArray(body, decryptor);
    }

    /// <summary>Verifies and decrypts a whole body with the key its header's key id names.</summary>
    /// <param name="body">The encrypted body.</param>
    /// <param name="keyProvider">Maps the header's key id to the keying material.</param>
    /// <param name="options">The coding the body was sealed with and the largest record size to accept; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <returns>The content.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="keyProvider"/> is <see langword="null"/>.</exception>
    /// <exception cref="ContentEncodingException">As for <see cref="TryDecrypt"/>; also a <see cref="ContentEncodingHeaderException"/> when <paramref name="keyProvider"/> knows no key for the key id.</exception>
    public static byte[] Decrypt(ReadOnlySpan<byte> body, ContentKeyProvider keyProvider, ContentEncodingOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(keyProvider);
        options = ContentEncodingOptions.Or(options);
        using ContentDecryptor decryptor = CreateDecryptor(keyProvider, ContentEncodingHeader.Parse(body, options.MaxRecordSize), options);
        return DecryptToArray(body, decryptor);
    }

    /// <summary>Verifies and decrypts a whole body into a buffer of at least <see cref="GetMaxDecryptedLength"/> bytes,
    /// without allocating beyond the key schedule.</summary>
    /// <inheritdoc cref="TryDecrypt"/>
    /// <returns>The content's length.</returns>
    /// <exception cref="ArgumentException">The keying material is empty, or <paramref name="destination"/> is too short or overlaps <paramref name="body"/>.</exception>
    public static int Decrypt(ReadOnlySpan<byte> body, ReadOnlySpan<byte> inputKeyingMaterial, Span<byte> destination, ContentEncodingOptions? options = null) =>
        TryDecrypt(body, inputKeyingMaterial, destination, out int written, options)
            ? written
            : throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, GetMaxDecryptedLength(body, body.Length)), nameof(destination));

    /// <summary>Verifies and decrypts a whole body into a buffer, without allocating beyond the key schedule, unless the buffer is too short.</summary>
    /// <param name="body">The encrypted body.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM); not empty.</param>
    /// <param name="destination">Receives the content; must not overlap <paramref name="body"/>. On failure everything written to it is zeroed.</param>
    /// <param name="bytesWritten">The content's length, or 0 when <paramref name="destination"/> is shorter than <see cref="GetMaxDecryptedLength"/>.</param>
    /// <param name="options">The coding the body was sealed with and the largest record size to accept; <see langword="null"/> for <see cref="ContentEncodingOptions.Default"/>.</param>
    /// <returns><see langword="false"/> when <paramref name="destination"/> is too short (nothing is decrypted).</returns>
    /// <exception cref="ContentEncodingException">A <see cref="ContentEncodingHeaderException"/> (the header is short or invalid),
    /// <see cref="ContentEncodingTruncatedException"/> (the body was truncated) or <see cref="ContentEncodingCorruptedException"/>
    /// (a record does not verify, has bad padding, or follows the last record).</exception>
    /// <exception cref="ArgumentException">The keying material is empty, or the buffers overlap.</exception>
    public static bool TryDecrypt(ReadOnlySpan<byte> body, ReadOnlySpan<byte> inputKeyingMaterial, Span<byte> destination, out int bytesWritten, ContentEncodingOptions? options = null)
    {
        options = ContentEncodingOptions.Or(options);
        ContentEncodingHeader header = ContentEncodingHeader.Parse(body, options.MaxRecordSize);
        bytesWritten = 0;
        if (destination.Length < MaxContentLength(header, body.Length))
        {
            return false;
        }

        ThrowIfOverlapping(body, destination);
        using var decryptor = new ContentDecryptor(header, inputKeyingMaterial, options);
        bytesWritten = DecryptRecords(body[header.Length..], destination, decryptor);
        return true;
    }

    // The provider writes the key into a stack buffer that is wiped once the decryptor has derived its keys.
    internal static ContentDecryptor CreateDecryptor(ContentKeyProvider keyProvider, ContentEncodingHeader header, ContentEncodingOptions options)
    {
        Span<byte> key = stackalloc byte[MaxKeyingMaterialSize];
        try
        {
            if (!keyProvider(header.KeyId.Span, options.Coding, key, out int length) || length <= 0 || length > key.Length)
            {
                // The key id travels in the clear, so naming it leaks nothing; long ones are cut short.
                ReadOnlySpan<byte> keyId = header.KeyId.Span;
                string shown = Convert.ToHexString(keyId[..Math.Min(keyId.Length, 32)]) + (keyId.Length > 32 ? "..." : string.Empty);
                throw new ContentEncodingHeaderException(ContentEncodingMessages.Format(ContentEncodingMessages.NoKeyForKeyId, keyId.Length, shown));
            }

            return new ContentDecryptor(header, key[..length], options);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>Checks a record size (from <see cref="MinRecordSize"/> to <see cref="MaxRecordSize"/>) and returns it.</summary>
    internal static int ValidateRecordSize(int recordSize, string parameterName) =>
        recordSize is >= MinRecordSize and <= MaxRecordSize
            ? recordSize
            : throw new ArgumentOutOfRangeException(parameterName, recordSize, ContentEncodingMessages.Format(ContentEncodingMessages.RecordSizeOutOfRange, MinRecordSize, MaxRecordSize));

    private static void ThrowIfOverlapping(ReadOnlySpan<byte> input, Span<byte> destination)
    {
        if (input.Overlaps(destination))
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }
    }

    // Each record's plaintext (data, delimiter, padding) is its length less the tag; a remnant shorter
    // than a tag holds none. Record i decrypts at the sum of the earlier records' data lengths, which
    // is below the sum of their plaintext lengths, so this much room always suffices.
    private static long MaxContentLength(ContentEncodingHeader header, long bodyLength)
    {
        long records = Math.Max(0, bodyLength - header.Length);
        int recordSize = header.RecordSize;
        return records / recordSize * (recordSize - TagSize) + Math.Max(0, records % recordSize - TagSize);
    }

    private static byte[] DecryptToArray(ReadOnlySpan<byte> body, ContentDecryptor decryptor)
    {
        // DecryptRecords zeroes the whole buffer when it throws.
        byte[] buffer = new byte[MaxContentLength(decryptor.Header, body.Length)];
        int length = DecryptRecords(body[decryptor.Header.Length..], buffer, decryptor);
        if (length == buffer.Length)
        {
            return buffer;
        }

        byte[] content = buffer.AsSpan(0, length).ToArray();
        CryptographicOperations.ZeroMemory(buffer);
        return content;
    }

    // Each record decrypts straight into its place in the destination: no copy. A record writes its
    // delimiter and padding past its data too; the next record overwrites them, and the tail is zeroed.
    private static int DecryptRecords(ReadOnlySpan<byte> records, Span<byte> destination, ContentDecryptor decryptor)
    {
        int recordSize = decryptor.Header.RecordSize;
        int written = 0;
        try
        {
            while (!records.IsEmpty)
            {
                ReadOnlySpan<byte> record = records[..Math.Min(recordSize, records.Length)];
                written += decryptor.DecryptRecord(record, destination[written..], out _);
                records = records[record.Length..];
            }

            decryptor.Complete();
            return written;
        }
        catch
        {
            CryptographicOperations.ZeroMemory(destination);
            throw;
        }
    }
}
