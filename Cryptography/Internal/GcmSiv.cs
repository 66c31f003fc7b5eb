// RFC 8452 section 4 (encryption) and section 5 (decryption) as one composition:
//   derive the per-nonce keys -> POLYVAL(AAD, plaintext, lengths) -> tag -> CTR32.
// No intrinsics here: TAes and TPolyval are the selected backend, and because they are struct type
// parameters whose members are called on default(T), the JIT compiles one specialised copy of this
// file per backend with the primitives inlined.

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

internal static class GcmSiv<TAes, TPolyval>
    where TAes : struct, IAes
    where TPolyval : struct, IPolyval
{
    private const int BlockSize = 16;
    private const int NonceSize = 12;

    // Everything a message's computation keeps in memory, in one stack struct so that one wipe covers
    // it. The order puts what a hardware backend uses in one run: the POLYVAL key's used entries are
    // at its end, then the scratch, then the round keys that are used, at the schedule's start.
    [StructLayout(LayoutKind.Sequential)]
    private struct MessageState
    {
        public PolyvalKey MessageAuthenticationKey;
        public ScratchBuffer Scratch;
        public AesKeySchedule MessageEncryptionKey;
    }

    /// <summary>
    /// Zeroes what <paramref name="state"/> may hold: from the first POLYVAL-key byte Init writes for
    /// <paramref name="polyvalBlocks"/> to the last round-key byte, in one call (the call itself
    /// costs more than the bytes at these sizes).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Wipe(ref MessageState state, int rounds, int polyvalBlocks)
    {
        int start = default(TPolyval).UnusedKeyPrefixBytes(polyvalBlocks);
        int end = Unsafe.SizeOf<PolyvalKey>() + ScratchSize + default(TAes).ScheduleBytes(rounds);
        CryptographicOperations.ZeroMemory(MemoryMarshal.CreateSpan(ref Unsafe.As<MessageState, byte>(ref state), end)[start..]);
    }

    // Scratch layout:
    private const int DerivedOffset = 0;        // 6 AES blocks for key derivation (AES-256 needs 6)
    private const int AccumulatorOffset = 96;   // POLYVAL state S_s
    private const int BlockOffset = 112;        // a padded partial block, then the length block (32 bytes: the tag is written after)
    private const int TagOffset = 128;          // the computed tag
    private const int CounterOffset = 144;      // the CTR counter block
    private const int ReceivedTagOffset = 160;  // decrypt: copy of the tag (plaintext may overlap it)
    private const int NonceOffset = 176;        // decrypt: copy of the nonce (plaintext may overlap it)
    private const int ScratchSize = ScratchBuffer.Length; // 192: 188 used; whole 16-byte blocks keep the round keys after it aligned

    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)] // a root of its own: see Decrypt
    public static void Encrypt(
        in AesKeySchedule keyGeneratingKey,
        int rounds,
        ReadOnlySpan<byte> nonce,
        ReadOnlySpan<byte> plaintext,
        Span<byte> ciphertext,
        Span<byte> tag,
        ReadOnlySpan<byte> associatedData)
    {
        // Written before use and wiped in finally; zero-filling it first would be wasted work.
        Unsafe.SkipInit(out MessageState state);
        int polyvalBlocks = Math.Max(associatedData.Length, plaintext.Length) / BlockSize;
        try
        {
            Span<byte> scratch = state.Scratch.AsSpan();
            ref PolyvalKey messageAuthenticationKey = ref state.MessageAuthenticationKey;
            ref AesKeySchedule messageEncryptionKey = ref state.MessageEncryptionKey;
            Span<byte> derived = scratch.Slice(DerivedOffset, 96);
            bool expanded = DeriveKeyMaterialMaybeExpand(in keyGeneratingKey, rounds, nonce, derived, ref messageEncryptionKey, out int encryptionKeyLength);
            default(TPolyval).Init(derived[..16], polyvalBlocks, ref messageAuthenticationKey);

            // The tag authenticates before anything is written, so every input has been read before
            // the first output byte changes: outputs may alias inputs (validated by the caller).
            Span<byte> accumulator = scratch.Slice(AccumulatorOffset, BlockSize);
            accumulator.Clear();
            Absorb(in messageAuthenticationKey, accumulator, associatedData, scratch);
            AbsorbLast(in messageAuthenticationKey, accumulator, plaintext, associatedData.Length, plaintext.Length, scratch);

            // Unless key derivation's passes expanded it (expanded: the Portable AES under Mono, AES-256),
            // the encryption key is expanded here, after POLYVAL and right before the tag block that
            // needs both. POLYVAL needs only H, so the CPU runs it beside the expansion (two chains
            // of about the same length), and the tag's rounds follow the round keys as they are made.
            // Expanded before POLYVAL, the tag could start only after both, and ran all its rounds
            // after the last round key (docs/benchmarks.md has the measurement).
            // The tag and the first counter block stay in registers from POLYVAL's result to CTR's
            // counter (ComputeTag). The tag is kept in scratch until CTR has read the plaintext.
            Vector128<byte> computed = expanded ? ComputeTag(in messageEncryptionKey, rounds, nonce, accumulator) : ExpandKeyComputeTag(derived.Slice(16, encryptionKeyLength), ref messageEncryptionKey, rounds, nonce, accumulator);
            Span<byte> counterBlock = scratch.Slice(CounterOffset, BlockSize);
            InitialCounter(computed).CopyTo(counterBlock);
            Span<byte> computedTag = scratch.Slice(TagOffset, BlockSize);
            computed.CopyTo(computedTag);
            default(TAes).Ctr32(in messageEncryptionKey, rounds, counterBlock, plaintext, ciphertext);
            computedTag.CopyTo(tag);
        }
        finally
        {
            Wipe(ref state, rounds, polyvalBlocks);
        }
    }

    /// <summary>
    /// Decrypts and verifies; on a bad tag zeroes <paramref name="plaintext"/> and returns false.
    /// <typeparamref name="TDecryptLoop"/> runs CTR and POLYVAL over the bulk of the message, as the
    /// backend chose (Decrypt.TwoPass.cs, Decrypt.Stitched.cs).
    /// </summary>
    [SkipLocalsInit]
    // Not inlined into the one-line Backend method that calls it: the JIT sizes a compilation's inlining
    // budget by its root method, and with that small root the budget ran out halfway through this body,
    // leaving calls to Span.Slice and the like in the per-message path.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static bool Decrypt<TDecryptLoop>(
        in AesKeySchedule keyGeneratingKey,
        int rounds,
        ReadOnlySpan<byte> nonce,
        ReadOnlySpan<byte> ciphertext,
        ReadOnlySpan<byte> tag,
        Span<byte> plaintext,
        ReadOnlySpan<byte> associatedData)
        where TDecryptLoop : struct, IDecryptLoop
    {
        // Written before use and wiped in finally; zero-filling it first would be wasted work.
        Unsafe.SkipInit(out MessageState state);
        int polyvalBlocks = default(TDecryptLoop).PolyvalBlocks(Math.Max(associatedData.Length, ciphertext.Length) / BlockSize);
        try
        {
            Span<byte> scratch = state.Scratch.AsSpan();
            ref PolyvalKey messageAuthenticationKey = ref state.MessageAuthenticationKey;
            ref AesKeySchedule messageEncryptionKey = ref state.MessageEncryptionKey;

            // Plaintext is written before the tag is checked, so keep what is read afterwards.
            Span<byte> receivedTag = scratch.Slice(ReceivedTagOffset, BlockSize);
            Span<byte> nonceCopy = scratch.Slice(NonceOffset, NonceSize);
            tag.CopyTo(receivedTag);
            nonce.CopyTo(nonceCopy);

            // CTR needs the expanded key before POLYVAL can take the plaintext, so here it comes first.
            Span<byte> derived = scratch.Slice(DerivedOffset, 96);
            if (!DeriveKeyMaterialMaybeExpand(in keyGeneratingKey, rounds, nonceCopy, derived, ref messageEncryptionKey, out int encryptionKeyLength))
            {
                default(TAes).ExpandKey(derived.Slice(16, encryptionKeyLength), ref messageEncryptionKey);
            }

            default(TPolyval).Init(derived[..16], polyvalBlocks, ref messageAuthenticationKey);

            Span<byte> accumulator = scratch.Slice(AccumulatorOffset, BlockSize);
            accumulator.Clear();
            // AAD first: it may share memory with the plaintext output about to be written.
            Absorb(in messageAuthenticationKey, accumulator, associatedData, scratch);

            Span<byte> counterBlock = scratch.Slice(CounterOffset, BlockSize);
            InitialCounter(Vector128.Create<byte>(receivedTag)).CopyTo(counterBlock);
            // The bulk, scheduled as the backend chose (IDecryptLoop); unless the loop finished the
            // message, the rest (under a group or a chunk) and the length block here.
            int offset = default(TDecryptLoop).Run(in messageEncryptionKey, rounds, counterBlock, in messageAuthenticationKey, accumulator, ciphertext, plaintext, LengthBlock(associatedData.Length, plaintext.Length), out bool finished);
            if (!finished)
            {
                default(TAes).Ctr32(in messageEncryptionKey, rounds, counterBlock, ciphertext[offset..], plaintext[offset..]);
                AbsorbLast(in messageAuthenticationKey, accumulator, plaintext[offset..], associatedData.Length, plaintext.Length, scratch);
            }

            Span<byte> computedTag = scratch.Slice(TagOffset, BlockSize);
            ComputeTag(in messageEncryptionKey, rounds, nonceCopy, accumulator).CopyTo(computedTag);
            if (!TagComparison.Equal(computedTag, receivedTag))
            {
                CryptographicOperations.ZeroMemory(plaintext);
                return false;
            }

            return true;
        }
        finally
        {
            Wipe(ref state, rounds, polyvalBlocks);
        }
    }

    /// <summary>
    /// RFC 8452 section 4, key derivation: AES(keyGeneratingKey, LE32(i) || nonce) for i = 0..3
    /// (AES-128) or 0..5 (AES-256), keeping the first 8 bytes of each. Leaves in
    /// <paramref name="derived"/> (96 bytes of scratch) the 16-byte message-authentication key followed
    /// by the message-encryption key, and returns the latter's length. A backend with AES instructions
    /// makes, encrypts and packs the blocks in registers (IAes.DeriveKeys); a software one gets them
    /// all in one EncryptBlocks call, so that it can run them in parallel.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    internal static int DeriveKeyMaterial(in AesKeySchedule keyGeneratingKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> derived)
    {
        int blockCount = rounds == 10 ? 4 : 6;
        ref byte blocks = ref MemoryMarshal.GetReference(derived[..(blockCount * BlockSize)]);
        ref byte nonceBytes = ref MemoryMarshal.GetReference(nonce[..NonceSize]);
        if (!default(TAes).EncryptsBlockInRegisters)
        {
            // A software backend reads the blocks from memory anyway, so they are made with scalar
            // stores; on netstandard2.0 Vector128 is a software struct (Platform/NetStandard), and
            // under Mono its calls cost more than these few words.
            return DeriveKeyMaterialScalar(in keyGeneratingKey, rounds, blockCount, ref nonceBytes, derived);
        }

        default(TAes).DeriveKeys(in keyGeneratingKey, rounds, ref nonceBytes, ref blocks);
        return (blockCount - 2) * 8;
    }

    /// <summary><see cref="DeriveKeyMaterial"/> for a backend that encrypts blocks in memory: the same bytes, with scalar loads and stores.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int DeriveKeyMaterialScalar(in AesKeySchedule keyGeneratingKey, int rounds, int blockCount, ref byte nonceBytes, Span<byte> derived)
    {
        ref byte blocks = ref MemoryMarshal.GetReference(derived);
        uint nonce0 = Unsafe.ReadUnaligned<uint>(ref nonceBytes);
        uint nonce1 = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref nonceBytes, 4));
        uint nonce2 = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref nonceBytes, 8));
        for (int i = 0; i < blockCount; i++)
        {
            // LE32(i) || nonce.
            ref byte block = ref Unsafe.Add(ref blocks, i * BlockSize);
            Unsafe.WriteUnaligned(ref block, BitConverter.IsLittleEndian ? (uint)i : BinaryPrimitives.ReverseEndianness((uint)i));
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref block, 4), nonce0);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref block, 8), nonce1);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref block, 12), nonce2);
        }

        Span<byte> encrypted = derived[..(blockCount * BlockSize)];
        default(TAes).EncryptBlocks(in keyGeneratingKey, rounds, encrypted, encrypted);

        // The first half of each block, packed; pair i is read before it is written, below the pairs still to be read.
        for (int i = 0; i < blockCount / 2; i++)
        {
            ulong first = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref blocks, 32 * i));
            ulong second = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref blocks, (32 * i) + 16));
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref blocks, 16 * i), first);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref blocks, (16 * i) + 8), second);
        }

        return (blockCount - 2) * 8;
    }

    /// <summary>
    /// <see cref="DeriveKeyMaterial"/>; returns true when it has also expanded the message-encryption key
    /// into <paramref name="schedule"/>, false when the caller must. For AES-256 the Portable backend's
    /// AES does both in key derivation's two bitsliced passes where that was measured faster (Mono's
    /// JIT: Backends.PortableExpandsKeyInDerivationPass; AesPortable.DeriveKeysExpandKey: the expansion's
    /// SubWords go through the second pass's empty block slots). The type test is a constant in each
    /// specialised copy of this class; the key length is public.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool DeriveKeyMaterialMaybeExpand(in AesKeySchedule keyGeneratingKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> derived, ref AesKeySchedule schedule, out int encryptionKeyLength)
    {
        if (typeof(TAes) == typeof(AesPortable) && Backends.PortableExpandsKeyInDerivationPass && rounds == 14)
        {
            AesPortable.DeriveKeysExpandKey(in keyGeneratingKey, rounds, nonce, derived, ref schedule);
            encryptionKeyLength = 32;
            return true;
        }

        encryptionKeyLength = DeriveKeyMaterial(in keyGeneratingKey, rounds, nonce, derived);
        return false;
    }

    /// <summary>POLYVAL over <paramref name="data"/> padded with zeros to a whole number of blocks.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Absorb(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> data, Span<byte> scratch)
    {
        int whole = data.Length & ~(BlockSize - 1);
        if (whole != 0)
        {
            default(TPolyval).Update(in key, accumulator, data[..whole]);
        }

        if (whole != data.Length)
        {
            Span<byte> padded = scratch.Slice(BlockOffset, BlockSize);
            padded.Clear();
            data[whole..].CopyTo(padded);
            default(TPolyval).Update(in key, accumulator, padded);
        }
    }

    /// <summary>
    /// The rest of the plaintext, then the length block (LE64 of the AAD's length in bits, then LE64
    /// of the plaintext's). A final partial block and the length block are laid out side by side, and
    /// the whole blocks and those go through one Update, so a backend can take a short message as
    /// one sequence (Polyval.Clmul.cs) and the last blocks of a long one as one group.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void AbsorbLast(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> data, int associatedDataLength, int plaintextLength, Span<byte> scratch)
    {
        int whole = data.Length & ~(BlockSize - 1);
        int partial = data.Length - whole;
        int last = partial == 0 ? BlockSize : 2 * BlockSize;
        Span<byte> blocks = scratch.Slice(BlockOffset, last);
        if (partial != 0)
        {
            blocks[..BlockSize].Clear();
            data[whole..].CopyTo(blocks);
        }

        // One 16-byte store, not two 8-byte ones, so that Update's 16-byte load of it is forwarded
        // from the store buffer (see ComputeTag). Vector lanes are little-endian on every target.
        LengthBlock(associatedDataLength, plaintextLength).CopyTo(blocks[(last - BlockSize)..]);
        default(TPolyval).Update(in key, accumulator, data[..whole], blocks);
    }

    /// <summary>RFC 8452's length block: LE64 of the AAD's length in bits, then LE64 of the plaintext's.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> LengthBlock(int associatedDataLength, int plaintextLength) =>
        Vector128.Create((ulong)associatedDataLength * 8, (ulong)plaintextLength * 8).AsByte();

    /// <summary>
    /// tag = AES(messageEncryptionKey, (S_s XOR nonce) with the top bit of byte 15 cleared). For a
    /// backend with AES instructions the block goes to the cipher in a register, not through memory:
    /// a store and a reload of it would add a store-forwarding delay between POLYVAL's result and the
    /// tag's first round. A software backend's EncryptBlock is a call, which would get the block
    /// through this frame's outgoing-argument area, outside MessageState, where it stayed (and with
    /// Vector128 emulated, DOTNET_EnableHWIntrinsic=0, S_s too): for those the block is made in
    /// <paramref name="accumulator"/> with scalar operations and encrypted there, in the wiped state
    /// (issue 47). Either way <paramref name="accumulator"/> is not read again.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> ComputeTag(in AesKeySchedule messageEncryptionKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> accumulator)
    {
        ref byte nonceBytes = ref MemoryMarshal.GetReference(nonce[..NonceSize]);
        if (!default(TAes).EncryptsBlockInRegisters)
        {
            Span<byte> inPlace = TagInputInPlace(nonce, accumulator);
            // The netstandard2.0 build's choice, which that flag stands for (measured under Mono, where
            // EncryptBlocks' batch state is zero-filled on every call: docs/platforms.md); elsewhere the
            // shared batch path, whose speed in the browser and under .NET was not re-measured.
            if (typeof(TAes) == typeof(AesPortable) && Backends.PortableExpandsKeyInDerivationPass)
            {
                AesPortable.EncryptBlockInPlace(in messageEncryptionKey, rounds, inPlace);
            }
            else
            {
                default(TAes).EncryptBlocks(in messageEncryptionKey, rounds, inPlace, inPlace);
            }

            return Vector128.Create<byte>(inPlace);
        }

        Vector128<ulong> nonceBlock = Vector128.Create(
            Unsafe.ReadUnaligned<ulong>(ref nonceBytes),
            Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref nonceBytes, 8)));
        Vector128<ulong> clearTopBit = Vector128.Create(ulong.MaxValue, 0x7fffffffffffffffUL);
        Vector128<ulong> block = (Vector128.Create<byte>(accumulator).AsUInt64() ^ nonceBlock) & clearTopBit;
        return default(TAes).EncryptBlock(in messageEncryptionKey, rounds, block.AsByte());
    }

    /// <summary>
    /// Expands the message-encryption key into <paramref name="schedule"/>, then <see cref="ComputeTag"/>.
    /// The Portable backend's AES does both in one bitsliced pass where that was measured faster (Mono's JIT:
    /// Backends.PortableExpandsKeyInTagPass; AesPortable.ExpandKeyEncryptBlock: the
    /// expansion's SubWords go through the tag pass's empty block slots), the others one after the
    /// other. The type test is a constant in each specialised copy of this class (the JITs fold it).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> ExpandKeyComputeTag(ReadOnlySpan<byte> key, ref AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, Span<byte> accumulator)
    {
        if (typeof(TAes) == typeof(AesPortable) && Backends.PortableExpandsKeyInTagPass)
        {
            Span<byte> inPlace = TagInputInPlace(nonce, accumulator);
            AesPortable.ExpandKeyEncryptBlock(key, ref schedule, inPlace);
            return Vector128.Create<byte>(inPlace);
        }

        default(TAes).ExpandKey(key, ref schedule);
        return ComputeTag(in schedule, rounds, nonce, accumulator);
    }

    /// <summary>
    /// The tag's AES input, (S_s XOR nonce) with the top bit of byte 15 cleared, made with scalar
    /// operations in <paramref name="accumulator"/> (S_s), where the wipe covers it; returns its 16 bytes.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Span<byte> TagInputInPlace(ReadOnlySpan<byte> nonce, Span<byte> accumulator)
    {
        Span<byte> inPlace = accumulator[..BlockSize];
        ulong low = BinaryPrimitives.ReadUInt64LittleEndian(inPlace) ^ BinaryPrimitives.ReadUInt64LittleEndian(nonce);
        ulong high = (BinaryPrimitives.ReadUInt64LittleEndian(inPlace[8..]) ^ BinaryPrimitives.ReadUInt32LittleEndian(nonce[8..])) & 0x7fffffffffffffffUL;
        BinaryPrimitives.WriteUInt64LittleEndian(inPlace, low);
        BinaryPrimitives.WriteUInt64LittleEndian(inPlace[8..], high);
        return inPlace;
    }

    /// <summary>
    /// The first counter block is the tag with the top bit of byte 15 set; stored by the caller as one
    /// 16-byte write, which Ctr32's 16-byte load can take from the store buffer.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> InitialCounter(Vector128<byte> tag) =>
        tag | Vector128.Create(0UL, 0x8000000000000000UL).AsByte();

    /// <summary>
    /// Moves the counter block <paramref name="blocks"/> blocks on: its first four bytes are a
    /// little-endian uint32 that wraps mod 2^32 (RFC 8452 section 4), and a 32-bit lane add does
    /// exactly that while leaving the other 12 bytes alone.
    /// </summary>
    internal static void AdvanceCounter(Span<byte> counterBlock, uint blocks)
    {
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32() + Vector128.Create(blocks, 0u, 0u, 0u);
        counter.AsByte().CopyTo(counterBlock);
    }
}
