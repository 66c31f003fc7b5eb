// The streams' parallel path, opted into with MaxDegreeOfParallelism > 1: bodies past the first 1 MiB
// are sealed and opened in batches of records on several threads, while a background task writes the
// batch before or reads the next. The same promises as the one-record path: round trips
// at every batch alignment, sync and async, any parallelism; a failing record releases exactly the
// records before it; a full-size last record followed by data is never released; truncation is
// reported after the data before it; a source fault loses nothing; a destination fault surfaces;
// Abort leaves a body every decoder rejects. The fault and truncation tests run under both codings:
// the pipeline is the same for both, and the Mono leg (netstandard2.0) has aes256gcmsiv only.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class ParallelStreamTests
{
    private static readonly byte[] Ikm = Enumerable.Range(3, 32).Select(i => (byte)(i * 5)).ToArray();

    private static byte[] Content(int length, int seed)
    {
        var random = new Random(seed);
        byte[] content = new byte[length];
        random.NextBytes(content);
        return content;
    }

    private static byte[] Seal(byte[] content, ContentCoding coding, int recordSize, int threads, bool isAsync, int writeSize)
    {
        var output = new MemoryStream();
        using (var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize, MaxDegreeOfParallelism = threads }, leaveOpen: true))
        {
            for (int offset = 0; offset < content.Length; offset += writeSize)
            {
                int count = Math.Min(writeSize, content.Length - offset);
                if (isAsync)
                {
                    encrypting.WriteAsync(content, offset, count).GetAwaiter().GetResult();
                }
                else
                {
                    encrypting.Write(content, offset, count);
                }
            }

            if (isAsync)
            {
                encrypting.FlushFinalBlockAsync().AsTask().GetAwaiter().GetResult();
            }
            else
            {
                encrypting.FlushFinalBlock();
            }
        }

        return output.ToArray();
    }

    // NUnit's Is.EqualTo compares arrays element by element through object equality, which for
    // these multi-megabyte bodies dominated the fixture's time (many minutes under qemu-user).
    private static void AssertBytes(ReadOnlySpan<byte> actual, ReadOnlySpan<byte> expected, string what)
    {
        if (!actual.SequenceEqual(expected))
        {
            Assert.Fail($"{what}: {actual.Length} bytes where {expected.Length} were expected; they first differ at byte {actual.CommonPrefixLength(expected)}");
        }
    }

    // Reads everything, keeping what arrived before an exception; returns the exception, if any.
    private static Exception? Open(Stream source, ContentCoding coding, int threads, bool isAsync, int readSize, List<byte> received)
    {
        using var decrypting = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = coding, MaxDegreeOfParallelism = threads });
        byte[] buffer = new byte[readSize];
        try
        {
            int read;
            while ((read = isAsync ? decrypting.ReadAsync(buffer).AsTask().GetAwaiter().GetResult() : decrypting.Read(buffer)) > 0)
            {
                received.AddRange(buffer.AsSpan(0, read).ToArray());
            }

            return null;
        }
        catch (Exception exception)
        {
            // A failure of the body stays: the next read throws it again.
            if (exception is ContentEncodingException)
            {
                Assert.That(() => decrypting.Read(buffer), Throws.InstanceOf(exception.GetType()));
            }

            return exception;
        }
    }

    public static IEnumerable<TestCaseData> RoundTripCases()
    {
        foreach (ContentCoding coding in Enum.GetValues<ContentCoding>())
        {
            foreach (int recordSize in new[] { 1000, 65536, 1 << 19, (1 << 19) + 1 })
            {
                int data = recordSize - 17;
                foreach (int length in new[] { (1 << 19) - 1, 1 << 20, (3 << 20) + 7, 12 * data, 13 * data + 1 })
                {
                    if (length > 8 << 20)
                    {
                        continue;
                    }

                    foreach (bool isAsync in new[] { false, true })
                    {
                        yield return new TestCaseData(coding, recordSize, length, isAsync ? 2 : 3, isAsync)
                            .SetArgDisplayNames(coding.ToString(), $"rs={recordSize}", $"len={length}", isAsync ? "async" : "sync");
                    }
                }
            }
        }
    }

    [TestCaseSource(nameof(RoundTripCases))]
    public void RoundTripsAtEveryAlignment(ContentCoding coding, int recordSize, int length, int threads, bool isAsync)
    {
        byte[] content = Content(length, length);
        byte[] body = Seal(content, coding, recordSize, threads, isAsync, writeSize: 100_000);
        Assert.That(body, Has.Length.EqualTo(ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = recordSize })));
        AssertBytes(ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = coding }), content, "the one-shot decoder reads the stream's body");

        var received = new List<byte>();
        Assert.That(Open(new MemoryStream(body), coding, threads, isAsync, readSize: 77_777, received), Is.Null);
        AssertBytes(CollectionsMarshal.AsSpan(received), content, "read");

        var copied = new MemoryStream();
        using (var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = coding, MaxDegreeOfParallelism = 2 }))
        {
            decrypting.CopyTo(copied);
        }

        AssertBytes(copied.ToArray(), content, "CopyTo");
    }

    /// <summary>A bad record anywhere in the body (early records go one at a time, later ones in
    /// batches): exactly the records before it come out, then the failure, naming it.</summary>
    [Test]
    public void ACorruptedRecordReleasesExactlyTheRecordsBeforeIt([Values(0, 5, 8, 9, 17, 30, 47)] int bad, [Values(false, true)] bool isAsync)
    {
        const int RecordSize = 65536;
        const int Data = RecordSize - 17;
        byte[] content = Content(48 * Data, bad);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSize });
        int header = ContentEncodingHeader.FixedLength;
        body[header + (bad * RecordSize) + 100] ^= 1;

        var received = new List<byte>();
        Exception? failure = Open(new MemoryStream(body), ContentCoding.Aes256GcmSiv, 2, isAsync, 100_000, received);
        Assert.That(failure, Is.InstanceOf<ContentEncodingCorruptedException>());
        Assert.That(((ContentEncodingException)failure!).RecordIndex, Is.EqualTo(bad));
        AssertBytes(CollectionsMarshal.AsSpan(received), content.AsSpan(0, bad * Data), "read");
    }

    /// <summary>A full-size last record followed by data, at every alignment with the batches: that
    /// record's data never comes out.</summary>
    [Test]
    public void DataAfterAFullSizeLastRecordIsNeverReleased([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Range(16, 26)] int records, [Values(false, true)] bool isAsync)
    {
        const int RecordSize = 65536;
        const int Data = RecordSize - 17;
        byte[] content = Content(records * Data, records);
        byte[] body = [.. ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }), 0x2a];

        var received = new List<byte>();
        Exception? failure = Open(new MemoryStream(body), coding, 2, isAsync, 1 << 20, received);
        Assert.That(failure, Is.InstanceOf<ContentEncodingCorruptedException>());
        Assert.That(((ContentEncodingException)failure!).RecordIndex, Is.EqualTo(records - 1));
        AssertBytes(CollectionsMarshal.AsSpan(received), content.AsSpan(0, (records - 1) * Data), "read");
    }

    /// <summary>A body cut at a record boundary, at every alignment: all data before the cut, then truncation.</summary>
    [Test]
    public void ABodyCutAtARecordBoundaryIsTruncated([Range(16, 26)] int kept, [Values(false, true)] bool isAsync)
    {
        const int RecordSize = 65536;
        const int Data = RecordSize - 17;
        byte[] content = Content(30 * Data, kept);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSize });
        body = body[..(ContentEncodingHeader.FixedLength + (kept * RecordSize))];

        var received = new List<byte>();
        Exception? failure = Open(new MemoryStream(body), ContentCoding.Aes256GcmSiv, 2, isAsync, 50_000, received);
        Assert.That(failure, Is.InstanceOf<ContentEncodingTruncatedException>());
        AssertBytes(CollectionsMarshal.AsSpan(received), content.AsSpan(0, kept * Data), "read");
    }

    /// <summary>The source throws once, at any of its reads; the caller retries and gets everything.</summary>
    [Test]
    public void ASourceFaultInTheBackgroundLosesNothing([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Values(3, 10, 20, 33, 40, 41)] int failAt, [Values(false, true)] bool isAsync)
    {
        const int RecordSize = 4096;
        byte[] content = Content(3 << 20, failAt);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize });
        var source = new FlakySource(body, chunk: 100_000, failAt);
        using var decrypting = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = coding, MaxDegreeOfParallelism = 2 });
        var received = new List<byte>();
        int faults = ReadRetrying(decrypting, isAsync, received);
        Assert.That(faults, Is.EqualTo(failAt < source.Reads ? 1 : 0));
        AssertBytes(CollectionsMarshal.AsSpan(received), content, "read");
    }

    /// <summary>The source throws once where the body must show its end, right after a full-size last
    /// record, at every alignment with the batches (the pipeline then asks the source whether it ends
    /// there before it releases that record); the caller retries and gets everything, then the end.</summary>
    [Test]
    public void ASourceFaultWhereTheEndMustShowLosesNothing([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Range(16, 26)] int records, [Values(false, true)] bool isAsync)
    {
        const int RecordSize = 65536;
        const int Data = RecordSize - 17;
        byte[] content = Content(records * Data, records);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize });
        var source = new FlakySource(body, chunk: 1 << 20, failAt: -1, failOnceAtEnd: true);
        using var decrypting = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = coding, MaxDegreeOfParallelism = 2 });
        var received = new List<byte>();
        int faults = ReadRetrying(decrypting, isAsync, received);
        Assert.That(faults, Is.EqualTo(1));
        AssertBytes(CollectionsMarshal.AsSpan(received), content, "read");
    }

    // Reads to the end, retrying after each IOException from the source; returns how many there were.
    private static int ReadRetrying(Stream decrypting, bool isAsync, List<byte> received)
    {
        byte[] buffer = new byte[65536];
        int faults = 0;
        while (true)
        {
            int read;
            try
            {
                read = isAsync ? decrypting.ReadAsync(buffer).AsTask().GetAwaiter().GetResult() : decrypting.Read(buffer);
            }
            catch (IOException)
            {
                faults++;
                continue;
            }

            if (read == 0)
            {
                return faults;
            }

            received.AddRange(buffer.AsSpan(0, read).ToArray());
        }
    }

    /// <summary>A destination that fails while the background stage writes: the error reaches the caller.
    /// Early, the fault stops the writes; in the body's last bytes, after every batch has been handed
    /// over, only the final flush can report it, and must.</summary>
    [Test]
    public void ADestinationFaultSurfaces([Values(false, true)] bool isAsync, [Values(false, true)] bool inTheLastWrite)
    {
        long length = ContentEncryption.GetEncryptedLength(256L << 16, new ContentEncodingOptions { RecordSize = 4096 });
        var destination = new FailingDestination(failAfter: inTheLastWrite ? length - 1 : 2 << 20);
        var encrypting = new ContentEncryptingStream(destination, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = 2 });
        byte[] chunk = Content(1 << 16, 1);
        Assert.That(() =>
        {
            for (int i = 0; i < 256; i++)
            {
                if (isAsync)
                {
                    encrypting.WriteAsync(chunk).AsTask().GetAwaiter().GetResult();
                }
                else
                {
                    encrypting.Write(chunk);
                }
            }

            if (isAsync)
            {
                encrypting.FlushFinalBlockAsync().AsTask().GetAwaiter().GetResult();
            }
            else
            {
                encrypting.FlushFinalBlock();
            }
        }, Throws.InstanceOf<IOException>().With.Message.EqualTo("disk full"));
        Assert.That(destination.Length, Is.LessThan(length));
        encrypting.Abort();
    }

    /// <summary>Abort in the middle of a large body: no last record, so the body is rejected as truncated.</summary>
    [Test]
    public void AbortLeavesATruncatedBody([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding)
    {
        var output = new MemoryStream();
        var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = 4096, MaxDegreeOfParallelism = 2 }, leaveOpen: true);
        byte[] content = Content(3 << 20, 2);
        encrypting.Write(content);
        encrypting.Abort();
        Assert.That(() => ContentEncryption.Decrypt(output.ToArray(), Ikm, new ContentEncodingOptions { Coding = coding }), Throws.InstanceOf<ContentEncodingTruncatedException>());
    }

    /// <summary>Cancelled reads in the pipelined part lose nothing.</summary>
    [Test]
    public async Task ACancelledReadLosesNothing([Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding)
    {
        byte[] content = Content(3 << 20, 3);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = 4096 });
        using var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = coding, MaxDegreeOfParallelism = 2 });
        var received = new List<byte>();
        byte[] buffer = new byte[100_000];
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        int read;
        while ((read = await decrypting.ReadAsync(buffer)) > 0)
        {
            received.AddRange(buffer.AsSpan(0, read).ToArray());
            if (received.Count > 1 << 20)
            {
                // A cancelled read either throws or returns data it already had; nothing is lost.
                try
                {
                    read = await decrypting.ReadAsync(buffer, cancelled.Token);
                    received.AddRange(buffer.AsSpan(0, read).ToArray());
                }
                catch (OperationCanceledException)
                {
                }
            }
        }

        AssertBytes(CollectionsMarshal.AsSpan(received), content, "read");
    }

    /// <summary>The batch buffers go back to the process-wide pool when a stream is disposed, and only
    /// the parts that held plaintext are wiped (a short body touches one or two of them, and a decrypting
    /// batch is not wiped between uses). Whatever the body's length and however the stream ended, no
    /// pooled buffer may hold any of the plaintext afterwards.</summary>
    [Test]
    public void NoPooledBufferHoldsPlaintextAfterAStream(
        [Values(600_000, 1 << 20, 3 << 20)] int length, [Values("sealed", "copied", "opened", "corrupted", "aborted")] string ending, [Values(false, true)] bool isAsync)
    {
        // A run of one byte value: no record of ciphertext or tag comes near repeating it 64 times.
        byte[] content = new byte[length];
        content.AsSpan().Fill(0x5A);
        const int RecordSize = 4096;
        switch (ending)
        {
            case "sealed":
                Seal(content, ContentCoding.Aes256GcmSiv, RecordSize, threads: 2, isAsync, writeSize: 100_000);
                break;
            case "copied":
                using (var encrypting = new ContentEncryptingStream(new MemoryStream(), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSize, MaxDegreeOfParallelism = 2 }))
                {
                    long copied = isAsync ? encrypting.CopyFromAsync(new MemoryStream(content)).AsTask().GetAwaiter().GetResult() : encrypting.CopyFrom(new MemoryStream(content));
                    Assert.That(copied, Is.EqualTo(length));
                }

                break;
            case "opened":
            case "corrupted":
                byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSize });
                if (ending == "corrupted")
                {
                    body[^(RecordSize * 3)] ^= 1;   // a record well inside the pipelined part
                }

                Exception? error = Open(new MemoryStream(body), ContentCoding.Aes256GcmSiv, threads: 2, isAsync, readSize: 100_000, []);
                Assert.That(error, ending == "corrupted" ? Is.InstanceOf<ContentEncodingCorruptedException>() : Is.Null);
                break;
            default:
                using (var encrypting = new ContentEncryptingStream(new MemoryStream(), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSize, MaxDegreeOfParallelism = 2 }))
                {
                    encrypting.Write(content);
                    encrypting.Write(content.AsSpan(0, 1000));   // part of a batch held by the caller
                    encrypting.Abort();
                }

                break;
        }

        var pools = Internals.PinnedBufferPools;
        byte[] run = new byte[64];
        run.AsSpan().Fill(0x5A);
        int buffers = 0;
        foreach (byte[] pooled in pools.SelectMany(pool => pool))
        {
            buffers++;
            Assert.That(pooled.AsSpan().IndexOf(run), Is.EqualTo(-1), $"a pooled buffer of {pooled.Length} bytes holds plaintext");
        }

        Assert.That(buffers, Is.GreaterThan(0), "the streams' buffers went back to the pool");
    }

    private sealed class FailingDestination(long failAfter) : MemoryStreamBase
    {
        public override void Write(ReadOnlySpan<byte> buffer) => Write(buffer.ToArray(), 0, buffer.Length);

        public override void Write(byte[] buffer, int offset, int count)
        {
            if (Length + count > failAfter)
            {
                throw new IOException("disk full");
            }

            base.Write(buffer, offset, count);
        }

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Write(buffer.Span);
            return ValueTask.CompletedTask;
        }
    }
}
