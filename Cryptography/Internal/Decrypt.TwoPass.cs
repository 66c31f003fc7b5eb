// RFC 8452 section 5, the bulk of decryption: CTR over the ciphertext, and POLYVAL over the
// plaintext it yields. How the two are scheduled is a backend's choice (IDecryptLoop below), made in
// its line of Backends.Widest; GcmSiv.Decrypt calls whichever it was given, with no switch of its own.
// This file has the one most backends use: two passes, chunk by chunk.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cryptography.Internal;

/// <summary>How a backend runs decryption's CTR and POLYVAL over the bulk of a message.</summary>
internal interface IDecryptLoop
{
    /// <summary>
    /// How many blocks to prepare POLYVAL's key for (IPolyval.Init's blockCount) when the longer of the
    /// associated data and the ciphertext has <paramref name="blocks"/>: a loop that multiplies by
    /// fewer powers of H than Init would make for that many blocks says so here, so that a message
    /// does not compute (and wipe) powers nothing reads.
    /// </summary>
    int PolyvalBlocks(int blocks);

    /// <summary>
    /// Decrypts a prefix of <paramref name="ciphertext"/> into <paramref name="plaintext"/> (CTR32
    /// from <paramref name="counterBlock"/>) and absorbs that prefix of the plaintext into
    /// <paramref name="accumulator"/> (POLYVAL under <paramref name="key"/>). Returns the prefix's
    /// length: either a multiple of 16, possibly 0, short of the end, with
    /// <paramref name="finished"/> false, so that the caller's last CTR and POLYVAL calls (partial
    /// block, <paramref name="lengthBlock"/>) take the rest; or the whole length with
    /// <paramref name="finished"/> true, the partial block padded and the length block absorbed too.
    /// <paramref name="counterBlock"/> is moved on past the blocks decrypted. The spans are the same
    /// memory or do not overlap.
    /// </summary>
    int Run(
        in AesKeySchedule schedule,
        int rounds,
        Span<byte> counterBlock,
        in PolyvalKey key,
        Span<byte> accumulator,
        ReadOnlySpan<byte> ciphertext,
        Span<byte> plaintext,
        Vector128<byte> lengthBlock,
        out bool finished);
}

/// <summary>
/// CTR over a chunk, then POLYVAL over the plaintext just written, chunk by chunk, so that POLYVAL
/// reads it back from L1 (8 KiB of input and 8 KiB of output fit the 32 KiB L1 of the CPUs this was
/// measured on). The backends without a loop of their own use it (ARM64, the bitsliced and portable
/// ones); the two x64 AES-NI backends stitch (Decrypt.Stitched.cs, Decrypt.StitchedWide.cs).
/// </summary>
internal readonly struct TwoPassDecrypt<TAes, TPolyval> : IDecryptLoop
    where TAes : struct, IAes
    where TPolyval : struct, IPolyval
{
    // Whole 16-block POLYVAL groups.
    private const int Chunk = 8192;

    /// <summary>Two passes use the widest groups Init can make.</summary>
    public int PolyvalBlocks(int blocks) => blocks;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Run(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock, out bool finished)
    {
        finished = false;
        int offset = 0;
        for (; ciphertext.Length - offset > Chunk; offset += Chunk)
        {
            default(TAes).Ctr32(in schedule, rounds, counterBlock, ciphertext.Slice(offset, Chunk), plaintext.Slice(offset, Chunk));
            GcmSiv<TAes, TPolyval>.AdvanceCounter(counterBlock, Chunk / 16);
            default(TPolyval).Update(in key, accumulator, plaintext.Slice(offset, Chunk));
        }

        return offset;
    }
}
