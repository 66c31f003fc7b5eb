// The "decode" target: the content-encoding decoder (RFC 8188 records, both codings), every path.
//
// Input: byte 0 chooses the coding (bit 0), the mode (bit 1) and the stream's read size (bits 2-4).
//   raw mode:    the rest is a body, decoded with a fixed key.
//   sealed mode: the rest describes a body whose records are sealed here with the right keys, so that
//                inputs get past the tags to the padding and delimiter rules: a record size, a key id,
//                an optional decoder limit, then records as (length, flags, plaintext) where the
//                plaintext (delimiter and padding included) is taken as it is and the flags can give a
//                record the wrong sequence number.
// Oracles: every decoding path (one-shot array and span, stream sync and async, the last with a key
// provider) must agree; in sealed
// mode they must also agree with a reference model of RFC 8188 section 2 written here, independently
// (its own HKDF calls and AEADs); a stream may release only data of records before the failing one;
// a failed one-shot decode leaves its destination zeroed; only ContentEncodingException may escape.

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Fuzz;

public static class DecoderTarget
{
    public static readonly byte[] Key = [0x6b, 0x65, 0x79, 0x20, 0x66, 0x6f, 0x72, 0x20, 0x66, 0x75, 0x7a, 0x7a, 0x69, 0x6e, 0x67, 0x21];
    private static readonly byte[] Salt = Enumerable.Range(0, 16).Select(i => (byte)(0xA0 + i)).ToArray();
    private static readonly int[] ReadSizes = [1, 3, 16, 17, 64, 300, 4096, 1 << 20];

    /// <summary>Runs one input; returns null, or a description of a finding.</summary>
    public static string? Run(byte[] input)
    {
        if (input.Length == 0)
        {
            return null;
        }

        ContentCoding coding = (input[0] & 1) == 0 ? ContentCoding.Aes128Gcm : ContentCoding.Aes256GcmSiv;
        int readSize = ReadSizes[(input[0] >> 2) & 7];
        if ((input[0] & 2) == 0)
        {
            return Check(input[1..], coding, readSize, ContentEncryption.MaxRecordSize, expected: null);
        }

        (byte[] body, int maxRecordSize, Outcome model) = Build(input.AsSpan(1), coding);
        return Check(body, coding, readSize, maxRecordSize, model);
    }

    /// <summary>Starting inputs: valid bodies in both modes, both codings, several record sizes.</summary>
    public static IEnumerable<byte[]> Seeds()
    {
        var seeds = new List<byte[]>();
        foreach (ContentCoding coding in new[] { ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv })
        {
            byte flag = (byte)(coding == ContentCoding.Aes128Gcm ? 0 : 1);
            foreach (int recordSize in new[] { 18, 25, 64 })
            {
                foreach (int length in new[] { 0, 1, 20, 100 })
                {
                    byte[] body = ContentEncryption.Encrypt(new byte[length].Select((_, i) => (byte)i).ToArray(), Key, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize, KeyId = ("k"u8).ToArray() });
                    seeds.Add([flag, .. body]);
                }
            }

            // Sealed mode: rs 40 (24 plaintext bytes per full record), no key id, no limit; a full
            // record with 0x01, then a short last record with 0x02 and padding.
            byte[] full = [.. Enumerable.Repeat((byte)0x55, 23), 1];
            byte[] last = [0x66, 0x66, 2, 0, 0];
            seeds.Add([(byte)(flag | 2), 40 - 18, 0, 0, (byte)full.Length, 0, .. full, (byte)last.Length, 0, .. last]);
        }

