// ContentEncryptingStream.CopyFrom and CopyFromAsync: the stream reads the source itself, straight
// into its buffers. The body must be byte for byte the one the one-shot call makes from the same data
// and salt, at every length around the record, batch and pipeline-start boundaries (where a full
// buffer must wait for the next read before it goes out), whatever sizes the source's reads return.

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
public class CopyFromTests
{
    private static readonly byte[] Ikm = Enumerable.Range(7, 16).Select(i => (byte)(i * 11)).ToArray();
    private static readonly byte[] Salt = Enumerable.Range(1, 16).Select(i => (byte)(i * 3)).ToArray();

    public static IEnumerable<TestCaseData> Cases()
    {
        // rs = 4096: 4079 bytes a record, batches of 128 records, the pipeline from record 258 on
        // (1 MiB of data); rs = 2^19 + 1 stays on the one-record path.
        foreach ((int recordSize, int[] lengths) in new[]
        {
            (4096, new[] { 0, 1, 4079, 4080, 2 * 4079, 258 * 4079, (258 * 4079) + 1, (386 * 4079) - 1, 386 * 4079, (386 * 4079) + 1, 3 << 20 }),
            ((1 << 19) + 1, new[] { (1 << 19) - 16, (1 << 19) - 15, 3 * ((1 << 19) - 16) }),
        })
        {
            foreach (int length in lengths)
            {
                foreach (int chunk in new[] { 7000, 1 << 20 })
                {
                    yield return new TestCaseData(recordSize, length, chunk).SetArgDisplayNames($"rs={recordSize}", $"len={length}", $"reads<={chunk}");
                }
            }
        }
    }

    private static byte[] Content(int length)
    {
        byte[] content = new byte[length];
        new Random(length).NextBytes(content);
        return content;
    }

