// What the shared test sources call that .NET Framework 4.7.2 lacks, under the same names (C# 14
// static extension members), so the sources compile unchanged for the Mono leg.

using System;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;

namespace Tests
{
    internal static class FrameworkExtensions
    {
        extension(Convert)
        {
            public static string ToHexStringLower(byte[] bytes) => string.Concat(bytes.Select(b => b.ToString("x2")));

            public static string ToHexStringLower(ReadOnlySpan<byte> bytes) => ToHexStringLower(bytes.ToArray());

            public static string ToHexString(byte[] bytes) => string.Concat(bytes.Select(b => b.ToString("X2")));

            public static byte[] FromHexString(string hex)
            {
                if (hex.Length % 2 != 0)
                {
                    throw new FormatException("odd number of hex digits");
                }

                byte[] bytes = new byte[hex.Length / 2];
                for (int i = 0; i < bytes.Length; i++)
                {
                    bytes[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
                }

                return bytes;
            }
        }

        extension(RandomNumberGenerator)
        {
            public static byte[] GetBytes(int count)
            {
                byte[] bytes = new byte[count];
                using (var generator = RandomNumberGenerator.Create())
                {
                    generator.GetBytes(bytes);
                }

                return bytes;
            }
        }

        extension(BitConverter)
        {
            public static bool TryWriteBytes(Span<byte> destination, int value)
            {
                if (destination.Length < sizeof(int))
                {
                    return false;
                }

                System.Runtime.InteropServices.MemoryMarshal.Write(destination, ref value);
                return true;
            }

            public static bool TryWriteBytes(Span<byte> destination, ulong value)
            {
                if (destination.Length < sizeof(ulong))
                {
                    return false;
                }

                System.Runtime.InteropServices.MemoryMarshal.Write(destination, ref value);
                return true;
            }
        }

        extension(Array)
        {
            public static void Clear(Array array) => Array.Clear(array, 0, array.Length);
        }

        extension(System.Collections.Generic.List<byte> list)
        {
            public void AddRange(ReadOnlySpan<byte> items) => list.AddRange(items.ToArray());
        }

        extension(Span<byte> span)
        {
            public int IndexOfAnyExcept(byte value)
            {
                for (int i = 0; i < span.Length; i++)
                {
                    if (span[i] != value)
                    {
                        return i;
                    }
                }

                return -1;
            }

            public bool ContainsAnyExcept(byte value) => span.IndexOfAnyExcept(value) >= 0;
        }

        extension(System.Text.Encoding encoding)
        {
            public string GetString(ReadOnlySpan<byte> bytes) => encoding.GetString(bytes.ToArray());
        }

        extension(HMACSHA256)
        {
            public static byte[] HashData(byte[] key, byte[] source)
            {
                using var hmac = new HMACSHA256(key);
                return hmac.ComputeHash(source);
            }
        }

        extension(GC)
        {
            /// <summary>Mono has no allocation counter: the allocation checks report ignored, as Allocations.cs's do.</summary>
            public static long GetTotalAllocatedBytes(bool precise)
            {
                NUnit.Framework.Assert.Ignore("Mono has no allocation counter (GC.GetTotalAllocatedBytes).");
                return 0;
            }

            public static long GetAllocatedBytesForCurrentThread()
            {
                NUnit.Framework.Assert.Ignore("Mono has no per-thread allocation counter (GC.GetAllocatedBytesForCurrentThread).");
                return 0;
            }
        }

        extension(System.Threading.Tasks.ValueTask)
        {
            public static System.Threading.Tasks.ValueTask<T> FromResult<T>(T result) => new(result);
        }

        extension(string text)
        {
            public string[] Split(char separator, StringSplitOptions options) => text.Split([separator], options);
        }

        extension(ReadOnlySpan<byte> span)
        {
            public int CommonPrefixLength(ReadOnlySpan<byte> other)
            {
                int length = Math.Min(span.Length, other.Length);
                for (int i = 0; i < length; i++)
                {
                    if (span[i] != other[i])
                    {
                        return i;
                    }
                }

                return length;
            }
        }

        extension(System.IO.Stream stream)
        {
            /// <summary>.NET 7's ReadExactly, over the library's span Read (Platform/NetStandard/RecordLayerBases.cs).</summary>
            public void ReadExactly(Span<byte> buffer)
            {
                for (int total = 0; total < buffer.Length;)
                {
                    int read = stream.Read(buffer[total..]);
                    if (read == 0)
                    {
                        throw new System.IO.EndOfStreamException();
                    }

                    total += read;
                }
            }
        }

        extension(System.Threading.CancellationTokenSource source)
        {
            /// <summary>.NET 8's CancelAsync: here the callbacks run before it returns, as Cancel's do.</summary>
            public System.Threading.Tasks.Task CancelAsync()
            {
                source.Cancel();
                return System.Threading.Tasks.Task.CompletedTask;
            }
        }

