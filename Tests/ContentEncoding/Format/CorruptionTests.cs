// Every kind of damage RFC 8188 says a decoder must catch, through every decoding path: the right
// exception type, the record it names, and nothing of a bad record released (a stream returns
// only the records before it; a one-shot destination is all zeros).

using System;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class CorruptionTests
{
    private const int RecordSize = 40;           // 23 bytes of data per record
    private const int DataPerRecord = RecordSize - 17;
    private static readonly byte[] Ikm = Enumerable.Range(100, 16).Select(i => (byte)i).ToArray();
    private static readonly byte[] Salt = Enumerable.Range(0, 16).Select(i => (byte)(i + 1)).ToArray();

    public static IEnumerable<TestCaseData> Paths() =>
        from coding in Enum.GetValues<ContentCoding>()
        from path in Decoders.All
        select new TestCaseData(coding, path).SetArgDisplayNames(coding.ToString(), path.ToString());

    /// <summary>Three records: 0 and 1 full, 2 (the last) shorter. Content bytes are all 0xAA, so any of it leaking is visible.</summary>
    private static byte[] Content => Enumerable.Repeat((byte)0xAA, 2 * DataPerRecord + 5).ToArray();

    private static byte[] Body(ContentCoding coding)
    {
        byte[] body = new byte[ContentEncryption.GetEncryptedLength(Content.Length, new ContentEncodingOptions { RecordSize = RecordSize })];
        ContentEncryption.Encrypt(Content, Ikm, body, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }, salt: Salt);
        return body;
    }

    /// <summary>A header and records whose plaintexts (delimiter and padding included) are given as they are, sealed with the right nonces.</summary>
    private static byte[] Sealed(ContentCoding coding, params byte[][] recordPlaintexts) => SealedAt(coding, recordPlaintexts.Select((p, i) => (i, p)).ToArray());

    private static byte[] SealedAt(ContentCoding coding, (int Sequence, byte[] Plaintext)[] records)
    {
        var header = new ContentEncodingHeader(Salt, RecordSize, default);
        var body = new List<byte>(new byte[header.Length]);
        header.WriteTo(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(body));
        using RecordCipher cipher = RecordCipher.Create(coding, Ikm, Salt);
        foreach ((int sequence, byte[] plaintext) in records)
        {
            byte[] record = new byte[plaintext.Length + 16];
            cipher.Seal(sequence, plaintext, record.AsSpan(0, plaintext.Length), record.AsSpan(plaintext.Length));
            body.AddRange(record);
        }

        return [.. body];
    }

    private static byte[] Data(int length, byte delimiter, int padding = 0) =>
        [.. Enumerable.Repeat((byte)0xAA, length), delimiter, .. new byte[padding]];

    private static TException Rejects<TException>(ContentCoding coding, DecodePath path, byte[] body, long? recordIndex, int releasedRecords = -1)
        where TException : ContentEncodingException
    {
        var released = new List<byte>();
        TException error = Assert.Throws<TException>(() => Decoders.Decode(path, body, Ikm, coding, released))!;
        Assert.That(error.RecordIndex, Is.EqualTo(recordIndex), error.Message);
        Assert.That(error, Is.InstanceOf<System.Security.Cryptography.CryptographicException>());
        if (releasedRecords >= 0)
        {
            // Streams hand out whole records that verified, and nothing else; one-shot calls nothing.
            int allowed = path is DecodePath.OneShotArray or DecodePath.OneShotSpan ? 0 : releasedRecords * DataPerRecord;
            Assert.That(released.Count(b => b == 0xAA), Is.LessThanOrEqualTo(allowed), $"{path} released unverified data: {error.Message}");
        }

        return error;
    }

    [TestCaseSource(nameof(Paths))]
    public void AnIntactBodyDecodes(ContentCoding coding, DecodePath path) =>
        Assert.That(Decoders.Decode(path, Body(coding), Ikm, coding), Is.EqualTo(Content));

    [TestCaseSource(nameof(Paths))]
    public void DroppingTheLastRecordIsTruncation(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        var error = Rejects<ContentEncodingTruncatedException>(coding, path, body[..(21 + 2 * RecordSize)], recordIndex: 1, releasedRecords: 2);
        Assert.That(error.Message, Does.Contain("truncated"));
    }

    [TestCaseSource(nameof(Paths))]
    public void ABodyWithNoRecordIsTruncation(ContentCoding coding, DecodePath path) =>
        Rejects<ContentEncodingTruncatedException>(coding, path, Body(coding)[..21], recordIndex: null);

    [TestCaseSource(nameof(Paths))]
    public void CuttingARecordShortFailsItsTag(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        Rejects<ContentEncodingCorruptedException>(coding, path, body[..(21 + RecordSize + 30)], recordIndex: 1, releasedRecords: 1);
        Rejects<ContentEncodingCorruptedException>(coding, path, body[..(21 + RecordSize + 5)], recordIndex: 1, releasedRecords: 1);
    }

    [TestCaseSource(nameof(Paths))]
    public void SwappingRecordsFailsTheFirstTag(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        byte[] swapped = [.. body[..21], .. body.AsSpan(21 + RecordSize, RecordSize), .. body.AsSpan(21, RecordSize), .. body[(21 + 2 * RecordSize)..]];
        var error = Rejects<ContentEncodingCorruptedException>(coding, path, swapped, recordIndex: 0, releasedRecords: 0);
        Assert.That(error.Message, Does.Contain("Record 0 failed authentication"));
    }

    [TestCaseSource(nameof(Paths))]
    public void EveryFlippedBitIsRejected(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        for (int bit = 0; bit < body.Length * 8; bit += path is DecodePath.OneShotArray ? 1 : 13)
        {
            byte[] damaged = (byte[])body.Clone();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            var released = new List<byte>();
            var error = Assert.Catch<ContentEncodingException>(() => Decoders.Decode(path, damaged, Ikm, coding, released), $"bit {bit}")!;
            int record = (bit / 8 - 21) / RecordSize;
            if (bit / 8 >= 21)
            {
                Assert.That(error.RecordIndex, Is.EqualTo(record), $"bit {bit}");
            }
        }
    }

    [TestCaseSource(nameof(Paths))]
    public void ARecordAfterTheLastIsRejected(ContentCoding coding, DecodePath path)
    {
        // Record 0 is marked last (0x02 in a non-final position), record 1 follows it.
        byte[] body = Sealed(coding, Data(DataPerRecord, 2), Data(3, 2));
        var error = Rejects<ContentEncodingCorruptedException>(coding, path, body, recordIndex: 0, releasedRecords: 0);
        Assert.That(error.Message, Does.Contain("continues after record 0"));

        // Bytes too few to be a record after a full-size last record: the same.
        byte[] trailing = [.. Sealed(coding, Data(DataPerRecord, 2)), 0];
        Rejects<ContentEncodingCorruptedException>(coding, path, trailing, recordIndex: 0, releasedRecords: 0);
    }

    [TestCaseSource(nameof(Paths))]
    public void AFinalRecordMarkedNotLastIsTruncation(ContentCoding coding, DecodePath path)
    {
        // 0x01 in the final position, full size: the body stops where another record was promised.
        Rejects<ContentEncodingTruncatedException>(coding, path, Sealed(coding, Data(DataPerRecord, 1), Data(DataPerRecord, 1)), recordIndex: 1, releasedRecords: 2);

        // 0x01 in a record shorter than rs: only the last record may be short.
        var error = Rejects<ContentEncodingTruncatedException>(coding, path, Sealed(coding, Data(DataPerRecord, 1), Data(4, 1)), recordIndex: 1, releasedRecords: 1);
        Assert.That(error.Message, Does.Contain("Record 1 is 21 bytes"));
    }

    [TestCaseSource(nameof(Paths))]
    public void BadPaddingIsRejected(ContentCoding coding, DecodePath path)
    {
        Assert.Multiple(() =>
        {
            // All zeros: no delimiter.
            var none = Rejects<ContentEncodingCorruptedException>(coding, path, Sealed(coding, new byte[10]), recordIndex: 0, releasedRecords: 0);
            Assert.That(none.Message, Does.Contain("no padding delimiter"));

            // A delimiter other than 1 or 2.
            var three = Rejects<ContentEncodingCorruptedException>(coding, path, Sealed(coding, Data(5, 3, padding: 2)), recordIndex: 0, releasedRecords: 0);
            Assert.That(three.Message, Does.Contain("0x03"));

            // Non-zero bytes after the delimiter: the last non-zero byte is taken as the delimiter.
            Rejects<ContentEncodingCorruptedException>(coding, path, Sealed(coding, [.. Data(5, 2), 0, 0xAA, 0]), recordIndex: 0, releasedRecords: 0);

            // Bad padding in a later record: the earlier full record may have been released, no more.
            Rejects<ContentEncodingCorruptedException>(coding, path, Sealed(coding, Data(DataPerRecord, 1), Data(3, 0x80, 1)), recordIndex: 1, releasedRecords: 1);

            // An empty record (tag only) has no delimiter and is too short.
            Rejects<ContentEncodingCorruptedException>(coding, path, Sealed(coding, Array.Empty<byte>()), recordIndex: 0, releasedRecords: 0);
        });
    }

    [TestCaseSource(nameof(Paths))]
    public void PaddingIsAcceptedAndRemoved(ContentCoding coding, DecodePath path)
    {
        byte[] body = Sealed(coding, Data(DataPerRecord - 6, 1, padding: 6), Data(0, 1, padding: DataPerRecord), Data(2, 2, padding: 10));
        Assert.That(Decoders.Decode(path, body, Ikm, coding), Is.EqualTo(Enumerable.Repeat((byte)0xAA, DataPerRecord - 6 + 2).ToArray()));
    }

    [TestCaseSource(nameof(Paths))]
    public void AWrongKeyFailsTheFirstRecord(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        byte[] otherKey = (byte[])Ikm.Clone();
        otherKey[0] ^= 1;
        var error = Assert.Throws<ContentEncodingCorruptedException>(() => Decoders.Decode(path, body, otherKey, coding));
        Assert.That(error!.RecordIndex, Is.Zero);
    }

    [TestCaseSource(nameof(Paths))]
    public void BadHeadersAreRejected(ContentCoding coding, DecodePath path)
    {
        byte[] body = Body(coding);
        Assert.Multiple(() =>
        {
            foreach (int length in new[] { 0, 1, 16, 20 })
            {
                var error = Rejects<ContentEncodingHeaderException>(coding, path, body[..length], recordIndex: null);
                Assert.That(error.Message, Does.Contain("header needs 21"));
            }

            // idlen says 5 bytes of key id; only 3 follow.
            byte[] shortKeyId = [.. body[..20], 5, 1, 2, 3];
            Assert.That(Rejects<ContentEncodingHeaderException>(coding, path, shortKeyId, recordIndex: null).Message, Does.Contain("header needs 26"));

            foreach (uint recordSize in new uint[] { 0, 1, 17 })
            {
                byte[] small = (byte[])body.Clone();
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(small.AsSpan(16), recordSize);
                Assert.That(Rejects<ContentEncodingHeaderException>(coding, path, small, recordIndex: null).Message, Does.Contain("at least 18"));
            }

            foreach (uint recordSize in new uint[] { ContentEncryption.MaxRecordSize + 1, uint.MaxValue, 0x80000000 })
            {
                byte[] large = (byte[])body.Clone();
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(large.AsSpan(16), recordSize);
                Assert.That(Rejects<ContentEncodingHeaderException>(coding, path, large, recordIndex: null).Message, Does.Contain("above the limit"));
            }
        });
    }

    [Test]
    public void ADecoderMayLowerTheRecordSizeLimit()
    {
        byte[] body = ContentEncryption.Encrypt(new byte[100], Ikm, new ContentEncodingOptions { RecordSize = 4096 });
        Assert.Throws<ContentEncodingHeaderException>(() => ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { MaxRecordSize = 4095 }));
        Assert.Throws<ContentEncodingHeaderException>(() => Decoders.Decode(DecodePath.StreamLargeReads, body, Ikm, ContentCoding.Aes128Gcm, maxRecordSize: 1024));
        Assert.That(ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { MaxRecordSize = 4096 }), Has.Length.EqualTo(100));
    }

    [Test]
    public void AStreamKeepsFailingAfterAFailure()
    {
        byte[] body = Body(ContentCoding.Aes128Gcm);
        body[^1] ^= 1;
        using var stream = new ContentDecryptingStream(new System.IO.MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm });
        byte[] buffer = new byte[1000];
        // Each read returns exactly one record (that is the property under test, not an inexact read).