    private static byte[] Expected(byte[] content, ContentCoding coding, int recordSize)
    {
        byte[] body = new byte[ContentEncryption.GetEncryptedLength(content.Length, new ContentEncodingOptions { RecordSize = recordSize })];
        int written = ContentEncryption.Encrypt(content, Ikm, body, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }, salt: Salt);
        return body[..written];
    }

    [TestCaseSource(nameof(Cases))]
    public void CopyFromWritesTheBodyWriteWould(int recordSize, int length, int chunk)
    {
        byte[] content = Content(length);
        var output = new MemoryStream();
        using (var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize, MaxDegreeOfParallelism = 2 }, salt: Salt, leaveOpen: true))
        {
            Assert.That(encrypting.CopyFrom(new FlakySource(content, chunk)), Is.EqualTo(length));
        }

        Assert.That(output.ToArray().AsSpan().SequenceEqual(Expected(content, ContentCoding.Aes256GcmSiv, recordSize)), "the body differs from the one-shot call's");
    }

    [TestCaseSource(nameof(Cases))]
    public async Task CopyFromAsyncWritesTheBodyWriteWould(int recordSize, int length, int chunk)
    {
        byte[] content = Content(length);
        var output = new MemoryStream();
        await using (var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = recordSize, MaxDegreeOfParallelism = 2 }, salt: Salt, leaveOpen: true))
        {
            Assert.That(await encrypting.CopyFromAsync(new FlakySource(content, chunk)), Is.EqualTo(length));
        }

        Assert.That(output.ToArray().AsSpan().SequenceEqual(Expected(content, ContentCoding.Aes128Gcm, recordSize)), "the body differs from the one-shot call's");
    }

    /// <summary>A source that throws once: what it returned before stays in the stream, and a second
    /// CopyFrom carries on to the same body.</summary>
    [Test]
    public void ASourceFaultLosesNothing([Values(1, 40, 150, 300, 449)] int failAt, [Values(false, true)] bool isAsync)
    {
        byte[] content = Content(3 << 20);
        var source = new FlakySource(content, 7000, failAt);
        var output = new MemoryStream();
        using (var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = 2 }, salt: Salt, leaveOpen: true))
        {
            long copied = 0;
            for (int attempt = 0; attempt < 2; attempt++)
            {
                try
                {
                    copied += isAsync ? encrypting.CopyFromAsync(source).AsTask().GetAwaiter().GetResult() : encrypting.CopyFrom(source);
                    break;
                }
                catch (IOException)
                {
                    copied = source.Position;
                }
            }

            Assert.That(copied, Is.EqualTo(content.Length));
        }

        Assert.That(output.ToArray().AsSpan().SequenceEqual(Expected(content, ContentCoding.Aes256GcmSiv, 4096)), "the body differs from the one-shot call's");
    }

    // Issue 31, defect 2: the destination stalls, the caller cancels CopyFromAsync while it waits for
    // room in the pipeline, then resumes and finishes. The stream had read data into a free buffer
    // before the wait and dropped it on cancellation: the body verified with 524,152 bytes missing
    // from the middle. Whatever the stream does after such a fault, the receiver must never accept a
    // body that lacks data: either the resumed body is whole, or it fails to decrypt.
    [Test]
    [CancelAfter(60_000)]
    public async Task ACancelledCopyFromAsyncNeverLeavesABodyThatVerifiesWithDataMissing()
    {
        byte[] content = Content(8 << 20);
        var destination = new StallingDestination(stallAfter: 2 << 20);
        var source = new MemoryStream(content);
        var encrypting = new ContentEncryptingStream(destination, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = 2 }, leaveOpen: true);
        using (var cancel = new System.Threading.CancellationTokenSource())
        {
            Task copy = encrypting.CopyFromAsync(source, cancel.Token).AsTask();
            await destination.Stalled;
            await Task.Delay(200);
            cancel.Cancel();
            await Assert.CatchAsync<OperationCanceledException>(async () => await copy);
        }

        destination.Release();
        bool finished = false;
        try
        {
            await encrypting.CopyFromAsync(source);
            await encrypting.FlushFinalBlockAsync();
            finished = true;
        }
        catch (InvalidOperationException)
        {
            // The stream refuses to go on after losing track of what reached the destination.
        }
        finally
        {
            await encrypting.DisposeAsync();
        }

        byte[] body = destination.ToArray();
        if (finished)
        {
            Assert.That(ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }).AsSpan().SequenceEqual(content), Is.True, "the resumed body verified but its content differs");
        }
        else
        {
            Assert.Throws<ContentEncodingTruncatedException>(() => ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }));
        }
    }

    /// <summary>A destination whose writes wait, once <paramref name="stallAfter"/> bytes are in, until released.</summary>
    private sealed class StallingDestination(int stallAfter) : SourceStreamBase
    {
        private readonly MemoryStream _written = new();
        private readonly TaskCompletionSource _stalled = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task Stalled => _stalled.Task;

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public void Release() => _released.TrySetResult();

        public byte[] ToArray() => _written.ToArray();

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            Wait(System.Threading.CancellationToken.None).GetAwaiter().GetResult();
            _written.Write(buffer);
        }

        public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

        public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, System.Threading.CancellationToken cancellationToken = default)
        {
            await Wait(cancellationToken);
            _written.Write(buffer.Span);
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, System.Threading.CancellationToken cancellationToken) =>
            WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        private Task Wait(System.Threading.CancellationToken cancellationToken)
        {
            if (_written.Length < stallAfter)
            {
                return Task.CompletedTask;
            }

            _stalled.TrySetResult();
            return _released.Task.WaitAsync(cancellationToken);
        }
    }

    /// <summary>More faults than the pipeline has buffers, each retried: a read that fails gives its
    /// buffer back, or the copy would wait for a free one for ever.</summary>
    [Test]
    public void ManySourceFaultsInARowLoseNothing([Values(false, true)] bool isAsync)
    {
        // 32 batches of 512 KiB: a third of the reads that start a batch fail, more than the buffers there are.
        byte[] content = Content(16 << 20);
        var source = new FlakySource(content, 7000, failEvery: 3);
        var output = new MemoryStream();
        var copy = Task.Run(() =>
        {
            using var encrypting = new ContentEncryptingStream(output, Ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = 2 }, salt: Salt, leaveOpen: true);
            for (int faults = 0; ; faults++)
            {
                try
                {
                    _ = isAsync ? encrypting.CopyFromAsync(source).AsTask().GetAwaiter().GetResult() : encrypting.CopyFrom(source);
                    return faults;
                }
                catch (IOException)
                {
                }
            }
        });
        Assert.That(copy.Wait(TimeSpan.FromSeconds(60)), Is.True, "the copy stopped: a failed read kept its buffer");
        Assert.That(copy.Result, Is.GreaterThan(100), "faults while the pipeline ran");
        Assert.That(output.ToArray().AsSpan().SequenceEqual(Expected(content, ContentCoding.Aes256GcmSiv, 4096)), "the body differs from the one-shot call's");
    }

    [Test]
    public void CopyFromChecksItsArguments()
    {
        using var encrypting = new ContentEncryptingStream(new MemoryStream(), Ikm);
        Assert.That(() => encrypting.CopyFrom(null!), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("source"));
        Assert.That(() => encrypting.CopyFrom(new UnreadableStream()), Throws.ArgumentException.With.Property("ParamName").EqualTo("source"));
        Assert.That(() => encrypting.CopyFromAsync(null!).AsTask(), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("source"));
        encrypting.FlushFinalBlock();
        Assert.That(() => encrypting.CopyFrom(new MemoryStream([1])), Throws.InvalidOperationException);
        encrypting.Dispose();
        Assert.That(() => encrypting.CopyFrom(new MemoryStream([1])), Throws.TypeOf<ObjectDisposedException>());
    }

    internal sealed class UnreadableStream : MemoryStream
    {
        public override bool CanRead => false;
    }
}
