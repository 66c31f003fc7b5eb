// AES (FIPS-197) block encryption and RFC 8452's CTR mode (section 4) on 128-bit vectors, written
// once for every instruction set with AES round instructions (AES-NI in Aes.AesNi.cs, the ARMv8
// Cryptography Extension in Aes.Arm64.cs). Each supplies its key expansion and four steps, which
// split the rounds the same way for both despite their different instructions (AESENC adds the round
// key last, AESE first):
//   First(block, k0), Round(block, k_r) for r = 1 .. rounds - 2, Penultimate(block, k_(rounds-1)),
//   Final(block, k_rounds).
// The batches apply each step to all their blocks before the next, so one round key is live at a
// time: with eight blocks in flight, x64's sixteen vector registers have no room for more, and a
// spilled round key would be left in the stack frame.
// The JIT compiles one copy per instruction set with the steps inlined.
//
// Independent blocks are encrypted side by side (8 for CTR, 6 for AES-256's key derivation, 4 for
// the rest): one AES round has a latency of several cycles but the unit accepts a new one every
// cycle or two, so a single chain would leave it idle most of the time.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>What an instruction set provides for <see cref="AesVector{TIsa}"/>.</summary>
internal interface IAesInstructions
{
    static abstract bool IsSupported { get; }

    /// <summary>Writes the rounds + 1 round keys as 16-byte vectors at the start of <paramref name="schedule"/>.</summary>
    static abstract void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule);

    static abstract Vector128<byte> First(Vector128<byte> block, Vector128<byte> roundKey);

    static abstract Vector128<byte> Round(Vector128<byte> block, Vector128<byte> roundKey);

    static abstract Vector128<byte> Penultimate(Vector128<byte> block, Vector128<byte> roundKey);

    static abstract Vector128<byte> Final(Vector128<byte> block, Vector128<byte> roundKey);
}