        return seeds;
    }

    private enum Kind
    {
        Ok,
        Header,
        Truncated,
        Corrupted,
    }

    // Content: what a successful decode returns. Prefix: what a stream may have handed out before it
    // failed (the data of the records before the failing one); for success, the whole content.
    private readonly record struct Outcome(Kind Kind, byte[] Content, byte[] Prefix);

    private static Kind KindOf(ContentEncodingException exception) => exception switch
    {
        ContentEncodingHeaderException => Kind.Header,
        ContentEncodingTruncatedException => Kind.Truncated,
        ContentEncodingCorruptedException => Kind.Corrupted,
        _ => throw new InvalidOperationException("unexpected exception type " + exception.GetType()),
    };

    private static string? Check(byte[] body, ContentCoding coding, int readSize, int maxRecordSize, Outcome? expected)
    {
        var outcomes = new List<(string Path, Outcome Outcome, byte[] Released)>();

        try
        {
            outcomes.Add(("array", new Outcome(Kind.Ok, ContentEncryption.Decrypt(body, Key, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize }), []), []));
        }
        catch (ContentEncodingException exception)
        {
            outcomes.Add(("array", new Outcome(KindOf(exception), [], []), []));
        }

        byte[] destination = new byte[body.Length];
        try
        {
            int length = ContentEncryption.Decrypt(body, Key, destination, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize });
            outcomes.Add(("span", new Outcome(Kind.Ok, destination[..length], []), []));
        }
        catch (ContentEncodingException exception)
        {
            if (destination.Any(b => b != 0))
            {
                return "a failed one-shot decode left data in its destination";
            }

            outcomes.Add(("span", new Outcome(KindOf(exception), [], []), []));
        }

        foreach (bool async in new[] { false, true })
        {
            var released = new List<byte>();
            byte[] buffer = new byte[readSize];
            // The async path finds its key through a key provider, as HTTP servers do.
            using var stream = async
                ? new ContentDecryptingStream(new MemoryStream(body), (keyId, c, destination, out written) => WriteKey(c == coding, destination, out written), new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize })
                : new ContentDecryptingStream(new MemoryStream(body), Key, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize });
            try
            {
                while (true)
                {
                    int read = async ? stream.ReadAsync(buffer).AsTask().GetAwaiter().GetResult() : stream.Read(buffer);
                    if (read == 0)
                    {
                        break;
                    }

                    released.AddRange(buffer.AsSpan(0, read));
                }

                outcomes.Add((async ? "stream-async" : "stream", new Outcome(Kind.Ok, [.. released], []), []));
            }
            catch (ContentEncodingException exception)
            {
                outcomes.Add((async ? "stream-async" : "stream", new Outcome(KindOf(exception), [], []), [.. released]));
            }
        }

        (string firstPath, Outcome first, _) = outcomes[0];
        foreach ((string path, Outcome outcome, byte[] released) in outcomes)
        {
            if (outcome.Kind != first.Kind || !outcome.Content.AsSpan().SequenceEqual(first.Content))
            {
                return $"paths disagree: {firstPath} {first.Kind} ({first.Content.Length} bytes), {path} {outcome.Kind} ({outcome.Content.Length} bytes)";
            }

            if (expected is { } model)
            {
                if (outcome.Kind != model.Kind || !outcome.Content.AsSpan().SequenceEqual(model.Content))
                {
                    return $"{path} disagrees with the model: {outcome.Kind} ({outcome.Content.Length} bytes), model {model.Kind} ({model.Content.Length} bytes)";
                }

                if (!model.Prefix.AsSpan().StartsWith(released))
                {
                    return $"{path} released {released.Length} bytes before failing; allowed: a prefix of {model.Prefix.Length}";
                }
            }
        }

        return null;
    }

    private static (byte[] Body, int MaxRecordSize, Outcome Model) Build(ReadOnlySpan<byte> input, ContentCoding coding)
    {
        int Next(ref ReadOnlySpan<byte> rest)
        {
            if (rest.IsEmpty)
            {
                return 0;
            }

            int value = rest[0];
            rest = rest[1..];
            return value;
        }

        int recordSize = 18 + Next(ref input);
        int keyIdLength = Next(ref input) & 3;
        byte[] keyId = new byte[keyIdLength];
        for (int i = 0; i < keyIdLength; i++)
        {
            keyId[i] = (byte)Next(ref input);
        }

        int limit = Next(ref input);
        int maxRecordSize = (limit & 0x80) != 0 ? 18 + (limit & 0x7f) * 2 : ContentEncryption.MaxRecordSize;

        // The reference key schedule: RFC 8188 sections 2.2 and 2.3, with this coding's labels.
        byte[] prk = HKDF.Extract(HashAlgorithmName.SHA256, Key, Salt);
        bool gcm = coding == ContentCoding.Aes128Gcm;
        byte[] cek = HKDF.Expand(HashAlgorithmName.SHA256, prk, gcm ? 16 : 32, System.Text.Encoding.ASCII.GetBytes(gcm ? "Content-Encoding: aes128gcm\0" : "Content-Encoding: aes256gcmsiv\0"));
        byte[] nonceBase = HKDF.Expand(HashAlgorithmName.SHA256, prk, 12, System.Text.Encoding.ASCII.GetBytes(gcm ? "Content-Encoding: nonce\0" : "Content-Encoding: aes256gcmsiv nonce\0"));
        using var aesGcm = gcm ? new AesGcm(cek, 16) : null;
        using var aesGcmSiv = gcm ? null : new AesGcmSiv(cek);

        var body = new List<byte>(Salt);
        byte[] rs = new byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(rs, (uint)recordSize);
        body.AddRange(rs);
        body.Add((byte)keyIdLength);
        body.AddRange(keyId);
        int headerLength = body.Count;

        // The records as sealed: where each starts, and its plaintext when its sequence number is right.
        var sealedAt = new Dictionary<int, (byte[] Ciphertext, byte[] Plaintext)>();
        for (int sequence = 0; !input.IsEmpty && sequence < 64; sequence++)
        {
            int length = Next(ref input) % (recordSize - 16 + 1);
            int flags = Next(ref input);
            byte[] plaintext = new byte[length];
            int take = Math.Min(length, input.Length);
            input[..take].CopyTo(plaintext);
            input = input[take..];

            long sealedSequence = sequence ^ (flags & 3);
            byte[] nonce = (byte[])nonceBase.Clone();
            ulong low = BinaryPrimitives.ReadUInt64BigEndian(nonce.AsSpan(4));
            BinaryPrimitives.WriteUInt64BigEndian(nonce.AsSpan(4), low ^ (ulong)sealedSequence);
            byte[] record = new byte[length + 16];
            if (gcm)
            {
                aesGcm!.Encrypt(nonce, plaintext, record.AsSpan(0, length), record.AsSpan(length));
            }
            else
            {
                aesGcmSiv!.Encrypt(nonce, plaintext, record.AsSpan(0, length), record.AsSpan(length));
            }

            if (sealedSequence == sequence)
            {
                sealedAt[body.Count - headerLength] = (record, plaintext);
            }

            body.AddRange(record);
        }

        return ([.. body], maxRecordSize, Model(body.Skip(headerLength).ToArray(), recordSize, maxRecordSize, sealedAt));
    }

    // RFC 8188 section 2, as a decoder sees the body: chunks of rs bytes, the last possibly shorter.
    private static Outcome Model(byte[] records, int recordSize, int maxRecordSize, Dictionary<int, (byte[] Ciphertext, byte[] Plaintext)> sealedAt)
    {
        if (recordSize > maxRecordSize)
        {
            return new Outcome(Kind.Header, [], []);
        }

        var content = new List<byte>();
        bool complete = false;
        for (int offset = 0, index = 0; offset < records.Length; offset += recordSize, index++)
        {
            int length = Math.Min(recordSize, records.Length - offset);
            Outcome Fail(Kind kind) => new(kind, [], [.. content]);
            if (complete)
            {
                return Fail(Kind.Corrupted);
            }

            if (length < 17)
            {
                return Fail(Kind.Corrupted);
            }

            // A chunk opens only if it is exactly a record sealed at this position with this sequence number.
            if (!sealedAt.TryGetValue(offset, out var sealedRecord) || sealedRecord.Ciphertext.Length != length)
            {
                return Fail(Kind.Corrupted);
            }

            byte[] plaintext = sealedRecord.Plaintext;
            int delimiterAt = Array.FindLastIndex(plaintext, b => b != 0);
            if (delimiterAt < 0 || plaintext[delimiterAt] is not (1 or 2))
            {
                return Fail(Kind.Corrupted);
            }

            if (plaintext[delimiterAt] == 1 && length != recordSize)
            {
                return Fail(Kind.Truncated);
            }

            complete = plaintext[delimiterAt] == 2;
            if (complete && length == recordSize && offset + length < records.Length)
            {
                // A full-size last record with data after it: the stream checks before releasing it.
                return Fail(Kind.Corrupted);
            }

            content.AddRange(plaintext.AsSpan(0, delimiterAt));
        }

        return complete ? new Outcome(Kind.Ok, [.. content], [.. content]) : new Outcome(Kind.Truncated, [], [.. content]);
    }

    // A key provider writes the key into the library's buffer, or says it has none.
    private static bool WriteKey(bool known, Span<byte> destination, out int written)
    {
        written = known ? Key.Length : 0;
        if (known)
        {
            Key.CopyTo(destination);
        }

        return known;
    }
}
