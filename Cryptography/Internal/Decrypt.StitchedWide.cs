// RFC 8452 section 5's decryption for AesNiVpclmulqdq: CTR with 128-bit AES-NI (.NET 10 has no
// VAES) stitched with POLYVAL on 256-bit VPCLMULQDQ, then the message's end (Decrypt.End.cs).
//
// Why both halves, measured on Zen 4 against the two passes of TwoPassDecrypt (Benchmarks
// --decrypt-loop-ab, interleaved medians; docs/benchmarks.md has the table):
// - The bulk. Each step runs the AES rounds of 8 counter blocks and, between rounds 1 and 8, the
//   multiplies of the previous step's 8 plaintext blocks as 4 pairs against (H^8, H^7) .. (H^2, H^1),
//   then folds the two lanes and reduces once. A 256-bit carry-less multiply takes AES issue slots
//   on this CPU (Benchmarks --pipe-probe), so stitching hides only part of POLYVAL, and how much
//   depends on how thinly the multiplies are spread: at 1350 bytes, AES-256, 12 multiplies in 4
//   rounds took 0.92-0.93 of two passes' time, in 6 rounds 0.89-0.90, in 8 rounds (1-2 a round,
//   as here; AES-128 has no more rounds before its last two) 0.887.
// - The end. The last group is absorbed as 4 pairs with one reduction, and the last 0-127 bytes
//   and the length block go through Decrypt.End.cs (one keystream batch, one sum of products, one
//   reduction, the partial block never copied), which took a 1350-byte AES-256 decryption from
//   379-384 ns to 340-347 ns on top of the stitched bulk (docs/benchmarks.md).
//
// Needs the 8 powers H^8..H^1 in the key table: PolyvalBlocks asks Init for them (8 to 15 blocks'
// worth), and the loop runs only on messages over 128 bytes; shorter ones go back to the caller.
// No branch or address depends on a secret: every branch and index follows the lengths. Nothing
// secret is left in this frame: the accumulator lives in the caller's scratch (wiped), and the JIT's
// listings (AVX-512 on and DOTNET_EnableAVX512=0) show no other vector stored to the stack but the
// constant counter step and the length block.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

