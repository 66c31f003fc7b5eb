// The record buffers of ContentEncryptingStream and ContentDecryptingStream hold plaintext. Arrays from
// ArrayPool<byte>.Shared are ordinary heap objects: a compacting garbage collection may move one and leave the
// old bytes behind, where no wipe reaches them. These buffers are allocated pinned (the pinned object heap never
// moves them), wiped when they come back, and pooled by power-of-two size so that a server creating a stream per
// request does not allocate per request. Each array has Slack bytes beyond its power of two: a decrypting stream
// reads a record and one byte more (to know whether the record is the body's last), and rs + 1 for rs = 64 KiB
// must not take 128.

using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Numerics;
using System.Security.Cryptography;
using System.Threading;
using Cryptography.ContentEncoding;

namespace Cryptography.Internal;

internal static class PinnedBuffers
{
    private const int MinShift = 12;        // 4 KiB: the smallest size handed out
    private const int MaxPooledShift = 20;  // 1 MiB: larger buffers are allocated and dropped (rare, and their cost is small next to the data they carry)
    private const int Slack = 16;

    private static readonly ConcurrentQueue<byte[]>[] Pools = [.. Enumerable.Range(MinShift, MaxPooledShift - MinShift + 1).Select(_ => new ConcurrentQueue<byte[]>())];
    private static readonly int[] Counts = new int[Pools.Length];

    /// <summary>The pools, for the tests that check no pooled buffer keeps plaintext.</summary>
    internal static ConcurrentQueue<byte[]>[] PoolsForTests => Pools;

    /// <summary>A pinned copy of <paramref name="source"/>, for a key the owner wipes: the GC never moves it, so leaves no copy behind.</summary>
    public static byte[] Copy(ReadOnlySpan<byte> source)
    {
        byte[] copy = GC.AllocateArray<byte>(source.Length, pinned: true);
        source.CopyTo(copy);
        return copy;
    }

    /// <summary>A pinned array of at least <paramref name="minimumLength"/> bytes; its contents are unspecified (never plaintext: that is wiped on return).</summary>
    public static byte[] Rent(int minimumLength)
    {
        int shift = Math.Max(MinShift, 32 - BitOperations.LeadingZeroCount((uint)Math.Max(minimumLength - Slack, 1) - 1));
        int index = shift - MinShift;
        if (shift <= MaxPooledShift && Pools[index].TryDequeue(out byte[]? array))
        {
            Interlocked.Decrement(ref Counts[index]);
            return array;
        }

        return GC.AllocateUninitializedArray<byte>(shift <= MaxPooledShift ? (1 << shift) + Slack : minimumLength, pinned: true);
    }

    /// <summary>Wipes the first <paramref name="writtenLength"/> bytes of <paramref name="array"/> (all of
    /// it when <see langword="null"/>), the only ones that may hold plaintext (the rest came from the pool
    /// wiped, or never held any; ciphertext needs none), and keeps it for reuse if its size class has room.
    /// A large buffer of which a short body used a part costs a wipe of that part only.</summary>
    public static void Return(byte[] array, int? writtenLength = null)
    {
        CryptographicOperations.ZeroMemory(array.AsSpan(0, writtenLength ?? array.Length));

        int size = array.Length - Slack;
        if (!BitOperations.IsPow2(size) || size < (1 << MinShift) || size > (1 << MaxPooledShift))
        {
            return;
        }

        int index = BitOperations.Log2((uint)size) - MinShift;
        // Up to 64 KiB (record buffers): 16 per size, for servers with many small bodies at once; larger (the
        // streams' batch buffers): 8, so that one large stream after another reuses them, while at most a few
        // MiB stay pinned when none is in use.
        int capacity = index <= 16 - MinShift ? 16 : 8;
        if (Interlocked.Increment(ref Counts[index]) <= capacity)
        {
            Pools[index].Enqueue(array);
        }
        else
        {
            Interlocked.Decrement(ref Counts[index]);
        }
    }
}
