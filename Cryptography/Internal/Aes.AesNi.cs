// AES (FIPS-197) with the x64 AES-NI instructions: PSHUFB and AESENCLAST for the key expansion
// and AESENC/AESENCLAST for the rounds, which Aes.Vector.cs runs. Round keys are stored as 16-byte
// vectors in the usual FIPS-197 byte order at the start of AesKeySchedule.
//
// The instructions run in constant time; no data-dependent branch or table exists here.

using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;

namespace Cryptography.Internal;

internal readonly struct AesNi : IAesInstructions
{
    public static bool IsSupported => X86Aes.IsSupported && Ssse3.IsSupported;

    // Never run unoptimised (Tier0 code keeps every local, keys included, in stack slots), and never
    // inlined: inlined into a caller, the JIT kept the key words in stack slots of its frame.
    //
    // FIPS-197 section 5.2 without AESKEYGENASSIST: its SubWord is AESENCLAST's SubBytes applied to a
    // vector whose four words are all the word to substitute. With four equal columns ShiftRows moves
    // nothing, so AESENCLAST(broadcast word, rcon in every word) = SubWord(word) ^ rcon in every word.
    // PSHUFB broadcasts RotWord(w3), or PSHUFD w3 alone where FIPS-197 substitutes without rotating.
    // Why: AESKEYGENASSIST is microcoded on Intel cores (13 uops, one issued about every 12 cycles on
    // Skylake and later in Agner Fog's and uops.info's tables), and a schedule chains 10 or 14 of
    // them; PSHUFB and AESENCLAST are single uops on Intel and AMD alike. BoringSSL's AES-GCM-SIV
    // assembly (Gueron) expands its per-message keys the same way. The AESKEYGENASSIST form is kept
    // as ExpandKeyWithKeygenAssist, for the tests that compare the two and the benchmark's A/B.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(ref schedule);
        if (key.Length == 16)
        {
            // Round constants 01 02 04 08 10 20 40 80 1b 36 (FIPS-197 section 5.2).
            Vector128<byte> k = Vector128.Create(key);
            Unsafe.Add(ref roundKeys, 0) = k;
            Unsafe.Add(ref roundKeys, 1) = k = NextRotated(k, k, 0x01);
            Unsafe.Add(ref roundKeys, 2) = k = NextRotated(k, k, 0x02);
            Unsafe.Add(ref roundKeys, 3) = k = NextRotated(k, k, 0x04);
            Unsafe.Add(ref roundKeys, 4) = k = NextRotated(k, k, 0x08);
            Unsafe.Add(ref roundKeys, 5) = k = NextRotated(k, k, 0x10);
            Unsafe.Add(ref roundKeys, 6) = k = NextRotated(k, k, 0x20);
            Unsafe.Add(ref roundKeys, 7) = k = NextRotated(k, k, 0x40);
            Unsafe.Add(ref roundKeys, 8) = k = NextRotated(k, k, 0x80);
            Unsafe.Add(ref roundKeys, 9) = k = NextRotated(k, k, 0x1b);
            Unsafe.Add(ref roundKeys, 10) = NextRotated(k, k, 0x36);
        }
        else
        {
            // AES-256: even round keys take RotWord+SubWord+Rcon of the previous odd key's last word,
            // odd ones SubWord of the previous even key's last word (FIPS-197 5.2, Nk > 6).
            Vector128<byte> a = Vector128.Create(key);
            Vector128<byte> b = Vector128.Create(key[16..]);
            Unsafe.Add(ref roundKeys, 0) = a;
            Unsafe.Add(ref roundKeys, 1) = b;
            Unsafe.Add(ref roundKeys, 2) = a = NextRotated(a, b, 0x01);
            Unsafe.Add(ref roundKeys, 3) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 4) = a = NextRotated(a, b, 0x02);
            Unsafe.Add(ref roundKeys, 5) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 6) = a = NextRotated(a, b, 0x04);
            Unsafe.Add(ref roundKeys, 7) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 8) = a = NextRotated(a, b, 0x08);
            Unsafe.Add(ref roundKeys, 9) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 10) = a = NextRotated(a, b, 0x10);
            Unsafe.Add(ref roundKeys, 11) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 12) = a = NextRotated(a, b, 0x20);
            Unsafe.Add(ref roundKeys, 13) = b = NextSubstituted(b, a);
            Unsafe.Add(ref roundKeys, 14) = NextRotated(a, b, 0x40);
        }
    }

    // The same schedule with AESKEYGENASSIST, as ExpandKey was until issue 49: tests check that
    // both give the same round keys, and MessageCostBenchmarks times the two in one run.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    internal static void ExpandKeyWithKeygenAssist(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(ref schedule);
        if (key.Length == 16)
        {
            // The control byte of KeygenAssist must be a constant, hence the unrolled sequence.
            Vector128<byte> k = Vector128.Create(key);
            Unsafe.Add(ref roundKeys, 0) = k;
            Unsafe.Add(ref roundKeys, 1) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x01));
            Unsafe.Add(ref roundKeys, 2) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x02));
            Unsafe.Add(ref roundKeys, 3) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x04));
            Unsafe.Add(ref roundKeys, 4) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x08));
            Unsafe.Add(ref roundKeys, 5) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x10));
            Unsafe.Add(ref roundKeys, 6) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x20));
            Unsafe.Add(ref roundKeys, 7) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x40));
            Unsafe.Add(ref roundKeys, 8) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x80));
            Unsafe.Add(ref roundKeys, 9) = k = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x1b));
            Unsafe.Add(ref roundKeys, 10) = PrefixXor(k) ^ Lane3(X86Aes.KeygenAssist(k, 0x36));
        }
        else
        {
            // Lane 3 of KeygenAssist is RotWord(SubWord(w3)) ^ Rcon, lane 2 is SubWord(w3) (control 0).
            Vector128<byte> a = Vector128.Create(key);
            Vector128<byte> b = Vector128.Create(key[16..]);
            Unsafe.Add(ref roundKeys, 0) = a;
            Unsafe.Add(ref roundKeys, 1) = b;
            Unsafe.Add(ref roundKeys, 2) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x01));
            Unsafe.Add(ref roundKeys, 3) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 4) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x02));
            Unsafe.Add(ref roundKeys, 5) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 6) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x04));
            Unsafe.Add(ref roundKeys, 7) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 8) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x08));
            Unsafe.Add(ref roundKeys, 9) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 10) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x10));
            Unsafe.Add(ref roundKeys, 11) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 12) = a = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x20));
            Unsafe.Add(ref roundKeys, 13) = b = PrefixXor(b) ^ Lane2(X86Aes.KeygenAssist(a, 0x00));
            Unsafe.Add(ref roundKeys, 14) = PrefixXor(a) ^ Lane3(X86Aes.KeygenAssist(b, 0x40));
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

    // The next key from `key` (the round key four words back) and `last` (the one before this):
    // PSHUFB puts RotWord(last's word 3) in every word, AESENCLAST substitutes it and adds Rcon in
    // every word (its round key: Rcon in byte 0 of each word). Every AES-128 round key and every even
    // AES-256 one. The shuffle's indices 13 14 15 12 per word are RotWord of bytes 12..15.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> NextRotated(Vector128<byte> key, Vector128<byte> last, [ConstantExpected] uint roundConstant)
    {
        Vector128<byte> rotated = Ssse3.Shuffle(last, Vector128.Create(0x0C0F0E0Du).AsByte());
        return PrefixXor(key) ^ X86Aes.EncryptLast(rotated, Vector128.Create(roundConstant).AsByte());
    }

    // Odd AES-256 round keys: SubWord of the last word, without RotWord or Rcon (FIPS-197 5.2, Nk > 6).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> NextSubstituted(Vector128<byte> key, Vector128<byte> last)
    {
        Vector128<byte> broadcast = Sse2.Shuffle(last.AsUInt32(), 0xFF).AsByte();
        return PrefixXor(key) ^ X86Aes.EncryptLast(broadcast, Vector128<byte>.Zero);
    }

    // Lane 3 of KeygenAssist, RotWord(SubWord(w3)) ^ Rcon, in every word.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Lane3(Vector128<byte> assist) => Sse2.Shuffle(assist.AsUInt32(), 0xFF).AsByte();

    // Lane 2 of KeygenAssist, SubWord(w3), in every word.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Lane2(Vector128<byte> assist) => Sse2.Shuffle(assist.AsUInt32(), 0xAA).AsByte();
}
