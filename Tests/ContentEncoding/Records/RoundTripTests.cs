// Round trips across record-size boundaries for both codings: the one-shot calls, the encrypting
// stream (sync and async, small and large writes) against every decoding path, lengths as
// predicted, and the codings kept apart by their key schedules.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class RoundTripTests
{
    private static readonly byte[] Ikm = Enumerable.Range(0, 16).Select(i => (byte)(i * 7)).ToArray();

    public static IEnumerable<TestCaseData> Cases()
    {
        foreach (ContentCoding coding in Enum.GetValues<ContentCoding>())
        {
            foreach (int recordSize in new[] { 18, 19, 25, 100, 4096 })
            {
                int data = recordSize - 17;
                var lengths = new SortedSet<int> { 0, 1, 2 };
                for (int k = 1; k <= 3; k++)
                {
                    lengths.UnionWith([k * data - 1, k * data, k * data + 1]);
                }

                foreach (int length in lengths.Where(l => l >= 0))
                {
                    yield return new TestCaseData(coding, recordSize, length).SetArgDisplayNames(coding.ToString(), $"rs={recordSize}", $"len={length}");
                }
            }
        }
    }

    private static byte[] Content(int length, int seed)
    {
        var random = new Random(seed);
        byte[] content = new byte[length];
        random.NextBytes(content);
        return content;
    }

    [TestCaseSource(nameof(Cases))]
    public void OneShotRoundTripsThroughEveryDecoder(ContentCoding coding, int recordSize, int length)
    {
        byte[] content = Content(length, seed: length * 31 + recordSize);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize, KeyId = ("kid"u8).ToArray() });
        Assert.That(body.LongLength, Is.EqualTo(ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = recordSize, KeyId = new byte[3] })));
        int records = Math.Max(1, (length + recordSize - 18) / (recordSize - 17));
        Assert.That(body.Length - 24, Is.EqualTo(length + 17 * records), "one record per rs - 17 bytes, at least one");
        foreach (DecodePath path in Decoders.All)
        {
            Assert.That(Decoders.Decode(path, body, Ikm, coding), Is.EqualTo(content), path.ToString);
        }
    }

    [TestCaseSource(nameof(Cases))]
    public async Task EncryptingStreamMatchesTheOneShotEncoding(ContentCoding coding, int recordSize, int length)
    {
        byte[] content = Content(length, seed: length);
        byte[] salt = Content(16, seed: 99);
        byte[] expected = new byte[ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = recordSize })];
        ContentEncryption.Encrypt(content, Ikm, expected, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: salt);

        foreach (int writeSize in new[] { 1, 5, recordSize - 17, 1 << 16 })
        {
            var output = new MemoryStream();
            using (var stream = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: salt, leaveOpen: true))
            {
                for (int offset = 0; offset < length; offset += writeSize)
                {
                    stream.Write(content, offset, Math.Min(writeSize, length - offset));
                }

                stream.FlushFinalBlock();
            }

            Assert.That(output.ToArray(), Is.EqualTo(expected), $"sync writes of {writeSize}");

            var asyncOutput = new MemoryStream();
            await using (var stream = new ContentEncryptingStream(asyncOutput, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: salt, leaveOpen: true))
            {
                for (int offset = 0; offset < length; offset += writeSize)
                {
                    await stream.WriteAsync(content.AsMemory(offset, Math.Min(writeSize, length - offset)));
                }

                await stream.FlushFinalBlockAsync();
            }

            Assert.That(asyncOutput.ToArray(), Is.EqualTo(expected), $"async writes of {writeSize}");
        }
    }

    [Test]
    public void LargeBodyRoundTripsWithTheDefaultRecordSize([Values] ContentCoding coding)
    {
        byte[] content = Content(3 * ContentEncryption.DefaultRecordSize + 12345, seed: 5);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding });
        Assert.That(ContentEncodingHeader.Parse(body).RecordSize, Is.EqualTo(ContentEncryption.DefaultRecordSize));
        foreach (DecodePath path in Decoders.All)
        {
            Assert.That(Decoders.Decode(path, body, Ikm, coding), Is.EqualTo(content), path.ToString);
        }
    }

    [Test]
    public void EachBodyGetsAFreshSalt()
    {
        byte[] first = ContentEncryption.Encrypt("same"u8, Ikm);
        byte[] second = ContentEncryption.Encrypt("same"u8, Ikm);
        Assert.That(first.AsSpan(0, 16).SequenceEqual(second.AsSpan(0, 16)), Is.False);
    }

    [Test]
    public void TheCodingsDeriveDifferentKeysAndRejectEachOther()
    {
        byte[] salt = new byte[16];
        byte[] gcm = new byte[ContentEncryption.GetEncryptedLength(10, new ContentEncodingOptions { RecordSize = 4096 })];
        byte[] siv = new byte[gcm.Length];
        ContentEncryption.Encrypt(new byte[10], Ikm, gcm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 4096 }, salt: salt);
        ContentEncryption.Encrypt(new byte[10], Ikm, siv, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096 }, salt: salt);
        Assert.That(gcm.AsSpan(21).SequenceEqual(siv.AsSpan(21)), Is.False);
        var error = Assert.Throws<ContentEncodingCorruptedException>(() => ContentEncryption.Decrypt(gcm, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }));
        Assert.That(error!.RecordIndex, Is.Zero);
        Assert.Throws<ContentEncodingCorruptedException>(() => ContentEncryption.Decrypt(siv, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm }));

        byte[] gcmKey = new byte[32], gcmNonce = new byte[12], sivKey = new byte[32], sivNonce = new byte[12];
        Cryptography.Internal.RecordCipher.DeriveKeys(ContentCoding.Aes128Gcm, Ikm, salt, gcmKey, gcmNonce);
        Cryptography.Internal.RecordCipher.DeriveKeys(ContentCoding.Aes256GcmSiv, Ikm, salt, sivKey, sivNonce);
        Assert.That(gcmKey.AsSpan(0, 16).SequenceEqual(sivKey.AsSpan(0, 16)) || gcmNonce.AsSpan().SequenceEqual(sivNonce), Is.False);
    }

    [Test]
    public void NamesMapToCodings()
    {
        Assert.Multiple(() =>
        {
            Assert.That(ContentEncryption.GetName(ContentCoding.Aes128Gcm), Is.EqualTo("aes128gcm"));
            Assert.That(ContentEncryption.GetName(ContentCoding.Aes256GcmSiv), Is.EqualTo("aes256gcmsiv"));
            Assert.That(ContentEncryption.TryGetCoding("AES128GCM", out ContentCoding gcm) && gcm == ContentCoding.Aes128Gcm, Is.True);
            Assert.That(ContentEncryption.TryGetCoding("aes256gcmsiv", out ContentCoding siv) && siv == ContentCoding.Aes256GcmSiv, Is.True);
            Assert.That(ContentEncryption.TryGetCoding("gzip", out _), Is.False);
            Assert.That(ContentEncryption.TryGetCoding(null, out _), Is.False);
            Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.GetName((ContentCoding)7));
        });
    }

    [Test]
    public void ArgumentsAreValidated()
    {
        Assert.Multiple(() =>
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.Encrypt([1], Ikm, new ContentEncodingOptions { RecordSize = 17 }));
            Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.Encrypt([1], Ikm, new ContentEncodingOptions { RecordSize = ContentEncryption.MaxRecordSize + 1 }));
            Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt([1], ReadOnlySpan<byte>.Empty));
            Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt([1], Ikm, new ContentEncodingOptions { KeyId = new byte[256] }));
            Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt([1], Ikm, new byte[100], salt: new byte[15]));
            Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt(new byte[10], Ikm, new byte[20]));
            Assert.Throws<ArgumentOutOfRangeException>(() => new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = (ContentCoding)2 }));

            using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { RecordSize = 20 });
            byte[] record = new byte[20];
            Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(new byte[2], record, isLastRecord: false), "a non-last record must fill rs");
            Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(new byte[4], record, isLastRecord: true), "a record cannot exceed rs");
            Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(record.AsSpan(1, 2), record, isLastRecord: true), "partial overlap");
            Assert.That(encryptor.EncryptRecord(record.AsSpan(0, 3), record, isLastRecord: true), Is.EqualTo(20), "exactly in place is allowed");
            Assert.Throws<InvalidOperationException>(() => encryptor.EncryptRecord([], record, isLastRecord: true), "nothing after the last record");
        });
    }

    [Test]
    public void EncryptingStreamAbortLeavesABodyTheReceiverRejectsAsTruncated()
    {
        var output = new MemoryStream();
        var stream = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { RecordSize = 20 }, leaveOpen: true);
        stream.Write(new byte[10]);
        stream.Abort();
        Assert.That(stream.CanWrite, Is.False);
        Assert.Throws<ContentEncodingTruncatedException>(() => ContentEncryption.Decrypt(output.ToArray(), Ikm));
    }

    [Test]
    public void EncryptingStreamRefusesWritesAfterTheLastRecord()
    {
        var output = new MemoryStream();
        using var stream = new ContentEncryptingStream(output, Ikm, leaveOpen: true);
        stream.Write([1, 2, 3]);
        stream.FlushFinalBlock();
        stream.FlushFinalBlock();
        Assert.Throws<InvalidOperationException>(() => stream.WriteByte(4));
        Assert.That(ContentEncryption.Decrypt(output.ToArray(), Ikm), Is.EqualTo(new byte[] { 1, 2, 3 }));
    }

    [Test]
    public void StreamsAllocateNothingPerRecord([Values(1000, 4096)] int recordSize)
    {
        // Allocations for 1 MiB and for 16 MiB through the same pair of streams differ by the
        // per-record allocations times 15 MiB / rs records (16,000 or 3,840): there must be none. Both
        // sizes run the record pipeline (past 1 MiB), whose fixed cost per stream is a few objects
        // (its batch buffers come from the pinned pool) and whose waits between batches may allocate
        // a task when the other side is not ready: measured about 500 bytes per 512 KiB batch (30
        // batches), never per record. The bound, 48 KiB, is below what the smallest object (24 bytes)
        // per record would add at either record size (384 KB or 92 KB). Counted over all threads: the pipeline seals
        // and opens on the thread pool. The fixture runs alone (the suite does not run tests in parallel).
        byte[] chunk = Content(1 << 16, seed: 3);
        long Allocated(int megabytes)
        {
            var sink = new MemoryStream(megabytes * (1 << 20) + (1 << 20));
            long before = GC.GetTotalAllocatedBytes(precise: true);
            using (var encrypting = new ContentEncryptingStream(sink, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = recordSize }, leaveOpen: true))
            {
                for (int i = 0; i < megabytes * 16; i++)
                {
                    encrypting.Write(chunk);
                }

                encrypting.FlushFinalBlock();
            }

            sink.Position = 0;
            using (var decrypting = new ContentDecryptingStream(sink, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm }, leaveOpen: true))
            {
                byte[] buffer = chunk;
                while (decrypting.Read(buffer) > 0)
                {
                }
            }

            return GC.GetTotalAllocatedBytes(precise: true) - before;
        }

        // Occasional one-off allocations (tiered JIT, the pool's first use of a size) come and go, so
        // each size takes the least of a few runs.
        long small = Enumerable.Range(0, 4).Min(_ => Allocated(1));
        long large = Enumerable.Range(0, 4).Min(_ => Allocated(16));
        Assert.That(large - small, Is.LessThan(48 * 1024), $"1 MiB: {small} bytes allocated; 16 MiB: {large}");
        Assert.That(small, Is.LessThan(32 * 1024), "per pair of streams");
        TestContext.Out.WriteLine($"rs {recordSize}: 1 MiB: {small} bytes allocated; 16 MiB: {large}");
    }
}
