// The batch calls (ContentEncryptor.EncryptRecords, ContentDecryptor.DecryptRecords) against the
// record-at-a-time ones they stand for: the same bytes out, the same checks in the same order, on 1
// to 4 threads, for both codings (the AES-GCM one gives each worker its own AesGcm). On failure the
// records before the bad one are released and everything from it on is zeroed.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class BatchTests
{
    private static readonly byte[] Ikm = Enumerable.Range(0, 32).Select(i => (byte)(i * 13)).ToArray();
    private static readonly byte[] Salt = Enumerable.Range(0, 16).Select(i => (byte)(200 - i)).ToArray();

    public static IEnumerable<TestCaseData> Cases()
    {
        foreach (ContentCoding coding in Enum.GetValues<ContentCoding>())
        {
            foreach (int recordSize in new[] { 18, 100, 4096 })
            {
                foreach (int threads in new[] { 1, 2, 3, 4 })
                {
                    yield return new TestCaseData(coding, recordSize, threads).SetArgDisplayNames(coding.ToString(), $"rs={recordSize}", $"threads={threads}");
                }
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void EncryptRecordsGivesTheBytesOfOneRecordAtATime(ContentCoding coding, int recordSize, int threads)
    {
        using var single = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: Salt);
        using var batch = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: Salt);
        int maxData = single.MaxRecordDataLength;
        byte[] data = RandomNumberGenerator.GetBytes(maxData * 7);

        byte[] expected = new byte[recordSize * 8];
        for (int i = 0; i < 7; i++)
        {
            single.EncryptRecord(data.AsSpan(i * maxData, maxData), expected.AsSpan(i * recordSize), isLastRecord: false);
        }

        single.EncryptRecord(data.AsSpan(0, 1), expected.AsSpan(7 * recordSize), isLastRecord: true);

        byte[] actual = new byte[recordSize * 8];
        Assert.That(batch.EncryptRecords(data.AsMemory(0, maxData * 3), actual, threads), Is.EqualTo(3 * recordSize));
        Assert.That(batch.EncryptRecords(ReadOnlyMemory<byte>.Empty, actual.AsMemory(3 * recordSize), threads), Is.Zero);
        Assert.That(batch.EncryptRecords(data.AsMemory(maxData * 3), actual.AsMemory(3 * recordSize), threads), Is.EqualTo(4 * recordSize));
        Assert.That(batch.RecordCount, Is.EqualTo(7));
        batch.EncryptRecord(data.AsSpan(0, 1), actual.AsSpan(7 * recordSize), isLastRecord: true);
        Assert.That(actual.AsSpan(0, (7 * recordSize) + 18).SequenceEqual(expected.AsSpan(0, (7 * recordSize) + 18)), Is.True);
        Assert.Throws<InvalidOperationException>(() => batch.EncryptRecords(data.AsMemory(0, maxData), actual, threads));
    }

    [TestCaseSource(nameof(Cases))]
    public void DecryptRecordsOpensWhatEncryptRecordSealed(ContentCoding coding, int recordSize, int threads)
    {
        // Padded records, so that data lengths differ, then a short last record.
        (byte[] body, ContentEncodingHeader header, List<byte[]> contents) = Body(coding, recordSize, records: 9, lastIsFull: false);
        using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
        int stride = recordSize - 16;
        byte[] plaintexts = new byte[8 * stride];
        int[] lengths = new int[8];
        ReadOnlyMemory<byte> records = body.AsMemory(header.Length);

        Assert.That(decryptor.DecryptRecords(records[..(5 * recordSize)], plaintexts, lengths, threads), Is.EqualTo(5));
        Assert.That(decryptor.DecryptRecords(records.Slice(5 * recordSize, 3 * recordSize), plaintexts.AsMemory(5 * stride), lengths.AsSpan(5), threads), Is.EqualTo(3));
        for (int i = 0; i < 8; i++)
        {
            Assert.That(lengths[i], Is.EqualTo(contents[i].Length), $"record {i}");
            Assert.That(plaintexts.AsSpan(i * stride, lengths[i]).SequenceEqual(contents[i]), Is.True, $"record {i}");
            Assert.That(plaintexts.AsSpan((i * stride) + lengths[i], stride - lengths[i]).ContainsAnyExcept((byte)0), Is.False, $"record {i} padding");
        }

        Assert.That(decryptor.IsComplete, Is.False);
        byte[] last = new byte[recordSize];
        int lastLength = decryptor.DecryptRecord(records.Span[(8 * recordSize)..], last, out bool isLast);
        Assert.That(isLast, Is.True);
        Assert.That(last.AsSpan(0, lastLength).SequenceEqual(contents[8]), Is.True);
        decryptor.Complete();
    }

    [TestCaseSource(nameof(Cases))]
    public void AFullSizeLastRecordCompletesTheBodyAndNothingMayFollow(ContentCoding coding, int recordSize, int threads)
    {
        (byte[] body, ContentEncodingHeader header, List<byte[]> contents) = Body(coding, recordSize, records: 4, lastIsFull: true);
        ReadOnlyMemory<byte> records = body.AsMemory(header.Length);
        using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
        byte[] plaintexts = new byte[4 * (recordSize - 16)];
        int[] lengths = new int[4];
        Assert.That(decryptor.DecryptRecords(records, plaintexts, lengths, threads), Is.EqualTo(4));
        Assert.That(decryptor.IsComplete, Is.True);
        Assert.That(lengths[3], Is.EqualTo(contents[3].Length));
        decryptor.Complete();

        var after = Assert.Throws<ContentEncodingCorruptedException>(() => decryptor.DecryptRecords(records[..recordSize], plaintexts, lengths, threads));
        Assert.That(after!.RecordIndex, Is.EqualTo(3));
    }

    [TestCaseSource(nameof(Cases))]
    public void ARecordAfterTheLastFailsAndTheRecordsUpToTheLastAreReleased(ContentCoding coding, int recordSize, int threads)
    {
        // Records 0-3 end with a full-size last record; record 3 repeated after it can only be "after the last".
        (byte[] body, ContentEncodingHeader header, List<byte[]> contents) = Body(coding, recordSize, records: 4, lastIsFull: true);
        byte[] records = [.. body.AsSpan(header.Length), .. body.AsSpan(header.Length + (3 * recordSize), recordSize)];
        using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
        int stride = recordSize - 16;
        byte[] plaintexts = new byte[5 * stride];
        int[] lengths = new int[5];
        var error = Assert.Throws<ContentEncodingCorruptedException>(() => decryptor.DecryptRecords(records, plaintexts, lengths, threads));
        Assert.That(error!.RecordIndex, Is.EqualTo(3));
        Assert.That(error.Message, Does.Contain("after record 3"));
        Assert.That(decryptor.RecordCount, Is.EqualTo(4));
        Assert.That(decryptor.IsComplete, Is.True);
        for (int i = 0; i < 4; i++)
        {
            Assert.That(plaintexts.AsSpan(i * stride, lengths[i]).SequenceEqual(contents[i]), Is.True, $"record {i}");
        }

        Assert.That(plaintexts.AsSpan(4 * stride).ContainsAnyExcept((byte)0), Is.False);
    }

    [TestCaseSource(nameof(Cases))]
    public void TheFirstBadRecordIsReportedAndNothingFromItOnIsReleased(ContentCoding coding, int recordSize, int threads)
    {
        foreach (int bad in new[] { 0, 3, 7 })
        {
            (byte[] body, ContentEncodingHeader header, List<byte[]> contents) = Body(coding, recordSize, records: 9, lastIsFull: false);
            int stride = recordSize - 16;
            body[header.Length + (bad * recordSize) + (recordSize / 2)] ^= 0x20;
            if (bad < 6)
            {
                body[header.Length + ((bad + 2) * recordSize)] ^= 1; // a later failure must not win
            }

            using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
            byte[] plaintexts = new byte[8 * stride];
            plaintexts.AsSpan().Fill(0x55);
            int[] lengths = new int[8];
            var error = Assert.Throws<ContentEncodingCorruptedException>(() => decryptor.DecryptRecords(body.AsMemory(header.Length, 8 * recordSize), plaintexts, lengths, threads));
            Assert.That(error!.RecordIndex, Is.EqualTo(bad), $"bad record {bad}");
            Assert.That(error.Message, Does.Contain("authentication"));
            Assert.That(decryptor.RecordCount, Is.EqualTo(bad));
            Assert.That(decryptor.IsComplete, Is.False);
            for (int i = 0; i < bad; i++)
            {
                Assert.That(plaintexts.AsSpan(i * stride, lengths[i]).SequenceEqual(contents[i]), Is.True, $"record {i}");
            }

            Assert.That(plaintexts.AsSpan(bad * stride).ContainsAnyExcept((byte)0), Is.False, "from the bad record on");
        }
    }

    [Test]
    public void BadArgumentsAreRefusedByName()
    {
        using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 100 }, salt: Salt);
        byte[] data = new byte[83 * 2];
        byte[] output = new byte[200];
        Assert.That(Assert.Throws<ArgumentException>(() => encryptor.EncryptRecords(data.AsMemory(1), output))!.ParamName, Is.EqualTo("data"));
        Assert.That(Assert.Throws<ArgumentException>(() => encryptor.EncryptRecords(data, output.AsMemory(1)))!.ParamName, Is.EqualTo("destination"));
        byte[] shared = new byte[400];
        Assert.That(Assert.Throws<ArgumentException>(() => encryptor.EncryptRecords(shared.AsMemory(0, 166), shared.AsMemory(100)))!.ParamName, Is.EqualTo("destination"));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => encryptor.EncryptRecords(data, output, 0))!.ParamName, Is.EqualTo("maxDegreeOfParallelism"));
        Assert.That(encryptor.RecordCount, Is.Zero, "refused calls take no sequence numbers");

        var header = new ContentEncodingHeader(Salt, 100, []);
        using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv });
        byte[] records = new byte[200];
        byte[] plaintexts = new byte[168];
        int[] lengths = new int[2];
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecords(records.AsMemory(1), plaintexts, lengths))!.ParamName, Is.EqualTo("records"));
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecords(records, plaintexts.AsMemory(1), lengths))!.ParamName, Is.EqualTo("destination"));
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecords(records, plaintexts, lengths.AsSpan(1)))!.ParamName, Is.EqualTo("dataLengths"));
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecords(records, records.AsMemory(), lengths))!.ParamName, Is.EqualTo("destination"));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => decryptor.DecryptRecords(records, plaintexts, lengths, 0))!.ParamName, Is.EqualTo("maxDegreeOfParallelism"));
        Assert.That(decryptor.RecordCount, Is.Zero);

        encryptor.Dispose();
        decryptor.Dispose();
        Assert.Throws<ObjectDisposedException>(() => encryptor.EncryptRecords(data, output));
        Assert.Throws<ObjectDisposedException>(() => decryptor.DecryptRecords(records, plaintexts, lengths));
    }

    // A body of `records` records sealed one at a time, with varied padding on every full record
    // before the last; the last is full size (and padded) or short.
    private static (byte[] Body, ContentEncodingHeader Header, List<byte[]> Contents) Body(ContentCoding coding, int recordSize, int records, bool lastIsFull)
    {
        using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: Salt);
        var contents = new List<byte[]>();
        byte[] body = new byte[encryptor.Header.Length + (records * recordSize)];
        int offset = encryptor.Header.WriteTo(body);
        int maxData = encryptor.MaxRecordDataLength;
        for (int i = 0; i < records; i++)
        {
            bool isLast = i == records - 1;
            int padding = i % 3 == 1 ? Math.Min(i, maxData) : 0;
            if (isLast && !lastIsFull)
            {
                padding = 0;
            }

            int length = isLast && !lastIsFull ? maxData / 2 : maxData - padding;
            byte[] content = RandomNumberGenerator.GetBytes(length);
            contents.Add(content);
            offset += encryptor.EncryptRecord(content, body.AsSpan(offset), isLast, padding);
        }

        return (body[..offset], encryptor.Header, contents);
    }
}
