// ContentDecryptingStream when its source misbehaves (issue 17, findings 3 and 4):
//  - a transient IOException or OperationCanceledException from the source, at any read (header,
//    mid-record, the probe for data after a full-size last record), must not turn into a clean
//    end of stream with data missing: a caller that retries gets every byte, or an exception again;
//  - memory held must follow the bytes received, not the record size the header claims.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class StreamFaultTests
{
    // Three full records of 1007 data bytes each: the last record is full-size, so the stream must
    // probe the source for data after it before it may report the end.
    private const int RecordSize = 1024;
    private const int ContentLength = 3 * (RecordSize - 17);
    private static readonly byte[] Ikm = Enumerable.Range(7, 16).Select(i => (byte)i).ToArray();

    public enum Fault
    {
        IOException,
        Canceled,
    }

    public static IEnumerable<TestCaseData> Cases() =>
        from fault in Enum.GetValues<Fault>()
        from readSize in new[] { 100, 4096 }     // in place (small reads) and straight into the caller's buffer
        from chunk in new[] { 300, 1 << 20 }     // the source returns at most this many bytes per read
        from isAsync in new[] { false, true }
        select new TestCaseData(fault, readSize, chunk, isAsync)
            .SetArgDisplayNames(fault.ToString(), $"read{readSize}", $"chunk{chunk}", isAsync ? "async" : "sync");

    private static (byte[] Content, byte[] Body) Sample()
    {
        byte[] content = Enumerable.Range(0, ContentLength).Select(i => (byte)(i * 7 + 3)).ToArray();
        return (content, ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = RecordSize }));
    }

    /// <summary>
    /// The source throws once at its read number <c>failAt</c>, for every read number the body takes;
    /// the caller retries. It must end with the whole content, or with the stream throwing on every
    /// retry; never a clean end of stream short of the content.
    /// </summary>
    [TestCaseSource(nameof(Cases))]
    [CancelAfter(60_000)]
    public async Task ATransientSourceErrorNeverTruncatesSilently(Fault fault, int readSize, int chunk, bool isAsync)
    {
        (byte[] content, byte[] body) = Sample();
        int sourceReads = CountSourceReads(body, chunk, readSize, isAsync);
        Assert.That(sourceReads, Is.GreaterThanOrEqualTo(2), "the body takes several source reads: at least the header with the records, and the end");
        var failures = new List<string>();
        for (int failAt = 0; failAt < sourceReads; failAt++)
        {
            var source = new FlakySource(body, chunk, failAt, cancels: fault == Fault.Canceled);
            using var stream = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm });
            var received = new List<byte>();
            byte[] buffer = new byte[readSize];
            int faults = 0;
            while (true)
            {
                int read;
                try
                {
                    read = isAsync ? await stream.ReadAsync(buffer) : stream.Read(buffer);
                }
                catch (Exception exception) when (exception is IOException or OperationCanceledException)
                {
                    if (++faults > 3)
                    {
                        break;   // throwing on every retry is allowed
                    }

                    continue;
                }

                if (read == 0)
                {
                    if (received.Count != content.Length || !received.SequenceEqual(content))
                    {
                        failures.Add($"fault at source read {failAt}: clean end of stream after {received.Count} of {content.Length} bytes");
                    }

                    break;
                }

                received.AddRange(buffer.AsSpan(0, read).ToArray());
            }
        }

        Assert.That(failures, Is.Empty, string.Join(Environment.NewLine, failures));
    }

    /// <summary>
    /// A header that announces a 16 MiB record followed by one byte, then a stall: 20 such streams
    /// must not hold 20 times 16 MiB. Memory follows the bytes received.
    /// </summary>
    [Test]
    [CancelAfter(60_000)]
    public async Task AStalledBodyHoldsMemoryForTheBytesReceivedNotTheRecordSize()
    {
        const int Streams = 20;
        byte[] prefix = new byte[ContentEncodingHeader.FixedLength + 1];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(prefix.AsSpan(16), (uint)ContentEncryption.MaxRecordSize);
        var stalled = new List<(ContentDecryptingStream Stream, Task<int> Read, StallingSource Source)>();
        long before = GC.GetTotalMemory(forceFullCollection: true);
        for (int i = 0; i < Streams; i++)
        {
            var source = new StallingSource(prefix);
            var stream = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm });
            Task<int> read = stream.ReadAsync(new byte[4096]).AsTask();
            await source.Stalled.WaitAsync(TimeSpan.FromSeconds(30));
            stalled.Add((stream, read, source));
        }

        long held = GC.GetTotalMemory(forceFullCollection: true) - before;
        TestContext.Out.WriteLine($"{Streams} stalled streams (header says rs = 16 MiB, 1 byte of record received) hold {held / 1024} KiB");
        foreach (var (stream, read, source) in stalled)
        {
            source.Release();
            await Assert.CatchAsync<OperationCanceledException>(async () => await read);
            stream.Dispose();
        }

        Assert.That(held, Is.LessThan(Streams * 256L * 1024), "memory held per stalled stream is bounded by what arrived, not by rs");
    }

    /// <summary>Bodies with large records still decode when the data arrives in small pieces (the record buffer grows).</summary>
    [TestCase(65536, 1000, false)]
    [TestCase(65536, 1000, true)]
    [TestCase(1 << 20, 65536, false)]
    [TestCase(ContentEncryption.MaxRecordSize, 1 << 20, true)]
    public async Task LargeRecordsDecodeFromSmallSourceReads(int recordSize, int chunk, bool isAsync)
    {
        byte[] content = Enumerable.Range(0, 3 * recordSize + 12345).Select(i => (byte)(i * 13)).ToArray();
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize });
        using var stream = new ContentDecryptingStream(new FlakySource(body, chunk), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv });
        byte[] decoded = isAsync ? await Decoders.ReadAllAsync(stream, 50000) : Decoders.ReadAll(stream, 50000);
        Assert.That(decoded.SequenceEqual(content), Is.True);
    }

    /// <summary>
    /// A seekable source says how many bytes it holds, so a large record's buffer is taken in one step
    /// (no doubling copies, no 8 MiB of garbage beside a 16 MiB record), and never larger than what the
    /// source holds: a truncated body announcing 16 MiB records gets a buffer for the bytes it has.
    /// </summary>
    [Test]
    public void ASeekableSourceSizesTheRecordBufferByTheBytesItHolds()
    {
        const int RecordSizeForTest = 4 << 20;
        byte[] content = Enumerable.Range(0, (6 << 20) + 7).Select(i => (byte)(i * 7)).ToArray();
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = RecordSizeForTest });
        using (var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }))
        {
            byte[] first = new byte[10];
            long allocated = GC.GetAllocatedBytesForCurrentThread();
            Assert.That(decrypting.Read(first), Is.EqualTo(10));
            allocated = GC.GetAllocatedBytesForCurrentThread() - allocated;
            Assert.That(RecordBuffer(decrypting), Has.Length.EqualTo(RecordSizeForTest + 1), "one buffer of the record size and the byte after it");
            Assert.That(allocated, Is.LessThan(RecordSizeForTest + (1 << 20)), "taken at once: not 2 MiB, then 4 MiB, after the pooled sizes");
            Assert.That(first.Concat(Decoders.ReadAll(decrypting, 1 << 20)).SequenceEqual(content), Is.True);
        }

        byte[] truncated = body.AsSpan(0, ContentEncodingHeader.FixedLength + 100_000).ToArray();
        using (var decrypting = new ContentDecryptingStream(new MemoryStream(truncated), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }))
        {
            Assert.That(() => decrypting.Read(new byte[10]), Throws.InstanceOf<ContentEncodingException>(), "a short last piece: it fails as a record");
            Assert.That(RecordBuffer(decrypting).Length, Is.LessThanOrEqualTo((128 * 1024) + 16), "no larger than the 100,000 bytes the source held, rounded up to a power of two (and the pool's 16 bytes of slack)");
        }
    }

    /// <summary>
    /// The record buffers hold plaintext; a compacting garbage collection must not move them (and so
    /// leave an unwiped copy behind). Garbage is allocated around them first so that compaction has
    /// something to close up, then the heap is compacted twice; their addresses must not change.
    /// </summary>
    [Test]
    public void TheStreamsRecordBuffersDoNotMoveInACompactingCollection()
    {
        const int RecordSizeForTest = 5000;   // an odd size, so the buffer is likely fresh
        byte[] content = new byte[3 * RecordSizeForTest];
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = RecordSizeForTest });
        var garbage = new List<byte[]>();
        for (int i = 0; i < 1000; i++)
        {
            garbage.Add(new byte[512]);
        }

        using var encrypting = new ContentEncryptingStream(Stream.Null, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = RecordSizeForTest });
        using var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm });
        Assert.That(decrypting.Read(new byte[10]), Is.EqualTo(10));
        for (int i = 0; i < 1000; i++)
        {
            garbage.Add(new byte[512]);
        }

        byte[] encryptBuffer = RecordBuffer(encrypting);
        byte[] decryptBuffer = RecordBuffer(decrypting);
        nint[] before = [Address(encryptBuffer), Address(decryptBuffer)];
        garbage.Clear();
        for (int i = 0; i < 2; i++)
        {
            System.Runtime.GCSettings.LargeObjectHeapCompactionMode = System.Runtime.GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        }

        nint[] after = [Address(encryptBuffer), Address(decryptBuffer)];
        TestContext.Out.WriteLine($"encrypting stream's buffer {before[0]:x} -> {after[0]:x}, decrypting stream's {before[1]:x} -> {after[1]:x}");
        Assert.That(after, Is.EqualTo(before), "the record buffers did not move");
        GC.KeepAlive(encryptBuffer);
        GC.KeepAlive(decryptBuffer);
    }

    private static byte[] RecordBuffer(Stream stream) =>
        (stream is ContentEncryptingStream encrypting ? Internals.Record(encrypting) : Internals.Record((ContentDecryptingStream)stream))!;

    private static nint Address(byte[] array) => System.Runtime.InteropServices.Marshal.UnsafeAddrOfPinnedArrayElement(array, 0);

    private static int CountSourceReads(byte[] body, int chunk, int readSize, bool isAsync)
    {
        var source = new FlakySource(body, chunk);
        using var stream = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm });
        _ = isAsync ? Decoders.ReadAllAsync(stream, readSize).GetAwaiter().GetResult() : Decoders.ReadAll(stream, readSize);
        return source.Reads;
    }

    /// <summary>Hands out its prefix, then never completes a read until released (then it is cancelled).</summary>
    private sealed class StallingSource(byte[] prefix) : SourceStreamBase
    {
        private readonly TaskCompletionSource _stalled = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly CancellationTokenSource _release = new();
        private int _position;

        public Task Stalled => _stalled.Task;

        public void Release() => _release.Cancel();

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (_position < prefix.Length)
            {
                int count = Math.Min(buffer.Length, prefix.Length - _position);
                prefix.AsMemory(_position, count).CopyTo(buffer);
                _position += count;
                return count;
            }

            _stalled.TrySetResult();
            await Task.Delay(Timeout.Infinite, _release.Token);
            return 0;
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                _release.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
