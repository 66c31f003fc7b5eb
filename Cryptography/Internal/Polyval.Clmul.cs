// POLYVAL (RFC 8452 section 3) over a 64x64 -> 128-bit carry-less multiply: the one body the
// x64 (PCLMULQDQ) and ARM64 (PMULL) backends share. Each instruction set supplies only the four
// products and a half swap (ICarrylessMultiply, in Polyval.Pclmulqdq.cs and Polyval.Pmull.cs); the
// grouping, Karatsuba and reduction are written once here, and the JIT compiles one copy per
// instruction set with the primitives inlined.
//
// Field elements are 128-bit little-endian values, so a block loads straight into a vector with no
// byte reversal. dot(a, b) = a * b * x^-128 mod x^128 + x^127 + x^126 + x^121 + 1: a 256-bit
// carry-less product, then a Montgomery reduction by x^128 in two folds of 64 bits each.
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

namespace Cryptography.Internal;

/// <summary>The carry-less multiply an instruction set provides, as POLYVAL needs it.</summary>
internal interface ICarrylessMultiply
{
    static abstract bool IsSupported { get; }

    /// <summary>a.lo * b.lo as a 128-bit product.</summary>
    static abstract Vector128<ulong> Lower(Vector128<ulong> a, Vector128<ulong> b);

    /// <summary>a.hi * b.hi.</summary>
    static abstract Vector128<ulong> Upper(Vector128<ulong> a, Vector128<ulong> b);

    /// <summary>a.lo * b.hi.</summary>
    static abstract Vector128<ulong> LowerUpper(Vector128<ulong> a, Vector128<ulong> b);

    /// <summary>a.hi * b.lo.</summary>
    static abstract Vector128<ulong> UpperLower(Vector128<ulong> a, Vector128<ulong> b);

    /// <summary>The two 64-bit halves exchanged.</summary>
    static abstract Vector128<ulong> SwapHalves(Vector128<ulong> x);
}

