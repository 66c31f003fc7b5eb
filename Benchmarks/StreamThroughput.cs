// A hidden 'bench' command: the library's in-memory throughput with the same stream classes the
// file commands use, at a given coding and record size, for comparison with the file commands
// (docs/tool.md). Encrypt: ContentEncryptingStream writing into Stream.Null, fed 1 MiB writes from
// 64 MiB of plaintext in memory, cycled. Decrypt: ContentDecryptingStream reading a body held in memory (a 64 MiB body, decoded as
// many times as it takes) into a 1 MiB buffer. No file, no pipe: what is left is the record layer,
// on one thread. With --threads, it also measures the batch calls the tool uses (EncryptRecords /
// DecryptRecords on that many threads, batches as the tool makes them), memory to memory.

using System;
using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Security.Cryptography;

namespace Cryptography.Tool;

internal static class Bench
{
    private const int BodyContentLength = 64 << 20;

    public static Command Command()
    {
        Option<string> coding = Cli.Coding();
        var recordSize = new Option<int>("--record-size", "-r") { DefaultValueFactory = _ => ContentEncoding.DefaultRecordSize };
        var size = new Option<long>("--size") { Description = "Bytes of content per measurement.", DefaultValueFactory = _ => 1L << 30 };
        var threads = new Option<int>("--threads", "-t") { Description = "Also measure the batch calls on this many threads (0: do not)." };
        var command = new Command("bench", "Measures the record layer's in-memory throughput (for docs/tool.md).")
        {
            coding,
            recordSize,
            size,
            threads,
        };
        command.Hidden = true;
        command.SetAction(result =>
        {
            ContentCoding parsed = Cli.ParseCoding(result.GetRequiredValue(coding));
            Run(parsed, result.GetValue(recordSize), result.GetValue(size));
            if (result.GetValue(threads) is > 0 and int count)
            {
                RunBatches(parsed, result.GetValue(recordSize), result.GetValue(size), count);
            }

            return ExitCodes.Success;
        });
        return command;
    }

    private static void Run(ContentCoding coding, int recordSize, long size)
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        byte[] buffer = RandomNumberGenerator.GetBytes(1 << 20);
        string name = ContentEncoding.GetName(coding);

        // The plaintext comes from 64 MiB of memory, cycled, as the ciphertext does for decrypt below:
        // a 1 GiB file's content is in memory, not in the CPU's caches, so neither is the benchmark's.
        byte[] plaintext = RandomNumberGenerator.GetBytes((int)Math.Min(BodyContentLength, size));
        var stopwatch = Stopwatch.StartNew();
        using (var encrypting = new ContentEncryptingStream(Stream.Null, key, coding, recordSize))
        {
            int offset = 0;
            for (long done = 0; done < size; done += buffer.Length)
            {
                int count = (int)Math.Min(buffer.Length, size - done);
                if (offset + count > plaintext.Length)
                {
                    offset = 0;
                }

                encrypting.Write(plaintext, offset, count);
                offset += count;
            }

            encrypting.FlushFinalBlock();
        }

        Report("encrypt", name, recordSize, size, stopwatch.Elapsed);

        byte[] content = RandomNumberGenerator.GetBytes((int)Math.Min(BodyContentLength, size));
        byte[] body = ContentEncoding.Encrypt(content, key, coding, recordSize);
        stopwatch.Restart();
        long decrypted = 0;
        while (decrypted < size)
        {
            using var decrypting = new ContentDecryptingStream(new MemoryStream(body, writable: false), key, coding);
            int read;
            while ((read = decrypting.Read(buffer)) > 0)
            {
                decrypted += read;
            }
        }

        Report("decrypt", name, recordSize, decrypted, stopwatch.Elapsed);
    }

    private static void RunBatches(ContentCoding coding, int recordSize, long size, int threads)
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        string name = ContentEncoding.GetName(coding);
        int records = FileCommands.RecordsPerBatch(recordSize);
        using var encryptor = new ContentEncryptor(key, coding, recordSize);
        int batchData = records * encryptor.MaxRecordDataLength;
        byte[] plaintext = RandomNumberGenerator.GetBytes(Math.Max(1, BodyContentLength / batchData) * batchData);
        byte[] sealedBatch = new byte[records * recordSize];

        var stopwatch = Stopwatch.StartNew();
        long done = 0;
        for (int offset = 0; done < size; done += batchData, offset = (offset + batchData) % plaintext.Length)
        {
            encryptor.EncryptRecords(plaintext.AsMemory(offset, batchData), sealedBatch, threads);
        }

        Report(FormattableString.Invariant($"encrypt-batch threads={threads}"), name, recordSize, done, stopwatch.Elapsed);

        // Decrypt a batch sealed from the start of a body, with a fresh decryptor each time.
        using var first = new ContentEncryptor(key, coding, recordSize);
        first.EncryptRecords(plaintext.AsMemory(0, batchData), sealedBatch, threads);
        byte[] plaintexts = new byte[records * (recordSize - ContentEncoding.TagSize)];
        int[] lengths = new int[records];
        stopwatch.Restart();
        done = 0;
        for (; done < size; done += batchData)
        {
            using var decryptor = new ContentDecryptor(first.Header, key, coding);
            decryptor.DecryptRecords(sealedBatch, plaintexts, lengths, threads);
        }

        Report(FormattableString.Invariant($"decrypt-batch threads={threads}"), name, recordSize, done, stopwatch.Elapsed);
    }

    private static void Report(string operation, string coding, int recordSize, long bytes, TimeSpan elapsed) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{operation} in-memory coding={coding} rs={recordSize} bytes={bytes} seconds={elapsed.TotalSeconds:0.000} MB/s={bytes / elapsed.TotalSeconds / 1e6:0}"));
}
