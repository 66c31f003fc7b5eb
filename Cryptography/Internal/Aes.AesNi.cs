// AES (FIPS-197) with the x64 AES-NI instructions: AESKEYGENASSIST for the key expansion and
// AESENC/AESENCLAST for the rounds, which Aes.Vector.cs runs. Round keys are stored as 16-byte
// vectors in the usual FIPS-197 byte order at the start of AesKeySchedule.
//
// The instructions run in constant time; no data-dependent branch or table exists here.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;

namespace Cryptography.Internal;

internal readonly struct AesNi : IAesInstructions
{
    public static bool IsSupported => X86Aes.IsSupported && Sse2.IsSupported;

    // Never run unoptimised (Tier0 code keeps every local, keys included, in stack slots), and never
    // inlined: inlined into a caller, the JIT kept the key words in stack slots of its frame.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
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

    // AESENC adds the round key after the round's other steps, so the first key is added alone and
    // the last round (no MixColumns) is AESENCLAST.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> First(Vector128<byte> block, Vector128<byte> roundKey) => block ^ roundKey;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Round(Vector128<byte> block, Vector128<byte> roundKey) => X86Aes.Encrypt(block, roundKey);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Penultimate(Vector128<byte> block, Vector128<byte> roundKey) => X86Aes.Encrypt(block, roundKey);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Final(Vector128<byte> block, Vector128<byte> roundKey) => X86Aes.EncryptLast(block, roundKey);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Vector128<byte> RoundKeys(ref AesKeySchedule schedule) =>
        ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref schedule);

    // w[i] = w[i-4] ^ w[i-1]-derived word, for all four words at once: XOR the key with itself
    // shifted by 4, 8 and 12 bytes (prefix XOR), then add the broadcast transformed word. Done as
    // k ^ k<<4, then that ^ itself<<8: four dependent steps, not the six of three shift-and-XORs in
    // a row. In AES-128 each round key waits on the previous one's prefix XOR, and with six steps
    // that, not KeygenAssist, was the longer path.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> PrefixXor(Vector128<byte> key)
    {
        Vector128<byte> pairs = key ^ Sse2.ShiftLeftLogical128BitLane(key, 4);
        return pairs ^ Sse2.ShiftLeftLogical128BitLane(pairs, 8);
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
