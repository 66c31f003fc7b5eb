// AES (FIPS-197) with the x64 AES-NI instructions: AESENC/AESENCLAST for the rounds and
// AESKEYGENASSIST for the key expansion. Round keys are stored as 16-byte vectors in the usual
// FIPS-197 byte order at the start of AesKeySchedule.
//
// The instructions run in constant time; no data-dependent branch or table exists here.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;

namespace Cryptography.Internal;

internal readonly struct AesNi : IAesBlock
{
    private const int BlockSize = 16;


    public static bool IsSupported => X86Aes.IsSupported && Sse2.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public static void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(ref schedule);
        if (key.Length == 16)
        {
            // FIPS-197 section 5.2: round constants 01 02 04 08 10 20 40 80 1b 36. The control byte
            // of KeygenAssist must be a constant, hence the unrolled sequence.
            Vector128<byte> k = Vector128.Create(key);
            Unsafe.Add(ref roundKeys, 0) = k;
            Unsafe.Add(ref roundKeys, 1) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x01));
            Unsafe.Add(ref roundKeys, 2) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x02));
            Unsafe.Add(ref roundKeys, 3) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x04));
            Unsafe.Add(ref roundKeys, 4) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x08));
            Unsafe.Add(ref roundKeys, 5) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x10));
            Unsafe.Add(ref roundKeys, 6) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x20));
            Unsafe.Add(ref roundKeys, 7) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x40));
            Unsafe.Add(ref roundKeys, 8) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x80));
            Unsafe.Add(ref roundKeys, 9) = k = NextRotated(k, X86Aes.KeygenAssist(k, 0x1b));
            Unsafe.Add(ref roundKeys, 10) = NextRotated(k, X86Aes.KeygenAssist(k, 0x36));
        }
        else
        {
            // AES-256: even round keys take RotWord+SubWord+Rcon of the previous odd key's last
            // word (lane 3 of KeygenAssist), odd ones take SubWord only (lane 2, control 0).
            Vector128<byte> a = Vector128.Create(key);
            Vector128<byte> b = Vector128.Create(key[16..]);
            Unsafe.Add(ref roundKeys, 0) = a;
            Unsafe.Add(ref roundKeys, 1) = b;
            Unsafe.Add(ref roundKeys, 2) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x01));
            Unsafe.Add(ref roundKeys, 3) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 4) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x02));
            Unsafe.Add(ref roundKeys, 5) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 6) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x04));
            Unsafe.Add(ref roundKeys, 7) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 8) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x08));
            Unsafe.Add(ref roundKeys, 9) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 10) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x10));
            Unsafe.Add(ref roundKeys, 11) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 12) = a = NextRotated(a, X86Aes.KeygenAssist(b, 0x20));
            Unsafe.Add(ref roundKeys, 13) = b = NextSubstituted(b, X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 14) = NextRotated(a, X86Aes.KeygenAssist(b, 0x40));
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public static void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(ref Unsafe.AsRef(in schedule));
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        int blocks = input.Length / BlockSize;
        int i = 0;

        // Key derivation encrypts 4 or 6 blocks: run them as independent chains, 4 at a time.
        for (; i + 4 <= blocks; i += 4)
        {
            nuint offset = (nuint)(i * BlockSize);
            Vector128<byte> k = roundKeys;
            Vector128<byte> b0 = Vector128.LoadUnsafe(ref source, offset) ^ k;
            Vector128<byte> b1 = Vector128.LoadUnsafe(ref source, offset + 16) ^ k;
            Vector128<byte> b2 = Vector128.LoadUnsafe(ref source, offset + 32) ^ k;
            Vector128<byte> b3 = Vector128.LoadUnsafe(ref source, offset + 48) ^ k;
            for (int r = 1; r < rounds; r++)
            {
                k = Unsafe.Add(ref roundKeys, r);
                b0 = X86Aes.Encrypt(b0, k);
                b1 = X86Aes.Encrypt(b1, k);
                b2 = X86Aes.Encrypt(b2, k);
                b3 = X86Aes.Encrypt(b3, k);
            }

            k = Unsafe.Add(ref roundKeys, rounds);
            X86Aes.EncryptLast(b0, k).StoreUnsafe(ref destination, offset);
            X86Aes.EncryptLast(b1, k).StoreUnsafe(ref destination, offset + 16);
            X86Aes.EncryptLast(b2, k).StoreUnsafe(ref destination, offset + 32);
            X86Aes.EncryptLast(b3, k).StoreUnsafe(ref destination, offset + 48);
        }

        for (; i < blocks; i++)
        {
            nuint offset = (nuint)(i * BlockSize);
            EncryptBlock(ref roundKeys, rounds, Vector128.LoadUnsafe(ref source, offset)).StoreUnsafe(ref destination, offset);
        }
    }

    public static void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output) =>
        CtrMode<AesNi>.Apply(in schedule, rounds, counterBlock, input, output);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block) =>
        EncryptBlock(ref RoundKeys(ref Unsafe.AsRef(in schedule)), rounds, block);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<uint> Ctr8(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ref byte input, ref byte output)
    {
        // Eight independent blocks: AESENC has a latency of about 4 cycles and issues up to twice
        // per cycle here, so 8 chains keep the unit busy. The counter is lane 0 as a little-endian
        // uint32; a 32-bit lane add wraps mod 2^32 exactly as RFC 8452 requires.
        ref Vector128<byte> roundKeys = ref RoundKeys(ref Unsafe.AsRef(in schedule));
        Vector128<byte> k = roundKeys;
        Vector128<byte> b0 = counter.AsByte() ^ k;
        Vector128<byte> b1 = (counter + Vector128.Create(1u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b2 = (counter + Vector128.Create(2u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b3 = (counter + Vector128.Create(3u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b4 = (counter + Vector128.Create(4u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b5 = (counter + Vector128.Create(5u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b6 = (counter + Vector128.Create(6u, 0, 0, 0)).AsByte() ^ k;
        Vector128<byte> b7 = (counter + Vector128.Create(7u, 0, 0, 0)).AsByte() ^ k;
        for (int r = 1; r < rounds; r++)
        {
            k = Unsafe.Add(ref roundKeys, r);
            b0 = X86Aes.Encrypt(b0, k);
            b1 = X86Aes.Encrypt(b1, k);
            b2 = X86Aes.Encrypt(b2, k);
            b3 = X86Aes.Encrypt(b3, k);
            b4 = X86Aes.Encrypt(b4, k);
            b5 = X86Aes.Encrypt(b5, k);
            b6 = X86Aes.Encrypt(b6, k);
            b7 = X86Aes.Encrypt(b7, k);
        }

        k = Unsafe.Add(ref roundKeys, rounds);
        (X86Aes.EncryptLast(b0, k) ^ Vector128.LoadUnsafe(ref input)).StoreUnsafe(ref output);
        (X86Aes.EncryptLast(b1, k) ^ Vector128.LoadUnsafe(ref input, 16)).StoreUnsafe(ref output, 16);
        (X86Aes.EncryptLast(b2, k) ^ Vector128.LoadUnsafe(ref input, 32)).StoreUnsafe(ref output, 32);
        (X86Aes.EncryptLast(b3, k) ^ Vector128.LoadUnsafe(ref input, 48)).StoreUnsafe(ref output, 48);
        (X86Aes.EncryptLast(b4, k) ^ Vector128.LoadUnsafe(ref input, 64)).StoreUnsafe(ref output, 64);
        (X86Aes.EncryptLast(b5, k) ^ Vector128.LoadUnsafe(ref input, 80)).StoreUnsafe(ref output, 80);
        (X86Aes.EncryptLast(b6, k) ^ Vector128.LoadUnsafe(ref input, 96)).StoreUnsafe(ref output, 96);
        (X86Aes.EncryptLast(b7, k) ^ Vector128.LoadUnsafe(ref input, 112)).StoreUnsafe(ref output, 112);
        return counter + Vector128.Create(8u, 0, 0, 0);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> EncryptBlock(ref Vector128<byte> roundKeys, int rounds, Vector128<byte> block)
    {
        block ^= roundKeys;
        for (int r = 1; r < rounds; r++)
        {
            block = X86Aes.Encrypt(block, Unsafe.Add(ref roundKeys, r));
        }

        return X86Aes.EncryptLast(block, Unsafe.Add(ref roundKeys, rounds));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Vector128<byte> RoundKeys(ref AesKeySchedule schedule) =>
        ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref schedule);

    // w[i] = w[i-4] ^ w[i-1]-derived word, for all four words at once: XOR the key with itself
    // shifted by 4, 8 and 12 bytes (prefix XOR), then add the broadcast transformed word.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> PrefixXor(Vector128<byte> key)
    {
        key ^= Sse2.ShiftLeftLogical128BitLane(key, 4);
        key ^= Sse2.ShiftLeftLogical128BitLane(key, 4);
        return key ^ Sse2.ShiftLeftLogical128BitLane(key, 4);
    }

    // Lane 3 of KeygenAssist is RotWord(SubWord(w3)) ^ Rcon: the step every AES-128 round key and
    // every even AES-256 round key takes.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> NextRotated(Vector128<byte> key, Vector128<byte> assist) =>
        PrefixXor(key) ^ Sse2.Shuffle(assist.AsUInt32(), 0xFF).AsByte();

    // Lane 2 of KeygenAssist is SubWord(w3): the step of odd AES-256 round keys (FIPS-197 5.2, Nk > 6).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> NextSubstituted(Vector128<byte> key, Vector128<byte> assist) =>
        PrefixXor(key) ^ Sse2.Shuffle(assist.AsUInt32(), 0xAA).AsByte();
}
