// The ways a body can be decoded, so that every rule is checked on each of them: the one-shot
// calls (array and span) and the decrypting stream, synchronous and asynchronous, with small and
// large reads (large reads decrypt straight into the caller's buffer, small ones through the record
// buffer). Each returns the content, or throws; `released` is what a stream had returned before it threw.

using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Tests.ContentEncodingTests;

public enum DecodePath
{
    OneShotArray,
    OneShotSpan,
    StreamSmallReads,
    StreamLargeReads,
    StreamAsyncSmallReads,
    StreamAsyncLargeReads,
}

internal static class Decoders
{
    public static IEnumerable<DecodePath> All => Enum.GetValues<DecodePath>();

    public static byte[] Decode(DecodePath path, byte[] body, byte[] ikm, ContentCoding coding, List<byte>? released = null, int maxRecordSize = ContentEncryption.MaxRecordSize)
    {
        switch (path)
        {
            case DecodePath.OneShotArray:
                return ContentEncryption.Decrypt(body, ikm, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize });
            case DecodePath.OneShotSpan:
                byte[] destination = new byte[Math.Max(0, body.Length)];
                try
                {
                    int length = ContentEncryption.Decrypt(body, ikm, destination, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize });
                    return destination.AsSpan(0, length).ToArray();
                }
                catch
                {
                    released?.AddRange(destination);
                    throw;
                }

            case DecodePath.StreamSmallReads:
                return ReadAll(new ContentDecryptingStream(new MemoryStream(body), ikm, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize }), 7, released);
            case DecodePath.StreamLargeReads:
                return ReadAll(new ContentDecryptingStream(new MemoryStream(body), ikm, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize }), 1 << 20, released);
            case DecodePath.StreamAsyncSmallReads:
                return Sync(ReadAllAsync(new ContentDecryptingStream(new MemoryStream(body), ikm, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize }), 7, released));
            default:
                return Sync(ReadAllAsync(new ContentDecryptingStream(new MemoryStream(body), ikm, new ContentEncodingOptions { Coding = coding, MaxRecordSize = maxRecordSize }), 1 << 20, released));
        }
    }

    public static byte[] ReadAll(Stream stream, int readSize, List<byte>? released = null)
    {
        using (stream)
        {
            var content = new List<byte>();
            byte[] buffer = new byte[readSize];
            try
            {
                int read;
                // The buffer is cleared before each read, so after a failed read it shows what that read wrote.
                while (Clear(buffer) && (read = stream.Read(buffer, 0, buffer.Length)) > 0)
                {
                    content.AddRange(buffer.AsSpan(0, read));
                }
            }
            catch
            {
                released?.AddRange(content);
                released?.AddRange(buffer);   // what a failed read left in the caller's buffer
                throw;
            }

            return [.. content];
        }
    }

    public static async Task<byte[]> ReadAllAsync(Stream stream, int readSize, List<byte>? released = null)
    {
        await using (stream.ConfigureAwait(false))
        {
            var content = new List<byte>();
            byte[] buffer = new byte[readSize];
            try
            {
                int read;
                while (Clear(buffer) && (read = await stream.ReadAsync(buffer)) > 0)
                {
                    content.AddRange(buffer.AsSpan(0, read));
                }
            }
            catch
            {
                released?.AddRange(content);
                released?.AddRange(buffer);
                throw;
            }

            return [.. content];
        }
    }

    private static bool Clear(byte[] buffer)
    {
        Array.Clear(buffer);
        return true;
    }

    private static byte[] Sync(Task<byte[]> task)
    {
        try
        {
            return task.GetAwaiter().GetResult();
        }
        catch (AggregateException exception) when (exception.InnerException is not null)
        {
            throw exception.InnerException;
        }
    }
}
