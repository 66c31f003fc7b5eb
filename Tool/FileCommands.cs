// encrypt and decrypt: the library's streams (parallel, with read-ahead) between the input and the output.
// On failure, a file output is deleted (OutputFile). On standard output, decrypt has written only data the
// stream verified, and exits non-zero; encrypt aborts the stream, so the last record is never written and
// a decoder sees the body truncated rather than complete.

using System;
using System.Globalization;
using System.IO;
using System.Security.Cryptography;
using System.Threading;
using Cryptography.ContentEncoding;
using Spectre.Console;

namespace Cryptography.Tool;

internal static class FileCommands
{
    /// <summary>The decrypting stream's copy buffer while records come one at a time: large, so that each
    /// read from the input moves many records.</summary>
    private const int CopyBufferSize = 1 << 20;

    public static int Encrypt(FileJob job, int recordSize, string? keyId, CancellationToken cancellationToken)
    {
        byte[] keyIdBytes = keyId is null ? [] : System.Text.Encoding.UTF8.GetBytes(keyId);
        return Run(job, mode: null, binaryRefusedOnTerminal: true, cancellationToken, (key, input, output) =>
        {
            // CopyFrom ends the body only once it has read the input to its end; an input that fails or an
            // interrupt leaves it without its last record, and disposing writes none.
            using var encrypting = new ContentEncryptingStream(output, key, new ContentEncodingOptions { Coding = job.Coding, RecordSize = recordSize, KeyId = keyIdBytes, MaxDegreeOfParallelism = job.Threads }, leaveOpen: true);
            Copy(() => encrypting.CopyFrom(input), "Encrypting", input, output, cancellationToken);
        });
    }

    public static int Decrypt(FileJob job, CancellationToken cancellationToken) =>
        Run(job, OutputFile.OwnerOnly, binaryRefusedOnTerminal: false, cancellationToken, (key, input, output) =>
        {
            using var decrypting = new ContentDecryptingStream(input, key, new ContentEncodingOptions { Coding = job.Coding, MaxDegreeOfParallelism = job.Threads }, leaveOpen: true);
            try
            {
                Copy(() => decrypting.CopyTo(output, CopyBufferSize), "Decrypting", input, output, cancellationToken);
            }
            catch (ContentEncodingException exception)
            {
                throw new ToolException(ExitCodes.Data, DescribeFailure(exception, decrypting, input, output), exception);
            }
        });

    /// <summary>Runs <paramref name="work"/> and, only if it completed uninterrupted, makes the output final; wipes the key.</summary>
    private static int Run(FileJob job, UnixFileMode? mode, bool binaryRefusedOnTerminal, CancellationToken cancellationToken, Action<byte[], Endpoint, Endpoint> work)
    {
        byte[] key = KeyFile.Read(job.KeyPath);
        try
        {
            using Endpoint input = Endpoint.OpenInput(job.InputPath);
            using Endpoint output = Endpoint.OpenOutput(job.OutputPath, job.Force, mode, binaryRefusedOnTerminal, cancellationToken);
            work(key, input, output);
            cancellationToken.ThrowIfCancellationRequested();
            output.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>Runs <paramref name="copy"/>, with a progress bar on stderr when it is a terminal that stdout is not
    /// also writing the content to. The library's streams copy from and into their own pinned buffers (no
    /// buffer here holds plaintext); each read of the input checks for an interrupt and moves the bar.</summary>
    private static void Copy(Action copy, string description, Endpoint input, Endpoint output, CancellationToken cancellationToken)
    {
        long? total = input.KnownLength;
        if (Console.IsErrorRedirected || (output.IsStandardOutput && !Console.IsOutputRedirected))
        {
            Loop(null);
            return;
        }

        // Interactive, as stderr is a terminal: Spectre.Console would otherwise decide from stdin, and
        // print static lines when the input comes from a pipe.
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(Console.Error), Interactive = InteractionSupport.Yes });
        ProgressColumn[] columns = total is null
            ? [new TaskDescriptionColumn(), new SpinnerColumn(), new TransferSpeedColumn(), new ElapsedTimeColumn()]
            : [new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new TransferSpeedColumn(), new RemainingTimeColumn()];
        console.Progress().AutoClear(true).Columns(columns).Start(context =>
        {
            ProgressTask task = context.AddTask(Markup.Escape(description), maxValue: total is > 0 ? total.Value : double.MaxValue);
            task.IsIndeterminate = total is null;
            Loop(task);
            Show(task);   // the last frame: every byte
        });

        void Loop(ProgressTask? task)
        {
            // The display is updated at most ten times a second, so it costs nothing in the hot loop.
            const int ReportIntervalMilliseconds = 100;
            long nextReport = Environment.TickCount64 + ReportIntervalMilliseconds;

            // Step runs on whichever thread reads the input, the caller's or a stream's reader task, one at a
            // time; an interrupt thrown there reaches the copy as a failure of the input.
            input.ReadDone = Step;
            copy();
            cancellationToken.ThrowIfCancellationRequested();

            void Step()
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (task is not null && Environment.TickCount64 >= nextReport)
                {
                    Show(task);
                    nextReport = Environment.TickCount64 + ReportIntervalMilliseconds;
                }
            }
        }

