// Constant-time POLYVAL (RFC 8452 section 3) on 128-bit vectors without a carry-less multiply
// instruction: the POLYVAL of the BitslicedVector backend (x64 without PCLMULQDQ, which .NET 10
// turns off together with AES under DOTNET_EnableAES=0; ARM64 without PMULL, which comes with the
// AES extension). No table, no branch on data.
//
// The carry-less multiply is built from the 32 x 32 -> 64-bit lane multiply every SIMD unit has
// (PMULUDQ on x64, UMULL on ARM64; IWideningMultiply below), with the "masked holes" of BearSSL's
// ghash_ctmul32 (Thomas Pornin, https://bearssl.org/constanttime.html#ghash-for-gcm), written here
// from the description:
//  * A 32-bit operand is split into four parts, part i keeping the bits at positions = i (mod 4).
//    In the integer product of part i of x and part j of y every bit product lands on a position
//    = i + j (mod 4), and at most 8 of them meet at one position (a part has 8 bits), so their
//    count fits in that bit and the three zero bits above it: no carry reaches the next position
//    of the same class, and the bit itself is the count's parity, i.e. the carry-less result.
//    The four products of one class are XORed and masked to the class: 16 multiplies per 32 x 32.
//  * A 128 x 128 product is Karatsuba twice (3 x 3 = 9 products of 32-bit limbs), laid out two per
//    vector so that one multiply instruction does two lanes (five vectors, the last with its sum
//    limb twice).
//  * dot(a, b) = a b x^-128 mod x^128 + x^127 + x^126 + x^121 + 1: the same Montgomery reduction
//    as Polyval.Portable.cs, 64 bits at a time, with shifts and XORs on the two lanes.
// One block at a time (Horner): with H's 20 masked operand vectors precomputed, a block costs
// about 250 vector operations whatever the accumulator is, which keeps the units busy; the chain
// from one block to the next is shorter than that, so aggregating blocks with powers of H would
// only save the reduction (16 operations) and need 20 more vectors per power than PolyvalKey holds.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>A lane-wise 32 x 32 -> 64-bit multiply: each 64-bit lane's low 32 bits times the other's.</summary>
internal interface IWideningMultiply
{
    static abstract bool IsSupported { get; }

    /// <summary>For each 64-bit lane: (uint)a * (uint)b, the upper 32 bits of each input ignored.</summary>
    static abstract Vector128<ulong> Multiply(Vector128<ulong> a, Vector128<ulong> b);
}

/// <summary>The widening multiply of the machine: x64 (SSE2) or ARM64 (AdvSimd); the JIT keeps one branch.</summary>
internal readonly struct NativeWideningMultiply : IWideningMultiply
{
    public static bool IsSupported => Sse2WideningMultiply.IsSupported || AdvSimdWideningMultiply.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Multiply(Vector128<ulong> a, Vector128<ulong> b) =>
        Sse2WideningMultiply.IsSupported ? Sse2WideningMultiply.Multiply(a, b) : AdvSimdWideningMultiply.Multiply(a, b);
}

/// <summary>A wider POLYVAL loop that takes the bulk of an update (Polyval.WideningAvx2.cs).</summary>
internal interface IPolyvalWide
{
    /// <summary>
    /// Continues POLYVAL from <paramref name="acc"/> over an even number of blocks at
    /// <paramref name="source"/> (<paramref name="length"/> bytes, at least 64) and returns the new
    /// accumulator in <paramref name="acc"/>; <paramref name="hSquared"/> is dot(H, H) and
    /// <paramref name="hParts"/> H's 20 operand parts (PolyvalWidening's table). False, with nothing
    /// done, when this machine cannot run it.
    /// </summary>
    static abstract bool TryUpdate(ref Vector128<ulong> hParts, Vector128<ulong> hSquared, ref Vector128<ulong> acc, ref byte source, nuint length);
}

/// <summary>No wider loop: one block at a time (what ARM64 runs; tests run it on x64 too).</summary>
internal readonly struct NoWidePolyval : IPolyvalWide
{
    public static bool TryUpdate(ref Vector128<ulong> hParts, Vector128<ulong> hSquared, ref Vector128<ulong> acc, ref byte source, nuint length) => false;
}

