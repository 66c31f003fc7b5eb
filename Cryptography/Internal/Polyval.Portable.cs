// Portable, constant-time POLYVAL (RFC 8452 section 3) in plain scalar C#: no hardware carry-less
// multiply, no intrinsics, no table lookups, no branches on data.
//
// Field elements are 16 bytes read little-endian: bit 0 of byte 0 is the coefficient of x^0, so an
// element is two ulongs, low half (x^0..x^63) first. dot(a, b) = a * b * x^-128 modulo
// P(x) = x^128 + x^127 + x^126 + x^121 + 1, and POLYVAL is Horner's rule: S = dot(S ^ X_i, H).
//
// The carry-less multiply follows BearSSL's ghash_ctmul64 (Thomas Pornin, src/hash/ghash_ctmul64.c,
// https://bearssl.org/constanttime.html#ghash-for-gcm):
//  * Bmul64 gives the low 64 bits of a 64x64 carry-less product with ordinary integer multiplies:
//    keeping only every fourth bit of each operand leaves "holes" of three zero bits, so integer
//    carries never reach a bit the result mask keeps (see Bmul64).
//  * The high 64 bits come from the bit-reversal identity rev64(clmul_lo(rev64(a), rev64(b))) >> 1.
//  * Karatsuba turns the 128x128 product into three 64x64 products (six Bmul64 calls with the
//    reversed ones), and a Montgomery-style reduction by x^128 with shifts and XORs gives dot().
//  * From AggregateBlocks blocks on, four blocks share one reduction (Horner's rule with H^2..H^4
//    precomputed): the products are summed, and the middle terms, the reversal of the high halves
//    and the reduction, being linear, run once per four blocks. Measured in Chromium over 8 KiB:
//    0.87 of the time one block at a time (docs/blazor.md).

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>Constant-time POLYVAL from masked integer multiplies (BearSSL ctmul64 technique); runs everywhere.</summary>
internal readonly struct PolyvalPortable : IPolyval
{
    // Masks picking every fourth bit, at offsets 0, 1, 2, 3 (BearSSL bmul64).
    private const ulong M0 = 0x1111111111111111UL;
    private const ulong M1 = 0x2222222222222222UL;
    private const ulong M2 = 0x4444444444444444UL;
    private const ulong M3 = 0x8888888888888888UL;

    /// <summary>Words per power of H in the key: h0, h1, h0 ^ h1 and their three bit reversals.</summary>
    private const int PowerWords = 6;

    /// <summary>Where Init says whether H^2..H^4 are there (1) or not (0), after four powers.</summary>
    private const int FlagIndex = 4 * PowerWords;

    /// <summary>Messages with at least this many blocks get H^2..H^4 and go four blocks at a time.</summary>
    internal const int AggregateBlocks = 16;

    /// <summary>Bytes of stack <see cref="BurnStack"/> overwrites after each update.</summary>
    private const int BurnBytes = 1024;

    public bool IsSupported => true;

    public void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key)
    {
        if (h.Length != 16)
        {
            throw new ArgumentException("POLYVAL key must be 16 bytes.", nameof(h));
        }

        // A message of AggregateBlocks blocks or more also gets H^2..H^4 (in dot's Montgomery form):
        // four blocks then share one reduction and the bit reversals of their high products. The
        // count is public (a length); the three multiplies cost about what aggregation saves on 16
        // blocks, so shorter messages go one block at a time.
        InitCore(h, blockCount >= AggregateBlocks, ref key[0]);
        BurnStack();
    }

    // Its own optimised frame, burnt by Init: the powers of H pass through locals the JIT may spill.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void InitCore(ReadOnlySpan<byte> h, bool aggregate, ref ulong key)
    {
        // H as two little-endian ulongs (x^0..x^63, then x^64..x^127), with its Karatsuba operands.
        ulong h0 = BinaryPrimitives.ReadUInt64LittleEndian(h);
        ulong h1 = BinaryPrimitives.ReadUInt64LittleEndian(h.Slice(8));
        StorePower(ref key, h0, h1);
        Unsafe.Add(ref key, FlagIndex) = aggregate ? 1UL : 0UL;
        if (aggregate)
        {
            ulong a0 = h0, a1 = h1;
            Dot(ref a0, ref a1, ref key);                                  // H^2 x^-128
            StorePower(ref Unsafe.Add(ref key, PowerWords), a0, a1);
            ulong b0 = a0, b1 = a1;
            Dot(ref b0, ref b1, ref key);                                  // H^3 x^-256
            StorePower(ref Unsafe.Add(ref key, 2 * PowerWords), b0, b1);
            Dot(ref a0, ref a1, ref Unsafe.Add(ref key, PowerWords));      // H^4 x^-384
            StorePower(ref Unsafe.Add(ref key, 3 * PowerWords), a0, a1);
        }
    }

    /// <summary>Init writes at most the first 25 words; the wipe covers the whole key (this backend is not the fast path).</summary>
    public int UnusedKeyPrefixBytes(int blockCount) => 0;

    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks) => Update(in key, accumulator, blocks, default);

    /// <summary>Both parts in one pass: one set-up and one stack burn, which the browser's interpreter pays per call.</summary>
    public void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last)
    {
        if (accumulator.Length != 16)
        {
            throw new ArgumentException("Accumulator must be 16 bytes.", nameof(accumulator));
        }
        if (((blocks.Length | last.Length) & 15) != 0)
        {
            throw new ArgumentException("Input length must be a multiple of 16.", (blocks.Length & 15) != 0 ? nameof(blocks) : nameof(last));
        }

        UpdateCore(ref Unsafe.AsRef(in key[0]), accumulator, blocks, last);
        BurnStack();
    }

    /// <summary>Writes H^k's words (h0, h1, h0 ^ h1 and their bit reversals) at <paramref name="power"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StorePower(ref ulong power, ulong h0, ulong h1)
    {
        power = h0;
        Unsafe.Add(ref power, 1) = h1;
        Unsafe.Add(ref power, 2) = h0 ^ h1;
        Unsafe.Add(ref power, 3) = Rev64(h0);
        Unsafe.Add(ref power, 4) = Rev64(h1);
        Unsafe.Add(ref power, 5) = Rev64(h0) ^ Rev64(h1);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void UpdateCore(ref ulong key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last)
    {
        ulong y0 = BinaryPrimitives.ReadUInt64LittleEndian(accumulator);
        ulong y1 = BinaryPrimitives.ReadUInt64LittleEndian(accumulator.Slice(8));
        int maxChunk = Unsafe.Add(ref key, FlagIndex) != 0 ? 4 : 1;

        // Horner's rule a chunk of up to four blocks at a time: S = dot(S ^ X1, H^c) + dot(X2, H^(c-1))
        // + ... + dot(Xc, H) (with H^k in dot's form, the chunk's sum is Horner's c steps). The six
        // Karatsuba products of every block are summed first; their middle terms, the reversal of the
        // high halves and the reduction are all linear, so they run once per chunk. Counts are public.
        // The blocks, then the last ones (one loop, so one copy of the code for the interpreter).
        for (int part = 0; part < 2; part++)
        {
            ReadOnlySpan<byte> data = part == 0 ? blocks : last;
            ref byte x = ref MemoryMarshal.GetReference(data);
            for (int offset = 0; offset < data.Length;)
            {
                int chunk = Math.Min(maxChunk, (data.Length - offset) / 16);
                ulong z0 = 0, z1 = 0, z2 = 0, z0h = 0, z1h = 0, z2h = 0;
                for (int i = 0; i < chunk; i++, offset += 16)
                {
                    ulong a0 = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref x, offset));
                    ulong a1 = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref x, offset + 8));
                    if (!BitConverter.IsLittleEndian)
                    {
                        a0 = BinaryPrimitives.ReverseEndianness(a0);
                        a1 = BinaryPrimitives.ReverseEndianness(a1);
                    }

                    // The chunk's first block carries the accumulator (y is zero after it).
                    a0 ^= y0;
                    a1 ^= y1;
                    y0 = 0;
                    y1 = 0;
                    ref ulong h = ref Unsafe.Add(ref key, (chunk - 1 - i) * PowerWords);
                    ulong a0r = Rev64(a0), a1r = Rev64(a1);
                    z0 ^= Bmul64(a0, h);
                    z1 ^= Bmul64(a1, Unsafe.Add(ref h, 1));
                    z2 ^= Bmul64(a0 ^ a1, Unsafe.Add(ref h, 2));
                    z0h ^= Bmul64(a0r, Unsafe.Add(ref h, 3));
                    z1h ^= Bmul64(a1r, Unsafe.Add(ref h, 4));
                    z2h ^= Bmul64(a0r ^ a1r, Unsafe.Add(ref h, 5));
                }

                Reduce(z0, z1, z2, z0h, z1h, z2h, out y0, out y1);
            }
        }

        BinaryPrimitives.WriteUInt64LittleEndian(accumulator, y0);
        BinaryPrimitives.WriteUInt64LittleEndian(accumulator.Slice(8), y1);
    }

    /// <summary>(y1:y0) = dot(y1:y0, H^k) for the power whose words start at <paramref name="h"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Dot(ref ulong y0, ref ulong y1, ref ulong h)
    {
        ulong a0 = y0, a1 = y1, a0r = Rev64(a0), a1r = Rev64(a1);
        Reduce(
            Bmul64(a0, h), Bmul64(a1, Unsafe.Add(ref h, 1)), Bmul64(a0 ^ a1, Unsafe.Add(ref h, 2)),
            Bmul64(a0r, Unsafe.Add(ref h, 3)), Bmul64(a1r, Unsafe.Add(ref h, 4)), Bmul64(a0r ^ a1r, Unsafe.Add(ref h, 5)),
            out y0,
            out y1);
    }

    /// <summary>
    /// Finishes dot(): from the Karatsuba products of a 128x128 carry-less multiply (low halves z0, z1,
    /// z2 = lo(A0H0), lo(A1H1), lo((A0+A1)(H0+H1)); the same three of the bit-reversed operands),
    /// the 256-bit product, then its Montgomery reduction by x^128: (y1:y0) = a * h * x^-128 mod P.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Reduce(ulong z0, ulong z1, ulong z2, ulong z0h, ulong z1h, ulong z2h, out ulong y0, out ulong y1)
    {
        // Karatsuba: a*h = A0H0 + (A0H1 + A1H0) x^64 + A1H1 x^128, middle = (A0+A1)(H0+H1) - A0H0 - A1H1.
        z2 ^= z0 ^ z1;
        z2h ^= z0h ^ z1h;
        // rev64(clmul_lo(rev64 a, rev64 b)) holds product bits 63..126 at 0..63; >> 1 gives 64..127
        // (bit 127 of a 64x64 product is always 0).
        z0h = Rev64(z0h) >> 1;
        z1h = Rev64(z1h) >> 1;
        z2h = Rev64(z2h) >> 1;

        // 256-bit product D3:D2:D1:D0 (D0 = x^0..x^63).
        ulong d0 = z0;
        ulong d1 = z0h ^ z2;
        ulong d2 = z1 ^ z2h;
        ulong d3 = z1h;

        // Montgomery reduction by x^128 (RFC 8452 dot's x^-128), 64 bits at a time. P has constant
        // term 1, so adding D0 * P clears D0, and dividing by x^64 is then a word shift:
        //   D0 * P = D0 + D0 x^121 + D0 x^126 + D0 x^127 + D0 x^128,
        // where D0 x^(64+k) splits as (D0 << k) into D1 and (D0 >> (64-k)) into D2, for
        // k = 57, 62, 63 (from x^121, x^126, x^127), and D0 x^128 lands whole on D2.
        d1 ^= (d0 << 63) ^ (d0 << 62) ^ (d0 << 57);
        d2 ^= d0 ^ (d0 >> 1) ^ (d0 >> 2) ^ (d0 >> 7);
        // The same for D1 (now including what D0 pushed into it), folding into D2 and D3.
        d2 ^= (d1 << 63) ^ (d1 << 62) ^ (d1 << 57);
        d3 ^= d1 ^ (d1 >> 1) ^ (d1 >> 2) ^ (d1 >> 7);

        // What is left, D3:D2, is (a*h + Q*P) / x^128 with degree < 128: the reduced result.
        y0 = d2;
        y1 = d3;
    }

    /// <summary>
    /// Low 64 bits of the carry-less product of x and y using integer multiplication (BearSSL bmul64).
    /// Each operand is split into four parts holding every fourth bit (masks M0..M3). In the integer
    /// product of part i of x and part j of y, every partial product lands on a bit position
    /// p = i + j (mod 4), and at most 16 pairs of bits meet at one position below bit 64 (exactly
    /// 16 only at p &gt;= 60). A count of at most 15 fits in bit p and the three zero "holes" above
    /// it, so the integer sum is just these counts side by side and bit p is their parity, i.e. the
    /// carry-less result; a count of 16 carries only past bit 63, out of the word. The 16 products
    /// are grouped by i + j (mod 4), XORed (addition in GF(2)) and masked back to their class.
    /// Multiplication time on current 64-bit CPUs does not depend on operand values.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Bmul64(ulong x, ulong y)
    {
        ulong x0 = x & M0, x1 = x & M1, x2 = x & M2, x3 = x & M3;
        ulong y0 = y & M0, y1 = y & M1, y2 = y & M2, y3 = y & M3;
        ulong z0 = unchecked((x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1));
        ulong z1 = unchecked((x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2));
        ulong z2 = unchecked((x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3));
        ulong z3 = unchecked((x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0));
        return (z0 & M0) | (z1 & M1) | (z2 & M2) | (z3 & M3);
    }

    /// <summary>Reverses the bit order of a 64-bit word (swap adjacent 1, 2, 4, 8, 16, 32-bit groups).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Rev64(ulong x)
    {
        x = ((x & 0x5555555555555555UL) << 1) | ((x >> 1) & 0x5555555555555555UL);
        x = ((x & 0x3333333333333333UL) << 2) | ((x >> 2) & 0x3333333333333333UL);
        x = ((x & 0x0F0F0F0F0F0F0F0FUL) << 4) | ((x >> 4) & 0x0F0F0F0F0F0F0F0FUL);
        x = ((x & 0x00FF00FF00FF00FFUL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFUL);
        x = ((x & 0x0000FFFF0000FFFFUL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFUL);
        return (x << 32) | (x >> 32);
    }

    /// <summary>
    /// Overwrites the stack below the caller's frame, where <see cref="UpdateCore"/> or <see cref="InitCore"/> just ran. It
    /// holds H, the accumulator and every partial product only in scalar locals, which the JIT
    /// keeps in registers or spills to frame slots C# cannot name; zeroing this region removes
    /// whatever was spilled. The frame is a few hundred bytes; BurnBytes leaves a wide margin.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing; no need for the prolog to do it too
    private static void BurnStack()
    {
        // Where Backend clears the stack once the whole call is done (CallStack): the browser, whose
        // interpreter keeps locals in frames of its own stack that stackalloc memory is not taken
        // from, and the netstandard2.0 build, where one burn per message costs less than one per step.
        if (CallStack.BurnsAfterCall)
        {
            return;
        }

        Span<byte> scratch = stackalloc byte[BurnBytes];
        CryptographicOperations.ZeroMemory(scratch);
    }
}
