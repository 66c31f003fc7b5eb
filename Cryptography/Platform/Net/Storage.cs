// Fixed-size storage the algorithm files keep keys and state in, for net10.0: inline arrays, so a
// struct of N elements is N elements long and indexing it is bounds-checked. The netstandard2.0 build
// has the same types with the same members (Platform/NetStandard/Storage.cs), since inline arrays
// need the .NET 8+ runtime; the shared files use only the indexer and AsSpan.

using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cryptography.Internal;

/// <summary>Storage for an expanded AES key in whatever form a backend wants it.</summary>
/// <remarks>
/// 120 64-bit words (960 bytes) is the largest form used: the bitsliced portable backend keeps
/// 8 words per round key and AES-256 has 15 round keys. Hardware backends use the first
/// 15 x 16 bytes as ordinary FIPS-197 round keys. Always wiped by its owner after use.
/// </remarks>
[InlineArray(Length)]
internal struct AesKeySchedule
{
    public const int Length = 120;
    private ulong _element0;

    /// <summary>The words as a span (of the storage itself, not a copy).</summary>
    [UnscopedRef]
    public readonly Span<ulong> AsSpan() => MemoryMarshal.CreateSpan(ref Unsafe.AsRef(in _element0), Length);
}

/// <summary>Storage for a prepared POLYVAL key (H and, for wide backends, its powers).</summary>
/// <remarks>68 words: H^16..H^1 (32 words), their Karatsuba halves (32 words), a count and H again (Polyval.KeyLayout.cs).</remarks>
[InlineArray(Length)]
internal struct PolyvalKey
{
    public const int Length = 68;
    private ulong _element0;

    /// <summary>The words as a span (of the storage itself, not a copy).</summary>
    [UnscopedRef]
    public readonly Span<ulong> AsSpan() => MemoryMarshal.CreateSpan(ref Unsafe.AsRef(in _element0), Length);
}

/// <summary>GcmSiv's per-message scratch bytes (its layout is in GcmSiv.cs).</summary>
[InlineArray(Length)]
internal struct ScratchBuffer
{
    public const int Length = 192;
    private byte _element0;

    /// <summary>The bytes as a span (of the storage itself, not a copy).</summary>
    [UnscopedRef]
    public readonly Span<byte> AsSpan() => MemoryMarshal.CreateSpan(ref Unsafe.AsRef(in _element0), Length);
}

/// <summary>Arrays the garbage collector never moves, so it leaves no copy of a key behind when it compacts.</summary>
internal static class PinnedArray
{
    public static T[] Allocate<T>(int length) => GC.AllocateArray<T>(length, pinned: true);

    /// <summary>Called once the array is wiped and no longer used; the runtime unpins it by itself when it is collected.</summary>
    public static void Release<T>(T[]? array) => _ = array;
}