/// <summary>AES and CTR over an instruction set's rounds.</summary>
internal readonly struct AesVector<TIsa> : IAes
    where TIsa : IAesInstructions
{
    private const int BlockSize = 16;
    private const int Batch = 8 * BlockSize;

    public bool IsSupported => TIsa.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule) => TIsa.ExpandKey(key, ref schedule);

    public int ScheduleBytes(int rounds) => (rounds + 1) * BlockSize;

    public bool EncryptsBlockInRegisters => true;

    // Interface members are instance members (netstandard2.0 has no static abstract members); the
    // forwarder inlines, so GcmSiv calls the static body as it did before, without passing an empty
    // struct's `this` (a stack store and a register per call: issue 48's before/after run saw it).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output) => EncryptBlocksCore(in schedule, rounds, input, output);

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    private static void EncryptBlocksCore(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        nuint length = (nuint)(input.Length & ~(BlockSize - 1));
        nuint offset = 0;

        for (; length - offset >= 4 * BlockSize; offset += 4 * BlockSize)
        {
            (Vector128<byte> b0, Vector128<byte> b1, Vector128<byte> b2, Vector128<byte> b3) = Encrypt4(
                in schedule,
                rounds,
                Vector128.LoadUnsafe(ref source, offset),
                Vector128.LoadUnsafe(ref source, offset + 16),
                Vector128.LoadUnsafe(ref source, offset + 32),
                Vector128.LoadUnsafe(ref source, offset + 48));
            b0.StoreUnsafe(ref destination, offset);
            b1.StoreUnsafe(ref destination, offset + 16);
            b2.StoreUnsafe(ref destination, offset + 32);
            b3.StoreUnsafe(ref destination, offset + 48);
        }

        for (; offset < length; offset += BlockSize)
        {
            default(AesVector<TIsa>).EncryptBlock(in schedule, rounds, Vector128.LoadUnsafe(ref source, offset)).StoreUnsafe(ref destination, offset);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(in schedule);
        block = TIsa.First(block, roundKeys);
        for (int r = 1; r < rounds - 1; r++)
        {
            block = TIsa.Round(block, Unsafe.Add(ref roundKeys, r));
        }

        return TIsa.Final(TIsa.Penultimate(block, Unsafe.Add(ref roundKeys, rounds - 1)), Unsafe.Add(ref roundKeys, rounds));
    }

    /// <summary>
    /// RFC 8452 section 4's key derivation in registers: the blocks LE32(i) || nonce for i = 0..3
    /// (AES-128) or 0..5 (AES-256) are made, encrypted side by side and packed (the first 8 bytes of
    /// each, two blocks to a key block) without going through memory, and only the 32 or 48 bytes of
    /// key material are stored, at <paramref name="derived"/>: the message-authentication key, then
    /// the message-encryption key. Through memory, each of those three steps waited for a 16-byte
    /// store to be forwarded to the next step's load, on the message's critical path.
    /// Not inlined, so the blocks stay in this frame's registers (nine vectors at most, x64 has
    /// sixteen): no copy of them is left in a caller's stack slots.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void DeriveKeys(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived) => DeriveKeysCore(in keyGeneratingKey, rounds, ref nonce, ref derived);

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void DeriveKeysCore(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(in keyGeneratingKey);
        Vector128<uint> block = Vector128.Create(
            0u,
            Unsafe.ReadUnaligned<uint>(ref nonce),
            Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref nonce, 4)),
            Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref nonce, 8)));

        // Lane 0 is the little-endian block index.
        Vector128<byte> b0 = block.AsByte(), b1 = block.WithElement(0, 1u).AsByte(), b2 = block.WithElement(0, 2u).AsByte(), b3 = block.WithElement(0, 3u).AsByte();
        if (rounds == 10)
        {
            (b0, b1, b2, b3) = Encrypt4(in keyGeneratingKey, rounds, b0, b1, b2, b3);
            Unsafe.As<byte, Vector128<byte>>(ref derived) = Pack(b0, b1);
            Unsafe.As<byte, Vector128<byte>>(ref Unsafe.Add(ref derived, 16)) = Pack(b2, b3);
            return;
        }

        Vector128<byte> k = roundKeys;
        Vector128<byte> x0 = TIsa.First(b0, k), x1 = TIsa.First(b1, k), x2 = TIsa.First(b2, k), x3 = TIsa.First(b3, k);
        Vector128<byte> x4 = TIsa.First(block.WithElement(0, 4u).AsByte(), k);
        Vector128<byte> x5 = TIsa.First(block.WithElement(0, 5u).AsByte(), k);
        for (int r = 1; r < 13; r++)
        {
            k = Unsafe.Add(ref roundKeys, r);
            x0 = TIsa.Round(x0, k);
            x1 = TIsa.Round(x1, k);
            x2 = TIsa.Round(x2, k);
            x3 = TIsa.Round(x3, k);
            x4 = TIsa.Round(x4, k);
            x5 = TIsa.Round(x5, k);
        }

        k = Unsafe.Add(ref roundKeys, 13);
        Vector128<byte> last = Unsafe.Add(ref roundKeys, 14);
        Unsafe.As<byte, Vector128<byte>>(ref derived) = Pack(TIsa.Final(TIsa.Penultimate(x0, k), last), TIsa.Final(TIsa.Penultimate(x1, k), last));
        Unsafe.As<byte, Vector128<byte>>(ref Unsafe.Add(ref derived, 16)) = Pack(TIsa.Final(TIsa.Penultimate(x2, k), last), TIsa.Final(TIsa.Penultimate(x3, k), last));
        Unsafe.As<byte, Vector128<byte>>(ref Unsafe.Add(ref derived, 32)) = Pack(TIsa.Final(TIsa.Penultimate(x4, k), last), TIsa.Final(TIsa.Penultimate(x5, k), last));
    }

    /// <summary>The low 8 bytes of <paramref name="first"/>, then the low 8 bytes of <paramref name="second"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Pack(Vector128<byte> first, Vector128<byte> second) =>
        Vector128.ConditionalSelect(
            Vector128.Create(0UL, ulong.MaxValue),
            Vector128.Shuffle(second.AsUInt64(), Vector128.Create(0UL, 0UL)),
            first.AsUInt64()).AsByte();

    /// <summary>
    /// Four independent blocks. They go in and out by value, not by reference: a reference to a
    /// local forces it into the stack frame, where keystream and round keys would then stay behind.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static (Vector128<byte>, Vector128<byte>, Vector128<byte>, Vector128<byte>) Encrypt4(
        in AesKeySchedule schedule, int rounds, (Vector128<byte> B0, Vector128<byte> B1, Vector128<byte> B2, Vector128<byte> B3) blocks) =>
        Encrypt4(in schedule, rounds, blocks.B0, blocks.B1, blocks.B2, blocks.B3);

    /// <inheritdoc cref="Encrypt4(in AesKeySchedule, int, ValueTuple{Vector128{byte}, Vector128{byte}, Vector128{byte}, Vector128{byte}})"/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static (Vector128<byte>, Vector128<byte>, Vector128<byte>, Vector128<byte>) Encrypt4(
        in AesKeySchedule schedule, int rounds, Vector128<byte> b0, Vector128<byte> b1, Vector128<byte> b2, Vector128<byte> b3)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(in schedule);
        Vector128<byte> k = roundKeys;
        Vector128<byte> x0 = TIsa.First(b0, k), x1 = TIsa.First(b1, k), x2 = TIsa.First(b2, k), x3 = TIsa.First(b3, k);
        for (int r = 1; r < rounds - 1; r++)
        {
            k = Unsafe.Add(ref roundKeys, r);
            x0 = TIsa.Round(x0, k);
            x1 = TIsa.Round(x1, k);
            x2 = TIsa.Round(x2, k);
            x3 = TIsa.Round(x3, k);
        }

        k = Unsafe.Add(ref roundKeys, rounds - 1);
        x0 = TIsa.Penultimate(x0, k);
        x1 = TIsa.Penultimate(x1, k);
        x2 = TIsa.Penultimate(x2, k);
        x3 = TIsa.Penultimate(x3, k);
        k = Unsafe.Add(ref roundKeys, rounds);
        return (TIsa.Final(x0, k), TIsa.Final(x1, k), TIsa.Final(x2, k), TIsa.Final(x3, k));
    }

    /// <summary>
    /// Eight CTR blocks: keystream for counter .. counter + 7 XORed into 128 bytes of input. The
    /// counter is lane 0 as a little-endian uint32; a 32-bit lane add wraps mod 2^32 exactly as
    /// RFC 8452 requires and leaves the other 96 bits alone.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static Vector128<uint> Ctr8(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ref byte input, ref byte output)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(in schedule);
        Vector128<byte> k = roundKeys;
        Vector128<byte> b0 = TIsa.First(counter.AsByte(), k);
        Vector128<byte> b1 = TIsa.First((counter + Vector128.Create(1u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b2 = TIsa.First((counter + Vector128.Create(2u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b3 = TIsa.First((counter + Vector128.Create(3u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b4 = TIsa.First((counter + Vector128.Create(4u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b5 = TIsa.First((counter + Vector128.Create(5u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b6 = TIsa.First((counter + Vector128.Create(6u, 0, 0, 0)).AsByte(), k);
        Vector128<byte> b7 = TIsa.First((counter + Vector128.Create(7u, 0, 0, 0)).AsByte(), k);
        for (int r = 1; r < rounds - 1; r++)
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

        LastRounds8(ref roundKeys, rounds, b0, b1, b2, b3, b4, b5, b6, b7, ref input, ref output);
        return counter + Vector128.Create(8u, 0, 0, 0);
    }

    /// <summary>
    /// The last two rounds of 8 blocks, and their keystream XORed into 128 bytes of
    /// <paramref name="input"/> and stored to <paramref name="output"/>: how every 8-block CTR step
    /// ends (Ctr8 and the stitched decryption loops). The blocks come by value, so that they stay in
    /// registers.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void LastRounds8(
        ref Vector128<byte> roundKeys, int rounds, Vector128<byte> b0, Vector128<byte> b1, Vector128<byte> b2, Vector128<byte> b3,
        Vector128<byte> b4, Vector128<byte> b5, Vector128<byte> b6, Vector128<byte> b7, ref byte input, ref byte output)
    {
        Vector128<byte> k = Unsafe.Add(ref roundKeys, rounds - 1);
        Vector128<byte> last = Unsafe.Add(ref roundKeys, rounds);
        (TIsa.Final(TIsa.Penultimate(b0, k), last) ^ Vector128.LoadUnsafe(ref input)).StoreUnsafe(ref output);
        (TIsa.Final(TIsa.Penultimate(b1, k), last) ^ Vector128.LoadUnsafe(ref input, 16)).StoreUnsafe(ref output, 16);
        (TIsa.Final(TIsa.Penultimate(b2, k), last) ^ Vector128.LoadUnsafe(ref input, 32)).StoreUnsafe(ref output, 32);
        (TIsa.Final(TIsa.Penultimate(b3, k), last) ^ Vector128.LoadUnsafe(ref input, 48)).StoreUnsafe(ref output, 48);
        (TIsa.Final(TIsa.Penultimate(b4, k), last) ^ Vector128.LoadUnsafe(ref input, 64)).StoreUnsafe(ref output, 64);
        (TIsa.Final(TIsa.Penultimate(b5, k), last) ^ Vector128.LoadUnsafe(ref input, 80)).StoreUnsafe(ref output, 80);
        (TIsa.Final(TIsa.Penultimate(b6, k), last) ^ Vector128.LoadUnsafe(ref input, 96)).StoreUnsafe(ref output, 96);
        (TIsa.Final(TIsa.Penultimate(b7, k), last) ^ Vector128.LoadUnsafe(ref input, 112)).StoreUnsafe(ref output, 112);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output) => Ctr32Core(in schedule, rounds, counterBlock, input, output);

    /// <summary>
    /// CTR32 over any length: batches of 8 blocks, then 4, so that a short message's blocks are also
    /// encrypted side by side, then the last 1 to 63 bytes through a buffer (<see cref="Tail"/>), so
    /// nothing past the spans is read or written.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Ctr32Core(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        Vector128<uint> counter = Vector128.Create(counterBlock).AsUInt32();
        nuint length = (nuint)input.Length;
        nuint offset = 0;

        for (; length - offset >= Batch; offset += Batch)
        {
            counter = Ctr8(in schedule, rounds, counter, ref Unsafe.Add(ref source, offset), ref Unsafe.Add(ref destination, offset));
        }

        for (; length - offset >= 4 * BlockSize; offset += 4 * BlockSize)
        {
            (Vector128<byte> k0, Vector128<byte> k1, Vector128<byte> k2, Vector128<byte> k3) = Encrypt4(in schedule, rounds, Counters(counter));
            counter += Vector128.Create(4u, 0, 0, 0);
            (k0 ^ Vector128.LoadUnsafe(ref source, offset)).StoreUnsafe(ref destination, offset);
            (k1 ^ Vector128.LoadUnsafe(ref source, offset + 16)).StoreUnsafe(ref destination, offset + 16);
            (k2 ^ Vector128.LoadUnsafe(ref source, offset + 32)).StoreUnsafe(ref destination, offset + 32);
            (k3 ^ Vector128.LoadUnsafe(ref source, offset + 48)).StoreUnsafe(ref destination, offset + 48);
        }

        if (offset < length)
        {
            Tail(in schedule, rounds, counter, ref Unsafe.Add(ref source, offset), ref Unsafe.Add(ref destination, offset), (int)(length - offset));
        }
    }

    /// <summary>
    /// The last 1 to 63 bytes: four keystream blocks into a buffer in this frame, XORed from there, and
    /// the buffer wiped. The keystream is stored before any call, so no register holding it is
    /// spilled to an unwiped stack slot.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Tail(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ref byte source, ref byte destination, int count)
    {
        Keystream keystream = default;
        ref byte buffer = ref Unsafe.As<Keystream, byte>(ref keystream);
        (Vector128<byte> k0, Vector128<byte> k1, Vector128<byte> k2, Vector128<byte> k3) = Encrypt4(in schedule, rounds, Counters(counter));
        k0.StoreUnsafe(ref buffer);
        k1.StoreUnsafe(ref buffer, 16);
        k2.StoreUnsafe(ref buffer, 32);
        k3.StoreUnsafe(ref buffer, 48);
        int i = 0;
        for (; i + BlockSize <= count; i += BlockSize)
        {
            (Vector128.LoadUnsafe(ref buffer, (nuint)i) ^ Vector128.LoadUnsafe(ref source, (nuint)i)).StoreUnsafe(ref destination, (nuint)i);
        }

        for (; i < count; i++)
        {
            Unsafe.Add(ref destination, i) = (byte)(Unsafe.Add(ref source, i) ^ Unsafe.Add(ref buffer, i));
        }

        CryptographicOperations.ZeroMemory(keystream);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static (Vector128<byte>, Vector128<byte>, Vector128<byte>, Vector128<byte>) Counters(Vector128<uint> counter) =>
        (counter.AsByte(),
         (counter + Vector128.Create(1u, 0, 0, 0)).AsByte(),
         (counter + Vector128.Create(2u, 0, 0, 0)).AsByte(),
         (counter + Vector128.Create(3u, 0, 0, 0)).AsByte());

    [InlineArray(4 * BlockSize)]
    private struct Keystream
    {
        private byte _element0;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Vector128<byte> RoundKeys(in AesKeySchedule schedule) =>
        ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
}
