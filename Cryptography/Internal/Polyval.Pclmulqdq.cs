// POLYVAL (RFC 8452 section 3) with the x64 carry-less multiply PCLMULQDQ on 128-bit vectors.
//
// Field elements are 128-bit little-endian values, so a block loads straight into a vector with no
// byte reversal (the advantage POLYVAL has over GHASH). dot(a, b) = a * b * x^-128 mod
// x^128 + x^127 + x^126 + x^121 + 1: a 256-bit carry-less product, then a Montgomery reduction by
// x^128 in two folds of 64 bits each.
//
// Above 8 blocks, H^1..H^8 are precomputed and 8 blocks share one reduction:
//   acc' = (acc ^ X1)*H^8 ^ X2*H^7 ^ ... ^ X8*H^1, reduced once (reduction is linear),
// each product by Karatsuba (3 multiplies) with (h.lo ^ h.hi) precomputed per power.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

internal readonly struct PolyvalPclmulqdq : IPolyval
{
    public static bool IsSupported => Pclmulqdq.IsSupported && Sse2.IsSupported;

    public static void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key) =>
        PolyvalClmul.Init(h, blockCount, ref key);

    public static void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks)
    {
        ref Vector128<ulong> table = ref PolyvalClmul.Table(in key);
        ref byte source = ref MemoryMarshal.GetReference(blocks);
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        int length = blocks.Length;
        nuint offset = 0;

        if (PolyvalClmul.HasPowers(in key))
        {
            for (; length >= 128; length -= 128, offset += 128)
            {
                Vector128<ulong> x = Vector128.LoadUnsafe(ref source, offset).AsUInt64() ^ acc;
                Vector128<ulong> power = Unsafe.Add(ref table, PolyvalClmul.PowersIndex);
                Vector128<ulong> karatsuba = Unsafe.Add(ref table, PolyvalClmul.KaratsubaIndex);
                Vector128<ulong> lo = Pclmulqdq.CarrylessMultiply(x, power, 0x00);
                Vector128<ulong> hi = Pclmulqdq.CarrylessMultiply(x, power, 0x11);
                Vector128<ulong> mid = Pclmulqdq.CarrylessMultiply(x ^ PolyvalClmul.SwapHalves(x), karatsuba, 0x00);

                // Blocks 2..8 against H^7..H^1: products accumulate unreduced.
                for (int i = 1; i < 8; i++)
                {
                    x = Vector128.LoadUnsafe(ref source, offset + (nuint)(16 * i)).AsUInt64();
                    power = Unsafe.Add(ref table, PolyvalClmul.PowersIndex + i);
                    karatsuba = Unsafe.Add(ref table, PolyvalClmul.KaratsubaIndex + i);
                    lo ^= Pclmulqdq.CarrylessMultiply(x, power, 0x00);
                    hi ^= Pclmulqdq.CarrylessMultiply(x, power, 0x11);
                    mid ^= Pclmulqdq.CarrylessMultiply(x ^ PolyvalClmul.SwapHalves(x), karatsuba, 0x00);
                }

                acc = PolyvalClmul.Reduce(lo, mid ^ lo ^ hi, hi);
            }
        }

        Vector128<ulong> hKey = Unsafe.Add(ref table, PolyvalClmul.HIndex);
        for (; length >= 16; length -= 16, offset += 16)
        {
            acc = PolyvalClmul.Dot(acc ^ Vector128.LoadUnsafe(ref source, offset).AsUInt64(), hKey);
        }

        acc.AsByte().CopyTo(accumulator);
    }
}

/// <summary>The PCLMULQDQ arithmetic both x64 POLYVAL backends share.</summary>
internal static class PolyvalClmul
{
    // PolyvalKey as 16-byte entries: H^8..H^1 at 0..7 (so block i of a group of 8 meets entry i,
    // and a 256-bit load of entries 2j, 2j+1 pairs with blocks 2j, 2j+1), then their Karatsuba
    // halves-XOR at 8..15 (both 64-bit halves hold h.lo ^ h.hi), then a flag.
    public const int PowersIndex = 0;
    public const int HIndex = 7;
    public const int KaratsubaIndex = 8;
    private const int FlagIndex = 16;

    public static void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        ref Vector128<ulong> table = ref Table(in key);
        Vector128<ulong> hKey = Vector128.Create<byte>(h).AsUInt64();
        Unsafe.Add(ref table, HIndex) = hKey;
        bool powers = blockCount >= 8;
        if (powers)
        {
            Vector128<ulong> power = hKey;
            for (int i = HIndex; ; i--)
            {
                Unsafe.Add(ref table, i) = power;
                Unsafe.Add(ref table, KaratsubaIndex + i) = power ^ SwapHalves(power);
                if (i == PowersIndex)
                {
                    break;
                }

                power = Dot(power, hKey);
            }
        }

        Unsafe.Add(ref table, FlagIndex) = Vector128.Create(powers ? 1UL : 0UL);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool HasPowers(in PolyvalKey key) => Unsafe.Add(ref Table(in key), FlagIndex).ToScalar() != 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ref Vector128<ulong> Table(in PolyvalKey key) =>
        ref Unsafe.As<PolyvalKey, Vector128<ulong>>(ref Unsafe.AsRef(in key));

    /// <summary>dot(a, b) for one pair: schoolbook (4 multiplies beat Karatsuba's extra XORs for a single product).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Dot(Vector128<ulong> a, Vector128<ulong> b)
    {
        Vector128<ulong> lo = Pclmulqdq.CarrylessMultiply(a, b, 0x00);
        Vector128<ulong> hi = Pclmulqdq.CarrylessMultiply(a, b, 0x11);
        Vector128<ulong> mid = Pclmulqdq.CarrylessMultiply(a, b, 0x01) ^ Pclmulqdq.CarrylessMultiply(a, b, 0x10);
        return Reduce(lo, mid, hi);
    }

    /// <summary>
    /// Montgomery reduction of the 256-bit product hi:lo (+ mid shifted by 64) by x^128. Each fold
    /// multiplies the low 64 bits by 0xC200000000000000 (x^63 + x^62 + x^57: the terms of the
    /// field polynomial x^127 + x^126 + x^121 shifted down by 64) and adds it one word higher,
    /// which cancels those 64 bits; two folds clear the low 128 bits, leaving the result in the top.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Reduce(Vector128<ulong> lo, Vector128<ulong> mid, Vector128<ulong> hi)
    {
        lo ^= Sse2.ShiftLeftLogical128BitLane(mid, 8);
        hi ^= Sse2.ShiftRightLogical128BitLane(mid, 8);
        Vector128<ulong> polynomial = Vector128.Create(1UL, 0xC200000000000000UL);
        lo = SwapHalves(lo) ^ Pclmulqdq.CarrylessMultiply(lo, polynomial, 0x10);
        lo = SwapHalves(lo) ^ Pclmulqdq.CarrylessMultiply(lo, polynomial, 0x10);
        return hi ^ lo;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> SwapHalves(Vector128<ulong> x) => Sse2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
