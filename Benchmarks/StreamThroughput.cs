// The in-memory baseline of scripts/measure-tool.sh (moved here from the tool's former hidden 'bench'
// command): the library's record layer with no file and no pipe, at one coding and record size, for
// comparison with the tool's file commands (docs/tool.md). Not a BenchmarkDotNet benchmark: the script
// needs one quick figure per repetition, in the same quiet window as the tool runs it is compared with.
//
//   dotnet run -c Release --project Benchmarks -- --stream-throughput [--coding gcmsiv|aes128gcm]
//       [--record-size N] [--size BYTES] [--threads N]
//
// Encrypt: ContentEncryptingStream writing into Stream.Null, fed 1 MiB writes from 64 MiB of
// plaintext in memory, cycled. Decrypt: ContentDecryptingStream reading a 64 MiB body held in memory,
// decoded as many times as it takes, into a 1 MiB buffer. Both at the streams' default parallelism
// and, with --threads, also the batch calls (EncryptRecords / DecryptRecords) on that many threads.

using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Benchmarks;

internal static class StreamThroughput
{
    private const int BodyContentLength = 64 << 20;

    // Batches of about 1 MiB of records (at least one), as the streams make them.
    private const int BatchBytes = 1 << 20;

    public static int Run(string[] args)
    {
        string? Value(string name) => args.SkipWhile(arg => arg != name).Skip(1).FirstOrDefault();
        string codingName = Value("--coding") ?? "gcmsiv";
        ContentCoding coding = codingName.Equals("gcmsiv", StringComparison.OrdinalIgnoreCase)
            ? ContentCoding.Aes256GcmSiv
            : ContentEncryption.TryGetCoding(codingName, out ContentCoding named) ? named : throw new ArgumentException($"Unknown coding '{codingName}'.");
        int recordSize = int.Parse(Value("--record-size") ?? "65536", CultureInfo.InvariantCulture);
        long size = long.Parse(Value("--size") ?? (1L << 30).ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
        int threads = int.Parse(Value("--threads") ?? "0", CultureInfo.InvariantCulture);
        Run(coding, recordSize, size);
        if (threads > 0)
        {
            RunBatches(coding, recordSize, size, threads);
        }

        return 0;
    }

    private static void Run(ContentCoding coding, int recordSize, long size)
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        byte[] buffer = RandomNumberGenerator.GetBytes(1 << 20);
        string name = ContentEncryption.GetName(coding);

        // The plaintext comes from 64 MiB of memory, cycled, as the ciphertext does for decrypt below:
        // a 1 GiB file's content is in memory, not in the CPU's caches, so neither is the benchmark's.
        byte[] plaintext = RandomNumberGenerator.GetBytes((int)Math.Min(BodyContentLength, size));
        var stopwatch = Stopwatch.StartNew();
        using (var encrypting = new ContentEncryptingStream(Stream.Null, key, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize }))
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
        byte[] body = ContentEncryption.Encrypt(content, key, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize });
        stopwatch.Restart();
        long decrypted = 0;
        while (decrypted < size)
        {
            using var decrypting = new ContentDecryptingStream(new MemoryStream(body, writable: false), key, new ContentEncodingOptions { Coding = coding });
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
        string name = ContentEncryption.GetName(coding);
        int records = Math.Max(1, BatchBytes / recordSize);
        using var encryptor = new ContentEncryptor(key, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize });
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
        using var first = new ContentEncryptor(key, new ContentEncodingOptions { Coding = coding, RecordSize = recordSize });
        first.EncryptRecords(plaintext.AsMemory(0, batchData), sealedBatch, threads);
        byte[] plaintexts = new byte[records * (recordSize - ContentEncryption.TagSize)];
        int[] lengths = new int[records];
        stopwatch.Restart();
        done = 0;
        for (; done < size; done += batchData)
        {
            using var decryptor = new ContentDecryptor(first.Header, key, new ContentEncodingOptions { Coding = coding });
            decryptor.DecryptRecords(sealedBatch, plaintexts, lengths, threads);
        }

        Report(FormattableString.Invariant($"decrypt-batch threads={threads}"), name, recordSize, done, stopwatch.Elapsed);
    }

    private static void Report(string operation, string coding, int recordSize, long bytes, TimeSpan elapsed) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{operation} in-memory coding={coding} rs={recordSize} bytes={bytes} seconds={elapsed.TotalSeconds:0.000} MB/s={bytes / elapsed.TotalSeconds / 1e6:0}"));
}