/// <summary>Decryption's CTR and 256-bit POLYVAL in one pass, then the shared end (see the file's opening comment).</summary>
internal readonly struct StitchedWideDecrypt<TIsa> : IDecryptLoop
    where TIsa : IAesInstructions
{
    private const int Group = 128;

    /// <summary>
    /// The loop multiplies by H^8..H^1 only, and so does the end: 8 powers (Init's count for 8 to 15
    /// blocks), not the 16 it makes from 16 blocks on.
    /// </summary>
    public int PolyvalBlocks(int blocks) => Math.Min(blocks, 15);

    /// <summary>Messages of 128 bytes or less go back to the caller; this check is inlined there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Run(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock, out bool finished)
    {
        finished = ciphertext.Length > Group;
        if (finished)
        {
            RunLong(in schedule, rounds, counterBlock, in key, accumulator, ciphertext, plaintext, lengthBlock);
            return ciphertext.Length;
        }

        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void RunLong(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock)
    {
        // Whole groups through the loop (at least one), the last 0 to 127 bytes after it.
        int rest = ciphertext.Length & (Group - 1);
        int bulk = ciphertext.Length - rest;

        // The first group has no group before it to absorb: CTR alone.
        default(AesVector<TIsa>).Ctr32(in schedule, rounds, counterBlock, ciphertext[..Group], plaintext[..Group]);

        ref byte source = ref MemoryMarshal.GetReference(ciphertext);
        ref byte destination = ref MemoryMarshal.GetReference(plaintext);
        ref Vector128<byte> roundKeys = ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
        // Table pairs 4..7 are (H^8, H^7) .. (H^2, H^1); their Karatsuba halves are 8 pairs on.
        ref Vector256<ulong> pairs = ref Unsafe.As<Vector128<ulong>, Vector256<ulong>>(ref PolyvalKeyLayout.Table(in key));
        ref Vector256<ulong> powers = ref Unsafe.Add(ref pairs, 4);
        ref Vector256<ulong> halves = ref Unsafe.Add(ref pairs, (PolyvalKeyLayout.KaratsubaIndex / 2) + 4);
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32() + Vector128.Create(8u, 0, 0, 0);
        // The accumulator stays in the caller's scratch, which it wipes, not in a local: the JIT kept
        // such a local in a stack slot of this frame across the rounds loop. A store and a reload per
        // step are off the critical path (the reduction has most of a step to land).
        ref Vector128<ulong> acc = ref Unsafe.As<byte, Vector128<ulong>>(ref MemoryMarshal.GetReference(accumulator));
        for (nuint offset = Group; offset < (nuint)bulk; offset += Group)
        {
            ref byte previous = ref Unsafe.Add(ref destination, offset - Group);
            Vector128<byte> k = roundKeys;
            Vector128<byte> b0 = TIsa.First(counter.AsByte(), k);
            Vector128<byte> b1 = TIsa.First((counter + Vector128.Create(1u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b2 = TIsa.First((counter + Vector128.Create(2u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b3 = TIsa.First((counter + Vector128.Create(3u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b4 = TIsa.First((counter + Vector128.Create(4u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b5 = TIsa.First((counter + Vector128.Create(5u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b6 = TIsa.First((counter + Vector128.Create(6u, 0, 0, 0)).AsByte(), k);
            Vector128<byte> b7 = TIsa.First((counter + Vector128.Create(7u, 0, 0, 0)).AsByte(), k);

            // Rounds 1 to 8 carry the 12 multiplies (lo, hi, mid of 4 pairs), then the reduction; pair 0,
            // which carries the accumulator, comes last, so the other three never wait for the reduction
            // of the step before.
            Vector256<ulong> lo, mid, hi;
            k = Unsafe.Add(ref roundKeys, 1);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            Vector256<ulong> x3 = Pair(ref previous, 96);
            lo = Multiply(x3, Unsafe.Add(ref powers, 3), 0x00);
            hi = Multiply(x3, Unsafe.Add(ref powers, 3), 0x11);

            k = Unsafe.Add(ref roundKeys, 2);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            mid = Multiply(x3 ^ SwapHalves(x3), Unsafe.Add(ref halves, 3), 0x00);

            k = Unsafe.Add(ref roundKeys, 3);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            Vector256<ulong> x2 = Pair(ref previous, 64);
            lo ^= Multiply(x2, Unsafe.Add(ref powers, 2), 0x00);
            hi ^= Multiply(x2, Unsafe.Add(ref powers, 2), 0x11);

            k = Unsafe.Add(ref roundKeys, 4);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            mid ^= Multiply(x2 ^ SwapHalves(x2), Unsafe.Add(ref halves, 2), 0x00);

            k = Unsafe.Add(ref roundKeys, 5);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            Vector256<ulong> x1 = Pair(ref previous, 32);
            lo ^= Multiply(x1, Unsafe.Add(ref powers, 1), 0x00);
            hi ^= Multiply(x1, Unsafe.Add(ref powers, 1), 0x11);

            k = Unsafe.Add(ref roundKeys, 6);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            mid ^= Multiply(x1 ^ SwapHalves(x1), Unsafe.Add(ref halves, 1), 0x00);

            k = Unsafe.Add(ref roundKeys, 7);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            Vector256<ulong> x0 = Pair(ref previous, 0) ^ Vector256.Create(acc, Vector128<ulong>.Zero);
            lo ^= Multiply(x0, Unsafe.Add(ref powers, 0), 0x00);
            hi ^= Multiply(x0, Unsafe.Add(ref powers, 0), 0x11);

            k = Unsafe.Add(ref roundKeys, 8);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            mid ^= Multiply(x0 ^ SwapHalves(x0), Unsafe.Add(ref halves, 0), 0x00);
            acc = Reduce(lo, mid, hi);

            for (int r = 9; r < rounds - 1; r++)
            {
                k = Unsafe.Add(ref roundKeys, r);
                b0 = TIsa.Round(b0, k);
                b1 = TIsa.Round(b1, k);
                b2 = TIsa.Round(b2, k);
                b3 = TIsa.Round(b3, k);
                b4 = TIsa.Round(b4, k);
                b5 = TIsa.Round(b5, k);
                b6 = TIsa.Round(b6, k);
                b7 = TIsa.Round(b7, k);
            }

            AesVector<TIsa>.LastRounds8(ref roundKeys, rounds, b0, b1, b2, b3, b4, b5, b6, b7, ref Unsafe.Add(ref source, offset), ref Unsafe.Add(ref destination, offset));
            counter += Vector128.Create(8u, 0, 0, 0);
        }

        // The last group: four pairs, one reduction, into the scratch; then the end. Loaded 16 bytes
        // at a time, as the loop stored it: a 32-byte load over two 16-byte stores still in the store
        // buffer cannot be forwarded from them.
        ref byte last = ref Unsafe.Add(ref destination, bulk - Group);
        Vector256<ulong> y3 = Pair(ref last, 96);
        Vector256<ulong> lastLo = Multiply(y3, Unsafe.Add(ref powers, 3), 0x00);
        Vector256<ulong> lastHi = Multiply(y3, Unsafe.Add(ref powers, 3), 0x11);
        Vector256<ulong> lastMid = Multiply(y3 ^ SwapHalves(y3), Unsafe.Add(ref halves, 3), 0x00);
        Vector256<ulong> y2 = Pair(ref last, 64);
        lastLo ^= Multiply(y2, Unsafe.Add(ref powers, 2), 0x00);
        lastHi ^= Multiply(y2, Unsafe.Add(ref powers, 2), 0x11);
        lastMid ^= Multiply(y2 ^ SwapHalves(y2), Unsafe.Add(ref halves, 2), 0x00);
        Vector256<ulong> y1 = Pair(ref last, 32);
        lastLo ^= Multiply(y1, Unsafe.Add(ref powers, 1), 0x00);
        lastHi ^= Multiply(y1, Unsafe.Add(ref powers, 1), 0x11);
        lastMid ^= Multiply(y1 ^ SwapHalves(y1), Unsafe.Add(ref halves, 1), 0x00);
        Vector256<ulong> y0 = Pair(ref last, 0) ^ Vector256.Create(acc, Vector128<ulong>.Zero);
        lastLo ^= Multiply(y0, powers, 0x00);
        lastHi ^= Multiply(y0, powers, 0x11);
        lastMid ^= Multiply(y0 ^ SwapHalves(y0), halves, 0x00);
        acc = Reduce(lastLo, lastMid, lastHi);
        counter.AsByte().CopyTo(counterBlock);
        DecryptEnd<TIsa, Pclmul>.Finish(in schedule, rounds, counterBlock, in key, accumulator, ciphertext[bulk..], plaintext[bulk..], lengthBlock.AsUInt64());
    }

    /// <summary>Folds the two lanes of each 256-bit partial product and reduces once.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Reduce(Vector256<ulong> lo, Vector256<ulong> mid, Vector256<ulong> hi)
    {
        Vector128<ulong> lo128 = lo.GetLower() ^ lo.GetUpper();
        Vector128<ulong> hi128 = hi.GetLower() ^ hi.GetUpper();
        Vector128<ulong> mid128 = mid.GetLower() ^ mid.GetUpper();
        return PolyvalClmul<Pclmul>.Reduce(lo128, mid128 ^ lo128 ^ hi128, hi128);
    }

    // Two blocks the step before stored 16 bytes at a time, loaded the same way (see the last group's
    // comment in RunLong).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Pair(ref byte block, nuint offset) =>
        Vector256.Create(Vector128.LoadUnsafe(ref block, offset), Vector128.LoadUnsafe(ref block, offset + 16)).AsUInt64();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Multiply(Vector256<ulong> x, Vector256<ulong> y, [System.Diagnostics.CodeAnalysis.ConstantExpected] byte control) =>
        Pclmulqdq.V256.CarrylessMultiply(x, y, control);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> SwapHalves(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
