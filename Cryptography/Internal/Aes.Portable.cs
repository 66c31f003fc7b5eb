// Portable, constant-time AES-128/AES-256 (FIPS-197) shaped for the .NET WebAssembly interpreter
// (the browser: Mono's interpreter plus the "jiterpreter", which compiles hot traces of interpreter
// code to WebAssembly); the Portable backend's AES on every target. The algorithm is BearSSL's
// bitsliced "ct64" AES (Thomas Pornin, src/symcipher/aes_ct64.c, https://bearssl.org/constanttime.html),
// re-implemented here, with the Boyar-Peralta S-box circuit (see SubBytes):
//
//  * Four 16-byte blocks are held in eight 64-bit words (bit planes). Plane k holds bit k of every
//    one of the 64 state bytes; within a plane, bit (16 * row + 4 * column + lane) belongs to state
//    byte (row, column) of block "lane" (0..3): each nibble is one byte position across the four
//    blocks, each 16-bit quarter one row of the AES state.
//  * Getting there: InterleaveIn spreads a block's four little-endian column words over two words,
//    and Ortho (a bit-matrix transposition of SWAP2, SWAP4 and SWAP8 steps, its own inverse) turns
//    "byte in a word" into "bit plane per word"; StoreBlock undoes InterleaveIn.
//  * ShiftRows rotates each 16-bit row by 0/4/8/12 bits (a column is 4 bits); MixColumns rotates
//    words by rows (16 bits) and applies xtime on the bit planes.
//
// It was first written for the interpreter (it replaced a version of the same algorithm with its
// planes in an array and each step a call, which Mono's JIT, the interpreter and .NET's JIT all ran
// slower: docs/backends.md). The shape of the code is what the interpreter pays for:
//
//  * the eight bit planes are eight ulong locals, not an [InlineArray] reached through a ref (each
//    q[i] there is a helper call plus a bounds check for the interpreter);
//  * every step of a round and the transposition are AggressiveInlining methods over those locals
//    or written out, so a group's encryption is one method body with no calls: the interpreter
//    inlines them (it honours AggressiveInlining whatever the size);
//  * fixslicing: no ShiftRows in the rounds (see EncryptGroup), so the round keys are stored shifted
//    (ExpandKeyCore): each round key's rows rotated as far as the state is behind;
//  * the rounds live in their own method (EncryptGroups), called once for up to eight groups: the
//    jiterpreter compiles a trace from a loop's head on until its 16 KiB module limit
//    (jiterpreter-max-module-size) and interprets the rest, and with the counter set-up and the
//    keystream XOR in the same body one group's trace passed that limit (measured in Chromium:
//    CTR over 8 KiB 0.60 of the time before, with fixslicing);
//  * round keys are read through one ref and an offset (Unsafe.Add), not sliced spans;
//  * a single block (the tag) and key derivation's four or six go straight from the caller's memory
//    into one EncryptGroups call and back, with no padded buffer copied in and out (measured in
//    Chromium: 0.70-0.75 of the time of the tag block and of AES-128's derivation);
//  * the key schedule's SubWord runs the S-box circuit on the 4 bytes alone (bit planes of 32-bit
//    words), not on a 64-byte bitsliced state transposed in and out for 4 bytes of it;
//  * in the netstandard2.0 build (Mono), a message's key is expanded inside a pass with empty block
//    slots, its SubWords riding in one: AES-256 key derivation's second pass (DeriveKeysExpandKey),
//    AES-128 encryption's tag pass (ExpandKeyEncryptBlock).
//
// Constant time: no table indexed by secret data, no branch or loop count that
// depends on it; only lengths and the (public) round count steer control flow.