        void Show(ProgressTask task)
        {
            long bytes = input.BytesPassed;
            task.Value = bytes;
            if (total is null)
            {
                // No known length (standard input): the bar is indeterminate, and the description counts the bytes.
                task.Description = Markup.Escape(bytes >= 1L << 30 ? Invariant($"{description} {bytes / (double)(1L << 30):0.00} GiB") : Invariant($"{description} {bytes / (double)(1L << 20):0.0} MiB"));
            }
        }
    }

    /// <summary>What went wrong and where (byte offset, record), and what became of the output.</summary>
    private static string DescribeFailure(ContentEncodingException exception, ContentDecryptingStream decrypting, Endpoint input, Endpoint output)
    {
        // A bad full record ends at its record boundary (the stream may have read ahead of it); a record
        // after the last one, a short final record and a missing last record are at the end of what was read.
        long bytesRead = input.BytesPassed;
        ContentEncodingHeader? header = decrypting.Header;
        if (header is not null && exception.RecordIndex is { } failed && decrypting.RecordCount <= failed)
        {
            bytesRead = Math.Min(bytesRead, header.Length + ((failed + 1) * header.RecordSize));
        }

        (string where, string hint) = (header is null || exception is ContentEncodingHeaderException, exception is ContentEncodingTruncatedException, exception.RecordIndex) switch
        {
            (true, _, _) => ("in the header (byte offset 0)", " Is it an encrypted file (this tool's output, or an RFC 8188 aes128gcm body)?"),
            (_, true, { } last) => (Invariant($"at byte offset {bytesRead}, the end of the input, after record {last}"), ""),
            (_, true, null) => (Invariant($"at byte offset {bytesRead}, the end of the input, right after the header"), ""),
            (_, _, { } index) => InRecord(header!, index),
            _ => ("in the input", ""),
        };

        (string, string) InRecord(ContentEncodingHeader header, long index)
        {
            long recordStart = header.Length + (index * header.RecordSize);
            long recordEnd = recordStart + header.RecordSize;
            if (bytesRead > recordEnd)
            {
                // The stream read past a full-size last record: the data after it is what is wrong.
                return (Invariant($"at byte offset {recordEnd}, after record {index}, the last one"), "");
            }

            // Every file's last record is shorter than the record size, and a small file is one record:
            // when record 0 fails, the wrong key or coding is by far the likeliest cause, so it comes first.
            string shortRecord = bytesRead < recordEnd
                ? Invariant($" The input ends {bytesRead - recordStart} bytes into this record, short of the record size {header.RecordSize}: it may have been cut short or extended.")
                : "";
            string hint = index == 0
                ? " No record verified: check the key file and --coding first." + (shortRecord.Length > 0 ? " Otherwise the data was modified, or cut short or extended (the input ends " + Invariant($"{bytesRead - recordStart} bytes into this record, record size {header.RecordSize}).") : "")
                : shortRecord;
            return (Invariant($"at byte offset {recordStart}, in record {index}"), hint);
        }

        string outcome = !output.IsStandardOutput ? " No output file was written."
            : output.BytesPassed == 0 ? " Nothing was written to standard output."
            : Invariant($" Standard output already received {output.BytesPassed} bytes, from records that verified before the failure; discard them.");
        return Invariant($"cannot decrypt {input.Name} {where}: {exception.Message}{hint}{outcome}");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
