// RFC 8452 section 5's decryption for AesNiVpclmulqdq: CTR with 128-bit AES-NI (.NET 10 has no
// VAES) stitched with POLYVAL on 256-bit VPCLMULQDQ, and the message's end (the last group, the
// last 0-127 bytes and the length block) finished with one reduction, the partial block in
// registers.
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
// - The end. Two passes finish a message with a chain of short dependent steps: CTR of the last
//   whole blocks and of the partial block (a keystream buffer, a byte loop), a copy of the partial
//   plaintext into a zero-padded block, the length block stored and reloaded, and two or three
//   128-bit POLYVAL updates with a reduction each; then the tag. Knocked out one at a time in a
//   1350-byte AES-256 decryption with a stitched bulk, the last 70 bytes' CTR took 30 ns and their
//   POLYVAL 38 ns of about 380. Here the last group's multiplies, the end's keystream (8 blocks, one
//   latency period) and the end's blocks with the length block (one sum of products, one
//   reduction) are independent work the CPU overlaps, and the partial block is read and written
//   as part of 16-byte windows over the message's last 16 bytes.
//
// Needs the 8 powers H^8..H^1 in the key table: PolyvalBlocks asks Init for them (8 to 15 blocks'
// worth), and the loop runs only on messages over 128 bytes; shorter ones go back to the caller.
// No branch or address depends on a secret: every branch and index follows the lengths. Nothing
// secret is left in these frames: the accumulator lives in the caller's scratch (wiped), the end's
// keystream in a buffer wiped here, and the JIT's listings (AVX-512 on and DOTNET_EnableAVX512=0)
// show no other vector stored to the stack but the constant counter step and the length block.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>Decryption's CTR and 256-bit POLYVAL in one pass, with the end in registers (see the file's opening comment).</summary>
internal readonly struct StitchedWideDecrypt<TIsa> : IDecryptLoop
    where TIsa : IAesInstructions
{
    private const int Group = 128;
    private const int BlockSize = 16;

    /// <summary>
    /// The loop multiplies by H^8..H^1 only, and so does the end: 8 powers (Init's count for 8 to 15
    /// blocks), not the 16 it makes from 16 blocks on.
    /// </summary>
    public static int PolyvalBlocks(int blocks) => Math.Min(blocks, 15);

    /// <summary>Messages of 128 bytes or less go back to the caller; this check is inlined there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Run(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock, out bool finished)
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
        AesVector<TIsa>.Ctr32(in schedule, rounds, counterBlock, ciphertext[..Group], plaintext[..Group]);

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

        counter.AsByte().CopyTo(counterBlock);
        Finish(in schedule, rounds, counterBlock, in key, accumulator, ref Unsafe.Add(ref destination, bulk - Group), ciphertext[bulk..], plaintext[bulk..], lengthBlock.AsUInt64());
    }

    /// <summary>
    /// The message's end: absorbs the last group the loop decrypted (<paramref name="last"/>, 128
    /// bytes), decrypts <paramref name="ciphertext"/> (0 to 127 bytes) from
    /// <paramref name="counterBlock"/>, and absorbs its plaintext, zero-padded, and
    /// <paramref name="lengthBlock"/> into <paramref name="accumulator"/>. Secrets come in and go out
    /// through the caller's scratch, not by value (which would leave them in argument slots), and
    /// nothing vector is live across the keystream's wipe, so none is spilled to this frame.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Finish(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ref byte last, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<ulong> lengthBlock)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        ref Vector256<ulong> powers = ref Unsafe.Add(ref Unsafe.As<Vector128<ulong>, Vector256<ulong>>(ref table), 4);
        ref Vector256<ulong> halves = ref Unsafe.Add(ref powers, PolyvalKeyLayout.KaratsubaIndex / 2);
        ref Vector128<ulong> result = ref Unsafe.As<byte, Vector128<ulong>>(ref MemoryMarshal.GetReference(accumulator));
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32();
        int length = ciphertext.Length;
        int whole = length / BlockSize, partial = length % BlockSize;
        (counter + Vector128.Create((uint)(whole + (partial != 0 ? 1 : 0)), 0, 0, 0)).AsByte().CopyTo(counterBlock);

        // The last group: four pairs, one reduction. Independent of the keystream below, so the CPU
        // runs the two side by side. Loaded 16 bytes at a time, as the loop stored it: a 32-byte load
        // over two 16-byte stores still in the store buffer cannot be forwarded from them.
        Vector256<ulong> x = Pair(ref last, 96);
        Vector256<ulong> lo = Multiply(x, Unsafe.Add(ref powers, 3), 0x00);
        Vector256<ulong> hi = Multiply(x, Unsafe.Add(ref powers, 3), 0x11);
        Vector256<ulong> mid = Multiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 3), 0x00);
        x = Pair(ref last, 64);
        lo ^= Multiply(x, Unsafe.Add(ref powers, 2), 0x00);
        hi ^= Multiply(x, Unsafe.Add(ref powers, 2), 0x11);
        mid ^= Multiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 2), 0x00);
        x = Pair(ref last, 32);
        lo ^= Multiply(x, Unsafe.Add(ref powers, 1), 0x00);
        hi ^= Multiply(x, Unsafe.Add(ref powers, 1), 0x11);
        mid ^= Multiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 1), 0x00);
        x = Pair(ref last, 0) ^ Vector256.Create(result, Vector128<ulong>.Zero);
        lo ^= Multiply(x, powers, 0x00);
        hi ^= Multiply(x, powers, 0x11);
        mid ^= Multiply(x ^ SwapHalves(x), halves, 0x00);
        Vector128<ulong> acc = Reduce(lo, mid, hi);
        if (length == 0)
        {
            result = PolyvalClmul<Pclmul>.Dot(acc ^ lengthBlock, PolyvalKeyLayout.Power(ref table, 1));
            return;
        }

        // Eight keystream blocks whatever the length: one latency period, as one block would take.
        Keystream keystream = default;
        ref byte stream = ref Unsafe.As<Keystream, byte>(ref keystream);
        AesVector<TIsa>.Ctr8(in schedule, rounds, counter, ref stream, ref stream);
        ref byte source = ref MemoryMarshal.GetReference(ciphertext);
        ref byte destination = ref MemoryMarshal.GetReference(plaintext);

        // POLYVAL of the whole blocks, the padded partial block and the length block, at most 9, by
        // H^n .. H^1 in one sum. With 9 (a 113- to 127-byte end) the table's 8 powers fall one short,
        // so the first block goes in alone.
        int exponent = whole + (partial != 0 ? 1 : 0) + 1;
        int i = 0;
        if (exponent == 9)
        {
            Vector128<ulong> block = (Vector128.LoadUnsafe(ref stream) ^ Vector128.LoadUnsafe(ref source)).AsUInt64();
            block.AsByte().StoreUnsafe(ref destination);
            acc = PolyvalClmul<Pclmul>.Dot(acc ^ block, PolyvalKeyLayout.Power(ref table, 1));
            i = 1;
            exponent = 8;
        }

        // Karatsuba, unreduced; the accumulator rides on the first block.
        Vector128<ulong> lo128 = Vector128<ulong>.Zero, mid128 = Vector128<ulong>.Zero, hi128 = Vector128<ulong>.Zero;
        for (; i < whole; i++, exponent--)
        {
            Vector128<ulong> block = (Vector128.LoadUnsafe(ref stream, (nuint)(i * BlockSize)) ^ Vector128.LoadUnsafe(ref source, (nuint)(i * BlockSize))).AsUInt64();
            block.AsByte().StoreUnsafe(ref destination, (nuint)(i * BlockSize));
            (lo128, mid128, hi128) = Accumulate(ref table, exponent, block ^ acc, lo128, mid128, hi128);
            acc = Vector128<ulong>.Zero;
        }

        if (partial != 0)
        {
            // The message's last 16 bytes end with the partial block's: shuffle those to the front,
            // zeroing the rest (a shuffle index with its top bit set yields 0), and XOR the keystream.
            // Both 16-byte windows reach back before this end, into the message's earlier bytes: it is
            // over 128 bytes long.
            Vector128<byte> index = Vector128.Create((byte)0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            Vector128<byte> inPartial = Vector128.LessThan(index, Vector128.Create((byte)partial));
            Vector128<byte> end = Vector128.LoadUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref source, length), BlockSize));
            Vector128<byte> block = (Ssse3.Shuffle(end, (index + Vector128.Create((byte)(BlockSize - partial))) | ~inPartial) ^ Vector128.LoadUnsafe(ref stream, (nuint)(whole * BlockSize))) & inPartial;

            // Written back as the plaintext's last 16 bytes: those before the partial block are
            // plaintext already (this end's whole blocks, or the loop's last group), read back and
            // joined to it. With the output over the input, the ciphertext bytes this overwrites
            // were read above.
            Vector128<byte> before = Vector128.LoadUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref destination, length), partial + BlockSize));
            Vector128<byte> inBefore = Vector128.LessThan(index, Vector128.Create((byte)(BlockSize - partial)));
            Vector128<byte> window = Ssse3.Shuffle(before, (index + Vector128.Create((byte)partial)) | ~inBefore)
                | Ssse3.Shuffle(block, (index - Vector128.Create((byte)(BlockSize - partial))) | inBefore);
            window.StoreUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref destination, length), BlockSize));
            (lo128, mid128, hi128) = Accumulate(ref table, exponent, block.AsUInt64() ^ acc, lo128, mid128, hi128);
            acc = Vector128<ulong>.Zero;
        }

        (lo128, mid128, hi128) = Accumulate(ref table, 1, lengthBlock ^ acc, lo128, mid128, hi128);
        result = PolyvalClmul<Pclmul>.Reduce(lo128, mid128 ^ lo128 ^ hi128, hi128);
        CryptographicOperations.ZeroMemory(keystream);
    }

    /// <summary>Adds block * H^exponent, unreduced (Karatsuba), to lo, mid, hi.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static (Vector128<ulong> Lo, Vector128<ulong> Mid, Vector128<ulong> Hi) Accumulate(ref Vector128<ulong> table, int exponent, Vector128<ulong> block, Vector128<ulong> lo, Vector128<ulong> mid, Vector128<ulong> hi)
    {
        Vector128<ulong> power = PolyvalKeyLayout.Power(ref table, exponent);
        Vector128<ulong> half = Unsafe.Add(ref table, PolyvalKeyLayout.KaratsubaIndex + PolyvalKeyLayout.PowerIndex(exponent));
        return (lo ^ Pclmul.Lower(block, power), mid ^ Pclmul.Lower(block ^ Pclmul.SwapHalves(block), half), hi ^ Pclmul.Upper(block, power));
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

    // Two blocks the step before stored 16 bytes at a time, loaded the same way (see Finish).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Pair(ref byte block, nuint offset) =>
        Vector256.Create(Vector128.LoadUnsafe(ref block, offset), Vector128.LoadUnsafe(ref block, offset + 16)).AsUInt64();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Multiply(Vector256<ulong> x, Vector256<ulong> y, [System.Diagnostics.CodeAnalysis.ConstantExpected] byte control) =>
        Pclmulqdq.V256.CarrylessMultiply(x, y, control);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> SwapHalves(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();

    [InlineArray(Group)]
    private struct Keystream
    {
        private byte _element0;
    }
}
