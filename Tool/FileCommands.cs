// encrypt and decrypt: a copy loop between the input and the output through the library's
// ContentEncryptingStream / ContentDecryptingStream, in constant memory.
//
// Safety on failure: a file output is an OutputFile (written under a temporary name, renamed into
// place only after the last record was written or verified, deleted otherwise). On standard output,
// decrypt writes a record's data only after the record verified (the decrypting stream releases
// nothing else), and a failure exits non-zero; encrypt aborts the body, so that a decoder sees it
// truncated rather than complete.

using System;
using System.Globalization;
using System.Security.Cryptography;
using System.IO;
using System.Threading;

namespace Cryptography.Tool;

internal static class FileCommands
{
    /// <summary>The copy buffer: large, so that each read and write moves many records at once, and
    /// larger than the default record's plaintext, so that a record decrypts straight into it.</summary>
    public const int BufferSize = 1 << 20;

    public static int Encrypt(string keyPath, ContentCoding coding, int recordSize, string? keyId, string inputPath, string outputPath, bool force, CancellationToken cancellationToken)
    {
        byte[] keyIdBytes = keyId is null ? [] : System.Text.Encoding.UTF8.GetBytes(keyId);
        byte[] key = KeyFile.Read(keyPath);
        try
        {
            using Source source = Source.Open(inputPath);
            using var input = new ReadAheadStream(source, BufferSize);
            using Sink sink = Sink.Open(outputPath, force, mode: null, binaryRefusedOnTerminal: true);
            using Stream output = Overlapped(sink);
            using CancellationTokenRegistration onCancel = cancellationToken.Register(sink.Discard);
            var encrypting = new ContentEncryptingStream(output, key, coding, recordSize, keyIdBytes, leaveOpen: true);
            bool complete = false;
            try
            {
                ProgressDisplay.Run(ProgressDisplay.ShouldShow(sink), "Encrypting", source.KnownLength, report =>
                    EncryptBlocks(input, encrypting, report, cancellationToken));

                // Writes the last record and flushes `output`, which waits for every write to finish.
                encrypting.FlushFinalBlock();
                complete = true;
            }
            finally
            {
                if (complete)
                {
                    encrypting.Dispose();
                }
                else
                {
                    // No last record: what reached standard output is a truncated body, which every decoder rejects.
                    encrypting.Abort();
                }
            }

            cancellationToken.ThrowIfCancellationRequested();
            sink.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    public static int Decrypt(string keyPath, ContentCoding coding, string inputPath, string outputPath, bool force, CancellationToken cancellationToken)
    {
        byte[] key = KeyFile.Read(keyPath);
        try
        {
            using Source source = Source.Open(inputPath);
            using var input = new ReadAheadStream(source, BufferSize);
            using Sink sink = Sink.Open(outputPath, force, OutputFile.OwnerOnly, binaryRefusedOnTerminal: false);
            using Stream output = Overlapped(sink);
            using CancellationTokenRegistration onCancel = cancellationToken.Register(sink.Discard);
            using var decrypting = new ContentDecryptingStream(input, key, coding, leaveOpen: true);
            try
            {
                ProgressDisplay.Run(ProgressDisplay.ShouldShow(sink), "Decrypting", source.KnownLength, report =>
                    Pump(decrypting, output, input, report, cancellationToken));
            }
            catch (ContentEncodingException exception)
            {
                throw new ToolException(ExitCodes.Data, DescribeFailure(exception, decrypting.Header, source.Name, input.BytesConsumed, sink), exception);
            }

            output.Flush();
            cancellationToken.ThrowIfCancellationRequested();
            sink.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>A file output is written behind the copy loop, overlapping the disk with the cryptography.
    /// Standard output is written directly: each verified record goes out as soon as it is verified.</summary>
    private static Stream Overlapped(Sink sink) => sink.IsStandardOutput ? new UndisposedStream(sink) : new WriteBehindStream(sink, BufferSize);

    /// <summary>Feeds the input's blocks, where they were read to, to the encrypting stream, reporting
    /// the input bytes consumed to <paramref name="report"/> at most ten times a second.</summary>
    private static void EncryptBlocks(ReadAheadStream input, ContentEncryptingStream encrypting, Action<long>? report, CancellationToken cancellationToken)
    {
        long nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
        ReadOnlyMemory<byte> block;
        while (!(block = input.ReadBlock()).IsEmpty)
        {
            cancellationToken.ThrowIfCancellationRequested();
            encrypting.Write(block.Span);
            if (report is not null && Environment.TickCount64 >= nextReport)
            {
                report(input.BytesConsumed);
                nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>Copies <paramref name="from"/> to <paramref name="to"/> in blocks of <see cref="BufferSize"/>,
    /// reporting the input bytes consumed to <paramref name="report"/> at most ten times a second.</summary>
    private static void Pump(Stream from, Stream to, ReadAheadStream input, Action<long>? report, CancellationToken cancellationToken)
    {
        if (to is WriteBehindStream behind)
        {
            PumpInto(from, behind, input, report, cancellationToken);
            return;
        }

        byte[] buffer = GC.AllocateUninitializedArray<byte>(BufferSize, pinned: true);
        try
        {
            long nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
            int read;
            while ((read = from.Read(buffer)) > 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
                to.Write(buffer, 0, read);
                if (report is not null && Environment.TickCount64 >= nextReport)
                {
                    report(input.BytesConsumed);
                    nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
                }
            }

            cancellationToken.ThrowIfCancellationRequested();
        }
        finally
        {
            // For decrypt the buffer held content: wipe it.
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    /// <summary>As <see cref="Pump"/>, but reading straight into the write-behind's block: one copy fewer.</summary>
    private static void PumpInto(Stream from, WriteBehindStream to, ReadAheadStream input, Action<long>? report, CancellationToken cancellationToken)
    {
        long nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
        int read;
        while ((read = from.Read(to.FreeSpace)) > 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            to.Advance(read);
            if (report is not null && Environment.TickCount64 >= nextReport)
            {
                report(input.BytesConsumed);
                nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>Says what went wrong and where: the byte offset in the input, the record, and what
    /// became of the output.</summary>
    internal static string DescribeFailure(ContentEncodingException exception, ContentEncodingHeader? header, string inputName, long bytesRead, Sink sink)
    {
        string where;
        string hint = string.Empty;
        if (exception is ContentEncodingHeaderException || header is null)
        {
            where = "in the header (byte offset 0)";
            hint = " Is it an encrypted file (this tool's output, or an RFC 8188 aes128gcm body)?";
        }
        else if (exception is ContentEncodingTruncatedException)
        {
            where = exception.RecordIndex is { } last
                ? Invariant($"at byte offset {bytesRead}, the end of the input, after record {last}")
                : Invariant($"at byte offset {bytesRead}, the end of the input, right after the header");
        }
        else if (exception.RecordIndex is { } index)
        {
            long recordStart = header.Length + (index * header.RecordSize);
            long recordEnd = recordStart + header.RecordSize;
            if (bytesRead > recordEnd)
            {
                // The stream read past a full-size last record: the data after it is what is wrong.
                where = Invariant($"at byte offset {recordEnd}, after record {index}, the last one");
            }
            else
            {
                where = Invariant($"at byte offset {recordStart}, in record {index}");
                if (bytesRead < recordEnd)
                {
                    hint = Invariant($" The input ends {bytesRead - recordStart} bytes into this record, short of the record size {header.RecordSize}: it may have been cut short or extended.");
                }

                if (index == 0)
                {
                    hint += " If no record verifies, check the key file and --coding.";
                }
            }
        }
        else
        {
            where = "in the input";
        }

        string output = sink.IsStandardOutput
            ? sink.BytesWritten == 0
                ? " Nothing was written to standard output."
                : Invariant($" Standard output already received {sink.BytesWritten} bytes, from records that verified before the failure; discard them.")
            : " No output file was written.";
        return Invariant($"cannot decrypt {inputName} {where}: {exception.Message}{hint}{output}");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}

/// <summary>Passes writes to a stream that someone else disposes.</summary>
internal sealed class UndisposedStream(Stream inner) : Stream
{
    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override void Write(ReadOnlySpan<byte> buffer) => inner.Write(buffer);

    public override void Write(byte[] buffer, int offset, int count) => inner.Write(buffer, offset, count);

    public override void Flush() => inner.Flush();

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
