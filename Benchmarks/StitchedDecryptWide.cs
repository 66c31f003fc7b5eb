// An experiment kept for --decrypt-loop-ab, not a library loop: decryption's CTR and POLYVAL in one
// stitched pass as Cryptography/Internal/Decrypt.Stitched.cs does, but with POLYVAL on 256-bit
// vectors (VPCLMULQDQ), the combination docs/benchmarks.md (issue 33) named as the next thing to try
// for AesNiVpclmulqdq's decryption of 1350 B. Each step runs the AES rounds of 8 counter blocks
// (128-bit AES-NI: .NET 10 has no VAES) and, after rounds 1 to 4, the multiplies of the previous
// group's 8 plaintext blocks as 4 pairs against (H^8, H^7) .. (H^2, H^1), then folds the two lanes and
// reduces once, leaving the remaining rounds to hide the reduction's latency. Measured against the
// two passes it did not win enough to replace them (docs/benchmarks.md, "Decryption's loop, per
// backend"): --pipe-probe shows why, each carry-less multiply takes AES pipe time on this CPU.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using Cryptography.Internal;

namespace Benchmarks;

/// <summary>Decryption's CTR and 256-bit POLYVAL in one pass, 8 blocks per step.</summary>
internal readonly struct StitchedDecryptWide<TIsa> : IDecryptLoop
    where TIsa : IAesInstructions
{
    private const int Group = 128;

    /// <summary>The loop multiplies by H^8..H^1 only: 8 powers (as StitchedDecrypt).</summary>
    public static int PolyvalBlocks(int blocks) => Math.Min(blocks, 15);

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static int Run(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
    {
        int whole = ciphertext.Length & ~(Group - 1);
        if (whole == 0)
        {
            return 0;
        }

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
            Vector256<ulong> x, lo, mid, hi;

            k = Unsafe.Add(ref roundKeys, 1);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Pair(ref previous, 96);
            lo = Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 3), 0x00);
            hi = Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 3), 0x11);
            mid = Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 3), 0x00);

            k = Unsafe.Add(ref roundKeys, 2);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Pair(ref previous, 64);
            lo ^= Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 2), 0x00);
            hi ^= Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 2), 0x11);
            mid ^= Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 2), 0x00);

            k = Unsafe.Add(ref roundKeys, 3);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Pair(ref previous, 32);
            lo ^= Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 1), 0x00);
            hi ^= Pclmulqdq.V256.CarrylessMultiply(x, Unsafe.Add(ref powers, 1), 0x11);
            mid ^= Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), Unsafe.Add(ref halves, 1), 0x00);

            k = Unsafe.Add(ref roundKeys, 4);
            b0 = TIsa.Round(b0, k);
            b1 = TIsa.Round(b1, k);
            b2 = TIsa.Round(b2, k);
            b3 = TIsa.Round(b3, k);
            b4 = TIsa.Round(b4, k);
            b5 = TIsa.Round(b5, k);
            b6 = TIsa.Round(b6, k);
            b7 = TIsa.Round(b7, k);
            x = Pair(ref previous, 0) ^ Vector256.Create(acc, Vector128<ulong>.Zero);
            lo ^= Pclmulqdq.V256.CarrylessMultiply(x, powers, 0x00);
            hi ^= Pclmulqdq.V256.CarrylessMultiply(x, powers, 0x11);
            mid ^= Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), halves, 0x00);

            Vector128<ulong> lo128 = lo.GetLower() ^ lo.GetUpper();
            Vector128<ulong> hi128 = hi.GetLower() ^ hi.GetUpper();
            Vector128<ulong> mid128 = mid.GetLower() ^ mid.GetUpper();
            acc = PolyvalClmul<Pclmul>.Reduce(lo128, mid128 ^ lo128 ^ hi128, hi128);
            for (int r = 5; r < rounds - 1; r++)
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

            k = Unsafe.Add(ref roundKeys, rounds - 1);
            b0 = TIsa.Penultimate(b0, k);
            b1 = TIsa.Penultimate(b1, k);
            b2 = TIsa.Penultimate(b2, k);
            b3 = TIsa.Penultimate(b3, k);
            b4 = TIsa.Penultimate(b4, k);
            b5 = TIsa.Penultimate(b5, k);
            b6 = TIsa.Penultimate(b6, k);
            b7 = TIsa.Penultimate(b7, k);
            k = Unsafe.Add(ref roundKeys, rounds);
            (TIsa.Final(b0, k) ^ Vector128.LoadUnsafe(ref source, offset + 0)).StoreUnsafe(ref destination, offset + 0);
            (TIsa.Final(b1, k) ^ Vector128.LoadUnsafe(ref source, offset + 16)).StoreUnsafe(ref destination, offset + 16);
            (TIsa.Final(b2, k) ^ Vector128.LoadUnsafe(ref source, offset + 32)).StoreUnsafe(ref destination, offset + 32);
            (TIsa.Final(b3, k) ^ Vector128.LoadUnsafe(ref source, offset + 48)).StoreUnsafe(ref destination, offset + 48);
            (TIsa.Final(b4, k) ^ Vector128.LoadUnsafe(ref source, offset + 64)).StoreUnsafe(ref destination, offset + 64);
            (TIsa.Final(b5, k) ^ Vector128.LoadUnsafe(ref source, offset + 80)).StoreUnsafe(ref destination, offset + 80);
            (TIsa.Final(b6, k) ^ Vector128.LoadUnsafe(ref source, offset + 96)).StoreUnsafe(ref destination, offset + 96);
            (TIsa.Final(b7, k) ^ Vector128.LoadUnsafe(ref source, offset + 112)).StoreUnsafe(ref destination, offset + 112);
            counter += Vector128.Create(8u, 0, 0, 0);
        }

        // The last group's plaintext, absorbed alone.
        acc.AsByte().CopyTo(accumulator);
        PolyvalVpclmulqdq.Update(in key, accumulator, plaintext.Slice(whole - Group, Group));
        counter.AsByte().CopyTo(counterBlock);
        return whole;
    }

    // Two blocks the step before stored 16 bytes at a time, loaded the same way: a 32-byte load of
    // two 16-byte stores still in the store buffer cannot be forwarded from them and waits for both
    // to reach the cache.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Pair(ref byte block, nuint offset) =>
        Vector256.Create(Vector128.LoadUnsafe(ref block, offset), Vector128.LoadUnsafe(ref block, offset + 16)).AsUInt64();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> SwapHalves(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
