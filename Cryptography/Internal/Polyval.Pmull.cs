// POLYVAL (RFC 8452 section 3) with the ARMv8 64x64 polynomial multiply PMULL/PMULL2. Same
// arithmetic as Polyval.Pclmulqdq.cs and the key layout of Polyval.KeyLayout.cs: schoolbook for one
// block, and above 8 blocks H^8..H^1 with one Montgomery reduction per 8 blocks and Karatsuba
// products. Only AdvSimd and Arm.Aes intrinsics here: an x86 one compiles but throws on ARM64.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using ArmAes = System.Runtime.Intrinsics.Arm.Aes;

namespace Cryptography.Internal;

internal readonly struct PolyvalPmull : IPolyval
{
    public static bool IsSupported => ArmAes.IsSupported && AdvSimd.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public static void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        Vector128<ulong> hKey = Vector128.Create<byte>(h).AsUInt64();

        // This backend aggregates groups of 8 only, so it never needs more than H^8.
        int powers = Math.Min(PolyvalKeyLayout.PowersFor(blockCount), 8);
        Vector128<ulong> power = hKey;
        for (int exponent = 1; exponent <= powers; exponent++)
        {
            if (exponent > 1)
            {
                power = Dot(power, hKey);
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

        if (PolyvalKeyLayout.PowerCount(in key) >= 8)
        {
            for (; length >= 128; length -= 128, offset += 128)
            {
                acc = Group8(in key, acc, ref Unsafe.Add(ref source, offset));
            }
        }

        Vector128<ulong> hKey = Unsafe.Add(ref table, PolyvalKeyLayout.PowerIndex(1));
        for (; length >= 16; length -= 16, offset += 16)
        {
            acc = Dot(acc ^ Vector128.LoadUnsafe(ref source, offset).AsUInt64(), hKey);
        }

        acc.AsByte().CopyTo(accumulator);
    }

    /// <summary>Two groups of 8 (this backend aggregates 8 blocks per reduction).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Update16(in PolyvalKey key, Vector128<ulong> accumulator, ref byte blocks) =>
        Group8(in key, Group8(in key, accumulator, ref blocks), ref Unsafe.Add(ref blocks, 128));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Group8(in PolyvalKey key, Vector128<ulong> accumulator, ref byte blocks)
    {
        // Block i of 8 meets H^(8-i); the accumulator's product is added last (see Polyval.Pclmulqdq.cs).
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        ref Vector128<ulong> powers = ref Unsafe.Add(ref table, PolyvalKeyLayout.PowerIndex(8));
        ref Vector128<ulong> halves = ref Unsafe.Add(ref table, PolyvalKeyLayout.KaratsubaIndex + PolyvalKeyLayout.PowerIndex(8));
        Vector128<ulong> lo = Vector128<ulong>.Zero, mid = Vector128<ulong>.Zero, hi = Vector128<ulong>.Zero;
        Vector128<ulong> x, power;
        for (int i = 1; i < 8; i++)
        {
            x = Vector128.LoadUnsafe(ref blocks, (nuint)(16 * i)).AsUInt64();
            power = Unsafe.Add(ref powers, i);
            lo ^= ArmAes.PolynomialMultiplyWideningLower(x.GetLower(), power.GetLower());
            hi ^= ArmAes.PolynomialMultiplyWideningUpper(x, power);
            mid ^= ArmAes.PolynomialMultiplyWideningLower((x ^ SwapHalves(x)).GetLower(), Unsafe.Add(ref halves, i).GetLower());
        }

        x = Vector128.LoadUnsafe(ref blocks).AsUInt64() ^ accumulator;
        lo ^= ArmAes.PolynomialMultiplyWideningLower(x.GetLower(), powers.GetLower());
        hi ^= ArmAes.PolynomialMultiplyWideningUpper(x, powers);
        mid ^= ArmAes.PolynomialMultiplyWideningLower((x ^ SwapHalves(x)).GetLower(), halves.GetLower());
        return Reduce(lo, mid ^ lo ^ hi, hi);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Dot(Vector128<ulong> a, Vector128<ulong> b)
    {
        Vector128<ulong> lo = ArmAes.PolynomialMultiplyWideningLower(a.GetLower(), b.GetLower());
        Vector128<ulong> hi = ArmAes.PolynomialMultiplyWideningUpper(a, b);
        Vector128<ulong> mid = ArmAes.PolynomialMultiplyWideningLower(a.GetLower(), b.GetUpper())
            ^ ArmAes.PolynomialMultiplyWideningLower(a.GetUpper(), b.GetLower());
        return Reduce(lo, mid, hi);
    }

    /// <summary>The two-fold Montgomery reduction of Polyval.Pclmulqdq.cs (see there for the constant).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Reduce(Vector128<ulong> lo, Vector128<ulong> mid, Vector128<ulong> hi)
    {
        lo ^= Vector128.Create(0UL, mid.GetElement(0));
        hi ^= Vector128.Create(mid.GetElement(1), 0UL);
        Vector64<ulong> polynomial = Vector64.Create(0xC200000000000000UL);
        lo = SwapHalves(lo) ^ ArmAes.PolynomialMultiplyWideningLower(lo.GetLower(), polynomial);
        lo = SwapHalves(lo) ^ ArmAes.PolynomialMultiplyWideningLower(lo.GetLower(), polynomial);
        return hi ^ lo;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> SwapHalves(Vector128<ulong> x) => AdvSimd.ExtractVector128(x, x, 1);
}
