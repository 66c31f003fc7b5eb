// RFC 8452 section 4 (encryption) and section 5 (decryption) as one composition:
//   derive the per-nonce keys -> POLYVAL(AAD, plaintext, lengths) -> tag -> CTR32.
// No intrinsics here: TAes and TPolyval are the selected backend, and because they are type
// parameters constrained to structs' static members, the JIT compiles one specialised copy of this
// file per backend with the primitives inlined.

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

internal static class GcmSiv<TAes, TPolyval>
    where TAes : IAes
    where TPolyval : IPolyval
{
    private const int BlockSize = 16;
    private const int NonceSize = 12;

    // Decryption interleaves CTR and POLYVAL in batches of 16 blocks (see StitchedDecrypt): the
    // size of the widest POLYVAL group, so stitching costs no extra reductions.
    private const int StitchBatch = 256;

    // Stack scratch layout (one buffer, so one wipe covers every temporary):
    private const int DerivedOffset = 0;        // 6 AES blocks for key derivation (AES-256 needs 6)
    private const int AccumulatorOffset = 96;   // POLYVAL state S_s
    private const int BlockOffset = 112;        // a padded partial block, then the length block
    private const int TagOffset = 128;          // the computed tag
    private const int CounterOffset = 144;      // the CTR counter block
    private const int ReceivedTagOffset = 160;  // decrypt: copy of the tag (plaintext may overlap it)
    private const int NonceOffset = 176;        // decrypt: copy of the nonce (plaintext may overlap it)
    private const int ScratchSize = 188;

    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Encrypt(
        in AesKeySchedule keyGeneratingKey,
        int rounds,
        ReadOnlySpan<byte> nonce,
        ReadOnlySpan<byte> plaintext,
        Span<byte> ciphertext,
        Span<byte> tag,
        ReadOnlySpan<byte> associatedData)
    {
        Span<byte> scratch = stackalloc byte[ScratchSize];
        // Both are written before use and wiped in finally; zero-filling them first would be wasted work.
        Unsafe.SkipInit(out AesKeySchedule messageEncryptionKey);
        Unsafe.SkipInit(out PolyvalKey messageAuthenticationKey);
        try
        {
            int polyvalBlocks = Math.Max(associatedData.Length, plaintext.Length) / BlockSize;
            DeriveKeys(in keyGeneratingKey, rounds, nonce, polyvalBlocks, ref messageEncryptionKey, ref messageAuthenticationKey, scratch);

            // The tag authenticates before anything is written, so every input has been read before
            // the first output byte changes: outputs may alias inputs (validated by the caller).
            Span<byte> accumulator = scratch.Slice(AccumulatorOffset, BlockSize);
            accumulator.Clear();
            Absorb(in messageAuthenticationKey, accumulator, associatedData, scratch);
            Absorb(in messageAuthenticationKey, accumulator, plaintext, scratch);
            AbsorbLengths(in messageAuthenticationKey, accumulator, associatedData.Length, plaintext.Length, scratch);

            Span<byte> computedTag = scratch.Slice(TagOffset, BlockSize);
            ComputeTag(in messageEncryptionKey, rounds, nonce, accumulator, computedTag);

            Span<byte> counterBlock = scratch.Slice(CounterOffset, BlockSize);
            InitialCounter(computedTag, counterBlock);
            TAes.Ctr32(in messageEncryptionKey, rounds, counterBlock, plaintext, ciphertext);
            computedTag.CopyTo(tag);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(scratch);
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<ulong>)messageEncryptionKey));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<ulong>)messageAuthenticationKey));
        }
    }

    /// <summary>Decrypts and verifies; on a bad tag zeroes <paramref name="plaintext"/> and returns false.</summary>
    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static bool Decrypt(
        in AesKeySchedule keyGeneratingKey,
        int rounds,
        ReadOnlySpan<byte> nonce,
        ReadOnlySpan<byte> ciphertext,
        ReadOnlySpan<byte> tag,
        Span<byte> plaintext,
        ReadOnlySpan<byte> associatedData)
    {
        Span<byte> scratch = stackalloc byte[ScratchSize];
        // Both are written before use and wiped in finally; zero-filling them first would be wasted work.
        Unsafe.SkipInit(out AesKeySchedule messageEncryptionKey);
        Unsafe.SkipInit(out PolyvalKey messageAuthenticationKey);
        try
        {
            // Plaintext is written before the tag is checked, so keep what is read afterwards.
            Span<byte> receivedTag = scratch.Slice(ReceivedTagOffset, BlockSize);
            Span<byte> nonceCopy = scratch.Slice(NonceOffset, NonceSize);
            tag.CopyTo(receivedTag);
            nonce.CopyTo(nonceCopy);

            int polyvalBlocks = Math.Max(associatedData.Length, Math.Min(ciphertext.Length, StitchBatch)) / BlockSize;
            DeriveKeys(in keyGeneratingKey, rounds, nonceCopy, polyvalBlocks, ref messageEncryptionKey, ref messageAuthenticationKey, scratch);

            Span<byte> accumulator = scratch.Slice(AccumulatorOffset, BlockSize);
            accumulator.Clear();
            // AAD first: it may share memory with the plaintext output about to be written.
            Absorb(in messageAuthenticationKey, accumulator, associatedData, scratch);

            Span<byte> counterBlock = scratch.Slice(CounterOffset, BlockSize);
            InitialCounter(receivedTag, counterBlock);
            int stitched = ciphertext.Length & ~(StitchBatch - 1);
            if (stitched != 0)
            {
                StitchedDecrypt(in messageEncryptionKey, rounds, in messageAuthenticationKey, counterBlock, accumulator, ciphertext[..stitched], plaintext[..stitched]);
            }

            TAes.Ctr32(in messageEncryptionKey, rounds, counterBlock, ciphertext[stitched..], plaintext[stitched..]);
            Absorb(in messageAuthenticationKey, accumulator, plaintext[stitched..], scratch);
            AbsorbLengths(in messageAuthenticationKey, accumulator, associatedData.Length, plaintext.Length, scratch);

            Span<byte> computedTag = scratch.Slice(TagOffset, BlockSize);
            ComputeTag(in messageEncryptionKey, rounds, nonceCopy, accumulator, computedTag);
            if (!CryptographicOperations.FixedTimeEquals(computedTag, receivedTag))
            {
                CryptographicOperations.ZeroMemory(plaintext);
                return false;
            }

            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(scratch);
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<ulong>)messageEncryptionKey));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<ulong>)messageAuthenticationKey));
        }
    }

    /// <summary>Derives the per-nonce keys and prepares them for use.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void DeriveKeys(
        in AesKeySchedule keyGeneratingKey,
        int rounds,
        ReadOnlySpan<byte> nonce,
        int polyvalBlocks,
        ref AesKeySchedule messageEncryptionKey,
        ref PolyvalKey messageAuthenticationKey,
        Span<byte> scratch)
    {
        Span<byte> derived = scratch.Slice(DerivedOffset, 96);
        int encryptionKeyLength = DeriveKeyMaterial(in keyGeneratingKey, rounds, nonce, derived);
        TPolyval.Init(derived[..16], polyvalBlocks, ref messageAuthenticationKey);
        TAes.ExpandKey(derived.Slice(16, encryptionKeyLength), ref messageEncryptionKey);
    }

    /// <summary>
    /// RFC 8452 section 4, key derivation: AES(keyGeneratingKey, LE32(i) || nonce) for i = 0..3
    /// (AES-128) or 0..5 (AES-256), keeping the first 8 bytes of each. Leaves in
    /// <paramref name="derived"/> (96 bytes of scratch) the 16-byte message-authentication key followed
    /// by the message-encryption key, and returns the latter's length. All blocks go through one
    /// EncryptBlocks call so a backend can run them in parallel.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    internal static int DeriveKeyMaterial(in AesKeySchedule keyGeneratingKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> derived)
    {
        int blockCount = rounds == 10 ? 4 : 6;
        Span<byte> blocks = derived[..(blockCount * BlockSize)];
        for (int i = 0; i < blockCount; i++)
        {
            Span<byte> block = blocks.Slice(i * BlockSize, BlockSize);
            BinaryPrimitives.WriteUInt32LittleEndian(block, (uint)i);
            nonce.CopyTo(block[4..]);
        }

        TAes.EncryptBlocks(in keyGeneratingKey, rounds, blocks, blocks);

        // Keep the first half of each block, packed. Each move goes to a lower address, so the
        // overlapping copies are safe.
        for (int i = 1; i < blockCount; i++)
        {
            blocks.Slice(i * BlockSize, 8).CopyTo(blocks[(i * 8)..]);
        }

        return (blockCount - 2) * 8;
    }

    /// <summary>POLYVAL over <paramref name="data"/> padded with zeros to a whole number of blocks.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Absorb(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> data, Span<byte> scratch)
    {
        int whole = data.Length & ~(BlockSize - 1);
        if (whole != 0)
        {
            TPolyval.Update(in key, accumulator, data[..whole]);
        }

        if (whole != data.Length)
        {
            Span<byte> padded = scratch.Slice(BlockOffset, BlockSize);
            padded.Clear();
            data[whole..].CopyTo(padded);
            TPolyval.Update(in key, accumulator, padded);
        }
    }

    /// <summary>The length block: LE64 of the AAD's length in bits, then LE64 of the plaintext's.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void AbsorbLengths(in PolyvalKey key, Span<byte> accumulator, int associatedDataLength, int plaintextLength, Span<byte> scratch)
    {
        Span<byte> lengthBlock = scratch.Slice(BlockOffset, BlockSize);
        BinaryPrimitives.WriteUInt64LittleEndian(lengthBlock, (ulong)associatedDataLength * 8);
        BinaryPrimitives.WriteUInt64LittleEndian(lengthBlock[8..], (ulong)plaintextLength * 8);
        TPolyval.Update(in key, accumulator, lengthBlock);
    }

    /// <summary>tag = AES(messageEncryptionKey, (S_s XOR nonce) with the top bit of byte 15 cleared).</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void ComputeTag(in AesKeySchedule messageEncryptionKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> accumulator, Span<byte> tag)
    {
        for (int i = 0; i < NonceSize; i++)
        {
            accumulator[i] ^= nonce[i];
        }

        accumulator[15] &= 0x7f;
        TAes.EncryptBlocks(in messageEncryptionKey, rounds, accumulator, tag);
    }

    /// <summary>The first counter block is the tag with the top bit of byte 15 set.</summary>
    private static void InitialCounter(ReadOnlySpan<byte> tag, Span<byte> counterBlock)
    {
        tag.CopyTo(counterBlock);
        counterBlock[15] |= 0x80;
    }

    /// <summary>
    /// CTR decryption and POLYVAL of the plaintext in one pass, 16 blocks at a time: each iteration
    /// decrypts batch i and absorbs batch i - 1. The two are independent, so with both inlined into
    /// one loop body the CPU overlaps the carry-less multiplies (whose accumulator chain leaves the
    /// multiplier idle between groups) with the AES rounds, and the plaintext is read back from L1.
    /// Lengths are whole batches; the counter and accumulator are updated in place.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StitchedDecrypt(
        in AesKeySchedule messageEncryptionKey,
        int rounds,
        in PolyvalKey messageAuthenticationKey,
        Span<byte> counterBlock,
        Span<byte> accumulator,
        ReadOnlySpan<byte> ciphertext,
        Span<byte> plaintext)
    {
        ref byte source = ref MemoryMarshal.GetReference(ciphertext);
        ref byte destination = ref MemoryMarshal.GetReference(plaintext);
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32();
        Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
        nuint length = (nuint)ciphertext.Length;

        counter = TAes.Ctr8(in messageEncryptionKey, rounds, counter, ref source, ref destination);
        counter = TAes.Ctr8(in messageEncryptionKey, rounds, counter, ref Unsafe.Add(ref source, 128), ref Unsafe.Add(ref destination, 128));
        for (nuint offset = StitchBatch; offset < length; offset += StitchBatch)
        {
            counter = TAes.Ctr8(in messageEncryptionKey, rounds, counter, ref Unsafe.Add(ref source, offset), ref Unsafe.Add(ref destination, offset));
            acc = TPolyval.Update16(in messageAuthenticationKey, acc, ref Unsafe.Add(ref destination, offset - StitchBatch));
            counter = TAes.Ctr8(in messageEncryptionKey, rounds, counter, ref Unsafe.Add(ref source, offset + 128), ref Unsafe.Add(ref destination, offset + 128));
        }

        acc = TPolyval.Update16(in messageAuthenticationKey, acc, ref Unsafe.Add(ref destination, length - StitchBatch));
        counter.AsByte().CopyTo(counterBlock);
        acc.AsByte().CopyTo(accumulator);
    }
}
