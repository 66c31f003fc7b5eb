// The public contract of ContentEncryptingStream and ContentDecryptingStream where the round trips do not
// reach it: constructor and buffer-argument checks, what the stream says it can do, the synchronous
// CopyTo, and what Dispose releases or leaves open. Mutation testing (docs/testing.md) found each of
// these untested: a build with the line changed passed the rest of the suite.

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
public class StreamContractTests
{
    private static readonly byte[] Ikm = Enumerable.Range(0, 16).Select(i => (byte)(i * 5 + 7)).ToArray();

    private static byte[] Content(int length) => Enumerable.Range(0, length).Select(i => (byte)(i * 31 + (i >> 8))).ToArray();

    [Test]
    public void TheEncryptingStreamChecksItsArguments()
    {
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentEncryptingStream(null!, Ikm))!.ParamName, Is.EqualTo("destination"));
        var readOnly = new MemoryStream(new byte[10], writable: false);
        var notWritable = Assert.Throws<ArgumentException>(() => new ContentEncryptingStream(readOnly, Ikm))!;
        Assert.That(notWritable.ParamName, Is.EqualTo("destination"));
        Assert.That(notWritable.Message, Does.StartWith("The destination stream is not writable."));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentEncryptingStream(new MemoryStream(), Ikm, new ContentEncodingOptions { MaxDegreeOfParallelism = 0 }))!.ParamName, Is.EqualTo("value"));

        using var stream = new ContentEncryptingStream(new MemoryStream(), Ikm);
        Assert.That((stream.CanRead, stream.CanSeek, stream.CanWrite), Is.EqualTo((false, false, true)));
        Assert.Throws<ArgumentNullException>(() => stream.Write(null!, 0, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => stream.Write(new byte[4], 3, 2));
        Assert.That(() => stream.WriteAsync(new byte[4], -1, 2), Throws.TypeOf<ArgumentOutOfRangeException>());
        Assert.That(() => stream.WriteAsync(null!, 0, 0), Throws.TypeOf<ArgumentNullException>());
        var unreadable = Assert.Throws<ArgumentException>(() => stream.CopyFrom(new CopyFromTests.UnreadableStream()))!;
        Assert.That(unreadable.ParamName, Is.EqualTo("source"));
        Assert.That(unreadable.Message, Does.StartWith("The source stream is not readable."));
    }

    [Test]
    public void TheDecryptingStreamChecksItsArguments()
    {
        byte[] body = ContentEncryption.Encrypt(Content(10), Ikm);
        ContentKeyProvider keys = KeyProviders.Always(Ikm);
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptingStream(null!, Ikm))!.ParamName, Is.EqualTo("source"));
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptingStream(null!, keys))!.ParamName, Is.EqualTo("source"));
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptingStream(new MemoryStream(body), (ContentKeyProvider)null!))!.ParamName, Is.EqualTo("keyProvider"));
        Assert.That(Assert.Throws<ArgumentException>(() => new ContentDecryptingStream(new MemoryStream(body), ReadOnlySpan<byte>.Empty))!.ParamName, Is.EqualTo("inputKeyingMaterial"));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = (ContentCoding)9 }))!.ParamName, Is.EqualTo("value"));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentDecryptingStream(new MemoryStream(body), keys, new ContentEncodingOptions { MaxRecordSize = 17 }))!.ParamName, Is.EqualTo("value"), "the options refuse it where it is set");
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { MaxDegreeOfParallelism = 0 }))!.ParamName, Is.EqualTo("value"));

        var unreadable = new CopyFromTests.UnreadableStream();
        var notReadable = Assert.Throws<ArgumentException>(() => new ContentDecryptingStream(unreadable, Ikm))!;
        Assert.That(notReadable.ParamName, Is.EqualTo("source"));
        Assert.That(notReadable.Message, Does.StartWith("The source stream is not readable."));

        using var stream = new ContentDecryptingStream(new MemoryStream(body), Ikm);
        Assert.That((stream.CanRead, stream.CanSeek, stream.CanWrite), Is.EqualTo((true, false, false)));
        Assert.That(stream.RecordCount, Is.Zero);
        Assert.Throws<ArgumentNullException>(() => _ = stream.Read(null!, 0, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _ = stream.Read(new byte[4], 3, 2));
        Assert.That(() => stream.ReadAsync(new byte[4], -1, 2), Throws.TypeOf<ArgumentOutOfRangeException>());
        Assert.That(() => stream.ReadAsync(null!, 0, 0), Throws.TypeOf<ArgumentNullException>());
        Assert.Throws<ArgumentNullException>(() => stream.CopyTo(null!));
        Assert.Throws<ArgumentOutOfRangeException>(() => stream.CopyTo(new MemoryStream(), 0));
        Assert.That(stream.RecordCount, Is.Zero, "a refused call reads nothing");
    }

    [Test]
    public void ReadByteReturnsEachByteThenMinusOne()
    {
        byte[] content = Content(40);
        using var stream = new ContentDecryptingStream(new MemoryStream(ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { RecordSize = 25 })), Ikm);
        byte[] read = new byte[content.Length];
        for (int i = 0; i < read.Length; i++)
        {
            int value = stream.ReadByte();
            Assert.That(value, Is.InRange(0, 255));
            read[i] = (byte)value;
        }

        Assert.That(read, Is.EqualTo(content));
        Assert.That(stream.ReadByte(), Is.EqualTo(-1));
        Assert.That(stream.RecordCount, Is.EqualTo(5), "40 bytes in records of 8");
    }

    // The synchronous CopyTo, a record at a time and (past the pipeline's threshold) batch by batch,
    // with a buffer smaller than a record.
    [TestCase(100, 4096, 1000)]
    [TestCase(3 << 20, 4096, 81920)]
    [TestCase(3 << 20, 65536, 100)]
    public void CopyToWritesTheWholeContent(int length, int recordSize, int bufferSize)
    {
        byte[] content = Content(length);
        using var stream = new ContentDecryptingStream(new MemoryStream(ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize })), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, MaxDegreeOfParallelism = 2 });
        var output = new MemoryStream();
        stream.CopyTo(output, bufferSize);
        Assert.That(output.ToArray(), Is.EqualTo(content));
        Assert.That(stream.Read(new byte[1]), Is.Zero);
    }

    // Parallelism is opt-in (issue 31): by default a stream, like CryptoStream and GZipStream,
    // starts no background task and holds no batch buffers, however large the body.
    [Test]
    public void TheStreamsStartNoBackgroundWorkUnlessAsked([Values(1, 2)] int threads)
    {
        byte[] content = Content(3 << 20);
        var output = new MemoryStream();
        var encrypting = threads == 1
            ? new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096 }, leaveOpen: true)
            : new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = threads }, leaveOpen: true);
        Assert.That(encrypting.MaxDegreeOfParallelism, Is.EqualTo(threads));
        encrypting.Write(content);
        Assert.That(Internals.Spare(encrypting), threads == 1 ? Is.Null : Is.Not.Null);
        encrypting.FlushFinalBlock();
        encrypting.Dispose();

        var decrypting = threads == 1
            ? new ContentDecryptingStream(new MemoryStream(output.ToArray()), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv })
            : new ContentDecryptingStream(new MemoryStream(output.ToArray()), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, MaxDegreeOfParallelism = threads });
        Assert.That(decrypting.MaxDegreeOfParallelism, Is.EqualTo(threads));
        byte[] buffer = new byte[content.Length];
        decrypting.ReadExactly(buffer.AsSpan(0, 2 << 20));
        decrypting.ReadExactly(buffer.AsSpan(2 << 20));
        Assert.That(Internals.Spare(decrypting), threads == 1 ? Is.Null : Is.Not.Null);
        Assert.That(buffer, Is.EqualTo(content));
        decrypting.Dispose();
    }

    // Issue 31, defect 3: CopyToAsync was Stream's own, which copies through a buffer from
    // ArrayPool<byte>.Shared and returns it uncleared, so verified plaintext stayed in the shared pool
    // (and so behind ContentDecryptingHandler). Every buffer the destination is handed must hold
    // nothing once the stream is disposed; the async copy writes the same content as the sync one.
    [TestCase(100, 4096, 1000, 1)]
    [TestCase(3 << 20, 4096, 81920, 2)]
    [TestCase(3 << 20, 65536, 100, 1)]
    public async Task CopyToAsyncWritesTheWholeContentAndLeavesNoPlaintextInItsBuffers(int length, int recordSize, int bufferSize, int threads)
    {
        byte[] content = Content(length);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize });
        var output = new BufferWatchingStream();
        await using (var stream = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, MaxDegreeOfParallelism = threads }))
        {
            await stream.CopyToAsync(output, bufferSize);
            Assert.That(output.ToArray(), Is.EqualTo(content));
            Assert.That(await stream.ReadAsync(new byte[1]), Is.Zero);
        }

        Assert.That(output.Writes, Is.Not.Empty);
        foreach (ArraySegment<byte> written in output.Writes)
        {
            Assert.That(written.All(b => b == 0), Is.True, $"the {written.Count} bytes written from a {written.Array!.Length}-byte buffer are still in it");
        }
    }

    // DisposeAsync was Stream's own, which calls Dispose: with the background reader stuck in a read
    // from a source that sends nothing more, it blocked the calling thread for a second. It gives the
    // read a moment to end without blocking; the source is left open here, so the reader stays stuck,
    // and its buffer goes back to the pool, wiped, once the read ends.
    [Test]
    [CancelAfter(30_000)]
    public async Task DisposeAsyncDoesNotBlockWhileTheBackgroundReaderIsStuck()
    {
        byte[] body = ContentEncryption.Encrypt(Content(4 << 20), Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096 });
        var source = new StallingSource(body.AsSpan(0, 3 << 20).ToArray());
        var stream = new ContentDecryptingStream(source, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, MaxDegreeOfParallelism = 2 }, leaveOpen: true);
        byte[] buffer = new byte[1 << 16];
        // 2.25 MiB in, the caller is in the batch that ends near 2.5 MiB (batches of 128 records
        // start after about 1 MiB), and the read-ahead of the next one needs bytes past the 3 MiB the
        // source sends.
        using var stalled = new System.Threading.CancellationTokenSource(TimeSpan.FromSeconds(20));   // a failure, not a hang
        for (int total = 0; total < (9 << 18);)
        {
            total += await stream.ReadAsync(buffer, stalled.Token);
        }

        ValueTask disposing = stream.DisposeAsync();
        Assert.That(disposing.IsCompleted, Is.False, "DisposeAsync returned only after waiting for the stuck reader");
        await disposing;
        Assert.That(source.Disposed, Is.False, "left open");
        Assert.That(Internals.Spare(stream)!.Buffer, Is.Not.Null, "the stuck read still owns its buffer");
        source.Dispose();
        for (int i = 0; i < 300 && Internals.Spare(stream)!.Buffer is not null; i++)
        {
            await Task.Delay(10);
        }

        Assert.That(Internals.Spare(stream)!.Buffer, Is.Null, "given back once the read ended");
    }

    /// <summary>A source that sends its bytes, then blocks every read until it is disposed.</summary>
    private sealed class StallingSource(byte[] data) : SourceStreamBase
    {
        private readonly System.Threading.ManualResetEventSlim _disposed = new();
        private int _position;

        public bool Disposed => _disposed.IsSet;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override int Read(Span<byte> buffer)
        {
            int read = Math.Min(buffer.Length, data.Length - _position);
            data.AsSpan(_position, read).CopyTo(buffer);
            _position += read;
            if (read == 0)
            {
                _disposed.Wait();
            }

            return read;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, System.Threading.CancellationToken cancellationToken = default) => new(Read(buffer.Span));

        public override void Flush() => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            _disposed.Set();
            base.Dispose(disposing);
        }
    }

    /// <summary>A MemoryStream that remembers where in which array each write took its bytes from.</summary>
    private sealed class BufferWatchingStream : MemoryStreamBase
    {
        public List<ArraySegment<byte>> Writes { get; } = [];

        public override void Write(byte[] buffer, int offset, int count)
        {
            Writes.Add(new(buffer, offset, count));
            base.Write(buffer, offset, count);
        }

        public override void Write(ReadOnlySpan<byte> buffer) => throw new NotSupportedException("spans hide their array");

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, System.Threading.CancellationToken cancellationToken = default)
        {
            Assert.That(System.Runtime.InteropServices.MemoryMarshal.TryGetArray(buffer, out ArraySegment<byte> segment), Is.True);
            Writes.Add(segment);
            return base.WriteAsync(buffer, cancellationToken);
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, System.Threading.CancellationToken cancellationToken)
        {
            Writes.Add(new(buffer, offset, count));
            return base.WriteAsync(buffer, offset, count, cancellationToken);
        }
    }

    // Record 1900 of 8 MiB fails in a batch the pipeline has used before, where the lengths of the
    // records past the failure are left from the earlier use: none of them may count as data.
    [TestCase(100, 0)]
    [TestCase(3 << 20, 380)]
    [TestCase(8 << 20, 1900)]
    public void CopyToStopsAtADamagedRecordAndKeepsFailing(int length, int damaged)
    {
        const int RecordSize = 4096;
        byte[] content = Content(length);
        byte[] body = ContentEncryption.Encrypt(content, Ikm, new ContentEncodingOptions { RecordSize = RecordSize });
        body[21 + damaged * RecordSize + 5] ^= 1;

        using var stream = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { MaxDegreeOfParallelism = 2 });
        var output = new MemoryStream();
        var error = Assert.Throws<ContentEncodingCorruptedException>(() => stream.CopyTo(output))!;
        Assert.That(error.RecordIndex, Is.EqualTo(damaged));
        Assert.That(content.AsSpan(0, (int)output.Length).SequenceEqual(output.ToArray()), Is.True, "what was written verified");
        Assert.That(output.Length, Is.LessThanOrEqualTo(damaged * (RecordSize - 17L)));
        Assert.Throws<ContentEncodingCorruptedException>(() => stream.CopyTo(new MemoryStream()), "a failed stream stays failed");
    }

    [Test]
    public async Task TheEncryptingStreamDisposesTheDestinationUnlessToldToLeaveItOpen()
    {
        var closed = new MemoryStream();
        using (var stream = new ContentEncryptingStream(closed, Ikm))
        {
            stream.Write(Content(10));
        }

        Assert.That(closed.CanWrite, Is.False);

        var open = new MemoryStream();
        await using (var stream = new ContentEncryptingStream(open, Ikm, leaveOpen: true))
        {
            stream.Write(Content(10));
            await stream.FlushFinalBlockAsync();
        }

        Assert.That(open.CanWrite, Is.True);
        Assert.That(ContentEncryption.Decrypt(open.ToArray(), Ikm), Is.EqualTo(Content(10)));

        var closedAsync = new MemoryStream();
        await using (var stream = new ContentEncryptingStream(closedAsync, Ikm))
        {
            stream.Write(Content(10));
        }

        Assert.That(closedAsync.CanWrite, Is.False);
    }

    [Test]
    public void DisposingTheEncryptingStreamWipesItsKeysAndLaterCallsThrow()
    {
        var output = new MemoryStream();
        var stream = new ContentEncryptingStream(output, Ikm, leaveOpen: true);
        byte[] nonceBase = Internals.NonceBase(Internals.Encryptor(stream));
        stream.Write(Content(10));
        stream.FlushFinalBlock();
        stream.Dispose();

        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        Assert.That(stream.CanWrite, Is.False);
        Assert.That(Internals.Record(stream), Is.Null, "the record buffer went back to the pool, which wipes it");
        string expected = typeof(ContentEncryptingStream).FullName!;
        Assert.That(Assert.Throws<ObjectDisposedException>(() => stream.Write(Content(1)))!.ObjectName, Is.EqualTo(expected));
        Assert.That(async () => await stream.WriteAsync(Content(1)), Throws.TypeOf<ObjectDisposedException>().With.Property("ObjectName").EqualTo(expected));
        Assert.Throws<ObjectDisposedException>(() => stream.Flush());
        Assert.That(() => stream.FlushAsync(), Throws.TypeOf<ObjectDisposedException>());
        Assert.Throws<ObjectDisposedException>(() => stream.FlushFinalBlock());
        Assert.That(async () => await stream.FlushFinalBlockAsync(), Throws.TypeOf<ObjectDisposedException>());
        long length = output.Length;
        stream.Dispose();
        Assert.That(output.Length, Is.EqualTo(length), "a second Dispose writes nothing");
        Assert.That(ContentEncryption.Decrypt(output.ToArray(), Ikm), Is.EqualTo(Content(10)));
    }

    [Test]
    public async Task DisposeAsyncWipesTheKeysToo()
    {
        var output = new MemoryStream();
        var stream = new ContentEncryptingStream(output, Ikm, leaveOpen: true);
        byte[] nonceBase = Internals.NonceBase(Internals.Encryptor(stream));
        await stream.WriteAsync(Content(10));
        await stream.FlushFinalBlockAsync();
        await stream.DisposeAsync();
        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        Assert.That(Internals.Record(stream), Is.Null);
        Assert.That(ContentEncryption.Decrypt(output.ToArray(), Ikm), Is.EqualTo(Content(10)));
    }

    // Finished is not disposed: the keys stay until Dispose, and the stream refuses data but can be flushed.
    [Test]
    public void AFinishedEncryptingStreamRefusesDataUntilDisposed()
    {
        var output = new CountingStream();
        using var stream = new ContentEncryptingStream(output, Ikm, leaveOpen: true);
        stream.Write(Content(10));
        stream.Flush();
        Assert.That(output.Flushes, Is.EqualTo(1), "Flush reaches the destination before the pipeline starts");
        stream.FlushAsync().GetAwaiter().GetResult();
        Assert.That(output.Flushes, Is.EqualTo(2), "so does FlushAsync");
        stream.FlushFinalBlock();
        Assert.That(output.Flushes, Is.EqualTo(3), "the last record is flushed out");
        Assert.That(stream.CanWrite, Is.False);
        var error = Assert.Throws<InvalidOperationException>(() => stream.Write(Content(1)))!;
        Assert.That(error.Message, Does.StartWith("The last record has been written"));
        Assert.That(async () => await stream.WriteAsync(Content(1)), Throws.InvalidOperationException);
        stream.FlushFinalBlock();
        Assert.That(output.Flushes, Is.EqualTo(3), "a second FlushFinalBlock does nothing");
        Assert.That(ContentEncryption.Decrypt(output.ToArray(), Ikm), Is.EqualTo(Content(10)));
    }

    // Abort leaves the body without its last record, so a receiver rejects it as truncated.
    [Test]
    public void AbortLeavesTheBodyTruncated()
    {
        var output = new MemoryStream();
        var stream = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { RecordSize = 25 }, leaveOpen: true);
        stream.Write(Content(30));
        stream.Abort();
        Assert.That(stream.CanWrite, Is.False);
        Assert.Throws<ObjectDisposedException>(() => stream.Write(Content(1)));
        Assert.Throws<ContentEncodingTruncatedException>(() => ContentEncryption.Decrypt(output.ToArray(), Ikm));
    }

    [TestCase(false)]
    [TestCase(true)]
    public void DisposingTheDecryptingStreamWipesItsKeysAndClosesTheSourceUnlessLeftOpen(bool leaveOpen)
    {
        var source = new MemoryStream(ContentEncryption.Encrypt(Content(100), Ikm, new ContentEncodingOptions { RecordSize = 50 }));
        var unread = new ContentDecryptingStream(new MemoryStream(), Ikm);
        byte[] ikmCopy = Internals.InputKeyingMaterial(unread)!;
        unread.Dispose();
        Assert.That(ikmCopy.All(b => b == 0), Is.True, "the keying material is wiped even before the first read");

        var stream = new ContentDecryptingStream(source, Ikm, leaveOpen: leaveOpen);
        Assert.That(stream.Read(new byte[10]), Is.EqualTo(10));
        byte[] nonceBase = Internals.NonceBase(Internals.Decryptor(stream)!);
        Assert.That(nonceBase.Any(b => b != 0), Is.True);

        stream.Dispose();
        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        Assert.That(source.CanRead, Is.EqualTo(leaveOpen));
        Assert.That(stream.CanRead, Is.False);
        Assert.That(Internals.Record(stream), Is.Null, "the record buffer went back to the pool, which wipes it");
        string expected = typeof(ContentDecryptingStream).FullName!;
        Assert.That(Assert.Throws<ObjectDisposedException>(() => _ = stream.Read(new byte[1]))!.ObjectName, Is.EqualTo(expected));
        Assert.That(async () => _ = await stream.ReadAsync(new byte[1]), Throws.TypeOf<ObjectDisposedException>().With.Property("ObjectName").EqualTo(expected));
        Assert.That(Assert.Throws<ObjectDisposedException>(() => stream.CopyTo(new MemoryStream()))!.ObjectName, Is.EqualTo(expected));
        stream.Dispose();
    }

    // A keying material given to the constructor is needed only until the header has been read.
    [Test]
    public void TheDecryptingStreamWipesItsCopyOfTheKeyingMaterialOnceTheKeysAreDerived()
    {
        var stream = new ContentDecryptingStream(new MemoryStream(ContentEncryption.Encrypt(Content(100), Ikm, new ContentEncodingOptions { RecordSize = 50 })), Ikm);
        byte[] ikmCopy = Internals.InputKeyingMaterial(stream)!;
        Assert.That(ikmCopy, Is.EqualTo(Ikm));
        Assert.That(stream.Read(new byte[1]), Is.EqualTo(1));
        Assert.That(ikmCopy.All(b => b == 0), Is.True);
        stream.Dispose();
    }

    // A record that fails leaves nothing in the stream's buffer: neither the plaintext of the records
    // before it nor its own bytes.
    [TestCase(false)]
    [TestCase(true)]
    public async Task AFailedRecordLeavesTheBufferWiped(bool async)
    {
        byte[] body = ContentEncryption.Encrypt(Content(200), Ikm, new ContentEncodingOptions { RecordSize = 50 });
        body[21 + 50 + 3] ^= 1;
        using var stream = new ContentDecryptingStream(new MemoryStream(body), Ikm);
        byte[] one = new byte[1];
        Assert.That(async ? await stream.ReadAsync(one) : stream.Read(one), Is.EqualTo(1));
        Assert.That(Internals.Record(stream)!.Any(b => b != 0), Is.True, "the first record's plaintext is buffered");

        var error = async
            ? await Assert.ThrowsAsync<ContentEncodingCorruptedException>(async () => { while (await stream.ReadAsync(one) > 0) { } })
            : Assert.Throws<ContentEncodingCorruptedException>(() => { while (stream.Read(one) > 0) { } });
        Assert.That(error!.RecordIndex, Is.EqualTo(1));
        Assert.That(Internals.Record(stream)!.All(b => b == 0), Is.True, "the buffer is wiped");
        Assert.That(async () => _ = await stream.ReadAsync(one), Throws.TypeOf<ContentEncodingCorruptedException>(), "and the stream stays failed");
    }

    private sealed class CountingStream : MemoryStream
    {
        public int Flushes { get; private set; }

        public override void Flush()
        {
            Flushes++;
            base.Flush();
        }
    }
}
