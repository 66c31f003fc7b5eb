// RFC 8452 section 5, the end of a decryption for the stitched loops (Decrypt.Stitched.cs,
// Decrypt.StitchedWide.cs): the last 0 to 127 bytes decrypted and absorbed, zero-padded, with the
// length block, after the loop has absorbed every whole group before them.
//
// Two passes end a message with a chain of short dependent steps: CTR of the last whole blocks and
// of the partial block (a keystream buffer, a byte loop), a copy of the partial plaintext into a
// zero-padded block, the length block stored and loaded back, and two or three POLYVAL updates with
// a reduction each; then the tag. Knocked out one at a time in a 1350-byte AES-256 decryption with a
// stitched bulk (AesNiVpclmulqdq), the last 70 bytes' CTR took 30 ns and their POLYVAL 38 ns of about
// 380. Here the end's keystream is 8 blocks at once (one AES latency period, as one block would
// take), its blocks and the length block are multiplied by H^n .. H^1 into one sum with one
// reduction, and the partial block is read and written as part of 16-byte windows over the
// message's last 16 bytes, never copied. The loop's last group, absorbed just before by the caller,
// does not depend on the keystream, so the CPU runs the two side by side.
//
// Needs 8 powers of H in the key table (the stitched loops' PolyvalBlocks asks Init for them) and a
// message over 16 bytes (the windows reach back before the end). No branch or address depends on a
// secret: every branch and index follows the lengths.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>The end of a stitched decryption (see the file's opening comment).</summary>
internal static class DecryptEnd<TIsa, TClmul>
    where TIsa : IAesInstructions
    where TClmul : ICarrylessMultiply
{
    private const int BlockSize = 16;

    /// <summary>
    /// Decrypts <paramref name="ciphertext"/> (0 to 127 bytes, the message's last) from
    /// <paramref name="counterBlock"/> into <paramref name="plaintext"/>, and absorbs its plaintext,
    /// zero-padded, then <paramref name="lengthBlock"/> into <paramref name="accumulator"/>;
    /// <paramref name="counterBlock"/> moves on past the blocks decrypted. Secrets come in and go out
    /// through the caller's scratch, not by value (which would leave them in argument slots), and
    /// nothing vector is live across the keystream's wipe, so none is spilled to this frame.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void Finish(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<ulong> lengthBlock)
    {
        ref Vector128<ulong> table = ref PolyvalKeyLayout.Table(in key);
        ref Vector128<ulong> result = ref Unsafe.As<byte, Vector128<ulong>>(ref MemoryMarshal.GetReference(accumulator));
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32();
        int length = ciphertext.Length;
        int whole = length / BlockSize, partial = length % BlockSize;
        (counter + Vector128.Create((uint)(whole + (partial != 0 ? 1 : 0)), 0, 0, 0)).AsByte().CopyTo(counterBlock);
        if (length == 0)
        {
            result = PolyvalClmul<TClmul>.Dot(result ^ lengthBlock, PolyvalKeyLayout.Power(ref table, 1));
            return;
        }

        // Eight keystream blocks whatever the length: one latency period, as one block would take.
        Keystream keystream = default;
        ref byte stream = ref Unsafe.As<Keystream, byte>(ref keystream);
        AesVector<TIsa>.Ctr8(in schedule, rounds, counter, ref stream, ref stream);
        ref byte source = ref MemoryMarshal.GetReference(ciphertext);
        ref byte destination = ref MemoryMarshal.GetReference(plaintext);
        Vector128<ulong> acc = result;

        // POLYVAL of the whole blocks, the padded partial block and the length block, at most 9, by
        // H^n .. H^1 in one sum. With 9 (a 113- to 127-byte end) the table's 8 powers fall one short,
        // so the first block goes in alone.
        int exponent = whole + (partial != 0 ? 1 : 0) + 1;
        int i = 0;
        if (exponent == 9)
        {
            Vector128<ulong> block = (Vector128.LoadUnsafe(ref stream) ^ Vector128.LoadUnsafe(ref source)).AsUInt64();
            block.AsByte().StoreUnsafe(ref destination);
            acc = PolyvalClmul<TClmul>.Dot(acc ^ block, PolyvalKeyLayout.Power(ref table, 1));
            i = 1;
            exponent = 8;
        }

        // Karatsuba, unreduced; the accumulator rides on the first block.
        Vector128<ulong> lo = Vector128<ulong>.Zero, mid = Vector128<ulong>.Zero, hi = Vector128<ulong>.Zero;
        for (; i < whole; i++, exponent--)
        {
            Vector128<ulong> block = (Vector128.LoadUnsafe(ref stream, (nuint)(i * BlockSize)) ^ Vector128.LoadUnsafe(ref source, (nuint)(i * BlockSize))).AsUInt64();
            block.AsByte().StoreUnsafe(ref destination, (nuint)(i * BlockSize));
            (lo, mid, hi) = Accumulate(ref table, exponent, block ^ acc, lo, mid, hi);
            acc = Vector128<ulong>.Zero;
        }

        if (partial != 0)
        {
            // The message's last 16 bytes end with the partial block's: shuffled to the front, the
            // rest zeroed (an index past 15 yields 0), and the keystream XORed in. Both 16-byte
            // windows reach back before this end, into the message's earlier bytes.
            Vector128<byte> index = Vector128.Create((byte)0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            Vector128<byte> inPartial = Vector128.LessThan(index, Vector128.Create((byte)partial));
            Vector128<byte> end = Vector128.LoadUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref source, length), BlockSize));
            Vector128<byte> block = (Vector128.Shuffle(end, (index + Vector128.Create((byte)(BlockSize - partial))) | ~inPartial) ^ Vector128.LoadUnsafe(ref stream, (nuint)(whole * BlockSize))) & inPartial;

            // Written back as the plaintext's last 16 bytes: those before the partial block are
            // plaintext already (this end's whole blocks, or the loop's last group), read back and
            // joined to it. With the output over the input, the ciphertext bytes this overwrites
            // were read above.
            Vector128<byte> before = Vector128.LoadUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref destination, length), partial + BlockSize));
            Vector128<byte> inBefore = Vector128.LessThan(index, Vector128.Create((byte)(BlockSize - partial)));
            Vector128<byte> window = Vector128.Shuffle(before, (index + Vector128.Create((byte)partial)) | ~inBefore)
                | Vector128.Shuffle(block, (index - Vector128.Create((byte)(BlockSize - partial))) | inBefore);
            window.StoreUnsafe(ref Unsafe.Subtract(ref Unsafe.Add(ref destination, length), BlockSize));
            (lo, mid, hi) = Accumulate(ref table, exponent, block.AsUInt64() ^ acc, lo, mid, hi);
            acc = Vector128<ulong>.Zero;
        }

        (lo, mid, hi) = Accumulate(ref table, 1, lengthBlock ^ acc, lo, mid, hi);
        result = PolyvalClmul<TClmul>.Reduce(lo, mid ^ lo ^ hi, hi);
        CryptographicOperations.ZeroMemory(keystream);
    }

    /// <summary>Adds block * H^exponent, unreduced (Karatsuba), to lo, mid, hi.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static (Vector128<ulong> Lo, Vector128<ulong> Mid, Vector128<ulong> Hi) Accumulate(ref Vector128<ulong> table, int exponent, Vector128<ulong> block, Vector128<ulong> lo, Vector128<ulong> mid, Vector128<ulong> hi)
    {
        Vector128<ulong> power = PolyvalKeyLayout.Power(ref table, exponent);
        Vector128<ulong> half = Unsafe.Add(ref table, PolyvalKeyLayout.KaratsubaIndex + PolyvalKeyLayout.PowerIndex(exponent));
        return (lo ^ TClmul.Lower(block, power), mid ^ TClmul.Lower(block ^ TClmul.SwapHalves(block), half), hi ^ TClmul.Upper(block, power));
    }

    [InlineArray(8 * BlockSize)]
    private struct Keystream
    {
        private byte _element0;
    }
}