/// <summary>POLYVAL from masked 32-bit lane multiplies (BearSSL ctmul32 technique) on 128-bit vectors.</summary>
internal readonly struct PolyvalWidening<TMultiply, TWide> : IPolyval
    where TMultiply : IWideningMultiply
    where TWide : IPolyvalWide
{
    // Key layout (PolyvalKey as 16-byte entries): entry 4k + i is H's operand vector k (0..4, see
    // Operands) with only the bits = i (mod 4) of each lane's low 32 bits kept; entry 20 is
    // dot(H, H) for the wide loop, and entry 21 says (all ones) whether it was computed.
    private const int SquareIndex = 20;
    private const int FlagIndex = 21;

    /// <summary>Fewer blocks than this go one at a time: the wide loop's set-up costs about one block.</summary>
    internal const int WideBlocks = 4;

    public bool IsSupported => TMultiply.IsSupported && Vector128.IsHardwareAccelerated;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        // One power of H whatever the length: see the file's opening comment.
        _ = blockCount;
        if (h.Length != 16)
        {
            throw new ArgumentException("POLYVAL key must be 16 bytes.", nameof(h));
        }

        ref Vector128<ulong> table = ref Unsafe.As<PolyvalKey, Vector128<ulong>>(ref key);
        Operands(Vector128.Create<byte>(h).AsUInt64(), out Vector128<ulong> g0, out Vector128<ulong> g1, out Vector128<ulong> g2, out Vector128<ulong> g3, out Vector128<ulong> g4);
        StoreParts(ref table, 0, g0);
        StoreParts(ref table, 4, g1);
        StoreParts(ref table, 8, g2);
        StoreParts(ref table, 12, g3);
        StoreParts(ref table, 16, g4);

        // blockCount is public (a length): whether the wide loop can run is too.
        bool wide = blockCount >= WideBlocks;
        Unsafe.Add(ref table, SquareIndex) = wide ? Dot(ref table, Vector128.Create<byte>(h).AsUInt64()) : Vector128<ulong>.Zero;
        Unsafe.Add(ref table, FlagIndex) = wide ? Vector128<ulong>.AllBitsSet : Vector128<ulong>.Zero;
    }

    /// <summary>Init writes the first 22 entries; the wipe covers the whole key (it is small next to the work).</summary>
    public int UnusedKeyPrefixBytes(int blockCount) => 0;

    /// <summary>The whole blocks, then the last ones (a short message's length block): two updates.</summary>
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last)
    {
        if (!blocks.IsEmpty)
        {
            Update(in key, accumulator, blocks);
        }

        Update(in key, accumulator, last);
    }

    // Never run unoptimised: Tier0 code keeps the accumulator in a slot of this frame, above the burn.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks)
    {
        if (accumulator.Length != 16)
        {
            throw new ArgumentException("Accumulator must be 16 bytes.", nameof(accumulator));
        }
        if ((blocks.Length & 15) != 0)
        {
            throw new ArgumentException("Input length must be a multiple of 16.", nameof(blocks));
        }

        ref Vector128<ulong> table = ref Unsafe.As<PolyvalKey, Vector128<ulong>>(ref Unsafe.AsRef(in key));
        ref byte source = ref MemoryMarshal.GetReference(blocks);
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        nuint length = (nuint)blocks.Length;

        // Lengths and the flag are public. An odd block first, so that the wide loop gets pairs.
        if (length >= WideBlocks * 16 && Unsafe.Add(ref table, FlagIndex) != Vector128<ulong>.Zero)
        {
            nuint odd = length & 16;
            acc = UpdateBlocks(ref table, acc, ref source, odd);
            source = ref Unsafe.Add(ref source, odd);
            length -= odd;
            if (TWide.TryUpdate(ref table, Unsafe.Add(ref table, SquareIndex), ref acc, ref source, length))
            {
                length = 0;
            }
        }

        acc = UpdateBlocks(ref table, acc, ref source, length);
        acc.AsByte().CopyTo(accumulator);
        BurnStack();
    }

    /// <summary>The Horner loop: acc = dot(acc ^ X, H) for each block. The count is public (the length).</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> UpdateBlocks(ref Vector128<ulong> table, Vector128<ulong> acc, ref byte source, nuint length)
    {
        for (nuint offset = 0; offset < length; offset += 16)
        {
            acc = Dot(ref table, acc ^ Vector128.LoadUnsafe(ref source, offset).AsUInt64());
        }

        return acc;
    }

    /// <summary>
    /// The nine 32-bit operands of a two-level Karatsuba product of x (limbs x0..x3, lane 0 of each
    /// vector in its low 32 bits, lane 1 likewise; the upper 32 bits of a lane are ignored):
    /// o0 = (x0, x2), o1 = (x1, x3), o2 = (x0^x1, x2^x3) for the low and high 64-bit halves' own
    /// products; o3 = (x0^x2, x1^x3), o4 = (x0^x1^x2^x3, the same) for the product of the halves' sum.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Operands(Vector128<ulong> x, out Vector128<ulong> o0, out Vector128<ulong> o1, out Vector128<ulong> o2, out Vector128<ulong> o3, out Vector128<ulong> o4)
    {
        o0 = x;
        o1 = Vector128.ShiftRightLogical(x, 32);
        o2 = o0 ^ o1;
        Vector128<ulong> halves = x ^ Swap(x);
        o3 = Vector128.Shuffle(halves.AsUInt32(), Vector128.Create(0u, 0u, 1u, 1u)).AsUInt64();
        o4 = halves ^ Vector128.ShiftRightLogical(halves, 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StoreParts(ref Vector128<ulong> table, int index, Vector128<ulong> operand)
    {
        Unsafe.Add(ref table, index) = operand & Vector128.Create(0x11111111UL);
        Unsafe.Add(ref table, index + 1) = operand & Vector128.Create(0x22222222UL);
        Unsafe.Add(ref table, index + 2) = operand & Vector128.Create(0x44444444UL);
        Unsafe.Add(ref table, index + 3) = operand & Vector128.Create(0x88888888UL);
    }

    /// <summary>The 64-bit lanes exchanged.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Swap(Vector128<ulong> x) => Vector128.Shuffle(x, Vector128.Create(1UL, 0UL));

    /// <summary>
    /// Per lane, the 64-bit carry-less product of the low 32 bits of <paramref name="x"/> and the
    /// operand whose four masked parts are at <paramref name="parts"/>: the sixteen masked multiplies.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Multiply32(Vector128<ulong> x, ref Vector128<ulong> parts)
    {
        Vector128<ulong> x0 = x & Vector128.Create(0x11111111UL), x1 = x & Vector128.Create(0x22222222UL);
        Vector128<ulong> x2 = x & Vector128.Create(0x44444444UL), x3 = x & Vector128.Create(0x88888888UL);
        Vector128<ulong> y0 = parts, y1 = Unsafe.Add(ref parts, 1), y2 = Unsafe.Add(ref parts, 2), y3 = Unsafe.Add(ref parts, 3);
        Vector128<ulong> z0 = TMultiply.Multiply(x0, y0) ^ TMultiply.Multiply(x1, y3) ^ TMultiply.Multiply(x2, y2) ^ TMultiply.Multiply(x3, y1);
        Vector128<ulong> z1 = TMultiply.Multiply(x0, y1) ^ TMultiply.Multiply(x1, y0) ^ TMultiply.Multiply(x2, y3) ^ TMultiply.Multiply(x3, y2);
        Vector128<ulong> z2 = TMultiply.Multiply(x0, y2) ^ TMultiply.Multiply(x1, y1) ^ TMultiply.Multiply(x2, y0) ^ TMultiply.Multiply(x3, y3);
        Vector128<ulong> z3 = TMultiply.Multiply(x0, y3) ^ TMultiply.Multiply(x1, y2) ^ TMultiply.Multiply(x2, y1) ^ TMultiply.Multiply(x3, y0);
        return (z0 & Vector128.Create(0x1111111111111111UL)) | (z1 & Vector128.Create(0x2222222222222222UL))
            | (z2 & Vector128.Create(0x4444444444444444UL)) | (z3 & Vector128.Create(0x8888888888888888UL));
    }

    /// <summary>dot(a, H) = a H x^-128 mod P, H from its operand parts in <paramref name="table"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Dot(ref Vector128<ulong> table, Vector128<ulong> a)
    {
        Operands(a, out Vector128<ulong> o0, out Vector128<ulong> o1, out Vector128<ulong> o2, out Vector128<ulong> o3, out Vector128<ulong> o4);
        Vector128<ulong> r0 = Multiply32(o0, ref table);                     // (a0 h0, a2 h2)
        Vector128<ulong> r1 = Multiply32(o1, ref Unsafe.Add(ref table, 4));  // (a1 h1, a3 h3)
        Vector128<ulong> r2 = Multiply32(o2, ref Unsafe.Add(ref table, 8));  // the sums' products
        Vector128<ulong> r3 = Multiply32(o3, ref Unsafe.Add(ref table, 12));
        Vector128<ulong> r4 = Multiply32(o4, ref Unsafe.Add(ref table, 16));

        // The low and high 64 x 64 products (lane 0 and lane 1): low word r0 ^ (m << 32), high word
        // r1 ^ (m >> 32), with m Karatsuba's middle term. t = (low.lo, high.lo), v = (low.hi, high.hi).
        Vector128<ulong> m = r0 ^ r1 ^ r2;
        Vector128<ulong> t = r0 ^ Vector128.ShiftLeft(m, 32);
        Vector128<ulong> v = r1 ^ Vector128.ShiftRightLogical(m, 32);

        // The product of the halves' sums: (r3.0 ^ (mm << 32), r3.1 ^ (mm >> 32)), both lanes of
        // r4 ^ r3 ^ swap(r3) being its middle term mm.
        Vector128<ulong> mm = r4 ^ r3 ^ Swap(r3);
        Vector128<ulong> sum = r3
            ^ (Vector128.ShiftLeft(mm, 32) & Vector128.Create(ulong.MaxValue, 0UL))
            ^ (Vector128.ShiftRightLogical(mm, 32) & Vector128.Create(0UL, ulong.MaxValue));

        // The 256-bit product d3:d2:d1:d0 = low + (low ^ high ^ sum) x^64 + high x^128:
        // d0 = t.0, d3 = v.1, d1 = v.0 ^ t.0 ^ t.1 ^ sum.0, d2 = t.1 ^ v.0 ^ v.1 ^ sum.1.
        Vector128<ulong> laneZero = Vector128.Create(ulong.MaxValue, 0UL);
        Vector128<ulong> tt = t ^ Swap(t), vv = v ^ Swap(v);
        Vector128<ulong> outer = Vector128.ConditionalSelect(laneZero, t, v);                                  // (d0, d3)
        Vector128<ulong> inner = Vector128.ConditionalSelect(laneZero, v, t) ^ Vector128.ConditionalSelect(laneZero, tt, vv) ^ sum; // (d1, d2)
        Vector128<ulong> low = Vector128.ConditionalSelect(laneZero, outer, Swap(inner));                     // (d0, d1)
        Vector128<ulong> high = Vector128.ConditionalSelect(laneZero, Swap(inner), outer);                    // (d2, d3)
        return Reduce(low, high);
    }

    /// <summary>
    /// Montgomery reduction by x^128 of d3:d2:d1:d0 (low = (d0, d1), high = (d2, d3)), as in
    /// Polyval.Portable.cs: adding d0 P clears d0, with d0 (x^57 + x^62 + x^63) going into d1 (f1)
    /// and d0 (1 + x^-1 + x^-2 + x^-7) x^128 into d2 (f2); then the same for the new d1 into d2 and
    /// d3. f1(d1 ^ f1(d0)) = f1(d1), since f1 keeps only bits from 57 up and shifts them past 63.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Reduce(Vector128<ulong> low, Vector128<ulong> high)
    {
        Vector128<ulong> f1 = Vector128.ShiftLeft(low, 63) ^ Vector128.ShiftLeft(low, 62) ^ Vector128.ShiftLeft(low, 57); // (f1(d0), f1(d1))
        Vector128<ulong> swapped = Swap(f1);                                                                                // (f1(d1), f1(d0))
        low ^= swapped & Vector128.Create(0UL, ulong.MaxValue);                                                            // (d0, d1 ^ f1(d0))
        Vector128<ulong> f2 = low ^ Vector128.ShiftRightLogical(low, 1) ^ Vector128.ShiftRightLogical(low, 2) ^ Vector128.ShiftRightLogical(low, 7);
        return high ^ f2 ^ (swapped & Vector128.Create(ulong.MaxValue, 0UL));
    }

    /// <summary>
    /// Overwrites the stack below the caller's frame, where <see cref="UpdateBlocks"/> just ran:
    /// with 16 vector registers (x64 without AVX-512) its products spill to frame slots C# cannot name.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing
    private static void BurnStack()
    {
        Span<byte> scratch = stackalloc byte[1024];
        CryptographicOperations.ZeroMemory(scratch);
    }
}
