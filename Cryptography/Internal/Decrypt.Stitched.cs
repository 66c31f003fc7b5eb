// RFC 8452 section 5's decryption as one stitched pass over 128-bit vectors, the way BoringSSL's
// AES-GCM-SIV assembly (Gueron's aes128gcmsiv_dec / aes256gcmsiv_dec) does it: each step runs
// the AES rounds of 8 counter blocks and, between those rounds, the carry-less multiplies of the 8
// plaintext blocks the step before wrote (one block per round, against H^8..H^1, Karatsuba), then
// one reduction. AES rounds and carry-less multiplies are independent work, so the CPU runs the
// multiplies in the AES rounds' latency shadow, and the plaintext POLYVAL needs is read back from
// L1 right after it was stored.
//
// The 128-bit AesNiPclmulqdq backend uses this loop (its line in Backends.Widest): measured against
// the two passes of TwoPassDecrypt in one process, interleaved (Benchmarks --decrypt-loop-ab), it
// took 0.73-0.85 of their time from 256 B up with 128-bit POLYVAL; with 256-bit POLYVAL
// (AesNiVpclmulqdq) it took 1.00-1.14 of theirs, so that backend has a loop of its own that keeps
// the 256-bit multiplies (Decrypt.StitchedWide.cs). docs/benchmarks.md has the table. Its only
// stack slot is the constant counter step: with 16 vector registers (DOTNET_EnableAVX2=0) nothing
// secret is spilled.
// It is written over the shared AES-round and carry-less-multiply contracts, with no intrinsics of
// its own, but ARM64 keeps two passes until it is measured on ARM64 hardware.
//
// Needs at least 8 powers of H in the key table, which Init makes for any message of 8 or more
// blocks (GcmSiv sizes the table by the longer of the AAD and the ciphertext): the loop takes
// only whole groups of 8 blocks, so it runs only when there are 8 or more. The last 0-127 bytes
// and the length block go through Decrypt.End.cs, which finishes the message: with
// DOTNET_EnableAVX2=0 it took this loop from 0.81-0.83 to 0.79-0.80 of two passes' time at 1350
// bytes (Benchmarks --decrypt-loop-ab).
//
// Round r (1..8) of a step carries block r of the previous group's multiplies, and block 0, which
// carries the accumulator, comes last (round 8), so the other seven never wait for the reduction
// of the step before. With 8 blocks, a round key, the counter, the accumulator and three partial
// products live at once, this fits x64's 16 vector registers without AVX-512.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Cryptography.Internal;

/// <summary>Decryption's CTR and POLYVAL in one pass, 8 blocks per step (see the file's opening comment).</summary>
internal readonly struct StitchedDecrypt<TIsa, TClmul> : IDecryptLoop
    where TIsa : IAesInstructions
    where TClmul : ICarrylessMultiply
{
    private const int Group = 128;

    /// <summary>
    /// The loop multiplies by H^8..H^1 only, and what it leaves (under 8 blocks, the partial block
    /// and the length block) needs no more: 8 powers (Init's count for 8 to 15 blocks), not the 16
    /// it makes from 16 blocks on. Associated data of 16 blocks or more then goes 8 blocks per
    /// reduction instead of 16. Measured with --decrypt-loop-ab (AVX2 off, interleaved medians): the
    /// stitched loop went from 0.90-0.93 to 0.83-0.84 of two passes' time at 1024 and 1350 bytes.
    /// </summary>
    public int PolyvalBlocks(int blocks) => Math.Min(blocks, 15);

    /// <summary>Messages under 128 bytes go back to the caller; this check is inlined there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Run(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock, out bool finished)
    {
        finished = ciphertext.Length >= Group;
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
        int whole = ciphertext.Length & ~(Group - 1);

        // The first group has no group before it to absorb: CTR alone.
        default(AesVector<TIsa>).Ctr32(in schedule, rounds, counterBlock, ciphertext[..Group], plaintext[..Group]);

        ref byte source = ref MemoryMarshal.GetReference(ciphertext);
        ref byte destination = ref MemoryMarshal.GetReference(plaintext);
        ref Vector128<byte> roundKeys = ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        ref Vector128<ulong> powers = ref Unsafe.Add(ref table, PolyvalKeyLayout.PowerIndex(8));
        ref Vector128<ulong> halves = ref Unsafe.Add(ref table, PolyvalKeyLayout.KaratsubaIndex + PolyvalKeyLayout.PowerIndex(8));
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32() + Vector128.Create(8u, 0, 0, 0);
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        nuint length = (nuint)whole;
        for (nuint offset = Group; offset < length; offset += Group)
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
            Vector128<ulong> x, lo, mid, hi;
            k = Unsafe.Add(ref roundKeys, 1);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 16).AsUInt64();
            lo = TClmul.Lower(x, Unsafe.Add(ref powers, 1));
            hi = TClmul.Upper(x, Unsafe.Add(ref powers, 1));
            mid = TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 1));

            k = Unsafe.Add(ref roundKeys, 2);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 32).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 2));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 2));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 2));

            k = Unsafe.Add(ref roundKeys, 3);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 48).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 3));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 3));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 3));

            k = Unsafe.Add(ref roundKeys, 4);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 64).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 4));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 4));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 4));

            k = Unsafe.Add(ref roundKeys, 5);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 80).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 5));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 5));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 5));

            k = Unsafe.Add(ref roundKeys, 6);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 96).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 6));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 6));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 6));

            k = Unsafe.Add(ref roundKeys, 7);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous, 112).AsUInt64();
            lo ^= TClmul.Lower(x, Unsafe.Add(ref powers, 7));
            hi ^= TClmul.Upper(x, Unsafe.Add(ref powers, 7));
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), Unsafe.Add(ref halves, 7));

            k = Unsafe.Add(ref roundKeys, 8);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Vector128.LoadUnsafe(ref previous).AsUInt64() ^ acc;
            lo ^= TClmul.Lower(x, powers);
            hi ^= TClmul.Upper(x, powers);
            mid ^= TClmul.Lower(x ^ TClmul.SwapHalves(x), halves);

            acc = PolyvalClmul<TClmul>.Reduce(lo, mid ^ lo ^ hi, hi);
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

        // The last group's plaintext, absorbed alone, into the scratch; then the message's last 0 to
        // 127 bytes and the length block (Decrypt.End.cs).
        acc = PolyvalClmul<TClmul>.UpdateBlocks(ref table, 8, acc, ref Unsafe.Add(ref destination, length - Group), Group);
        counter.AsByte().CopyTo(counterBlock);
        acc.AsByte().CopyTo(accumulator);
        DecryptEnd<TIsa, TClmul>.Finish(in schedule, rounds, counterBlock, in key, accumulator, ciphertext[whole..], plaintext[whole..], lengthBlock.AsUInt64());
    }
}