using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>The Portable backend's AES: fixsliced constant-time AES, state in locals and steps inlined.</summary>
internal readonly struct AesPortable : IAes
{
    /// <summary>Bytes handled per bitsliced pass: four blocks.</summary>
    private const int GroupBytes = 64;

    /// <summary>Groups of counter blocks Ctr32Core hands to <see cref="EncryptGroups"/> in one call.</summary>
    private const int BatchGroups = 8;

    /// <summary>Bytes of stack <see cref="BurnStack"/> overwrites after each operation.</summary>
    private const int BurnBytes = 2048;

    // Everywhere: plain scalar C#, measured faster than the bitsliced AES it replaced under the
    // browser's interpreter (docs/blazor.md), Mono's JIT (docs/platforms.md) and .NET's JIT
    // (docs/backends.md).
    public bool IsSupported => true;

    public int ScheduleBytes(int rounds) => AesKeySchedule.Length * sizeof(ulong);

    public bool EncryptsBlockInRegisters => false;

    /// <summary>Not used: this AES works in memory, so GcmSiv derives its keys through <see cref="EncryptBlocks"/>.</summary>
    public void DeriveKeys(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived) => throw new NotSupportedException();

    /// <summary>The fixsliced schedule: every round key bitsliced, its rows rotated to meet the state (ExpandKeyCore).</summary>
    public void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        // Key length is public; branching on it is fine.
        if (key.Length != 16 && key.Length != 32)
        {
            throw new ArgumentException("AES key must be 16 or 32 bytes.", nameof(key));
        }

        ExpandKeyCore(key, ref schedule[0]);
        BurnStack();
    }

    /// <summary>
    /// FIPS-197 section 5.2 key expansion, then every round key bitsliced with its four lanes equal
    /// (BitsliceRoundKey), into (rounds + 1) * 8 words. The key schedule's SubWord runs the same S-box
    /// circuit: a key byte is secret, so a table lookup there would leak too.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void ExpandKeyCore(ReadOnlySpan<byte> key, ref ulong sk)
    {
        int nk = key.Length / 4;      // key length in 32-bit words (FIPS-197 Nk)
        int rounds = nk + 6;          // FIPS-197 Nr: 10 or 14
        Span<uint> words = stackalloc uint[60];
        ref uint w = ref MemoryMarshal.GetReference(words);
        LoadKeyWords(key, ref w);
        uint rcon = 1;
        for (int next = nk >> 2; next <= rounds; next++)
        {
            NextRoundKeyWords(ref w, next, nk, SubWord(SubWordInput(ref w, next, nk)), ref rcon);
        }

        for (int r = 0; r <= rounds; r++)
        {
            BitsliceRoundKey(ref w, r, ref sk);
        }

        ClearScheduleTail(ref sk, rounds);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(words));
    }

    /// <summary>
    /// <see cref="ExpandKey"/> and then <see cref="EncryptBlocks"/> on the one 16-byte block
    /// <paramref name="block"/> (in place), in one bitsliced pass: the same schedule and the same
    /// block out. The block takes one of the pass's four slots; each round's SubBytes also
    /// substitutes, in a free slot, the word of the key expansion's next SubWord, so the expansion's
    /// SubWords cost no S-box circuit of their own ("expand while encrypting", as BoringSSL's
    /// AES-GCM-SIV assembly does for the tag). The key length is public.
    /// </summary>
    /// <exception cref="ArgumentException">The key is not 16 or 32 bytes, or the block not 16.</exception>
    internal static void ExpandKeyEncryptBlock(ReadOnlySpan<byte> key, ref AesKeySchedule schedule, Span<byte> block)
    {
        if (key.Length != 16 && key.Length != 32)
        {
            throw new ArgumentException("AES key must be 16 or 32 bytes.", nameof(key));
        }

        if (block.Length != 16)
        {
            throw new ArgumentException("The block must be 16 bytes.", nameof(block));
        }

        ExpandKeyEncryptBlockCore(key, ref schedule[0], ref MemoryMarshal.GetReference(block));
        BurnStack();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void ExpandKeyEncryptBlockCore(ReadOnlySpan<byte> key, ref ulong sk, ref byte block)
    {
        int nk = key.Length / 4;
        int rounds = nk + 6;
        Span<uint> words = stackalloc uint[60];
        ref uint w = ref MemoryMarshal.GetReference(words);
        LoadKeyWords(key, ref w);

        // The first Nk words are the key: round keys 0 (and 1 for AES-256) need no SubWord.
        for (int r = 0; r < nk >> 2; r++)
        {
            BitsliceRoundKey(ref w, r, ref sk);
        }

        // The block in slot 0 (words 0 and 4 before the transposition), zeros in the other three.
        Span<ulong> state = stackalloc ulong[8];
        ref ulong q = ref MemoryMarshal.GetReference(state);
        state.Clear();
        InterleaveIn(Word(ref block, 0), Word(ref block, 4), Word(ref block, 8), Word(ref block, 12), out q, out Unsafe.Add(ref q, 4));
        EncryptGroup<WithKeyExpansion>(ref sk, rounds, ref q, ref w, ref sk);
        StoreBlock(ref block, q, Unsafe.Add(ref q, 4));
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
        ClearScheduleTail(ref sk, rounds);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(words));
    }

    /// <summary>
    /// RFC 8452 section 4's key derivation for AES-256 (<paramref name="rounds"/> 14) and the
    /// message-encryption key's expansion, in the two bitsliced passes the six counter blocks need
    /// anyway: the same bytes in <paramref name="derived"/> (its first 48: the authentication key, then
    /// the encryption key) as <c>GcmSiv.DeriveKeyMaterial</c>, and the same schedule as
    /// <see cref="ExpandKey"/>. The first pass encrypts blocks 2 to 5, the encryption key; the second
    /// blocks 0 and 1, the authentication key, in two of its four slots, while a free slot carries the
    /// expansion's SubWords as in <see cref="ExpandKeyEncryptBlock"/>. Decryption (GcmSiv) needs the
    /// expanded key before its first pass, so it has no tag pass to ride in. The nonce, the lengths and the
    /// round count are public.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="rounds"/> is not 14.</exception>
    /// <exception cref="ArgumentException">The nonce is not 12 bytes, or <paramref name="derived"/> shorter than 48.</exception>
    internal static void DeriveKeysExpandKey(in AesKeySchedule keyGeneratingKey, int rounds, ReadOnlySpan<byte> nonce, Span<byte> derived, ref AesKeySchedule messageEncryptionKey)
    {
        if (rounds != 14)
        {
            throw new ArgumentOutOfRangeException(nameof(rounds));
        }

        if (nonce.Length != 12)
        {
            throw new ArgumentException("The nonce must be 12 bytes.", nameof(nonce));
        }

        if (derived.Length < 48)
        {
            throw new ArgumentException("The derived keys need 48 bytes.", nameof(derived));
        }

        DeriveKeysExpandKeyCore(ref Unsafe.AsRef(in keyGeneratingKey[0]), ref MemoryMarshal.GetReference(nonce), ref MemoryMarshal.GetReference(derived), ref messageEncryptionKey[0]);
        BurnStack();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void DeriveKeysExpandKeyCore(ref ulong keyGeneratingKey, ref byte nonce, ref byte derived, ref ulong sk)
    {
        const int Rounds = 14;
        uint nonce0 = Word(ref nonce, 0), nonce1 = Word(ref nonce, 4), nonce2 = Word(ref nonce, 8);
        // The 4-block state (8 words) and the key's 60 words in one block, which one call wipes.
        Span<ulong> state = stackalloc ulong[8 + 30];
        ref ulong q = ref MemoryMarshal.GetReference(state);

        // LE32(i) || nonce for i = 2 to 5 in slots 0 to 3; the first 8 bytes of each, packed, are the
        // message-encryption key (derived bytes 16 to 47).
        InterleaveIn(2, nonce0, nonce1, nonce2, out q, out Unsafe.Add(ref q, 4));
        InterleaveIn(3, nonce0, nonce1, nonce2, out Unsafe.Add(ref q, 1), out Unsafe.Add(ref q, 5));
        InterleaveIn(4, nonce0, nonce1, nonce2, out Unsafe.Add(ref q, 2), out Unsafe.Add(ref q, 6));
        InterleaveIn(5, nonce0, nonce1, nonce2, out Unsafe.Add(ref q, 3), out Unsafe.Add(ref q, 7));
        EncryptGroups(ref keyGeneratingKey, Rounds, ref q, 1);
        ref uint w = ref Unsafe.As<ulong, uint>(ref Unsafe.Add(ref q, 8));
        for (int i = 0; i < 4; i++)
        {
            StoreHalfBlock(ref Unsafe.Add(ref derived, 16 + (8 * i)), Unsafe.Add(ref q, i), Unsafe.Add(ref q, 4 + i));
        }

        for (int i = 0; i < 8; i++)
        {
            Unsafe.Add(ref w, i) = Word(ref derived, 16 + (4 * i));
        }

        // The first eight words are the key: round keys 0 and 1 need no SubWord.
        BitsliceRoundKey(ref w, 0, ref sk);
        BitsliceRoundKey(ref w, 1, ref sk);

        // LE32(0) || nonce and LE32(1) || nonce in slots 0 and 1, zeros in 2 and 3 (slot 3 takes the SubWords).
        InterleaveIn(0, nonce0, nonce1, nonce2, out q, out Unsafe.Add(ref q, 4));
        InterleaveIn(1, nonce0, nonce1, nonce2, out Unsafe.Add(ref q, 1), out Unsafe.Add(ref q, 5));
        Unsafe.Add(ref q, 2) = 0;
        Unsafe.Add(ref q, 3) = 0;
        Unsafe.Add(ref q, 6) = 0;
        Unsafe.Add(ref q, 7) = 0;
        EncryptGroup<WithKeyExpansion>(ref keyGeneratingKey, Rounds, ref q, ref w, ref sk);
        StoreHalfBlock(ref derived, q, Unsafe.Add(ref q, 4));
        StoreHalfBlock(ref Unsafe.Add(ref derived, 8), Unsafe.Add(ref q, 1), Unsafe.Add(ref q, 5));
        ClearScheduleTail(ref sk, Rounds);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
    }

    /// <summary>The first 8 bytes of <see cref="StoreBlock"/>'s block (key derivation keeps only the first half of each block).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StoreHalfBlock(ref byte b, ulong qa, ulong qb)
    {
        ulong x0 = qa & 0x00FF00FF00FF00FFUL;
        ulong x1 = qb & 0x00FF00FF00FF00FFUL;
        x0 |= x0 >> 8;
        x1 |= x1 >> 8;
        x0 &= 0x0000FFFF0000FFFFUL;
        x1 &= 0x0000FFFF0000FFFFUL;
        Unsafe.WriteUnaligned(ref b, LittleEndian((uint)x0 | (uint)(x0 >> 16)));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref b, 4), LittleEndian((uint)x1 | (uint)(x1 >> 16)));
    }

    // Where the fused passes put a SubWord's four bytes: bit 3 of bytes 0 to 3 of every plane. After the
    // transposition (Ortho), plane p's bit 8m + i is bit p of byte m of word i before it, and word 3
    // (with 7) is a block slot both fused passes leave empty: the tag's pass fills slot 0 only, key
    // derivation's second pass slots 0 and 1.
    private const ulong SubWordSlot = 0x08080808UL;

    /// <summary>Puts the four bytes of <paramref name="t"/> into the free slot: bit p of byte k to plane p, bit 8k + 3.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void InsertSubWordInput(uint t, ref ulong a0, ref ulong a1, ref ulong a2, ref ulong a3, ref ulong a4, ref ulong a5, ref ulong a6, ref ulong a7)
    {
        ulong x = t;
        a0 = (a0 & ~SubWordSlot) | ((x << 3) & SubWordSlot);
        a1 = (a1 & ~SubWordSlot) | ((x << 2) & SubWordSlot);
        a2 = (a2 & ~SubWordSlot) | ((x << 1) & SubWordSlot);
        a3 = (a3 & ~SubWordSlot) | (x & SubWordSlot);
        a4 = (a4 & ~SubWordSlot) | ((x >> 1) & SubWordSlot);
        a5 = (a5 & ~SubWordSlot) | ((x >> 2) & SubWordSlot);
        a6 = (a6 & ~SubWordSlot) | ((x >> 3) & SubWordSlot);
        a7 = (a7 & ~SubWordSlot) | ((x >> 4) & SubWordSlot);
    }

    /// <summary>The four substituted bytes back out of the free slot, after SubBytes: the inverse of <see cref="InsertSubWordInput"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint ExtractSubWordOutput(ulong a0, ulong a1, ulong a2, ulong a3, ulong a4, ulong a5, ulong a6, ulong a7) =>
        (uint)(((a0 & SubWordSlot) >> 3) | ((a1 & SubWordSlot) >> 2) | ((a2 & SubWordSlot) >> 1) | (a3 & SubWordSlot)
            | ((a4 & SubWordSlot) << 1) | ((a5 & SubWordSlot) << 2) | ((a6 & SubWordSlot) << 3) | ((a7 & SubWordSlot) << 4));

    /// <summary>The key's Nk little-endian words, FIPS-197 w[0..Nk-1].</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void LoadKeyWords(ReadOnlySpan<byte> key, ref uint w)
    {
        for (int i = 0; i < key.Length / 4; i++)
        {
            Unsafe.Add(ref w, i) = BinaryPrimitives.ReadUInt32LittleEndian(key.Slice(4 * i, 4));
        }
    }

    /// <summary>
    /// The word that round key <paramref name="next"/>'s first word substitutes (FIPS-197 section 5.2):
    /// w[i - 1] for i = 4 * next, rotated (RotWord) where i is a multiple of Nk; for AES-256 the other
    /// round keys (i mod 8 = 4) substitute it unrotated.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint SubWordInput(ref uint w, int next, int nk)
    {
        uint t = Unsafe.Add(ref w, (4 * next) - 1);
        return ((4 * next) & (nk - 1)) == 0 ? BitOperations.RotateRight(t, 8) : t;
    }

    /// <summary>
    /// Round key <paramref name="next"/>'s four words w[i..i+3], i = 4 * next, from
    /// <paramref name="substituted"/> = SubWord(<see cref="SubWordInput"/>): FIPS-197 section 5.2, with
    /// the round constant (x^0, x^1, ... in GF(2^8), <paramref name="rcon"/>) where i is a multiple of Nk.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void NextRoundKeyWords(ref uint w, int next, int nk, uint substituted, ref uint rcon)
    {
        // Nk is 4 or 8: masks and shifts, no division (its time depends on its operands; the
        // secret-flow check rejects one in the library's code even on public values).
        int i = 4 * next;
        if ((i & (nk - 1)) == 0)
        {
            // Public: the round constant depends on the position only. xtime: times x modulo x^8 + x^4 + x^3 + x + 1.
            substituted ^= rcon;
            rcon = (rcon << 1) ^ ((rcon >> 7) * 0x11B);
        }

        // w[i + j] = w[i + j - Nk] ^ w[i + j - 1]. Offsets from w[i - Nk], never negative: Mono 6.8
        // widens a negative Unsafe.Add offset without its sign (a NullReferenceException here).
        ref uint back = ref Unsafe.Add(ref w, i - nk);
        ref uint words = ref Unsafe.Add(ref w, i);
        uint t = back ^ substituted;
        words = t;
        t ^= Unsafe.Add(ref back, 1);
        Unsafe.Add(ref words, 1) = t;
        t ^= Unsafe.Add(ref back, 2);
        Unsafe.Add(ref words, 2) = t;
        t ^= Unsafe.Add(ref back, 3);
        Unsafe.Add(ref words, 3) = t;
    }

    /// <summary>Leaves nothing from an earlier, longer key in the schedule's unused tail.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ClearScheduleTail(ref ulong sk, int rounds)
    {
        for (int i = (rounds + 1) * 8; i < AesKeySchedule.Length; i++)
        {
            Unsafe.Add(ref sk, i) = 0;
        }
    }

    /// <summary>
    /// Round key <paramref name="r"/> (FIPS-197 words w[4r..4r+3] at <paramref name="w"/>) bitsliced
    /// with its four lanes equal, through BearSSL's "compressed" form (below), into the 8 words at
    /// <paramref name="sk"/> + 8r. An inlined method, not
    /// the loop's body, so that under Mono's JIT its temporaries are locals of the call's own block
    /// (see <see cref="SubBytes"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void BitsliceRoundKey(ref uint w, int r, ref ulong sk)
    {
        ref uint roundKey = ref Unsafe.Add(ref w, 4 * r);
        ref ulong destination = ref Unsafe.Add(ref sk, 8 * r);
        // BearSSL interleaves the key into q0 and q4, copies them to the other three lanes (q1..q3,
        // q5..q7), transposes (Ortho) and, since all four lanes of a plane are then equal, keeps plane
        // m's bits in lane m of every nibble: planes 0-3 in one word (comp0), 4-7 in another (comp1);
        // ExpandCompressed copies lane m back to all four lanes of plane m. With four equal lanes that
        // transposition only moves nibbles: in plane p,
        // byte k's low nibble is bit p of q0's byte k, four times, and its high nibble bit p of q4's;
        // so the compressed words are q0's and q4's low nibbles (comp0) and high nibbles (comp1), side
        // by side in each byte. Five operations instead of a transposition of eight words per round
        // key (PortableTests checks the whole schedule against FIPS-197 bitsliced and rotated there).
        InterleaveIn(roundKey, Unsafe.Add(ref roundKey, 1), Unsafe.Add(ref roundKey, 2), Unsafe.Add(ref roundKey, 3), out ulong q0, out ulong q4);
        ulong comp0 = (q0 & 0x0F0F0F0F0F0F0F0FUL) | ((q4 & 0x0F0F0F0F0F0F0F0FUL) << 4);
        ulong comp1 = ((q0 >> 4) & 0x0F0F0F0F0F0F0F0FUL) | (q4 & 0xF0F0F0F0F0F0F0F0UL);

        // Fixslicing: round key r meets a state r mod 4 ShiftRows behind (EncryptGroup), so it is
        // stored that far behind too: ShiftRows applied (4 - r) mod 4 more times. It moves whole
        // columns (nibbles), so it works on the compressed form, two words instead of eight.
        int times = (4 - r) & 3;
        ExpandCompressed(ShiftRowsTimes(comp0, times), ref destination);
        ExpandCompressed(ShiftRowsTimes(comp1, times), ref Unsafe.Add(ref destination, 4));
    }

    /// <summary>BearSSL's compressed round key expanded: plane m in lane m of each nibble, copied to all four lanes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ExpandCompressed(ulong comp, ref ulong destination)
    {
        ulong x0 = comp & 0x1111111111111111UL;
        ulong x1 = (comp & 0x2222222222222222UL) >> 1;
        ulong x2 = (comp & 0x4444444444444444UL) >> 2;
        ulong x3 = (comp & 0x8888888888888888UL) >> 3;
        // Every nibble is 0 or 1, so 16x - x = 15x fills the nibble without a borrow crossing it.
        destination = (x0 << 4) - x0;
        Unsafe.Add(ref destination, 1) = (x1 << 4) - x1;
        Unsafe.Add(ref destination, 2) = (x2 << 4) - x2;
        Unsafe.Add(ref destination, 3) = (x3 << 4) - x3;
    }

    /// <summary>
    /// AES SubWord (FIPS-197 section 5.2): the S-box on each byte of <paramref name="w"/> through the
    /// same Boyar-Peralta circuit, bitsliced over the four bytes alone: plane k is bit k of every byte
    /// (bits 0, 8, 16, 24 of a 32-bit word), so no transposition of 64 bytes is needed for 4. Key
    /// bytes are secret: no table, no branch. Internal so a test can check all 256 inputs. The circuit
    /// is <see cref="SubBytes"/>'s, written again on 32-bit planes: SubWord as a call of SubBytes on
    /// 64-bit planes (bit k of each byte in plane k) gives the same bytes, but made Mono's 64-byte
    /// AES-256 decryption, whose key expansion runs 13 of them, about 0.7% slower (thread CPU time,
    /// three alternated runs each, AMD EPYC Zen 4), and 64-byte decryption is where the netstandard2.0
    /// build is furthest from its goal (docs/platforms.md).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint SubWord(uint w)
    {
        const uint Lanes = 0x01010101;
        // Plane k holds bit k of each of the four bytes, at bits 0, 8, 16 and 24; x0 is bit 7.
        uint x0 = (w >> 7) & Lanes, x1 = (w >> 6) & Lanes, x2 = (w >> 5) & Lanes, x3 = (w >> 4) & Lanes;
        uint x4 = (w >> 3) & Lanes, x5 = (w >> 2) & Lanes, x6 = (w >> 1) & Lanes, x7 = w & Lanes;

        // Top linear transformation.
        uint y14 = x3 ^ x5;
        uint y13 = x0 ^ x6;
        uint y9 = x0 ^ x3;
        uint y8 = x0 ^ x5;
        uint t0 = x1 ^ x2;
        uint y1 = t0 ^ x7;
        uint y4 = y1 ^ x3;
        uint y12 = y13 ^ y14;
        uint y2 = y1 ^ x0;
        uint y5 = y1 ^ x6;
        uint y3 = y5 ^ y8;
        uint t1 = x4 ^ y12;
        uint y15 = t1 ^ x5;
        uint y20 = t1 ^ x1;
        uint y6 = y15 ^ x7;
        uint y10 = y15 ^ t0;
        uint y11 = y20 ^ y9;
        uint y7 = x7 ^ y11;
        uint y17 = y10 ^ y11;
        uint y19 = y10 ^ y8;
        uint y16 = t0 ^ y11;
        uint y21 = y13 ^ y16;
        uint y18 = x0 ^ y16;

        // Non-linear section (inversion in GF(2^8) through a tower of subfields).
        uint t2 = y12 & y15;
        uint t3 = y3 & y6;
        uint t4 = t3 ^ t2;
        uint t5 = y4 & x7;
        uint t6 = t5 ^ t2;
        uint t7 = y13 & y16;
        uint t8 = y5 & y1;
        uint t9 = t8 ^ t7;
        uint t10 = y2 & y7;
        uint t11 = t10 ^ t7;
        uint t12 = y9 & y11;
        uint t13 = y14 & y17;
        uint t14 = t13 ^ t12;
        uint t15 = y8 & y10;
        uint t16 = t15 ^ t12;
        uint t17 = t4 ^ t14;
        uint t18 = t6 ^ t16;
        uint t19 = t9 ^ t14;
        uint t20 = t11 ^ t16;
        uint t21 = t17 ^ y20;
        uint t22 = t18 ^ y19;
        uint t23 = t19 ^ y21;
        uint t24 = t20 ^ y18;

        uint t25 = t21 ^ t22;
        uint t26 = t21 & t23;
        uint t27 = t24 ^ t26;
        uint t28 = t25 & t27;
        uint t29 = t28 ^ t22;
        uint t30 = t23 ^ t24;
        uint t31 = t22 ^ t26;
        uint t32 = t31 & t30;
        uint t33 = t32 ^ t24;
        uint t34 = t23 ^ t33;
        uint t35 = t27 ^ t33;
        uint t36 = t24 & t35;
        uint t37 = t36 ^ t34;
        uint t38 = t27 ^ t36;
        uint t39 = t29 & t38;
        uint t40 = t25 ^ t39;

        uint t41 = t40 ^ t37;
        uint t42 = t29 ^ t33;
        uint t43 = t29 ^ t40;
        uint t44 = t33 ^ t37;
        uint t45 = t42 ^ t41;
        uint z0 = t44 & y15;
        uint z1 = t37 & y6;
        uint z2 = t33 & x7;
        uint z3 = t43 & y16;
        uint z4 = t40 & y1;
        uint z5 = t29 & y7;
        uint z6 = t42 & y11;
        uint z7 = t45 & y17;
        uint z8 = t41 & y10;
        uint z9 = t44 & y12;
        uint z10 = t37 & y3;
        uint z11 = t33 & y4;
        uint z12 = t43 & y13;
        uint z13 = t40 & y5;
        uint z14 = t29 & y2;
        uint z15 = t42 & y9;
        uint z16 = t45 & y14;
        uint z17 = t41 & y8;

        // Bottom linear transformation (includes the affine map; "^ ~" is XNOR).
        uint t46 = z15 ^ z16;
        uint t47 = z10 ^ z11;
        uint t48 = z5 ^ z13;
        uint t49 = z9 ^ z10;
        uint t50 = z2 ^ z12;
        uint t51 = z2 ^ z5;
        uint t52 = z7 ^ z8;
        uint t53 = z0 ^ z3;
        uint t54 = z6 ^ z7;
        uint t55 = z16 ^ z17;
        uint t56 = z12 ^ t48;
        uint t57 = t50 ^ t53;
        uint t58 = z4 ^ t46;
        uint t59 = z3 ^ t54;
        uint t60 = t46 ^ t57;
        uint t61 = z14 ^ t57;
        uint t62 = t52 ^ t58;
        uint t63 = t49 ^ t58;
        uint t64 = z4 ^ t59;
        uint t65 = t61 ^ t62;
        uint t66 = z1 ^ t63;
        uint s0 = t59 ^ t63;
        uint s6 = t56 ^ ~t62;
        uint s7 = t48 ^ ~t60;
        uint t67 = t64 ^ t65;
        uint s3 = t53 ^ t66;
        uint s4 = t51 ^ t66;
        uint s5 = t47 ^ t65;
        uint s1 = t64 ^ ~s3;
        uint s2 = t55 ^ ~t67;

        // The XNORs set bits between the lanes; the masks drop them.
        return ((s0 & Lanes) << 7) | ((s1 & Lanes) << 6) | ((s2 & Lanes) << 5) | ((s3 & Lanes) << 4)
             | ((s4 & Lanes) << 3) | ((s5 & Lanes) << 2) | ((s6 & Lanes) << 1) | (s7 & Lanes);
    }

    /// <summary>One block by value (the tag): one group with zero blocks beside it, no buffer copies.</summary>
    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block)
    {
        CheckRounds(rounds);
        Vector128<byte> result = EncryptBlockCore(ref Unsafe.AsRef(in schedule[0]), rounds, block);
        BurnStack();
        return result;
    }

    public void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        CheckRounds(rounds);
        if (input.Length != output.Length)
        {
            throw new ArgumentException("Input and output lengths differ.", nameof(output));
        }

        if ((input.Length & 15) != 0)
        {
            throw new ArgumentException("Input length must be a multiple of 16.", nameof(input));
        }

        EncryptBlocksCore(ref Unsafe.AsRef(in schedule[0]), rounds, input, output);
        BurnStack();
    }

    public void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        CheckRounds(rounds);
        if (counterBlock.Length != 16)
        {
            throw new ArgumentException("Counter block must be 16 bytes.", nameof(counterBlock));
        }

        if (input.Length != output.Length)
        {
            throw new ArgumentException("Input and output lengths differ.", nameof(output));
        }

        Ctr32Core(ref Unsafe.AsRef(in schedule[0]), rounds, counterBlock, input, output);
        BurnStack();
    }

    /// <summary>
    /// One 16-byte block encrypted in place (the tag): <see cref="EncryptBlocks"/> on one block without
    /// its batch loop and its eight groups' state, which Mono's JIT zero-fills on every call.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="rounds"/> is not 10 or 14.</exception>
    /// <exception cref="ArgumentException">The block is not 16 bytes.</exception>
    internal static void EncryptBlockInPlace(in AesKeySchedule schedule, int rounds, Span<byte> block)
    {
        CheckRounds(rounds);
        if (block.Length != 16)
        {
            throw new ArgumentException("The block must be 16 bytes.", nameof(block));
        }

        EncryptBlockInPlaceCore(ref Unsafe.AsRef(in schedule[0]), rounds, ref MemoryMarshal.GetReference(block));
        BurnStack();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void EncryptBlockInPlaceCore(ref ulong sk, int rounds, ref byte block)
    {
        Span<ulong> state = stackalloc ulong[8];
        ref ulong q = ref MemoryMarshal.GetReference(state);
        InterleaveIn(Word(ref block, 0), Word(ref block, 4), Word(ref block, 8), Word(ref block, 12), out q, out Unsafe.Add(ref q, 4));
        Unsafe.Add(ref q, 1) = 0;
        Unsafe.Add(ref q, 2) = 0;
        Unsafe.Add(ref q, 3) = 0;
        Unsafe.Add(ref q, 5) = 0;
        Unsafe.Add(ref q, 6) = 0;
        Unsafe.Add(ref q, 7) = 0;
        EncryptGroups(ref sk, rounds, ref q, 1);
        StoreBlock(ref block, q, Unsafe.Add(ref q, 4));
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> EncryptBlockCore(ref ulong sk, int rounds, Vector128<byte> block)
    {
        Span<ulong> state = stackalloc ulong[8];
        ref ulong q = ref MemoryMarshal.GetReference(state);
        ref byte b = ref Unsafe.As<Vector128<byte>, byte>(ref block);
        state.Clear();
        InterleaveIn(Word(ref b, 0), Word(ref b, 4), Word(ref b, 8), Word(ref b, 12), out q, out Unsafe.Add(ref q, 4));
        EncryptGroups(ref sk, rounds, ref q, 1);
        Unsafe.SkipInit(out Vector128<byte> result);
        StoreBlock(ref Unsafe.As<Vector128<byte>, byte>(ref result), q, Unsafe.Add(ref q, 4));
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
        return result;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void EncryptBlocksCore(ref ulong sk, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        Span<ulong> state = stackalloc ulong[8 * BatchGroups];
        ref ulong s = ref MemoryMarshal.GetReference(state);
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);

        // Lengths are public. Up to BatchGroups groups go through the cipher in one call, block i of a
        // batch in lane i mod 4 of group i / 4 and zero blocks after the last; every block of a batch
        // is read before any is written, so input may alias output.
        int blocks = input.Length / 16;
        for (int first = 0; first < blocks; first += 4 * BatchGroups)
        {
            int count = Math.Min(4 * BatchGroups, blocks - first);
            int groups = (count + 3) / 4;
            for (int i = 0; i < 4 * groups; i++)
            {
                ref ulong q = ref Unsafe.Add(ref s, (8 * (i / 4)) + (i % 4));
                if (i < count)
                {
                    ref byte b = ref Unsafe.Add(ref source, 16 * (first + i));
                    InterleaveIn(Word(ref b, 0), Word(ref b, 4), Word(ref b, 8), Word(ref b, 12), out q, out Unsafe.Add(ref q, 4));
                }
                else
                {
                    q = 0;
                    Unsafe.Add(ref q, 4) = 0;
                }
            }

            EncryptGroups(ref sk, rounds, ref s, groups);
            for (int i = 0; i < count; i++)
            {
                ref ulong q = ref Unsafe.Add(ref s, (8 * (i / 4)) + (i % 4));
                StoreBlock(ref Unsafe.Add(ref destination, 16 * (first + i)), q, Unsafe.Add(ref q, 4));
            }
        }

        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Ctr32Core(ref ulong sk, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        Span<byte> keystream = stackalloc byte[GroupBytes];
        Span<ulong> state = stackalloc ulong[8 * BatchGroups];
        ref byte k = ref MemoryMarshal.GetReference(keystream);
        ref ulong s = ref MemoryMarshal.GetReference(state);

        // RFC 8452 section 4: the counter is the first four bytes as a little-endian uint32, incremented
        // mod 2^32; the other twelve bytes stay. Block words are little-endian, so it is word 0.
        uint counter = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock);
        uint w1 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(4));
        uint w2 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(8));
        uint w3 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(12));

        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        nuint length = (nuint)input.Length;
        nuint offset = 0;

        // The groups a batch fills (lengths are public): the wipe below covers those and no more, the
        // rest of the state was never written (at 64 bytes one group of eight: 64 bytes, not 512).
        int usedGroups = (int)Math.Min(BatchGroups, (length + GroupBytes - 1) / GroupBytes);
        while (offset < length)
        {
            // Up to BatchGroups groups of counter blocks go through the cipher in one call (EncryptGroups).
            int groups = (int)Math.Min(BatchGroups, (length - offset + GroupBytes - 1) / GroupBytes);
            for (int g = 0; g < groups; g++)
            {
                ref ulong q = ref Unsafe.Add(ref s, 8 * g);
                InterleaveIn(counter, w1, w2, w3, out q, out Unsafe.Add(ref q, 4));
                InterleaveIn(unchecked(counter + 1), w1, w2, w3, out Unsafe.Add(ref q, 1), out Unsafe.Add(ref q, 5));
                InterleaveIn(unchecked(counter + 2), w1, w2, w3, out Unsafe.Add(ref q, 2), out Unsafe.Add(ref q, 6));
                InterleaveIn(unchecked(counter + 3), w1, w2, w3, out Unsafe.Add(ref q, 3), out Unsafe.Add(ref q, 7));
                counter = unchecked(counter + 4);
            }

            EncryptGroups(ref sk, rounds, ref s, groups);
            for (int g = 0; g < groups; g++, offset += GroupBytes)
            {
                Store(ref k, ref Unsafe.Add(ref s, 8 * g));

                // Each 8-byte word is read before it is written, so exact aliasing of input and output is safe.
                nuint n = (nuint)Math.Min(GroupBytes, length - offset); // (nuint): netstandard2.0 has only Math.Min(ulong, ulong)
                nuint i = 0;
                for (; i + 8 <= n; i += 8)
                {
                    ulong v = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, offset + i)) ^ Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref k, i));
                    Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, offset + i), v);
                }

                for (; i < n; i++)
                {
                    Unsafe.Add(ref destination, offset + i) = (byte)(Unsafe.Add(ref source, offset + i) ^ Unsafe.Add(ref k, i));
                }
            }
        }

        CryptographicOperations.ZeroMemory(keystream);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state[..(8 * usedGroups)]));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Word(ref byte b, int offset) => LittleEndian(Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref b, offset)));

    /// <summary>Transposes back and writes the four blocks (64 bytes) at <paramref name="b"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Store(ref byte b, ref ulong q)
    {
        StoreBlock(ref b, q, Unsafe.Add(ref q, 4));
        StoreBlock(ref Unsafe.Add(ref b, 16), Unsafe.Add(ref q, 1), Unsafe.Add(ref q, 5));
        StoreBlock(ref Unsafe.Add(ref b, 32), Unsafe.Add(ref q, 2), Unsafe.Add(ref q, 6));
        StoreBlock(ref Unsafe.Add(ref b, 48), Unsafe.Add(ref q, 3), Unsafe.Add(ref q, 7));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StoreBlock(ref byte b, ulong qa, ulong qb)
    {
        // Inverse of InterleaveIn (BearSSL br_aes_ct64_interleave_out), little-endian words.
        ulong x0 = qa & 0x00FF00FF00FF00FFUL;
        ulong x1 = qb & 0x00FF00FF00FF00FFUL;
        ulong x2 = (qa >> 8) & 0x00FF00FF00FF00FFUL;
        ulong x3 = (qb >> 8) & 0x00FF00FF00FF00FFUL;
        x0 |= x0 >> 8;
        x1 |= x1 >> 8;
        x2 |= x2 >> 8;
        x3 |= x3 >> 8;
        x0 &= 0x0000FFFF0000FFFFUL;
        x1 &= 0x0000FFFF0000FFFFUL;
        x2 &= 0x0000FFFF0000FFFFUL;
        x3 &= 0x0000FFFF0000FFFFUL;
        Unsafe.WriteUnaligned(ref b, LittleEndian((uint)x0 | (uint)(x0 >> 16)));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref b, 4), LittleEndian((uint)x1 | (uint)(x1 >> 16)));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref b, 8), LittleEndian((uint)x2 | (uint)(x2 >> 16)));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref b, 12), LittleEndian((uint)x3 | (uint)(x3 >> 16)));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint LittleEndian(uint value) => BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);

    /// <summary>BearSSL br_aes_ct64_interleave_in: one block's four column words over two 64-bit words.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void InterleaveIn(uint w0, uint w1, uint w2, uint w3, out ulong q0, out ulong q1)
    {
        ulong x0 = w0, x1 = w1, x2 = w2, x3 = w3;
        x0 |= x0 << 16;
        x1 |= x1 << 16;
        x2 |= x2 << 16;
        x3 |= x3 << 16;
        x0 &= 0x0000FFFF0000FFFFUL;
        x1 &= 0x0000FFFF0000FFFFUL;
        x2 &= 0x0000FFFF0000FFFFUL;
        x3 &= 0x0000FFFF0000FFFFUL;
        x0 |= x0 << 8;
        x1 |= x1 << 8;
        x2 |= x2 << 8;
        x3 |= x3 << 8;
        x0 &= 0x00FF00FF00FF00FFUL;
        x1 &= 0x00FF00FF00FF00FFUL;
        x2 &= 0x00FF00FF00FF00FFUL;
        x3 &= 0x00FF00FF00FF00FFUL;
        q0 = x0 | (x2 << 8);
        q1 = x1 | (x3 << 8);
    }

    /// <summary>
    /// <see cref="EncryptGroup"/> on <paramref name="count"/> groups in place, group g at state + 8g. Its
    /// own method so that the jiterpreter's trace from this loop's head holds the whole group and fits
    /// its module limit (see the file's header); one call serves up to eight groups.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)] // as the cores: never a Tier0 frame of every local, below the callers' burn
    private static void EncryptGroups(ref ulong sk, int rounds, ref ulong state, int count)
    {
        for (int g = 0; g < count; g++)
        {
            // No key expansion: w is not read (any ref will do).
            EncryptGroup<WithoutKeyExpansion>(ref sk, rounds, ref Unsafe.Add(ref state, 8 * g), ref Unsafe.As<ulong, uint>(ref sk), ref sk);
        }
    }

    /// <summary>
    /// FIPS-197 Cipher() on four bitsliced blocks (the 8 words at <paramref name="q"/>, as InterleaveIn
    /// left them), in place: transpose in, AddRoundKey, rounds - 1 full rounds, a last round without
    /// MixColumns, the ShiftRows the fixsliced rounds skipped, transpose out. Round key r is the 8
    /// words at sk + 8r. The round is written out in this one body over locals, not as calls with the
    /// state passed by reference: the interpreter then reads and writes plain locals, with no
    /// indirection per access (measured in docs/blazor.md). With <typeparamref name="TExpansion"/>
    /// <see cref="WithKeyExpansion"/> the pass also makes the round keys from the key's words at
    /// <paramref name="w"/> (60 words; round keys 0 to Nk / 4 - 1 already made) into the schedule at
    /// <paramref name="expanded"/>, each in a round before its use: the pass's own round keys when
    /// <paramref name="expanded"/> is <paramref name="sk"/> (<see cref="ExpandKeyEncryptBlock"/>), another
    /// key's otherwise (<see cref="DeriveKeysExpandKey"/>; the key lengths are then the same); with
    /// <see cref="WithoutKeyExpansion"/> (a constant in each specialised copy) <paramref name="w"/> and
    /// <paramref name="expanded"/> are not touched.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void EncryptGroup<TExpansion>(ref ulong sk, int rounds, ref ulong q, ref uint w, ref ulong expanded)
        where TExpansion : struct, IKeyExpansion
    {
        ulong a0 = q, a1 = Unsafe.Add(ref q, 1), a2 = Unsafe.Add(ref q, 2), a3 = Unsafe.Add(ref q, 3);
        ulong a4 = Unsafe.Add(ref q, 4), a5 = Unsafe.Add(ref q, 5), a6 = Unsafe.Add(ref q, 6), a7 = Unsafe.Add(ref q, 7);
        Ortho(ref a0, ref a1, ref a2, ref a3, ref a4, ref a5, ref a6, ref a7);
        a0 ^= sk;
        a1 ^= Unsafe.Add(ref sk, 1);
        a2 ^= Unsafe.Add(ref sk, 2);
        a3 ^= Unsafe.Add(ref sk, 3);
        a4 ^= Unsafe.Add(ref sk, 4);
        a5 ^= Unsafe.Add(ref sk, 5);
        a6 ^= Unsafe.Add(ref sk, 6);
        a7 ^= Unsafe.Add(ref sk, 7);
        int nk = rounds - 6;
        uint rcon = 1;
        for (int r = 1; r <= rounds; r++)
        {
            // Round r's S-box layer makes round key r (AES-128) or r + 1 (AES-256), before
            // AddRoundKey first needs it. Round number and key length (public) steer the branches.
            int next = r + (nk >> 2) - 1;
            bool expands = default(TExpansion).Expands && next <= rounds;
            if (expands)
            {
                InsertSubWordInput(SubWordInput(ref w, next, nk), ref a0, ref a1, ref a2, ref a3, ref a4, ref a5, ref a6, ref a7);
            }

            SubBytes(ref a0, ref a1, ref a2, ref a3, ref a4, ref a5, ref a6, ref a7);
            if (expands)
            {
                NextRoundKeyWords(ref w, next, nk, ExtractSubWordOutput(a0, a1, a2, a3, a4, a5, a6, a7), ref rcon);
                BitsliceRoundKey(ref w, next, ref expanded);
            }

            // No ShiftRows (fixslicing, Adomnicai and Peyrin, "Fixslicing AES-like ciphers", 2020):
            // ShiftRows cost 19 operations per plane, more than the S-box, and the interpreter pays
            // per operation. The state stays k = r mod 4 ShiftRows behind the true one (true row j,
            // column c is stored at column c + j * k), the round keys are stored the same way
            // (ExpandKeyCore), and one correction after the last round catches up. MixColumns then
            // needs, at row j, column c: row j + 1 at column c + k (ri below: the word rotated by a
            // row, then each row's 16 bits by k columns, as two rotations under two masks) and rows
            // j + 2, j + 3 shifted 2k further (vi: the same by two rows and 2k columns). The round
            // number, not data, picks the branch.
            if (r != rounds)
            {
                ulong r0, r1, r2, r3, r4, r5, r6, r7;
                int behind = r & 3;
                if (behind == 0)
                {
                    r0 = BitOperations.RotateRight(a0, 16);
                    r1 = BitOperations.RotateRight(a1, 16);
                    r2 = BitOperations.RotateRight(a2, 16);
                    r3 = BitOperations.RotateRight(a3, 16);
                    r4 = BitOperations.RotateRight(a4, 16);
                    r5 = BitOperations.RotateRight(a5, 16);
                    r6 = BitOperations.RotateRight(a6, 16);
                    r7 = BitOperations.RotateRight(a7, 16);
                }
                else if (behind == 1)
                {
                    r0 = (BitOperations.RotateRight(a0, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a0, 4) & 0xF000F000F000F000UL);
                    r1 = (BitOperations.RotateRight(a1, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a1, 4) & 0xF000F000F000F000UL);
                    r2 = (BitOperations.RotateRight(a2, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a2, 4) & 0xF000F000F000F000UL);
                    r3 = (BitOperations.RotateRight(a3, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a3, 4) & 0xF000F000F000F000UL);
                    r4 = (BitOperations.RotateRight(a4, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a4, 4) & 0xF000F000F000F000UL);
                    r5 = (BitOperations.RotateRight(a5, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a5, 4) & 0xF000F000F000F000UL);
                    r6 = (BitOperations.RotateRight(a6, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a6, 4) & 0xF000F000F000F000UL);
                    r7 = (BitOperations.RotateRight(a7, 20) & 0x0FFF0FFF0FFF0FFFUL) | (BitOperations.RotateRight(a7, 4) & 0xF000F000F000F000UL);
                }
                else if (behind == 2)
                {
                    r0 = (BitOperations.RotateRight(a0, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a0, 8) & 0xFF00FF00FF00FF00UL);
                    r1 = (BitOperations.RotateRight(a1, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a1, 8) & 0xFF00FF00FF00FF00UL);
                    r2 = (BitOperations.RotateRight(a2, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a2, 8) & 0xFF00FF00FF00FF00UL);
                    r3 = (BitOperations.RotateRight(a3, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a3, 8) & 0xFF00FF00FF00FF00UL);
                    r4 = (BitOperations.RotateRight(a4, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a4, 8) & 0xFF00FF00FF00FF00UL);
                    r5 = (BitOperations.RotateRight(a5, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a5, 8) & 0xFF00FF00FF00FF00UL);
                    r6 = (BitOperations.RotateRight(a6, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a6, 8) & 0xFF00FF00FF00FF00UL);
                    r7 = (BitOperations.RotateRight(a7, 24) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(a7, 8) & 0xFF00FF00FF00FF00UL);
                }
                else
                {
                    r0 = (BitOperations.RotateRight(a0, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a0, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r1 = (BitOperations.RotateRight(a1, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a1, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r2 = (BitOperations.RotateRight(a2, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a2, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r3 = (BitOperations.RotateRight(a3, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a3, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r4 = (BitOperations.RotateRight(a4, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a4, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r5 = (BitOperations.RotateRight(a5, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a5, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r6 = (BitOperations.RotateRight(a6, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a6, 12) & 0xFFF0FFF0FFF0FFF0UL);
                    r7 = (BitOperations.RotateRight(a7, 28) & 0x000F000F000F000FUL) | (BitOperations.RotateRight(a7, 12) & 0xFFF0FFF0FFF0FFF0UL);
                }

                ulong u0 = a0 ^ r0, u1 = a1 ^ r1, u2 = a2 ^ r2, u3 = a3 ^ r3;
                ulong u4 = a4 ^ r4, u5 = a5 ^ r5, u6 = a6 ^ r6, u7 = a7 ^ r7;
                // With r0..r7 (row j + 1), ui holds rows j and j + 1, so vi = ui two rows on holds
                // rows j + 2 and j + 3: MixColumns as 2 * xtime(row j + row j + 1) + (row j + 1) + vi
                // (BearSSL's mix_columns), plane by plane.
                ulong v0, v1, v2, v3, v4, v5, v6, v7;
                if ((behind & 1) == 0)
                {
                    v0 = BitOperations.RotateRight(u0, 32);
                    v1 = BitOperations.RotateRight(u1, 32);
                    v2 = BitOperations.RotateRight(u2, 32);
                    v3 = BitOperations.RotateRight(u3, 32);
                    v4 = BitOperations.RotateRight(u4, 32);
                    v5 = BitOperations.RotateRight(u5, 32);
                    v6 = BitOperations.RotateRight(u6, 32);
                    v7 = BitOperations.RotateRight(u7, 32);
                }
                else
                {
                    v0 = (BitOperations.RotateRight(u0, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u0, 24) & 0xFF00FF00FF00FF00UL);
                    v1 = (BitOperations.RotateRight(u1, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u1, 24) & 0xFF00FF00FF00FF00UL);
                    v2 = (BitOperations.RotateRight(u2, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u2, 24) & 0xFF00FF00FF00FF00UL);
                    v3 = (BitOperations.RotateRight(u3, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u3, 24) & 0xFF00FF00FF00FF00UL);
                    v4 = (BitOperations.RotateRight(u4, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u4, 24) & 0xFF00FF00FF00FF00UL);
                    v5 = (BitOperations.RotateRight(u5, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u5, 24) & 0xFF00FF00FF00FF00UL);
                    v6 = (BitOperations.RotateRight(u6, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u6, 24) & 0xFF00FF00FF00FF00UL);
                    v7 = (BitOperations.RotateRight(u7, 40) & 0x00FF00FF00FF00FFUL) | (BitOperations.RotateRight(u7, 24) & 0xFF00FF00FF00FF00UL);
                }

                a0 = u7 ^ r0 ^ v0;
                a1 = u0 ^ u7 ^ r1 ^ v1;
                a2 = u1 ^ r2 ^ v2;
                a3 = u2 ^ u7 ^ r3 ^ v3;
                a4 = u3 ^ u7 ^ r4 ^ v4;
                a5 = u4 ^ r5 ^ v5;
                a6 = u5 ^ r6 ^ v6;
                a7 = u6 ^ r7 ^ v7;
            }

            // AddRoundKey.
            ref ulong k = ref Unsafe.Add(ref sk, 8 * r);
            a0 ^= k;
            a1 ^= Unsafe.Add(ref k, 1);
            a2 ^= Unsafe.Add(ref k, 2);
            a3 ^= Unsafe.Add(ref k, 3);
            a4 ^= Unsafe.Add(ref k, 4);
            a5 ^= Unsafe.Add(ref k, 5);
            a6 ^= Unsafe.Add(ref k, 6);
            a7 ^= Unsafe.Add(ref k, 7);
        }

        // Both round counts (10, 14) leave the state 2 ShiftRows behind: catch up once.
        a0 = ShiftRowsTwice(a0);
        a1 = ShiftRowsTwice(a1);
        a2 = ShiftRowsTwice(a2);
        a3 = ShiftRowsTwice(a3);
        a4 = ShiftRowsTwice(a4);
        a5 = ShiftRowsTwice(a5);
        a6 = ShiftRowsTwice(a6);
        a7 = ShiftRowsTwice(a7);
        Ortho(ref a0, ref a1, ref a2, ref a3, ref a4, ref a5, ref a6, ref a7);
        q = a0;
        Unsafe.Add(ref q, 1) = a1;
        Unsafe.Add(ref q, 2) = a2;
        Unsafe.Add(ref q, 3) = a3;
        Unsafe.Add(ref q, 4) = a4;
        Unsafe.Add(ref q, 5) = a5;
        Unsafe.Add(ref q, 6) = a6;
        Unsafe.Add(ref q, 7) = a7;
    }

    /// <summary>
    /// SubBytes on the eight planes: the
    /// Boyar-Peralta circuit (eprint 2009/191): a top linear layer (23 XORs), a non-linear core for
    /// GF(2^8) inversion through subfields (32 ANDs, 30 XORs) and a bottom linear layer (30 XOR/XNOR) that
    /// also applies the affine map; its constant 0x63 is the four XNORs, written "^ ~". The paper numbers
    /// bits from the most significant: x0 is bit 7 (plane 7), s0 likewise. Its own
    /// inlined method, not written out in the round loop, for Mono's JIT: it zero-initialises every local
    /// whatever the IL says, at the start of the method or, for an inlined one, at the call, and keeps a
    /// local in a register only when that and all its uses are in one basic block. Written out in the
    /// loop, the circuit's terms were initialised before it and so lived in stack slots, each stored as
    /// it was computed; inlined here, they are in the round's block (docs/platforms.md: a bitsliced pass
    /// took about two thirds of the time). The interpreter inlines it too (AggressiveInlining).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void SubBytes(ref ulong a0, ref ulong a1, ref ulong a2, ref ulong a3, ref ulong a4, ref ulong a5, ref ulong a6, ref ulong a7)
    {
        ulong x0 = a7, x1 = a6, x2 = a5, x3 = a4;
        ulong x4 = a3, x5 = a2, x6 = a1, x7 = a0;

        // Top linear transformation.
        ulong y14 = x3 ^ x5;
        ulong y13 = x0 ^ x6;
        ulong y9 = x0 ^ x3;
        ulong y8 = x0 ^ x5;
        ulong t0 = x1 ^ x2;
        ulong y1 = t0 ^ x7;
        ulong y4 = y1 ^ x3;
        ulong y12 = y13 ^ y14;
        ulong y2 = y1 ^ x0;
        ulong y5 = y1 ^ x6;
        ulong y3 = y5 ^ y8;
        ulong t1 = x4 ^ y12;
        ulong y15 = t1 ^ x5;
        ulong y20 = t1 ^ x1;
        ulong y6 = y15 ^ x7;
        ulong y10 = y15 ^ t0;
        ulong y11 = y20 ^ y9;
        ulong y7 = x7 ^ y11;
        ulong y17 = y10 ^ y11;
        ulong y19 = y10 ^ y8;
        ulong y16 = t0 ^ y11;
        ulong y21 = y13 ^ y16;
        ulong y18 = x0 ^ y16;

        // Non-linear section (inversion in GF(2^8) through a tower of subfields).
        ulong t2 = y12 & y15;
        ulong t3 = y3 & y6;
        ulong t4 = t3 ^ t2;
        ulong t5 = y4 & x7;
        ulong t6 = t5 ^ t2;
        ulong t7 = y13 & y16;
        ulong t8 = y5 & y1;
        ulong t9 = t8 ^ t7;
        ulong t10 = y2 & y7;
        ulong t11 = t10 ^ t7;
        ulong t12 = y9 & y11;
        ulong t13 = y14 & y17;
        ulong t14 = t13 ^ t12;
        ulong t15 = y8 & y10;
        ulong t16 = t15 ^ t12;
        ulong t17 = t4 ^ t14;
        ulong t18 = t6 ^ t16;
        ulong t19 = t9 ^ t14;
        ulong t20 = t11 ^ t16;
        ulong t21 = t17 ^ y20;
        ulong t22 = t18 ^ y19;
        ulong t23 = t19 ^ y21;
        ulong t24 = t20 ^ y18;

        ulong t25 = t21 ^ t22;
        ulong t26 = t21 & t23;
        ulong t27 = t24 ^ t26;
        ulong t28 = t25 & t27;
        ulong t29 = t28 ^ t22;
        ulong t30 = t23 ^ t24;
        ulong t31 = t22 ^ t26;
        ulong t32 = t31 & t30;
        ulong t33 = t32 ^ t24;
        ulong t34 = t23 ^ t33;
        ulong t35 = t27 ^ t33;
        ulong t36 = t24 & t35;
        ulong t37 = t36 ^ t34;
        ulong t38 = t27 ^ t36;
        ulong t39 = t29 & t38;
        ulong t40 = t25 ^ t39;

        ulong t41 = t40 ^ t37;
        ulong t42 = t29 ^ t33;
        ulong t43 = t29 ^ t40;
        ulong t44 = t33 ^ t37;
        ulong t45 = t42 ^ t41;
        ulong z0 = t44 & y15;
        ulong z1 = t37 & y6;
        ulong z2 = t33 & x7;
        ulong z3 = t43 & y16;
        ulong z4 = t40 & y1;
        ulong z5 = t29 & y7;
        ulong z6 = t42 & y11;
        ulong z7 = t45 & y17;
        ulong z8 = t41 & y10;
        ulong z9 = t44 & y12;
        ulong z10 = t37 & y3;
        ulong z11 = t33 & y4;
        ulong z12 = t43 & y13;
        ulong z13 = t40 & y5;
        ulong z14 = t29 & y2;
        ulong z15 = t42 & y9;
        ulong z16 = t45 & y14;
        ulong z17 = t41 & y8;

        // Bottom linear transformation (includes the affine map; "^ ~" is XNOR).
        ulong t46 = z15 ^ z16;
        ulong t47 = z10 ^ z11;
        ulong t48 = z5 ^ z13;
        ulong t49 = z9 ^ z10;
        ulong t50 = z2 ^ z12;
        ulong t51 = z2 ^ z5;
        ulong t52 = z7 ^ z8;
        ulong t53 = z0 ^ z3;
        ulong t54 = z6 ^ z7;
        ulong t55 = z16 ^ z17;
        ulong t56 = z12 ^ t48;
        ulong t57 = t50 ^ t53;
        ulong t58 = z4 ^ t46;
        ulong t59 = z3 ^ t54;
        ulong t60 = t46 ^ t57;
        ulong t61 = z14 ^ t57;
        ulong t62 = t52 ^ t58;
        ulong t63 = t49 ^ t58;
        ulong t64 = z4 ^ t59;
        ulong t65 = t61 ^ t62;
        ulong t66 = z1 ^ t63;
        ulong s0 = t59 ^ t63;
        ulong s6 = t56 ^ ~t62;
        ulong s7 = t48 ^ ~t60;
        ulong t67 = t64 ^ t65;
        ulong s3 = t53 ^ t66;
        ulong s4 = t51 ^ t66;
        ulong s5 = t47 ^ t65;
        ulong s1 = t64 ^ ~s3;
        ulong s2 = t55 ^ ~t67;
        a7 = s0;
        a6 = s1;
        a5 = s2;
        a4 = s3;
        a3 = s4;
        a2 = s5;
        a1 = s6;
        a0 = s7;
    }

    /// <summary>BearSSL br_aes_ct64_ortho: the 8x8 bit-matrix transposition, an involution.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Ortho(ref ulong q0, ref ulong q1, ref ulong q2, ref ulong q3, ref ulong q4, ref ulong q5, ref ulong q6, ref ulong q7)
    {
        // Masks select alternate 1-, 2- and 4-bit groups: 0x55../0xAA.., 0x33../0xCC.., 0x0F../0xF0...
        Swap(ref q0, ref q1, 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q2, ref q3, 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q4, ref q5, 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q6, ref q7, 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q0, ref q2, 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q1, ref q3, 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q4, ref q6, 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q5, ref q7, 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q0, ref q4, 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q1, ref q5, 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q2, ref q6, 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q3, ref q7, 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Swap(ref ulong x, ref ulong y, ulong lowMask, ulong highMask, int shift)
    {
        ulong a = x, b = y;
        x = (a & lowMask) | ((b & lowMask) << shift);
        y = ((a & highMask) >> shift) | (b & highMask);
    }

    /// <summary>
    /// ShiftRows applied <paramref name="times"/> (0-3, public) times to one plane, or to a compressed
    /// round key: row j's 16 bits rotate right by 4 * (j * times mod 4) bits, column c taking column
    /// c + j * times. Once is ShiftRows; three times is its inverse.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong ShiftRowsTimes(ulong x, int times) => times switch
    {
        0 => x,
        1 => (x & 0x000000000000FFFFUL)
            | ((x & 0x00000000FFF00000UL) >> 4) | ((x & 0x00000000000F0000UL) << 12)     // row 1: one column
            | ((x & 0x0000FF0000000000UL) >> 8) | ((x & 0x000000FF00000000UL) << 8)      // row 2: two
            | ((x & 0xF000000000000000UL) >> 12) | ((x & 0x0FFF000000000000UL) << 4),    // row 3: three
        2 => ShiftRowsTwice(x),
        _ => (x & 0x000000000000FFFFUL)
            | ((x & 0x00000000F0000000UL) >> 12) | ((x & 0x000000000FFF0000UL) << 4)     // row 1: three columns
            | ((x & 0x0000FF0000000000UL) >> 8) | ((x & 0x000000FF00000000UL) << 8)      // row 2: two
            | ((x & 0xFFF0000000000000UL) >> 4) | ((x & 0x000F000000000000UL) << 12),    // row 3: one
    };

    /// <summary>ShiftRows twice on one plane: rows 0 and 2 stay, rows 1 and 3 swap their column pairs (their two bytes).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ShiftRowsTwice(ulong x) =>
        (x & 0x0000FFFF0000FFFFUL) | ((x >> 8) & 0x00FF000000FF0000UL) | ((x << 8) & 0xFF000000FF000000UL);

    private static void CheckRounds(int rounds)
    {
        // Public parameter: 10 rounds for AES-128, 14 for AES-256.
        if (rounds != 10 && rounds != 14)
        {
            throw new ArgumentOutOfRangeException(nameof(rounds));
        }
    }

    /// <summary>
    /// Overwrites the stack below the caller's frame, where the core method
    /// just ran and a JIT may have spilled temporaries that C# cannot name.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit]
    private static void BurnStack()
    {
        // Where Backend clears the stack once the whole call is done (CallStack): the browser, whose
        // interpreter keeps locals in frames of its own stack that stackalloc memory is not taken
        // from, and the netstandard2.0 build, where one burn per message costs less than one per step.
        if (CallStack.BurnsAfterCall)
        {
            return;
        }

        Span<byte> scratch = stackalloc byte[BurnBytes];
        CryptographicOperations.ZeroMemory(scratch);
    }
}

/// <summary>Whether <see cref="AesPortable"/>'s pass also expands the key: a type argument, so each copy of the pass has it as a constant.</summary>
internal interface IKeyExpansion
{
    /// <summary>True when the pass makes the round keys as it goes.</summary>
    bool Expands { get; }
}

/// <summary>A pass over round keys already made.</summary>
internal readonly struct WithoutKeyExpansion : IKeyExpansion
{
    public bool Expands
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => false;
    }
}

/// <summary>A pass that makes the round keys as it goes (the tag block's, with the message-encryption key).</summary>
internal readonly struct WithKeyExpansion : IKeyExpansion
{
    public bool Expands
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => true;
    }
}