#pragma warning disable CA2022
        Assert.That(stream.Read(buffer), Is.EqualTo(DataPerRecord));
        Assert.That(stream.Read(buffer), Is.EqualTo(DataPerRecord));
        Assert.Throws<ContentEncodingCorruptedException>(() => stream.Read(buffer));
        // The last record (5 bytes of data, its delimiter) decrypted into the buffer's first 6 bytes
        // and was wiped there; the bytes after them still hold record 1, returned by the read before.
        Assert.That(buffer.Take(6), Is.All.Zero, "the bad record's plaintext was wiped from the buffer");
        Assert.That(Internals.Record(stream), Is.All.Zero, "and the stream's own buffer");
        Assert.Throws<ContentEncodingCorruptedException>(() => stream.Read(buffer));
#pragma warning restore CA2022
    }

    [Test]
    public void AFailedOneShotDecryptLeavesTheDestinationZeroed()
    {
        byte[] body = Body(ContentCoding.Aes256GcmSiv);
        body[^1] ^= 1;
        byte[] destination = new byte[body.Length];
        Assert.Throws<ContentEncodingCorruptedException>(() => ContentEncryption.Decrypt(body, Ikm, destination, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }));
        Assert.That(destination, Is.All.Zero);
    }

    [Test]
    public void ExceptionMessagesCarryNoSecrets()
    {
        byte[] body = Body(ContentCoding.Aes128Gcm);
        body[30] ^= 1;
        var error = Assert.Throws<ContentEncodingCorruptedException>(() => ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm }))!;
        string hexKey = Convert.ToHexString(Ikm);
        Assert.That(error.ToString(), Does.Not.Contain(hexKey).And.Not.Contain(Convert.ToBase64String(Ikm)));
        Assert.That(error.Message, Does.Not.Contain(Convert.ToHexString(body.AsSpan(21, 16))));
    }
}