/// <summary>POLYVAL on any <see cref="ICarrylessMultiply"/>; the key layout is <see cref="PolyvalKeyLayout"/>.</summary>
internal readonly struct PolyvalClmul<TClmul> : IPolyval
    where TClmul : ICarrylessMultiply
{
    public bool IsSupported => TClmul.IsSupported;

    // Interface members are instance members (netstandard2.0 has no static abstract members); the
    // forwarder inlines, so GcmSiv calls the static body as it did before, without passing an empty
    // struct's `this` (a stack store and a register per call: issue 48's before/after run saw it).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key) => InitCore(h, blockCount, ref key);

    /// <summary>
    /// Stores H, and with more than one power H^1..H^n (n from <see cref="PolyvalKeyLayout.PowersFor"/>).
    /// H^e is H^(e - p) * H^p with p the largest power of two below e, so the products form a tree
    /// of depth log2(n): 4 multiplies on the critical path for 16 powers instead of 15 in a chain,
    /// the rest overlapping.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void InitCore(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        int powers = PolyvalKeyLayout.PowersFor(blockCount);
        Vector128<ulong> h1 = Vector128.Create<byte>(h).AsUInt64();
        PolyvalKeyLayout.StoreH(ref table, h1);
        if (powers > 1)
        {
            PolyvalKeyLayout.Store(ref table, 1, h1);
        }

        for (int half = 1; half < powers; half *= 2)
        {
            Vector128<ulong> high = PolyvalKeyLayout.Power(ref table, half);
            for (int low = 1; low <= half && half + low <= powers; low++)
            {
                PolyvalKeyLayout.Store(ref table, half + low, Dot(high, PolyvalKeyLayout.Power(ref table, low)));
            }
        }

        PolyvalKeyLayout.SetPowerCount(ref table, powers);
    }

    /// <summary>Init writes entries 16 - n .. 32 (n powers, their halves, the count): everything before is untouched.</summary>
    public int UnusedKeyPrefixBytes(int blockCount) => PolyvalKeyLayout.UnusedPrefixBytes(blockCount);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks) => UpdateCore(in key, accumulator, blocks);

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void UpdateCore(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks) =>
        UpdateCore(in key, accumulator, blocks, []);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last) => UpdateCore(in key, accumulator, blocks, last);

    /// <summary>
    /// <paramref name="blocks"/> then <paramref name="last"/> as one sequence. Without precomputed
    /// powers and with 2..<see cref="MaxShortBlocks"/> blocks in all, they go through <see cref="Short"/>
    /// together; otherwise each part through <see cref="UpdateBlocks"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void UpdateCore(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        int powerCount = PolyvalKeyLayout.PowerCount(in key);
        int count = (blocks.Length + last.Length) / 16;
        if (powerCount == 1 && count >= 2 && count <= MaxShortBlocks)
        {
            acc = Short(PolyvalKeyLayout.H(ref table), acc, blocks, last, count);
        }
        else
        {
            acc = UpdateBlocks(ref table, powerCount, acc, ref MemoryMarshal.GetReference(blocks), (nuint)blocks.Length);
            acc = UpdateBlocks(ref table, powerCount, acc, ref MemoryMarshal.GetReference(last), (nuint)last.Length);
        }

        acc.AsByte().CopyTo(accumulator);
    }

    /// <summary>The most blocks <see cref="Short"/> takes: three multiplications deep, as 8 coefficients are.</summary>
    public const int MaxShortBlocks = 7;

    /// <summary>
    /// A short input (2..7 blocks, no precomputed powers) with 2 or 3 dependent multiplications
    /// instead of one per block. With Y_1 = acc ^ X_1, the result is the polynomial
    /// Y_1*H^n + ... + Y_n*H^1, i.e. d_1*H + d_2*H^2 + ... + d_n*H^n with d_k = Y_(n+1-k), and it is
    /// evaluated as a tree (Estrin's scheme) instead of Horner's chain:
    ///   e_1 = d_3*H + d_2, e_2 = d_5*H + d_4, e_3 = d_7*H + d_6          (depth 1, beside H^2)
    ///   f_1 = e_3*H^2 + e_2                                              (depth 2, beside H^4)
    ///   result = f_1*H^4 + e_1*H^2 + d_1*H                               (depth 3, one reduction)
    /// Missing coefficients are zero, and their products are skipped: for n = 2 or 3 the result is
    /// e_1*H^2 + d_1*H (depth 2). H^2 and H^4 live only in registers, like H. Each d_k is chosen by
    /// the input's length alone, so no branch depends on the data.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Short(Vector128<ulong> h, Vector128<ulong> acc, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last, int count)
    {
        ref byte first = ref MemoryMarshal.GetReference(blocks);
        ref byte second = ref MemoryMarshal.GetReference(last);
        int firstCount = blocks.Length / 16;
        Vector128<ulong> d1 = Coefficient(ref first, firstCount, ref second, count, 1, acc);
        Vector128<ulong> d2 = Coefficient(ref first, firstCount, ref second, count, 2, acc);
        Vector128<ulong> d3 = Coefficient(ref first, firstCount, ref second, count, 3, acc);
        Vector128<ulong> h2 = Dot(h, h);
        Vector128<ulong> e1 = count >= 3 ? Dot(d3, h) ^ d2 : d2;
        Vector128<ulong> lo = TClmul.Lower(d1, h);
        Vector128<ulong> hi = TClmul.Upper(d1, h);
        Vector128<ulong> mid = TClmul.LowerUpper(d1, h) ^ TClmul.UpperLower(d1, h);
        if (count >= 4)
        {
            Vector128<ulong> d4 = Coefficient(ref first, firstCount, ref second, count, 4, acc);
            Vector128<ulong> d5 = Coefficient(ref first, firstCount, ref second, count, 5, acc);
            Vector128<ulong> e2 = count >= 5 ? Dot(d5, h) ^ d4 : d4;
            Vector128<ulong> h4 = Dot(h2, h2);
            Vector128<ulong> f1 = e2;
            if (count >= 6)
            {
                Vector128<ulong> d6 = Coefficient(ref first, firstCount, ref second, count, 6, acc);
                Vector128<ulong> d7 = Coefficient(ref first, firstCount, ref second, count, 7, acc);
                Vector128<ulong> e3 = count >= 7 ? Dot(d7, h) ^ d6 : d6;
                f1 ^= Dot(e3, h2);
            }

            lo ^= TClmul.Lower(f1, h4);
            hi ^= TClmul.Upper(f1, h4);
            mid ^= TClmul.LowerUpper(f1, h4) ^ TClmul.UpperLower(f1, h4);
        }

        lo ^= TClmul.Lower(e1, h2);
        hi ^= TClmul.Upper(e1, h2);
        mid ^= TClmul.LowerUpper(e1, h2) ^ TClmul.UpperLower(e1, h2);
        return Reduce(lo, mid, hi);
    }

    /// <summary>
    /// d_k of <see cref="Short"/>: block count - k of the sequence <paramref name="first"/> (<paramref name="firstCount"/>
    /// blocks) then <paramref name="second"/>, with the accumulator added to block 0; zero past the start.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Coefficient(ref byte first, int firstCount, ref byte second, int count, int k, Vector128<ulong> acc)
    {
        int index = count - k;
        if (index < 0)
        {
            return Vector128<ulong>.Zero;
        }

        Vector128<ulong> block = index < firstCount
            ? Vector128.LoadUnsafe(ref first, (nuint)(16 * index)).AsUInt64()
            : Vector128.LoadUnsafe(ref second, (nuint)(16 * (index - firstCount))).AsUInt64();
        return index == 0 ? block ^ acc : block;
    }

    /// <summary>
    /// The blocks at <paramref name="source"/> (a whole number, <paramref name="length"/> bytes) into
    /// <paramref name="acc"/>: groups of 16 or 8 while they last, then the rest as one group when
    /// enough powers exist (one reduction instead of one per block), else block by block. Powers
    /// come in counts of 1, 8 or 16 (<see cref="PolyvalKeyLayout.PowersFor"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static Vector128<ulong> UpdateBlocks(ref Vector128<ulong> table, int powerCount, Vector128<ulong> acc, ref byte source, nuint length)
    {
        nuint offset = 0;
        if (powerCount == 16)
        {
            for (; length - offset >= 256; offset += 256)
            {
                acc = Group(ref source, offset, ref table, 16, acc);
            }
        }
        else if (powerCount == 8)
        {
            for (; length - offset >= 128; offset += 128)
            {
                acc = Group(ref source, offset, ref table, 8, acc);
            }
        }

        int rest = (int)((length - offset) / 16);
        if (rest > 1 && rest <= powerCount)
        {
            return Group(ref source, offset, ref table, rest, acc);
        }

        Vector128<ulong> hKey = PolyvalKeyLayout.H(ref table);
        for (; offset < length; offset += 16)
        {
            acc = Dot(acc ^ Vector128.LoadUnsafe(ref source, offset).AsUInt64(), hKey);
        }

        return acc;
    }

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
            lo ^= TClmul.Lower(x, power);
            hi ^= TClmul.Upper(x, power);
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, i));
        }

        x = Vector128.LoadUnsafe(ref source, offset).AsUInt64() ^ acc;
        lo ^= TClmul.Lower(x, powers);
        hi ^= TClmul.Upper(x, powers);
        mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), halves);
        return Reduce(lo, mid ^ lo ^ hi, hi);
    }

    /// <summary>dot(a, b) for one pair: schoolbook (4 multiplies beat Karatsuba's extra XORs for a single product).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Dot(Vector128<ulong> a, Vector128<ulong> b)
    {
        Vector128<ulong> lo = TClmul.Lower(a, b);
        Vector128<ulong> hi = TClmul.Upper(a, b);
        Vector128<ulong> mid = TClmul.LowerUpper(a, b) ^ TClmul.UpperLower(a, b);
        return Reduce(lo, mid, hi);
    }

    /// <summary>
    /// Montgomery reduction of the 256-bit product hi:lo (+ mid shifted by 64) by x^128. Each fold
    /// multiplies the low 64 bits by 0xC200000000000000 (x^63 + x^62 + x^57: the terms of the
    /// field polynomial x^127 + x^126 + x^121 shifted down by 64) and adds it one word higher,
    /// which cancels those 64 bits; two folds clear the low 128 bits, leaving the result in the top.
    /// The first fold's multiply reads only lo's low word, which mid does not change, so it starts
    /// on lo as it is, beside the XORs that add mid: they are off the chain of dependent multiplies.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Reduce(Vector128<ulong> lo, Vector128<ulong> mid, Vector128<ulong> hi)
    {
        Vector128<ulong> polynomial = Vector128.Create(0xC200000000000000UL);
        Vector128<ulong> fold = TClmul.Lower(lo, polynomial);
        // swap(lo ^ mid.lo << 64) is swap(lo) ^ mid.lo in the low word; mid.hi goes into hi's low word.
        lo = TClmul.SwapHalves(lo) ^ (mid & Vector128.Create(ulong.MaxValue, 0UL)) ^ fold;
        hi ^= TClmul.SwapHalves(mid) & Vector128.Create(ulong.MaxValue, 0UL);
        return hi ^ TClmul.SwapHalves(lo) ^ TClmul.Lower(lo, polynomial);
    }
}
