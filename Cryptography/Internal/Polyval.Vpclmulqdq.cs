// POLYVAL (RFC 8452 section 3) with VPCLMULQDQ on 256-bit vectors: two blocks per carry-less
// multiply. Same arithmetic and key layout as Polyval.Clmul.cs, whose 128-bit body does what is
// left after the wide groups and the key when one power is enough; more powers are made here two at
// a time, a pair per 256-bit product. Long inputs go 16 blocks per reduction (8 block
// pairs against H^16..H^1), which halves the reductions on the accumulator's critical path
// compared with 8; then groups of 8; the rest through the 128-bit body.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

internal readonly struct PolyvalVpclmulqdq : IPolyval
{
    public bool IsSupported => Pclmulqdq.V256.IsSupported && Avx2.IsSupported && Pclmul.IsSupported;

    // Interface members are instance members (netstandard2.0 has no static abstract members); the
    // forwarder inlines, so GcmSiv calls the static body as it did before, without passing an empty
    // struct's `this` (a stack store and a register per call: issue 48's before/after run saw it).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key) => InitCore(h, blockCount, ref key);

    /// <summary>
    /// The powers of H two at a time: the table's 256-bit pairs hold (H^(2k), H^(2k-1)), and each
    /// pair from H^3 on is one 256-bit product of a power of H by a pair already made, so 16 powers
    /// take 7 multiplications of pairs (after H^2) instead of 15 of single powers, in the same
    /// tree of depth 4. A message of a few hundred bytes pays for this set-up in full, so it counts.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void InitCore(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        int powers = PolyvalKeyLayout.PowersFor(blockCount);
        if (powers == 1)
        {
            default(PolyvalClmul<Pclmul>).Init(h, blockCount, ref key);
            return;
        }

        // Pair j of the table is entries 2j and 2j + 1: (H^(16 - 2j), H^(15 - 2j)); the Karatsuba
        // halves of pair j are pair 8 + j.
        ref Vector256<ulong> pairs = ref Unsafe.As<Vector128<ulong>, Vector256<ulong>>(ref PolyvalKeyLayout.Table(in key));
        Vector128<ulong> h1 = Vector128.Create<byte>(h).AsUInt64();
        Vector256<ulong> p2 = Vector256.Create(PolyvalClmul<Pclmul>.Dot(h1, h1), h1);   // (H^2, H^1)
        Vector256<ulong> p4 = Dot(Vector256.Create(p2.GetLower()), p2);                  // (H^4, H^3)
        Vector256<ulong> h4 = Vector256.Create(p4.GetLower());
        Vector256<ulong> p6 = Dot(h4, p2);                                               // (H^6, H^5)
        Vector256<ulong> p8 = Dot(h4, p4);                                               // (H^8, H^7)
        StorePair(ref pairs, 7, p2);
        StorePair(ref pairs, 6, p4);
        StorePair(ref pairs, 5, p6);
        StorePair(ref pairs, 4, p8);
        if (powers == 16)
        {
            Vector256<ulong> h8 = Vector256.Create(p8.GetLower());
            StorePair(ref pairs, 3, Dot(h8, p2));
            StorePair(ref pairs, 2, Dot(h8, p4));
            StorePair(ref pairs, 1, Dot(h8, p6));
            StorePair(ref pairs, 0, Dot(h8, p8));
        }

        PolyvalKeyLayout.StoreH(ref PolyvalKeyLayout.Table(in key), h1);
        PolyvalKeyLayout.SetPowerCount(ref PolyvalKeyLayout.Table(in key), powers);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StorePair(ref Vector256<ulong> pairs, int index, Vector256<ulong> pair)
    {
        Unsafe.Add(ref pairs, index) = pair;
        Unsafe.Add(ref pairs, (PolyvalKeyLayout.KaratsubaIndex / 2) + index) = pair ^ SwapHalves(pair);
    }

    /// <summary>dot(a, b) in each 128-bit lane: PolyvalClmul.Dot and its Reduce, two at a time.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Dot(Vector256<ulong> a, Vector256<ulong> b)
    {
        Vector256<ulong> lo = Pclmulqdq.V256.CarrylessMultiply(a, b, 0x00);
        Vector256<ulong> hi = Pclmulqdq.V256.CarrylessMultiply(a, b, 0x11);
        Vector256<ulong> mid = Pclmulqdq.V256.CarrylessMultiply(a, b, 0x01) ^ Pclmulqdq.V256.CarrylessMultiply(a, b, 0x10);
        Vector256<ulong> swapped = SwapHalves(mid);
        lo ^= swapped & Vector256.Create(0UL, ulong.MaxValue, 0UL, ulong.MaxValue);
        hi ^= swapped & Vector256.Create(ulong.MaxValue, 0UL, ulong.MaxValue, 0UL);
        Vector256<ulong> polynomial = Vector256.Create(0xC200000000000000UL);
        lo = SwapHalves(lo) ^ Pclmulqdq.V256.CarrylessMultiply(lo, polynomial, 0x00);
        lo = SwapHalves(lo) ^ Pclmulqdq.V256.CarrylessMultiply(lo, polynomial, 0x00);
        return hi ^ lo;
    }

    public int UnusedKeyPrefixBytes(int blockCount) => PolyvalKeyLayout.UnusedPrefixBytes(blockCount);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks) => UpdateCore(in key, accumulator, blocks);

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void UpdateCore(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks)
    {
        int powerCount = PolyvalKeyLayout.PowerCount(in key);
        int wide = powerCount >= 8 ? blocks.Length & ~127 : 0;
        if (wide != 0)
        {
            ref Vector256<ulong> pairs = ref Unsafe.As<Vector128<ulong>, Vector256<ulong>>(ref PolyvalKeyLayout.Table(in key));
            ref byte source = ref MemoryMarshal.GetReference(blocks);
            Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
            nuint offset = 0;
            if (powerCount == 16)
            {
                for (; offset + 256 <= (nuint)wide; offset += 256)
                {
                    acc = Group(ref source, offset, ref pairs, 8, acc);
                }
            }

            for (; offset < (nuint)wide; offset += 128)
            {
                acc = Group(ref source, offset, ref pairs, 4, acc);
            }

            acc.AsByte().CopyTo(accumulator);
        }

        if (wide != blocks.Length)
        {
            default(PolyvalClmul<Pclmul>).Update(in key, accumulator, blocks[wide..]);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last) => UpdateCore(in key, accumulator, blocks, last);

    /// <summary>
    /// Without powers (under 8 blocks) the 128-bit body takes both parts as one short sequence;
    /// with them, each part goes through the wide groups.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void UpdateCore(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last)
    {
        if (PolyvalKeyLayout.PowerCount(in key) == 1)
        {
            default(PolyvalClmul<Pclmul>).Update(in key, accumulator, blocks, last);
            return;
        }

        UpdateCore(in key, accumulator, blocks);
        UpdateCore(in key, accumulator, last);
    }

    /// <summary>
    /// One group of 2 * <paramref name="pairCount"/> blocks (8 or 4 pairs): pair j meets table pair
    /// 8 - pairCount + j, i.e. H^(2 * pairCount - 2j) and H^(2 * pairCount - 2j - 1). Unrolled by
    /// hand: with constant offsets every load folds into its multiply and no index arithmetic is
    /// left in the loop (the rolled loop spent 9 of its 19 instructions per pair on indexing).
    /// Pair 0, which carries the accumulator, is multiplied and added last so the others run ahead.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Group(ref byte source, nuint offset, ref Vector256<ulong> pairs, int pairCount, Vector128<ulong> acc)
    {
        ref byte block = ref Unsafe.Add(ref source, offset);
        ref Vector256<ulong> powers = ref Unsafe.Add(ref pairs, 8 - pairCount);
        ref Vector256<ulong> halves = ref Unsafe.Add(ref pairs, (PolyvalKeyLayout.KaratsubaIndex / 2) + 8 - pairCount);
        Vector256<ulong> lo = Vector256<ulong>.Zero, mid = Vector256<ulong>.Zero, hi = Vector256<ulong>.Zero;
        if (pairCount == 8)
        {
            Multiply(Vector256.LoadUnsafe(ref block, 224).AsUInt64(), Unsafe.Add(ref powers, 7), Unsafe.Add(ref halves, 7), ref lo, ref mid, ref hi);
            Multiply(Vector256.LoadUnsafe(ref block, 192).AsUInt64(), Unsafe.Add(ref powers, 6), Unsafe.Add(ref halves, 6), ref lo, ref mid, ref hi);
            Multiply(Vector256.LoadUnsafe(ref block, 160).AsUInt64(), Unsafe.Add(ref powers, 5), Unsafe.Add(ref halves, 5), ref lo, ref mid, ref hi);
            Multiply(Vector256.LoadUnsafe(ref block, 128).AsUInt64(), Unsafe.Add(ref powers, 4), Unsafe.Add(ref halves, 4), ref lo, ref mid, ref hi);
        }

        Multiply(Vector256.LoadUnsafe(ref block, 96).AsUInt64(), Unsafe.Add(ref powers, 3), Unsafe.Add(ref halves, 3), ref lo, ref mid, ref hi);
        Multiply(Vector256.LoadUnsafe(ref block, 64).AsUInt64(), Unsafe.Add(ref powers, 2), Unsafe.Add(ref halves, 2), ref lo, ref mid, ref hi);
        Multiply(Vector256.LoadUnsafe(ref block, 32).AsUInt64(), Unsafe.Add(ref powers, 1), Unsafe.Add(ref halves, 1), ref lo, ref mid, ref hi);
        Multiply(Vector256.LoadUnsafe(ref block).AsUInt64() ^ Vector256.Create(acc, Vector128<ulong>.Zero), powers, halves, ref lo, ref mid, ref hi);

        Vector128<ulong> lo128 = lo.GetLower() ^ lo.GetUpper();
        Vector128<ulong> hi128 = hi.GetLower() ^ hi.GetUpper();
        Vector128<ulong> mid128 = mid.GetLower() ^ mid.GetUpper();
        return PolyvalClmul<Pclmul>.Reduce(lo128, mid128 ^ lo128 ^ hi128, hi128);
    }

    /// <summary>Adds the unreduced Karatsuba products of two blocks by two powers to lo, mid, hi.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Multiply(Vector256<ulong> x, Vector256<ulong> power, Vector256<ulong> half, ref Vector256<ulong> lo, ref Vector256<ulong> mid, ref Vector256<ulong> hi)
    {
        lo ^= Pclmulqdq.V256.CarrylessMultiply(x, power, 0x00);
        hi ^= Pclmulqdq.V256.CarrylessMultiply(x, power, 0x11);
        mid ^= Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), half, 0x00);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> SwapHalves(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
