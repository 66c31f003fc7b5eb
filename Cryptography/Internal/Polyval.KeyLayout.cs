// The layout of PolyvalKey that the carry-less-multiply backends share (Polyval.Clmul.cs and
// Polyval.Vpclmulqdq.cs): where each power of H and its Karatsuba half lives.
//
// It is written with the portable Vector128 API only. An instruction-set intrinsic here would be
// compiled into every backend and throw PlatformNotSupportedException on the others: that is how
// the ARM64 backend once called an x86 shuffle and crashed at start-up on linux-arm64.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cryptography.Internal;

/// <summary>The POLYVAL key table shared by the x64 and ARM64 carry-less-multiply backends.</summary>
internal static class PolyvalKeyLayout
{
    // PolyvalKey as 16-byte entries: entry 16 - k holds H^k (k = 1..16), so the blocks of a group
    // meet consecutive entries in order and a 256-bit load of entries 2j, 2j+1 pairs with two
    // consecutive blocks. Entries 16..31 hold the same powers' Karatsuba halves (both 64-bit halves
    // equal to h.lo ^ h.hi); entry 32 holds how many powers were computed (1, 8 or 16), and entry 33
    // holds H, which the paths that multiply by H alone read. With one power (under 8 blocks) Init
    // writes only entries 32 and 33, so a short message's wipe covers those two, not entries 15 to 32.
    public const int MaxPowers = 16;
    public const int KaratsubaIndex = 16;
    private const int CountIndex = 32;
    private const int HIndex = 33;

    /// <summary>How many powers of H pay for themselves on <paramref name="blockCount"/> blocks.</summary>
    public static int PowersFor(int blockCount) => blockCount >= 16 ? 16 : blockCount >= 8 ? 8 : 1;

    /// <summary>
    /// Bytes before the first entry Init writes for <paramref name="blockCount"/> blocks: H^n at entry
    /// 16 - n with n powers, the count at entry 32 with one.
    /// </summary>
    public static int UnusedPrefixBytes(int blockCount)
    {
        int powers = PowersFor(blockCount);
        return (powers == 1 ? CountIndex : PowerIndex(powers)) * 16;
    }

    /// <summary>Stores H where the one-block paths read it (entry 33), whatever the number of powers.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void StoreH(ref Vector128<ulong> table, Vector128<ulong> h) => Unsafe.Add(ref table, HIndex) = h;

    /// <summary>H, as <see cref="StoreH"/> stored it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> H(ref Vector128<ulong> table) => Unsafe.Add(ref table, HIndex);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int PowerIndex(int exponent) => MaxPowers - exponent;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Store(ref Vector128<ulong> table, int exponent, Vector128<ulong> power)
    {
        Unsafe.Add(ref table, PowerIndex(exponent)) = power;
        Unsafe.Add(ref table, KaratsubaIndex + PowerIndex(exponent)) = power ^ Vector128.Shuffle(power, Vector128.Create(1UL, 0UL));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Power(ref Vector128<ulong> table, int exponent) => Unsafe.Add(ref table, PowerIndex(exponent));

    public static void SetPowerCount(ref Vector128<ulong> table, int count) =>
        Unsafe.Add(ref table, CountIndex) = Vector128.Create((ulong)count);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int PowerCount(in PolyvalKey key) => (int)Unsafe.Add(ref Table(in key), CountIndex).ToScalar();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ref Vector128<ulong> Table(in PolyvalKey key) =>
        ref Unsafe.As<PolyvalKey, Vector128<ulong>>(ref Unsafe.AsRef(in key));
}
