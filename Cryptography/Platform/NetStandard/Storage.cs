// Fixed-size storage the algorithm files keep keys and state in, for netstandard2.0: the same types
// and members as Platform/Net/Storage.cs, as fixed-size buffers, since inline arrays need the .NET 8+
// runtime (Mono and .NET Framework would lay one out as a single element).
//
// AsSpan makes a span from the storage's address: that is sound only while the storage cannot move,
// and every use here is on the stack (GcmSiv's MessageState, the Portable backend's locals) or in an
// array PinnedArray pinned (AesGcmSiv's key schedule). Storage on the garbage-collected heap must be
// reached through the indexer only.

using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cryptography.Internal;

/// <summary>Storage for an expanded AES key in whatever form a backend wants it (see Platform/Net/Storage.cs).</summary>
internal unsafe struct AesKeySchedule
{
    public const int Length = 120;
    private fixed ulong _elements[Length];

    [UnscopedRef]
    public readonly ref ulong this[int index] => ref Unsafe.Add(ref Unsafe.AsRef(in _elements[0]), StorageIndex.Check(index, Length));

    /// <summary>The words as a span of the storage itself: only on the stack or in a pinned array.</summary>
    [UnscopedRef]
    public readonly Span<ulong> AsSpan() => new(Unsafe.AsPointer(ref Unsafe.AsRef(in _elements[0])), Length);
}

/// <summary>Storage for a prepared POLYVAL key (see Platform/Net/Storage.cs).</summary>
internal unsafe struct PolyvalKey
{
    public const int Length = 68;
    private fixed ulong _elements[Length];

    [UnscopedRef]
    public readonly ref ulong this[int index] => ref Unsafe.Add(ref Unsafe.AsRef(in _elements[0]), StorageIndex.Check(index, Length));

    /// <summary>The words as a span of the storage itself: only on the stack or in a pinned array.</summary>
    [UnscopedRef]
    public readonly Span<ulong> AsSpan() => new(Unsafe.AsPointer(ref Unsafe.AsRef(in _elements[0])), Length);
}

/// <summary>GcmSiv's per-message scratch bytes (its layout is in GcmSiv.cs).</summary>
internal unsafe struct ScratchBuffer
{
    public const int Length = 192;
    private fixed byte _elements[Length];

    [UnscopedRef]
    public readonly ref byte this[int index] => ref Unsafe.Add(ref Unsafe.AsRef(in _elements[0]), StorageIndex.Check(index, Length));

    /// <summary>The bytes as a span of the storage itself: only on the stack or in a pinned array.</summary>
    [UnscopedRef]
    public readonly Span<byte> AsSpan() => new(Unsafe.AsPointer(ref Unsafe.AsRef(in _elements[0])), Length);
}

internal static class StorageIndex
{
    /// <summary>The bounds check an inline array's indexer makes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Check(int index, int length) => (uint)index < (uint)length ? index : throw new IndexOutOfRangeException();
}

/// <summary>
/// Arrays the garbage collector never moves, so it leaves no copy of a key behind when it compacts
/// and a span made from their address stays valid: netstandard2.0 has no pinned heap
/// (GC.AllocateArray), so each array is pinned by a GCHandle until <see cref="Release{T}"/>.
/// </summary>
internal static class PinnedArray
{
    private static readonly Dictionary<object, GCHandle> Handles = new(ReferenceEqualityComparer.Instance);

    public static T[] Allocate<T>(int length)
    {
        var array = new T[length];
        lock (Handles)
        {
            Handles.Add(array, GCHandle.Alloc(array, GCHandleType.Pinned));
        }

        return array;
    }

    /// <summary>
    /// Unpins <paramref name="array"/>; called once it is wiped and no longer used (AesGcmSiv's Dispose
    /// or finalizer). Null when a constructor threw before allocating it, and the finalizer still ran.
    /// </summary>
    public static void Release<T>(T[]? array)
    {
        if (array is null)
        {
            return;
        }

        lock (Handles)
        {
            if (Handles.TryGetValue(array, out GCHandle handle))
            {
                Handles.Remove(array);
                handle.Free();
            }
        }
    }

    private sealed class ReferenceEqualityComparer : IEqualityComparer<object>
    {
        public static readonly ReferenceEqualityComparer Instance = new();

        public new bool Equals(object? x, object? y) => ReferenceEquals(x, y);

        public int GetHashCode(object obj) => RuntimeHelpers.GetHashCode(obj);
    }
}