        extension(System.Threading.Tasks.ValueTask)
        {
            public static System.Threading.Tasks.ValueTask CompletedTask => default;
        }

        extension(System.Threading.ThreadPool)
        {
            /// <summary>
            /// .NET Core 3.0's count of the work items waiting for a pool thread. Mono's ThreadPool is .NET
            /// Framework's reference source, whose non-public GetQueuedWorkItems lists the same queues (the
            /// global one and each thread's local one); read by reflection, failing (MissingMethodException)
            /// if a runtime lacks it.
            /// </summary>
            public static long PendingWorkItemCount
            {
                get
                {
                    var queued = typeof(System.Threading.ThreadPool).GetMethod("GetQueuedWorkItems", System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.NonPublic)
                        ?? throw new MissingMethodException(nameof(System.Threading.ThreadPool), "GetQueuedWorkItems");
                    return ((System.Collections.IEnumerable)queued.Invoke(null, null)!).Cast<object>().LongCount();
                }
            }
        }

        extension(System.Net.Http.HttpClient client)
        {
            /// <summary>.NET Framework's HttpClient has no synchronous Send: a test of it reports ignored, not passed.</summary>
            public System.Net.Http.HttpResponseMessage Send(System.Net.Http.HttpRequestMessage request, System.Net.Http.HttpCompletionOption completionOption = System.Net.Http.HttpCompletionOption.ResponseContentRead)
            {
                NUnit.Framework.Assert.Ignore(".NET Framework's HttpClient has no synchronous Send; checked by the net10.0 legs");
                return null!;
            }
        }

        extension(System.Net.Http.HttpContent content)
        {
            public System.IO.Stream ReadAsStream() => content.ReadAsStream(System.Threading.CancellationToken.None);
        }

        extension(System.Net.Http.HttpRequestException exception)
        {
            /// <summary>.NET 7's HttpRequestError: the library's netstandard2.0 build throws its own HttpRequestException,
            /// derived from .NET Framework's, which carries it (Platform/NetStandard/RecordLayerBases.cs).</summary>
            public Cryptography.HttpRequestError HttpRequestError => (exception as Cryptography.HttpRequestException)?.HttpRequestError ?? Cryptography.HttpRequestError.Unknown;

            /// <summary>.NET 5's StatusCode, as HttpRequestError.</summary>
            public System.Net.HttpStatusCode? StatusCode => (exception as Cryptography.HttpRequestException)?.StatusCode;
        }

        extension(Enum)
        {
            public static TEnum[] GetValues<TEnum>()
                where TEnum : struct, Enum => (TEnum[])Enum.GetValues(typeof(TEnum));
        }
    }
}

namespace System.Runtime.CompilerServices
{
    /// <summary>What the compiler calls for array[range] (in .NET's RuntimeHelpers since .NET Core 3.0).</summary>
    internal static class RuntimeHelpers
    {
        public static T[] GetSubArray<T>(T[] array, Range range)
        {
            (int offset, int length) = range.GetOffsetAndLength(array.Length);
            T[] result = new T[length];
            Array.Copy(array, offset, result, 0, length);
            return result;
        }
    }
}

namespace System.Runtime.InteropServices
{
    /// <summary>.NET 5's CollectionsMarshal.AsSpan: the list's backing array, read by reflection.</summary>
    internal static class CollectionsMarshal
    {
        public static Span<T> AsSpan<T>(System.Collections.Generic.List<T> list)
        {
            var items = (T[])typeof(System.Collections.Generic.List<T>).GetField("_items", Reflection.BindingFlags.Instance | Reflection.BindingFlags.NonPublic)!.GetValue(list)!;
            return items.AsSpan(0, list.Count);
        }
    }
}

namespace System.Buffers.Text
{
    /// <summary>.NET 9's Base64Url, for the tests' RFC 8188 examples: base64 with - and _ and no padding.</summary>
    internal static class Base64Url
    {
        public static byte[] DecodeFromChars(string text)
        {
            string base64 = text.Replace('-', '+').Replace('_', '/');
            return Convert.FromBase64String(base64.PadRight(base64.Length + ((4 - (base64.Length % 4)) % 4), '='));
        }

        public static string EncodeToString(ReadOnlySpan<byte> bytes) =>
            Convert.ToBase64String(bytes.ToArray()).TrimEnd('=').Replace('+', '-').Replace('/', '_');
    }
}

namespace System.Threading.Tasks
{
    /// <summary>.NET 5's non-generic TaskCompletionSource, over the generic one.</summary>
    internal sealed class TaskCompletionSource(TaskCreationOptions creationOptions)
    {
        private readonly TaskCompletionSource<bool> _inner = new(creationOptions);

        public Task Task => _inner.Task;

        public void SetResult() => _inner.SetResult(true);

        public bool TrySetResult() => _inner.TrySetResult(true);

        public bool TrySetException(Exception exception) => _inner.TrySetException(exception);

        public bool TrySetCanceled() => _inner.TrySetCanceled();
    }
}
