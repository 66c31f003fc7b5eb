// POLYVAL (RFC 8452 section 3) with the x64 carry-less multiply PCLMULQDQ on 128-bit vectors.
//
// Field elements are 128-bit little-endian values, so a block loads straight into a vector with no
// byte reversal (the advantage POLYVAL has over GHASH). dot(a, b) = a * b * x^-128 mod
// x^128 + x^127 + x^126 + x^121 + 1: a 256-bit carry-less product, then a Montgomery reduction by
// x^128 in two folds of 64 bits each.
//
// From 8 blocks on, powers of H are precomputed and a group of n blocks shares one reduction:
//   acc' = (acc ^ X1)*H^n ^ X2*H^(n-1) ^ ... ^ Xn*H^1, reduced once (reduction is linear),
// each product by Karatsuba (3 multiplies) with (h.lo ^ h.hi) precomputed per power. The loop is
// bound by the latency of the accumulator chain (multiply, fold, reduce), not by the multiplier,
// so the product that needs the accumulator is added last: the other n-1 do not wait for it.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

internal readonly struct PolyvalPclmulqdq : IPolyval
{
    public static bool IsSupported => Pclmulqdq.IsSupported && Sse2.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public static void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        Vector128<ulong> hKey = Vector128.Create<byte>(h).AsUInt64();
        int powers = PolyvalKeyLayout.PowersFor(blockCount);
        Vector128<ulong> power = hKey;
        for (int exponent = 1; exponent <= Math.Max(powers, 1); exponent++)
        {
            if (exponent > 1)
            {
                power = PolyvalClmul.Dot(power, hKey);
            }

            PolyvalKeyLayout.Store(ref table, exponent, power);
        }

        PolyvalKeyLayout.SetPowerCount(ref table, powers);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        ref byte source = ref MemoryMarshal.GetReference(blocks);
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        int length = blocks.Length;
        nuint offset = 0;

        int powerCount = PolyvalKeyLayout.PowerCount(in key);
        if (powerCount == 16)
        {
            for (; length >= 256; length -= 256, offset += 256)
            {
                acc = Group(ref source, offset, ref table, 16, acc);
            }
        }

        if (powerCount >= 8)
        {
            for (; length >= 128; length -= 128, offset += 128)
            {
                acc = Group(ref source, offset, ref table, 8, acc);
            }
        }

        Vector128<ulong> hKey = Unsafe.Add(ref table, PolyvalKeyLayout.PowerIndex(1));
        for (; length >= 16; length -= 16, offset += 16)
        {
            acc = PolyvalClmul.Dot(acc ^ Vector128.LoadUnsafe(ref source, offset).AsUInt64(), hKey);
        }

        acc.AsByte().CopyTo(accumulator);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Update16(in PolyvalKey key, Vector128<ulong> accumulator, ref byte blocks) =>
        Group(ref blocks, 0, ref PolyvalKeyLayout.Table(in key), 16, accumulator);

    /// <summary>
    /// One group of <paramref name="count"/> blocks: block i meets H^(count - i), at table entry
    /// 16 - count + i. Block 0, which carries the accumulator, is multiplied and added last.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Group(ref byte source, nuint offset, ref Vector128<ulong> table, int count, Vector128<ulong> acc)
    {
        ref Vector128<ulong> powers = ref Unsafe.Add(ref table, PolyvalKeyLayout.PowerIndex(count));
        ref Vector128<ulong> halves = ref Unsafe.Add(ref table, PolyvalKeyLayout.KaratsubaIndex + PolyvalKeyLayout.PowerIndex(count));
        Vector128<ulong> lo = Vector128<ulong>.Zero, mid = Vector128<ulong>.Zero, hi = Vector128<ulong>.Zero;
        Vector128<ulong> x, power;
        for (int i = 1; i < count; i++)
        {
            x = Vector128.LoadUnsafe(ref source, offset + (nuint)(16 * i)).AsUInt64();
            power = Unsafe.Add(ref powers, i);
            lo ^= Pclmulqdq.CarrylessMultiply(x, power, 0x00);
            hi ^= Pclmulqdq.CarrylessMultiply(x, power, 0x11);
            mid ^= Pclmulqdq.CarrylessMultiply(x ^ PolyvalClmul.SwapHalves(x), Unsafe.Add(ref halves, i), 0x00);
        }

        x = Vector128.LoadUnsafe(ref source, offset).AsUInt64() ^ acc;
        lo ^= Pclmulqdq.CarrylessMultiply(x, powers, 0x00);
        hi ^= Pclmulqdq.CarrylessMultiply(x, powers, 0x11);
        mid ^= Pclmulqdq.CarrylessMultiply(x ^ PolyvalClmul.SwapHalves(x), halves, 0x00);
        return PolyvalClmul.Reduce(lo, mid ^ lo ^ hi, hi);
    }
}

/// <summary>The PCLMULQDQ arithmetic the two x64 backends share (the key layout is PolyvalKeyLayout).</summary>
internal static class PolyvalClmul
{
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
