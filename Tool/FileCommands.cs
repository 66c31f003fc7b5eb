// encrypt and decrypt: a loop over batches of records between the input and the output, in constant
// memory. Each batch is sealed or opened on up to --threads threads with the library's
// ContentEncryptor.EncryptRecords / ContentDecryptor.DecryptRecords, while the next batch is read and
// the previous ones written (Overlap.cs).
//
// Safety on failure: a file output is an OutputFile (written under a temporary name, renamed into
// place only after the last record was written or verified, deleted otherwise). On standard output,
// decrypt writes a record's data only after the record verified (and a record marked as the last only
// once nothing follows it), and a failure exits non-zero; encrypt writes the last record only at the
// end, so that after a failure a decoder sees the body truncated rather than complete.

using System;
using System.Globalization;
using System.Security.Cryptography;
using System.IO;
using System.Threading;

namespace Cryptography.Tool;

internal static class FileCommands
{
    /// <summary>About how much input a batch of records covers: large, so that each read and write moves
    /// many records and a batch splits well across threads, yet small beside the 64 MiB memory goal
    /// (<see cref="ReadDepth"/> + <see cref="WriteDepth"/> buffers of it exist at once). A batch is at
    /// least one record.</summary>
    public const int BatchBytes = 1 << 20;

    /// <summary>Input blocks in the reader's ring: the one the loop works on and up to three read ahead.
    /// On the 2-core VM of docs/tool.md, 1 MiB blocks four deep had the best medians in two interleaved
    /// runs against 2 MiB three deep, 1 MiB three deep and 512 KiB six deep, though those differences
    /// were within the VM's noise; it also takes less memory (7 MiB of buffers) than the design before
    /// it (8 MiB: one 2 MiB block read ahead and one written behind, by a thread-pool task each).</summary>
    public const int ReadDepth = 4;

    /// <summary>Output batches in the writer's ring: the one the loop fills and up to two being written.</summary>
    public const int WriteDepth = 3;

    /// <summary>Records above this size take the in-place path (<see cref="IsLarge"/>).</summary>
    public const int LargeRecordSize = 1 << 20;

    /// <summary>How many records a batch holds at this record size.</summary>
    public static int RecordsPerBatch(int recordSize) => Math.Max(1, BatchBytes / recordSize);

