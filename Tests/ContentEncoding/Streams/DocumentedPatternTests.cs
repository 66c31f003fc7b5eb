// Issue 47, item 0: every way the docs (README.md, docs/content-encoding.md, the XML docs) teach to
// write a body with ContentEncryptingStream, written here exactly as taught, run with a source that
// fails half way (an IOException) and with a cancellation half way. The body left behind must be
// rejected as truncated by every decoder in the library: the one-shots, the decrypting stream
// (sync, async, CopyTo, CopyToAsync) and ContentDecryptingHandler. Before the fix, Dispose wrote the
// last record on the exception path, and the cut body verified. The success path must still round-trip.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class DocumentedPatternTests
{
    private static readonly byte[] Ikm = Enumerable.Range(1, 16).Select(i => (byte)(i * 5)).ToArray();

    /// <summary>How the source ends: it does not fail, it throws an IOException, or its token is cancelled.</summary>
    public enum Failure
    {
        None,
        SourceThrows,
        Cancelled,
    }

    /// <summary>The documented patterns, each one as the docs write it.</summary>
    public enum Pattern
    {
        /// <summary>README.md and docs/content-encoding.md: <c>await using</c>, <c>CopyToAsync</c>, <c>FlushFinalBlockAsync</c>.</summary>
        AwaitUsingCopyToAsyncThenFlushFinalBlockAsync,

        /// <summary>docs/content-encoding.md: <c>await using var</c>, <c>CopyFromAsync</c>.</summary>
        AwaitUsingCopyFromAsync,

        /// <summary>The synchronous shape: <c>using</c>, <c>CopyTo</c>, <c>FlushFinalBlock</c>.</summary>
        UsingCopyToThenFlushFinalBlock,

        /// <summary>The synchronous <c>CopyFrom</c> (the tool's).</summary>
        UsingCopyFrom,

        /// <summary>docs/content-encoding.md's server shape: the response body written piece by piece, then <c>FlushFinalBlockAsync</c>.</summary>
        AwaitUsingWriteAsyncThenFlushFinalBlockAsync,

        /// <summary><c>EncryptedHttpContent</c> over a <c>StreamContent</c> of the source.</summary>
        EncryptedHttpContent,
    }

    public static IEnumerable<TestCaseData> Cases()
    {
        foreach (Pattern pattern in Enum.GetValues<Pattern>())
        {
            foreach (Failure failure in Enum.GetValues<Failure>())
            {
                // 300 KB in 4 KiB records; and 3 MiB on two threads, past the point where the stream seals batches.
                yield return new TestCaseData(pattern, failure, 300_000, 1);
                yield return new TestCaseData(pattern, failure, 3 << 20, 2);
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public async Task ADocumentedPatternLeavesABodyThatIsWholeOrRejectedAsTruncated(Pattern pattern, Failure failure, int length, int threads)
    {
        byte[] content = Enumerable.Range(0, length).Select(i => (byte)(i * 31 + 7)).ToArray();
        var options = new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096, MaxDegreeOfParallelism = threads };
        var output = new MemoryStream();
        using var cancel = new CancellationTokenSource();
        var source = new HalfwaySource(content, failAfter: failure == Failure.None ? -1 : length / 2, failure, cancel);

        Exception? thrown = null;
        try
        {
            await Write(pattern, source, output, options, cancel.Token);
        }
        catch (Exception exception)
        {
            thrown = exception;
        }

        byte[] body = output.ToArray();
        if (failure == Failure.None)
        {
            Assert.That(thrown, Is.Null);
            foreach (Decoder decoder in AllDecoders)
            {
                // Compared as spans: NUnit compares arrays element by element through object equality, which
                // for 3 MiB took seconds per decoder (15 s a case under Mono).
                byte[] decoded = decoder.Decode(body, options);
                Assert.That(decoded.AsSpan().SequenceEqual(content), Is.True, $"{decoder.Name} reads the whole content back ({decoded.Length} bytes of {content.Length})");
            }

            return;
        }

        Assert.That(thrown, failure == Failure.Cancelled ? Is.InstanceOf<OperationCanceledException>() : Is.InstanceOf<IOException>().Or.InstanceOf<HttpRequestException>());
        Assert.That(source.Served, Is.GreaterThan(length / 4), "the source failed half way, not at once");
        RejectedAsTruncated(body, options, $"{pattern}, {failure}");
    }

    /// <summary>A stream disposed before the first record went out has written nothing: every decoder
    /// rejects the empty body as a body cut inside its header. Under both codings (the Mono leg has aes256gcmsiv only).</summary>
    [Test]
    public async Task DisposingBeforeAnyRecordLeavesAnEmptyBodyEveryDecoderRejects(
        [Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Values(0, 100)] int written)
    {
        var output = new MemoryStream();
        var options = new ContentEncodingOptions { Coding = coding, RecordSize = 4096 };
        await using (var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true))
        {
            await encrypting.WriteAsync(new byte[written]);
        }

        Assert.That(output.Length, Is.Zero, "nothing is written after the failure: not even the header");
        foreach (Decoder decoder in AllDecoders)
        {
            Assert.That(() => decoder.Decode(output.ToArray(), options), Throws.TypeOf<ContentEncodingHeaderException>().With.Message.Contains("0 bytes long"), decoder.Name);
        }
    }

    /// <summary>Dispose, DisposeAsync and Abort of an unfinished stream leave the same body, a record
    /// short, and release the same: keys wiped, buffers back in the pool, later calls refused.</summary>
    [Test]
    public async Task DisposingAnUnfinishedStreamIsAbort(
        [Values(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)] ContentCoding coding, [Values("Dispose", "DisposeAsync", "Abort")] string how)
    {
        var output = new MemoryStream();
        var options = new ContentEncodingOptions { Coding = coding, RecordSize = 100 };
        var encrypting = new ContentEncryptingStream(output, Ikm, options, salt: new byte[16], leaveOpen: true);
        byte[] nonceBase = Internals.NonceBase(Internals.Encryptor(encrypting));
        byte[] record = Internals.Record(encrypting)!;
        encrypting.Write(Enumerable.Repeat((byte)0xA5, 200).ToArray());
        Assert.That(record.AsSpan(0, 34).ToArray(), Is.All.EqualTo(0xA5), "the last 34 bytes wait in the record buffer, unsealed");
        switch (how)
        {
            case "Dispose":
                encrypting.Dispose();
                break;
            case "DisposeAsync":
                await encrypting.DisposeAsync();
                break;
            default:
                encrypting.Abort();
                break;
        }

        Assert.That(output.Length, Is.EqualTo(ContentEncodingHeader.FixedLength + 200), "the header and the two full records that more data followed; not the last");
        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        Assert.That(Internals.Record(encrypting), Is.Null, "the record buffer went back to the pool");
        Assert.That(record, Is.All.Zero, "the plaintext that was never sealed is wiped");
        Assert.That(encrypting.CanWrite, Is.False);
        Assert.Throws<ObjectDisposedException>(() => encrypting.FlushFinalBlock());
        RejectedAsTruncated(output.ToArray(), options, how);
    }

    private static void RejectedAsTruncated(byte[] body, ContentEncodingOptions options, string what)
    {
        Assert.That(body.Length, Is.GreaterThan(ContentEncodingHeader.FixedLength), $"{what}: records went out before the failure");
        foreach (Decoder decoder in AllDecoders)
        {
            Assert.That(() => decoder.Decode(body, options), Throws.TypeOf<ContentEncodingTruncatedException>(), $"{what}: {decoder.Name} rejects the body as truncated");
        }
    }

    // Each pattern exactly as the docs teach it (the streams are left open here only so that the test can read the body).
    private static async Task Write(Pattern pattern, Stream input, Stream output, ContentEncodingOptions options, CancellationToken cancellationToken)
    {
        switch (pattern)
        {
            case Pattern.AwaitUsingCopyToAsyncThenFlushFinalBlockAsync:
                await using (var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true))
                {
                    await input.CopyToAsync(encrypting, cancellationToken);
                    await encrypting.FlushFinalBlockAsync(cancellationToken);
                }

                break;
            case Pattern.AwaitUsingCopyFromAsync:
            {
                await using var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true);
                await encrypting.CopyFromAsync(input, cancellationToken);
                break;
            }

            case Pattern.UsingCopyToThenFlushFinalBlock:
                using (var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true))
                {
                    input.CopyTo(encrypting);
                    encrypting.FlushFinalBlock();
                }

                break;
            case Pattern.UsingCopyFrom:
            {
                using var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true);
                encrypting.CopyFrom(input);
                break;
            }

            case Pattern.AwaitUsingWriteAsyncThenFlushFinalBlockAsync:
            {
                await using var encrypting = new ContentEncryptingStream(output, Ikm, options, leaveOpen: true);
                byte[] piece = new byte[10_000];
                int read;
                while ((read = await input.ReadAsync(piece, cancellationToken)) > 0)
                {
                    await encrypting.WriteAsync(piece.AsMemory(0, read), cancellationToken);
                }

                await encrypting.FlushFinalBlockAsync(cancellationToken);
                break;
            }

            default:
                using (var content = new EncryptedHttpContent(new StreamContent(input), Ikm, options))
                {
                    await content.CopyToAsync(output, cancellationToken);
                }

                break;
        }
    }

    private sealed record Decoder(string Name, Func<byte[], ContentEncodingOptions, byte[]> Decode);

    private static IEnumerable<Decoder> AllDecoders =>
    [
        .. Decoders.All.Select(path => new Decoder(path.ToString(), (body, options) => Decoders.Decode(path, body, Ikm, options.Coding))),
        new("OneShotKeyProvider", (body, options) => ContentEncryption.Decrypt(body, KeyProviders.Always(Ikm), new ContentEncodingOptions { Coding = options.Coding })),
        new("TryDecrypt", (body, options) =>
        {
            byte[] destination = new byte[body.Length];
            Assert.That(ContentEncryption.TryDecrypt(body, Ikm, destination, out int written, new ContentEncodingOptions { Coding = options.Coding }), Is.True);
            return destination[..written];
        }),
        new("StreamCopyTo", (body, options) =>
        {
            using var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = options.Coding, MaxDegreeOfParallelism = options.MaxDegreeOfParallelism });
            var plaintext = new MemoryStream();
            decrypting.CopyTo(plaintext);
            return plaintext.ToArray();
        }),
        new("StreamCopyToAsync", (body, options) => CopyToAsync(body, options).GetAwaiter().GetResult()),
        new("ContentDecryptingHandler", (body, options) => ThroughHandler(body, options).GetAwaiter().GetResult()),
    ];

    private static async Task<byte[]> CopyToAsync(byte[] body, ContentEncodingOptions options)
    {
        await using var decrypting = new ContentDecryptingStream(new MemoryStream(body), Ikm, new ContentEncodingOptions { Coding = options.Coding, MaxDegreeOfParallelism = options.MaxDegreeOfParallelism });
        var plaintext = new MemoryStream();
        await decrypting.CopyToAsync(plaintext);
        return plaintext.ToArray();
    }

    private static async Task<byte[]> ThroughHandler(byte[] body, ContentEncodingOptions options)
    {
        using var client = new HttpClient(new ContentDecryptingHandler(KeyProviders.Always(Ikm), new HandlerPolicyTests.StubHandler(() =>
        {
            var encrypted = new ByteArrayContent(body);
            encrypted.Headers.ContentEncoding.Add(ContentEncryption.GetName(options.Coding));
            return new HttpResponseMessage(HttpStatusCode.OK) { Content = encrypted };
        })));
        return await client.GetByteArrayAsync("http://example.invalid/");
    }

    /// <summary>A source that serves <paramref name="data"/> in pieces of at most 8 KiB, and after
    /// <paramref name="failAfter"/> bytes (unless negative) throws an IOException, or cancels
    /// <paramref name="cancel"/> and then honours it, as a cancelled copy's source does.</summary>
    private sealed class HalfwaySource(byte[] data, int failAfter, Failure failure, CancellationTokenSource cancel) : SourceStreamBase
    {
        public int Served { get; private set; }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => Served; set => throw new NotSupportedException(); }

        public override int Read(Span<byte> buffer)
        {
            if (failAfter >= 0 && Served >= failAfter)
            {
                if (failure == Failure.SourceThrows)
                {
                    throw new IOException("the source failed half way");
                }

                cancel.Cancel();
                cancel.Token.ThrowIfCancellationRequested();
            }

            int count = Math.Min(Math.Min(buffer.Length, 8192), data.Length - Served);
            data.AsSpan(Served, count).CopyTo(buffer);
            Served += count;
            return count;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            await Task.Yield();
            cancellationToken.ThrowIfCancellationRequested();
            return Read(buffer.Span);
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
