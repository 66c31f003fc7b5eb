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
            using Sink sink = Sink.Open(outputPath, force, mode: null, binaryRefusedOnTerminal: true);
            using CancellationTokenRegistration onCancel = cancellationToken.Register(sink.Discard);
            var encrypting = new ContentEncryptingStream(sink, key, coding, recordSize, keyIdBytes, leaveOpen: true);
            bool complete = false;
            try
            {
                ProgressDisplay.Run(ProgressDisplay.ShouldShow(sink), "Encrypting", source.KnownLength, report =>
                    Pump(source, encrypting, source, report, cancellationToken));
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
            using Sink sink = Sink.Open(outputPath, force, OutputFile.OwnerOnly, binaryRefusedOnTerminal: false);
            using CancellationTokenRegistration onCancel = cancellationToken.Register(sink.Discard);
            using var decrypting = new ContentDecryptingStream(source, key, coding, leaveOpen: true);
            try
            {
                ProgressDisplay.Run(ProgressDisplay.ShouldShow(sink), "Decrypting", source.KnownLength, report =>
                    Pump(decrypting, sink, source, report, cancellationToken));
            }
            catch (ContentEncodingException exception)
            {
                throw new ToolException(ExitCodes.Data, DescribeFailure(exception, decrypting.Header, source, sink), exception);
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

    /// <summary>Copies <paramref name="from"/> to <paramref name="to"/> in blocks of <see cref="BufferSize"/>,
    /// reporting the input bytes consumed to <paramref name="report"/> at most ten times a second.</summary>
    private static void Pump(System.IO.Stream from, System.IO.Stream to, Source input, Action<long>? report, CancellationToken cancellationToken)
    {
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
                    report(input.BytesRead);
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

    /// <summary>Says what went wrong and where: the byte offset in the input, the record, and what
    /// became of the output.</summary>
    internal static string DescribeFailure(ContentEncodingException exception, ContentEncodingHeader? header, Source source, Sink sink)
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
                ? Invariant($"at byte offset {source.BytesRead}, the end of the input, after record {last}")
                : Invariant($"at byte offset {source.BytesRead}, the end of the input, right after the header");
        }
        else if (exception.RecordIndex is { } index)
        {
            long recordStart = header.Length + (index * header.RecordSize);
            long recordEnd = recordStart + header.RecordSize;
            if (source.BytesRead > recordEnd)
            {
                // The stream read past a full-size last record: the data after it is what is wrong.
                where = Invariant($"at byte offset {recordEnd}, after record {index}, the last one");
            }
            else
            {
                where = Invariant($"at byte offset {recordStart}, in record {index}");
                if (source.BytesRead < recordEnd)
                {
                    hint = Invariant($" The input ends {source.BytesRead - recordStart} bytes into this record, short of the record size {header.RecordSize}: it may have been cut short or extended.");
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
        return Invariant($"cannot decrypt {source.Name} {where}: {exception.Message}{hint}{output}");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