    public static int Encrypt(string keyPath, ContentCoding coding, int recordSize, string? keyId, int threads, string inputPath, string outputPath, bool force, CancellationToken cancellationToken)
    {
        byte[] keyIdBytes = keyId is null ? [] : System.Text.Encoding.UTF8.GetBytes(keyId);
        byte[] key = KeyFile.Read(keyPath);
        try
        {
            using Source source = Source.Open(inputPath);
            using Sink sink = Sink.Open(outputPath, force, mode: null, binaryRefusedOnTerminal: true, cancellationToken);
            using var encryptor = new ContentEncryptor(key, coding, recordSize, keyIdBytes);
            bool show = ProgressDisplay.ShouldShow(sink);
            if (IsLarge(recordSize))
            {
                ProgressDisplay.Run(show, "Encrypting", source.KnownLength, report =>
                    EncryptLargeRecords(encryptor, source, sink, report, cancellationToken));
            }
            else
            {
                int records = RecordsPerBatch(recordSize);
                using var input = new BlockReader(source, records * encryptor.MaxRecordDataLength, ReadDepth);
                using var output = new BatchWriter(sink, records * recordSize, WriteDepth);
                ProgressDisplay.Run(show, "Encrypting", source.KnownLength, report =>
                    EncryptBatches(encryptor, input, output, threads, report, cancellationToken));
                output.Flush();
            }

            // Only now, with every record written, the file is renamed into place. On failure the last
            // record (delimiter 0x02) is never written, so what reached standard output is a truncated
            // body that every decoder rejects.
            sink.Flush();
            cancellationToken.ThrowIfCancellationRequested();
            sink.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    public static int Decrypt(string keyPath, ContentCoding coding, int threads, string inputPath, string outputPath, bool force, CancellationToken cancellationToken)
    {
        byte[] key = KeyFile.Read(keyPath);
        try
        {
            using Source source = Source.Open(inputPath);
            using Sink sink = Sink.Open(outputPath, force, OutputFile.OwnerOnly, binaryRefusedOnTerminal: false, cancellationToken);
            ContentEncodingHeader header;
            try
            {
                header = ReadHeader(source);
            }
            catch (ContentEncodingException exception)
            {
                throw new ToolException(ExitCodes.Data, DescribeFailure(exception, null, source.Name, 0, sink), exception);
            }

            using var decryptor = new ContentDecryptor(header, key, coding);
            bool large = IsLarge(header.RecordSize);
            int records = RecordsPerBatch(header.RecordSize);
            using BlockReader? input = large ? null : new BlockReader(source, records * header.RecordSize, ReadDepth);
            using BatchWriter? output = large ? null : new BatchWriter(sink, records * (header.RecordSize - ContentEncoding.TagSize), WriteDepth);
            long bytesRead = header.Length;
            try
            {
                ProgressDisplay.Run(ProgressDisplay.ShouldShow(sink), "Decrypting", source.KnownLength, report =>
                {
                    if (input is null || output is null)
                    {
                        DecryptLargeRecords(decryptor, source, sink, ref bytesRead, report, cancellationToken);
                    }
                    else
                    {
                        DecryptBatches(decryptor, input, output, threads, ref bytesRead, report, cancellationToken);
                    }
                });
                decryptor.Complete();
            }
            catch (ContentEncodingException exception)
            {
                // What verified before the failure goes out first (on standard output it may be used, and
                // the message counts it); a file output is deleted anyway.
                try
                {
                    output?.Flush();
                }
                catch (ToolException)
                {
                    // The data error is the one to report.
                }

                // Where the failure is: a bad full record ends at its record boundary; a record after the
                // last one, a short final record and a missing last record are at the end of what was read.
                if (exception.RecordIndex is { } index && decryptor.RecordCount <= index)
                {
                    bytesRead = Math.Min(bytesRead, header.Length + ((index + 1) * header.RecordSize));
                }

                throw new ToolException(ExitCodes.Data, DescribeFailure(exception, header, source.Name, bytesRead, sink), exception);
            }

            output?.Flush();
            sink.Flush();
            cancellationToken.ThrowIfCancellationRequested();
            sink.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>Records above 1 MiB would be a batch of their own, and seven buffers of them (read-ahead,
    /// write-behind) would break the memory bound at the 16 MiB maximum: such records are sealed and
    /// opened in place in one record buffer instead, reading and writing on the loop's thread.</summary>
    private static bool IsLarge(int recordSize) => recordSize > LargeRecordSize;

    /// <summary>Seals records above 1 MiB in place in one buffer. As in <see cref="EncryptBatches"/>, a
    /// record is sealed only once it is known whether data follows it: one byte is read ahead.</summary>
    private static void EncryptLargeRecords(ContentEncryptor encryptor, Source source, Sink sink, Action<long>? report, CancellationToken cancellationToken)
    {
        int maxData = encryptor.MaxRecordDataLength;
        byte[] record = GC.AllocateUninitializedArray<byte>(encryptor.RecordSize, pinned: true);
        try
        {
            Span<byte> header = stackalloc byte[ContentEncodingHeader.FixedLength + 255];
            sink.Write(header[..encryptor.Header.WriteTo(header)]);
            long consumed = 0;
            int length = source.ReadAtLeast(record.AsSpan(0, maxData), maxData, throwOnEndOfStream: false);
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                consumed += length;

                // The byte after a full record's data, if there is one, starts the next record.
                bool more = length == maxData && source.ReadAtLeast(record.AsSpan(maxData, 1), 1, throwOnEndOfStream: false) == 1;
                byte next = more ? record[maxData] : (byte)0;
                sink.Write(record.AsSpan(0, encryptor.EncryptRecord(record.AsSpan(0, length), record, isLastRecord: !more)));
                report?.Invoke(consumed);
                if (!more)
                {
                    return;
                }

                record[0] = next;
                length = 1 + source.ReadAtLeast(record.AsSpan(1, maxData - 1), maxData - 1, throwOnEndOfStream: false);
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(record);
        }
    }

    /// <summary>Opens records above 1 MiB in place in one buffer. A record marked as the last is written
    /// only after one more read finds the input at its end.</summary>
    private static void DecryptLargeRecords(ContentDecryptor decryptor, Source source, Sink sink, ref long bytesRead, Action<long>? report, CancellationToken cancellationToken)
    {
        byte[] record = GC.AllocateUninitializedArray<byte>(decryptor.Header.RecordSize, pinned: true);
        Span<byte> after = stackalloc byte[1];
        try
        {
            int length;
            while ((length = source.ReadAtLeast(record, record.Length, throwOnEndOfStream: false)) > 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
                bytesRead += length;
                int dataLength = decryptor.DecryptRecord(record.AsSpan(0, length), record, out bool isLast);
                if (isLast && length == record.Length)
                {
                    // A full-size last record: anything after it fails (the record is not written).
                    if (source.ReadAtLeast(after, 1, throwOnEndOfStream: false) == 1)
                    {
                        bytesRead++;
                        decryptor.DecryptRecord(after, record, out _);
                    }
                }

                sink.Write(record.AsSpan(0, dataLength));
                report?.Invoke(bytesRead);
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(record);
        }
    }

    /// <summary>Seals the input batch by batch. A record is sealed only once data is known to follow it,
    /// so each block's final piece waits (in <c>carry</c>) for the next block, or for the end of the input,
    /// when it becomes the last record.</summary>
    private static void EncryptBatches(ContentEncryptor encryptor, BlockReader input, BatchWriter output, int threads, Action<long>? report, CancellationToken cancellationToken)
    {
        int maxData = encryptor.MaxRecordDataLength;
        byte[] carry = GC.AllocateUninitializedArray<byte>(maxData, pinned: true);
        int carried = 0;
        bool carrying = false;
        try
        {
            output.Append(0, encryptor.Header.WriteTo(output.Buffer.Span));
            output.Submit();

            long nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
            ReadOnlyMemory<byte> block;
            while (!(block = input.ReadBlock()).IsEmpty)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Memory<byte> buffer = output.Buffer;
                int written = 0;
                if (carrying)
                {
                    // Full (a short block only comes last), and more data follows: not the last record.
                    written = encryptor.EncryptRecord(carry.AsSpan(0, carried), buffer.Span, isLastRecord: false);
                }

                // Every whole piece but the block's final one is followed by data in this block.
                int sealNow = (block.Length - 1) / maxData * maxData;
                written += encryptor.EncryptRecords(block[..sealNow], buffer[written..], threads);
                block[sealNow..].CopyTo(carry);
                carried = block.Length - sealNow;
                carrying = true;
                output.Append(0, written);
                output.Submit();
                if (report is not null && Environment.TickCount64 >= nextReport)
                {
                    report(input.BytesConsumed);
                    nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
                }
            }

            cancellationToken.ThrowIfCancellationRequested();
            output.Append(0, encryptor.EncryptRecord(carry.AsSpan(0, carried), output.Buffer.Span, isLastRecord: true));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(carry);
        }
    }

    /// <summary>Opens the input batch by batch. A record marked as the last is held back until the input
    /// is known to end after it: data after the last record fails, and then that record is not released.</summary>
    private static void DecryptBatches(ContentDecryptor decryptor, BlockReader input, BatchWriter output, int threads, ref long bytesRead, Action<long>? report, CancellationToken cancellationToken)
    {
        int recordSize = decryptor.Header.RecordSize;
        int stride = recordSize - ContentEncoding.TagSize;
        int[] lengths = new int[RecordsPerBatch(recordSize)];
        long nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
        ReadOnlyMemory<byte> block = input.ReadBlock();
        while (!block.IsEmpty)
        {
            cancellationToken.ThrowIfCancellationRequested();
            bytesRead += block.Length;
            Memory<byte> buffer = output.Buffer;
            if (decryptor.IsComplete)
            {
                // Data after the record marked as the last, which was therefore held back: this fails.
                decryptor.DecryptRecord(block.Span[..Math.Min(block.Length, recordSize)], buffer.Span, out _);
            }

            int count = block.Length / recordSize;
            long first = decryptor.RecordCount;
            try
            {
                decryptor.DecryptRecords(block[..(count * recordSize)], buffer, lengths, threads);
            }
            catch (ContentEncodingException)
            {
                // Release the records that verified before the bad one, except one marked as the last.
                int verified = (int)(decryptor.RecordCount - first) - (decryptor.IsComplete ? 1 : 0);
                for (int i = 0; i < verified; i++)
                {
                    output.Append(i * stride, lengths[i]);
                }

                throw;
            }

            int released = decryptor.IsComplete ? count - 1 : count;
            for (int i = 0; i < released; i++)
            {
                output.Append(i * stride, lengths[i]);
            }

            (int Start, int Length) last = decryptor.IsComplete ? ((count - 1) * stride, lengths[count - 1]) : default;
            if (block.Length > count * recordSize)
            {
                // A short block ends the input, so this is the final record: it must be marked as the last.
                ReadOnlySpan<byte> record = block.Span[(count * recordSize)..];
                int length = decryptor.DecryptRecord(record, buffer.Span[(count * stride)..], out _);
                last = (count * stride, length);
            }

            ReadOnlyMemory<byte> next = input.ReadBlock();
            if (decryptor.IsComplete && next.IsEmpty)
            {
                output.Append(last.Start, last.Length);
            }

            output.Submit();
            block = next;
            if (report is not null && Environment.TickCount64 >= nextReport)
            {
                report(input.BytesConsumed);
                nextReport = Environment.TickCount64 + ProgressDisplay.IntervalMilliseconds;
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>Reads the header: its 21 fixed bytes, then the key id they announce.</summary>
    private static ContentEncodingHeader ReadHeader(Source source)
    {
        Span<byte> header = stackalloc byte[ContentEncodingHeader.FixedLength + 255];
        int read = source.ReadAtLeast(header[..ContentEncodingHeader.FixedLength], ContentEncodingHeader.FixedLength, throwOnEndOfStream: false);
        if (ContentEncodingHeader.TryGetLength(header[..read], out int length) && length > read)
        {
            read += source.ReadAtLeast(header[read..length], length - read, throwOnEndOfStream: false);
        }

        return ContentEncodingHeader.Parse(header[..read]);
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
