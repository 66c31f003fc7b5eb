// The "header" target: ContentEncodingHeader.Parse and TryGetLength (RFC 8188 section 2.1), against a
// reference reading of the header written here: salt (16) || rs (uint32, big-endian) || idlen (1) ||
// keyid (idlen). Byte 0 picks the decoder's record-size limit, some of them out of range; the rest is
// the body. Checks: Parse succeeds exactly when the reference does, with the same fields; a parsed
// header writes back the bytes it was read from, and a header built from its fields is the same;
// only ContentEncodingHeaderException (or ArgumentOutOfRangeException for a bad limit) escapes.

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Fuzz;

public static class HeaderTarget
{
    private static readonly int[] Limits = [18, 19, 64, 4096, 1 << 20, ContentEncryption.MaxRecordSize, 17, ContentEncryption.MaxRecordSize + 1];

    public static void Run(byte[] input)
    {
        if (input.Length == 0)
        {
            return;
        }

        int limit = Limits[input[0] & 7];
        ReadOnlySpan<byte> body = input.AsSpan(1);

        // The reference.
        bool limitValid = limit >= 18 && limit <= ContentEncryption.MaxRecordSize;
        int fixedLength = 21;
        int length = body.Length < fixedLength ? 0 : fixedLength + body[20];
        uint recordSize = body.Length >= 20 ? BinaryPrimitives.ReadUInt32BigEndian(body[16..]) : 0;
        bool valid = limitValid && length != 0 && body.Length >= length && recordSize >= 18 && recordSize <= (uint)limit;

        bool hasLength = ContentEncodingHeader.TryGetLength(body, out int reportedLength);
        Finding.Check(hasLength == (length != 0) && reportedLength == length, $"TryGetLength said {hasLength}/{reportedLength}, reference {length}");

        ContentEncodingHeader header;
        try
        {
            header = ContentEncodingHeader.Parse(body, limit);
        }
        catch (ArgumentOutOfRangeException) when (!limitValid)
        {
            return;
        }
        catch (ContentEncodingHeaderException) when (limitValid && !valid)
        {
            return;
        }

        Finding.Check(valid, $"Parse accepted a header the reference refuses (length {body.Length}, rs {recordSize}, limit {limit})");
        Finding.Check(header.Length == length && header.RecordSize == (int)recordSize, $"Parse read length {header.Length} rs {header.RecordSize}; reference {length} {recordSize}");
        Finding.Check(header.Salt.Span.SequenceEqual(body[..16]) && header.KeyId.Span.SequenceEqual(body[21..length]), "Parse read the salt or key id wrongly");

        byte[] written = new byte[header.Length];
        Finding.Check(header.WriteTo(written) == length && written.AsSpan().SequenceEqual(body[..length]), "WriteTo did not give back the parsed bytes");

        var rebuilt = new ContentEncodingHeader(header.Salt.Span, header.RecordSize, header.KeyId.Span);
        byte[] rewritten = new byte[rebuilt.Length];
        rebuilt.WriteTo(rewritten);
        Finding.Check(rewritten.AsSpan().SequenceEqual(written), "a header built from the parsed fields differs");
    }

    public static IEnumerable<byte[]> Seeds()
    {
        byte[] salt = new byte[16];
        for (int i = 0; i < salt.Length; i++)
        {
            salt[i] = (byte)(0x10 + i);
        }

        foreach ((int limitIndex, int recordSize, int keyIdLength) in new[] { (5, 4096, 0), (5, 18, 3), (2, 64, 0), (2, 65, 1), (0, 18, 255), (3, 17, 0), (6, 4096, 0) })
        {
            var header = new ContentEncodingHeader(salt, Math.Max(recordSize, 18), new byte[keyIdLength]);
            byte[] bytes = new byte[header.Length + 2];
            header.WriteTo(bytes);
            BinaryPrimitives.WriteUInt32BigEndian(bytes.AsSpan(16), (uint)recordSize);
            yield return [(byte)limitIndex, .. bytes];
        }
    }
}
