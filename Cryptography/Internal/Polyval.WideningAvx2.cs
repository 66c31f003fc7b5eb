// The bulk of the software POLYVAL (Polyval.Widening.cs) on 256-bit AVX2 vectors: two independent
// Horner chains, one per 128-bit half, over alternate blocks. One block at a time, the 128-bit
// loop waits on its own accumulator (the chain from one block's product to the next is long:
// multiply, XOR tree, class masks, Karatsuba, reduction); two chains in one register do twice the
// work per instruction, and nothing in one half waits for the other.
//
// With the blocks X1..Xn (n even, the incoming accumulator added into X1), the chains are
//   A <- dot(A, H^2) ^ X(2k-1),  B <- dot(B, H^2) ^ X(2k)          starting from A = X1, B = X2,
// and the result is dot(A, H^2) ^ dot(B, H) (H^2 meaning dot(H, H)): every block then carries the
// power of H that Horner's rule gives it. Each step is the 128-bit Dot on both halves at once; the
// operations are lane-local (shifts and multiplies per 64-bit lane, shuffles within 128-bit
// halves), so the code is Polyval.Widening.cs's with wider types. A change to one belongs in both.
// Only x64 intrinsics here (Avx2): an x86 one compiles on ARM64 but throws there.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>Two POLYVAL chains in the halves of 256-bit AVX2 vectors.</summary>
internal readonly struct PolyvalWideningAvx2 : IPolyvalWide
{
    /// <summary>Both chains' multiplier's 20 operand parts (H^2 in both halves, then H^2 and H for the last step).</summary>
    [InlineArray(20)]
    private struct Parts
    {
        private Vector256<ulong> _element0;
    }

    public static bool IsSupported => Avx2.IsSupported && Vector256.IsHardwareAccelerated;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // as default(PolyvalWidening).Update: no Tier0 slot for the accumulator
    public static bool TryUpdate(ref Vector128<ulong> hParts, Vector128<ulong> hSquared, ref Vector128<ulong> acc, ref byte source, nuint length)
    {
        if (!IsSupported)
        {
            return false;
        }

        acc = UpdateCore(ref hParts, hSquared, acc, ref source, length);
        BurnStack();
        return true;
    }

    [SkipLocalsInit] // the parts are written before they are read, and wiped
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> UpdateCore(ref Vector128<ulong> hParts, Vector128<ulong> hSquared, Vector128<ulong> acc, ref byte source, nuint length)
    {
        Unsafe.SkipInit(out Parts parts);
        ref Vector256<ulong> table = ref Unsafe.As<Parts, Vector256<ulong>>(ref parts);
        Operands(Vector256.Create(hSquared), out Vector256<ulong> g0, out Vector256<ulong> g1, out Vector256<ulong> g2, out Vector256<ulong> g3, out Vector256<ulong> g4);
        StoreParts(ref table, 0, g0);
        StoreParts(ref table, 4, g1);
        StoreParts(ref table, 8, g2);
        StoreParts(ref table, 12, g3);
        StoreParts(ref table, 16, g4);

        // (A, B) = (X1 ^ acc, X2); then a pair at a time. The length (even, at least 4 blocks) is public.
        Vector256<ulong> chains = Vector256.LoadUnsafe(ref source).AsUInt64() ^ Vector256.Create(acc, Vector128<ulong>.Zero);
        for (nuint offset = 32; offset < length; offset += 32)
        {
            chains = Dot(ref table, chains) ^ Vector256.LoadUnsafe(ref source, offset).AsUInt64();
        }

        // The last step multiplies B by H, not H^2: H's parts go into the upper halves.
        for (int i = 0; i < 20; i++)
        {
            parts[i] = Vector256.Create(parts[i].GetLower(), Unsafe.Add(ref hParts, i));
        }

        chains = Dot(ref table, chains);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<Vector256<ulong>>)parts));
        return chains.GetLower() ^ chains.GetUpper();
    }

    /// <summary>As PolyvalWidening.Operands, in each half.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Operands(Vector256<ulong> x, out Vector256<ulong> o0, out Vector256<ulong> o1, out Vector256<ulong> o2, out Vector256<ulong> o3, out Vector256<ulong> o4)
    {
        o0 = x;
        o1 = Vector256.ShiftRightLogical(x, 32);
        o2 = o0 ^ o1;
        Vector256<ulong> halves = x ^ Swap(x);
        o3 = Avx2.Shuffle(halves.AsUInt32(), 0x50).AsUInt64(); // words (0, 0, 1, 1) of each half
        o4 = halves ^ Vector256.ShiftRightLogical(halves, 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StoreParts(ref Vector256<ulong> table, int index, Vector256<ulong> operand)
    {
        Unsafe.Add(ref table, index) = operand & Vector256.Create(0x11111111UL);
        Unsafe.Add(ref table, index + 1) = operand & Vector256.Create(0x22222222UL);
        Unsafe.Add(ref table, index + 2) = operand & Vector256.Create(0x44444444UL);
        Unsafe.Add(ref table, index + 3) = operand & Vector256.Create(0x88888888UL);
    }

    /// <summary>The 64-bit lanes of each half exchanged.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Swap(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();

    /// <summary>As PolyvalWidening.Multiply32: VPMULUDQ does four lanes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Multiply32(Vector256<ulong> x, ref Vector256<ulong> parts)
    {
        Vector256<uint> x0 = (x & Vector256.Create(0x11111111UL)).AsUInt32(), x1 = (x & Vector256.Create(0x22222222UL)).AsUInt32();
        Vector256<uint> x2 = (x & Vector256.Create(0x44444444UL)).AsUInt32(), x3 = (x & Vector256.Create(0x88888888UL)).AsUInt32();
        Vector256<uint> y0 = parts.AsUInt32(), y1 = Unsafe.Add(ref parts, 1).AsUInt32(), y2 = Unsafe.Add(ref parts, 2).AsUInt32(), y3 = Unsafe.Add(ref parts, 3).AsUInt32();
        Vector256<ulong> z0 = Avx2.Multiply(x0, y0) ^ Avx2.Multiply(x1, y3) ^ Avx2.Multiply(x2, y2) ^ Avx2.Multiply(x3, y1);
        Vector256<ulong> z1 = Avx2.Multiply(x0, y1) ^ Avx2.Multiply(x1, y0) ^ Avx2.Multiply(x2, y3) ^ Avx2.Multiply(x3, y2);
        Vector256<ulong> z2 = Avx2.Multiply(x0, y2) ^ Avx2.Multiply(x1, y1) ^ Avx2.Multiply(x2, y0) ^ Avx2.Multiply(x3, y3);
        Vector256<ulong> z3 = Avx2.Multiply(x0, y3) ^ Avx2.Multiply(x1, y2) ^ Avx2.Multiply(x2, y1) ^ Avx2.Multiply(x3, y0);
        return (z0 & Vector256.Create(0x1111111111111111UL)) | (z1 & Vector256.Create(0x2222222222222222UL))
            | (z2 & Vector256.Create(0x4444444444444444UL)) | (z3 & Vector256.Create(0x8888888888888888UL));
    }

    /// <summary>As PolyvalWidening.Dot, in each half with that half's multiplier.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Dot(ref Vector256<ulong> table, Vector256<ulong> a)
    {
        Operands(a, out Vector256<ulong> o0, out Vector256<ulong> o1, out Vector256<ulong> o2, out Vector256<ulong> o3, out Vector256<ulong> o4);
        Vector256<ulong> r0 = Multiply32(o0, ref table);
        Vector256<ulong> r1 = Multiply32(o1, ref Unsafe.Add(ref table, 4));
        Vector256<ulong> r2 = Multiply32(o2, ref Unsafe.Add(ref table, 8));
        Vector256<ulong> r3 = Multiply32(o3, ref Unsafe.Add(ref table, 12));
        Vector256<ulong> r4 = Multiply32(o4, ref Unsafe.Add(ref table, 16));

        Vector256<ulong> m = r0 ^ r1 ^ r2;
        Vector256<ulong> t = r0 ^ Vector256.ShiftLeft(m, 32);
        Vector256<ulong> v = r1 ^ Vector256.ShiftRightLogical(m, 32);

        Vector256<ulong> laneZero = Vector256.Create(ulong.MaxValue, 0UL, ulong.MaxValue, 0UL);
        Vector256<ulong> mm = r4 ^ r3 ^ Swap(r3);
        Vector256<ulong> sum = r3
            ^ (Vector256.ShiftLeft(mm, 32) & laneZero)
            ^ Vector256.AndNot(Vector256.ShiftRightLogical(mm, 32), laneZero);

        Vector256<ulong> tt = t ^ Swap(t), vv = v ^ Swap(v);
        Vector256<ulong> outer = Vector256.ConditionalSelect(laneZero, t, v);
        Vector256<ulong> inner = Vector256.ConditionalSelect(laneZero, v, t) ^ Vector256.ConditionalSelect(laneZero, tt, vv) ^ sum;
        Vector256<ulong> swappedInner = Swap(inner);
        Vector256<ulong> low = Vector256.ConditionalSelect(laneZero, outer, swappedInner);
        Vector256<ulong> high = Vector256.ConditionalSelect(laneZero, swappedInner, outer);
        return Reduce(low, high, laneZero);
    }

    /// <summary>As PolyvalWidening.Reduce, in each half.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Reduce(Vector256<ulong> low, Vector256<ulong> high, Vector256<ulong> laneZero)
    {
        Vector256<ulong> f1 = Vector256.ShiftLeft(low, 63) ^ Vector256.ShiftLeft(low, 62) ^ Vector256.ShiftLeft(low, 57);
        Vector256<ulong> swapped = Swap(f1);
        low ^= Vector256.AndNot(swapped, laneZero);
        Vector256<ulong> f2 = low ^ Vector256.ShiftRightLogical(low, 1) ^ Vector256.ShiftRightLogical(low, 2) ^ Vector256.ShiftRightLogical(low, 7);
        return high ^ f2 ^ (swapped & laneZero);
    }

    /// <summary>Overwrites the stack below the caller's frame, where <see cref="UpdateCore"/> just ran (its spills).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing
    private static void BurnStack()
    {
        Span<byte> scratch = stackalloc byte[1024];
        CryptographicOperations.ZeroMemory(scratch);
    }
}
