// RFC 8188 section 2.1: salt (16 bytes) || rs (uint32, big-endian) || idlen (1 byte) || keyid (idlen bytes)

using System;
using System.Buffers.Binary;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>The header of an encrypted body (RFC 8188 section 2.1): salt, record size and key id.</summary>
/// <remarks>The header is sent in the clear: none of its fields is secret.</remarks>
public sealed class ContentEncodingHeader
{
    /// <summary>The length of the header without its key id: salt (16), record size (4) and key id length (1).</summary>
    public const int FixedLength = ContentEncryption.SaltSize + 4 + 1;

    /// <summary>Creates a header.</summary>
    /// <param name="salt">The 16-byte salt.</param>
    /// <param name="recordSize">The record size, from <see cref="ContentEncryption.MinRecordSize"/> to <see cref="ContentEncryption.MaxRecordSize"/>.</param>
    /// <param name="keyId">The key id, at most 255 bytes; may be empty.</param>
    /// <exception cref="ArgumentException"><paramref name="salt"/> is not 16 bytes, or <paramref name="keyId"/> is longer than 255 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="recordSize"/> is out of range.</exception>
    public ContentEncodingHeader(ReadOnlySpan<byte> salt, int recordSize, ReadOnlySpan<byte> keyId)
    {
        Salt = salt.Length == ContentEncryption.SaltSize ? salt.ToArray() : throw new ArgumentException(ContentEncodingMessages.SaltSize, nameof(salt));
        KeyId = keyId.Length <= 255 ? keyId.ToArray() : throw new ArgumentException(ContentEncodingMessages.KeyIdTooLong, nameof(keyId));
        RecordSize = ContentEncryption.ValidateRecordSize(recordSize, nameof(recordSize));
    }

    /// <summary>Gets the 16-byte salt.</summary>
    public ReadOnlyMemory<byte> Salt { get; }

    /// <summary>Gets the record size: the length of every record but the last, tag included.</summary>
    public int RecordSize { get; }

    /// <summary>Gets the key id (possibly empty).</summary>
    public ReadOnlyMemory<byte> KeyId { get; }

    /// <summary>Gets the length of the encoded header: 21 bytes plus the key id.</summary>
    public int Length => FixedLength + KeyId.Length;

    /// <summary>Writes the header.</summary>
    /// <param name="destination">The buffer to write to; at least <see cref="Length"/> bytes.</param>
    /// <returns>The number of bytes written, <see cref="Length"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too short.</exception>
    public int WriteTo(Span<byte> destination)
    {
        if (destination.Length < Length)
        {
            throw new ArgumentException(ContentEncodingMessages.Format(ContentEncodingMessages.DestinationTooShort, Length), nameof(destination));
        }

        Salt.Span.CopyTo(destination);
        BinaryPrimitives.WriteUInt32BigEndian(destination[ContentEncryption.SaltSize..], (uint)RecordSize);
        destination[ContentEncryption.SaltSize + 4] = (byte)KeyId.Length;
        KeyId.Span.CopyTo(destination[FixedLength..]);
        return Length;
    }

    /// <summary>Gets the full length of the header that <paramref name="prefix"/> starts, once its first 21 bytes are known.</summary>
    /// <param name="prefix">The start of a body.</param>
    /// <param name="length">The header's length, 21 to 276 bytes; 0 when <paramref name="prefix"/> is shorter than 21 bytes.</param>
    /// <returns><see langword="true"/> when <paramref name="prefix"/> holds at least the 21 fixed bytes.</returns>
    public static bool TryGetLength(ReadOnlySpan<byte> prefix, out int length)
    {
        length = prefix.Length < FixedLength ? 0 : FixedLength + prefix[FixedLength - 1];
        return length != 0;
    }

    /// <summary>Parses the header at the start of an encrypted body.</summary>
    /// <param name="body">The body, or at least its header.</param>
    /// <param name="maxRecordSize">The largest record size to accept (a decoder allocates one record); at most <see cref="ContentEncryption.MaxRecordSize"/>.</param>
    /// <returns>The header; its <see cref="Length"/> says where the first record starts.</returns>
    /// <exception cref="ContentEncodingHeaderException">The body is shorter than its header, or the record size is below 18 or above <paramref name="maxRecordSize"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxRecordSize"/> is out of range.</exception>
    public static ContentEncodingHeader Parse(ReadOnlySpan<byte> body, int maxRecordSize = ContentEncryption.MaxRecordSize)
    {
        ContentEncryption.ValidateRecordSize(maxRecordSize, nameof(maxRecordSize));
        if (!TryGetLength(body, out int length) || body.Length < length)
        {
            throw new ContentEncodingHeaderException(ContentEncodingMessages.Format(ContentEncodingMessages.ShortHeader, body.Length, Math.Max(length, FixedLength)));
        }

        uint recordSize = BinaryPrimitives.ReadUInt32BigEndian(body[ContentEncryption.SaltSize..]);
        if (recordSize < ContentEncryption.MinRecordSize || recordSize > (uint)maxRecordSize)
        {
            throw new ContentEncodingHeaderException(recordSize < ContentEncryption.MinRecordSize
                ? ContentEncodingMessages.Format(ContentEncodingMessages.HeaderRecordSizeTooSmall, recordSize)
                : ContentEncodingMessages.Format(ContentEncodingMessages.HeaderRecordSizeTooLarge, recordSize, maxRecordSize));
        }

        return new ContentEncodingHeader(body[..ContentEncryption.SaltSize], (int)recordSize, body[FixedLength..length]);
    }
}
