// Constant-time AES-128/AES-256 encryption (FIPS-197) and RFC 8452 CTR (section 4), bitsliced across
// 128-bit SIMD lanes: the backend for a JIT with Vector128 hardware acceleration but no AES
// instructions (x64 with DOTNET_EnableAES=0 or a CPU without AES-NI; ARM64 without the
// Cryptography Extension). No table indexed by secret data, no branch or loop count on secret data.
//
// The technique is Käsper and Schwabe's ("Faster and Timing-Attack Resistant AES-GCM", CHES 2009):
// eight blocks at once in eight 128-bit registers, one register per bit position. Written here from
// the paper's description, with this library's own layout:
//
//  * Plane j (0..7) holds bit j of every byte of the eight blocks: byte p (0..15, the block's byte
//    index, p = 4 * column + row as FIPS-197 lays out the state) of plane j has, in its bit b, bit j
//    of byte p of block b. So each byte of a plane is one state position across the eight blocks,
//    and ShiftRows and MixColumns' row rotations are byte shuffles with fixed indices (PSHUFB on
//    x64, TBL on ARM64), the same for every input: the index is a constant, never data.
//  * Getting there is an 8x8 bit-matrix transposition inside every byte position across the eight
//    block registers (three rounds of SWAPMOVE at distances 1, 2 and 4); it is its own inverse, so
//    the same network brings the planes back to blocks.
//  * SubBytes is the Boyar-Peralta circuit (eprint 2009/191, 115 gates: 32 AND, 83 XOR), the same
//    gate list as the scalar Aes.Portable.cs, here on 128-bit planes: one pass substitutes all 128
//    bytes. Its four NOTs (the affine constant 0x63) are not computed per round: ShiftRows permutes
//    bytes and MixColumns maps a column of equal bytes c to itself (2c + 3c + c + c = c), so a
//    constant added after SubBytes passes through unchanged to AddRoundKey and is folded into round
//    keys 1..Nr.
//  * The key schedule is FIPS-197's on 32-bit words, stored as ordinary round keys (so a schedule
//    is 16 bytes per round, like the hardware backends'); SubWord goes through the same circuit on
//    byte-wide planes (each byte of plane j is 0x00 or 0xFF), never through an S-box table. Before
//    the rounds run, each round key is spread to its eight planes once per call.

using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>A wider bitsliced CTR that runs first over whole groups of its size (Aes.BitslicedAvx2.cs).</summary>
internal interface IBitslicedWide
{
    /// <summary>
    /// CTR32 over the whole groups at the start of <paramref name="input"/>, from
    /// <paramref name="counter"/>, which moves on past them; returns the bytes done (0 when this
    /// machine cannot run it). Arguments are checked by the caller.
    /// </summary>
    static abstract int Ctr32(in AesKeySchedule schedule, int rounds, ref Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output);
}

/// <summary>No wider CTR: everything in eight-block passes (what ARM64 runs; tests run it on x64 too).</summary>
internal readonly struct NoWideBitsliced : IBitslicedWide
{
    public static int Ctr32(in AesKeySchedule schedule, int rounds, ref Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output) => 0;
}

/// <summary>
/// The BitslicedVector backend's AES: <see cref="AesBitsliced"/>, with the bulk of CTR in
/// <typeparamref name="TWide"/>'s wider passes where the machine has them.
/// </summary>
internal readonly struct AesBitslicedVector<TWide> : IAes
    where TWide : IBitslicedWide
{
    public bool IsSupported => default(AesBitsliced).IsSupported;

    public int ScheduleBytes(int rounds) => default(AesBitsliced).ScheduleBytes(rounds);

    public bool EncryptsBlockInRegisters => false;

    /// <summary>Not used: this AES works in memory, so GcmSiv derives its keys through <see cref="EncryptBlocks"/>.</summary>
    public void DeriveKeys(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived) => throw new NotSupportedException();

    public void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule) => default(AesBitsliced).ExpandKey(key, ref schedule);

    /// <summary>Key derivation (4 or 6 blocks) and the tag (1 block) fit one eight-block pass.</summary>
    public void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output) =>
        default(AesBitsliced).EncryptBlocks(in schedule, rounds, input, output);

    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block) =>
        default(AesBitsliced).EncryptBlock(in schedule, rounds, block);

    public void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        AesBitsliced.CheckCtr32Arguments(rounds, counterBlock, input, output);
        Vector128<uint> counter = Vector128.Create<byte>(counterBlock).AsUInt32();
        int done = TWide.Ctr32(in schedule, rounds, ref counter, input, output);
        AesBitsliced.Ctr32(in schedule, rounds, counter, input[done..], output[done..]);
    }
}

/// <summary>AES bitsliced across <see cref="Vector128{T}"/> lanes, eight blocks per pass (Käsper-Schwabe).</summary>
internal readonly struct AesBitsliced : IAes
{
    private const int BlockSize = 16;

    /// <summary>Eight blocks: one bitsliced pass.</summary>
    private const int GroupBytes = 8 * BlockSize;

    /// <summary>Bytes of stack <see cref="BurnStack"/> overwrites after each operation.</summary>
    private const int BurnBytes = 2048;

    /// <summary>The eight planes of every round key of AES-256 (15 round keys), spread once per call.</summary>
    [InlineArray(15 * 8)]
    private struct RoundKeyPlanes
    {
        private Vector128<byte> _element0;
    }

    /// <summary>Eight blocks: the input and output of one bitsliced pass.</summary>
    [InlineArray(8)]
    private struct Group
    {
        private Vector128<byte> _element0;
    }

    /// <summary>
    /// 128-bit vectors with a fast constant byte shuffle: SSSE3's PSHUFB on x64, TBL on ARM64 (every
    /// ARM64 core has AdvSimd). Without those Vector128.Shuffle is emulated, still constant time but
    /// slower than the scalar backend. Not in the browser: its interpreter runs Portable, which was
    /// measured there, and this one was not.
    /// </summary>
    public bool IsSupported =>
        Vector128.IsHardwareAccelerated && (Ssse3.IsSupported || AdvSimd.Arm64.IsSupported) && !OperatingSystem.IsBrowser();

    public int ScheduleBytes(int rounds) => (rounds + 1) * BlockSize;

    public bool EncryptsBlockInRegisters => false;

    /// <summary>Not used: this AES works in memory, so GcmSiv derives its keys through <see cref="EncryptBlocks"/>.</summary>
    public void DeriveKeys(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived) => throw new NotSupportedException();

    // FIPS-197 section 5.2 round constants x^0..x^9 in GF(2^8); indexed by the public round number only.
    private static ReadOnlySpan<byte> Rcon => [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36];

    public void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        // Key length is public; branching on it is fine.
        if (key.Length != 16 && key.Length != 32)
        {
            throw new ArgumentException("AES key must be 16 or 32 bytes.", nameof(key));
        }

        ExpandKeyCore(key, ref schedule);
        BurnStack();
    }

    /// <summary>FIPS-197 section 5.2 KeyExpansion, little-endian words (byte 0 of a word is its low byte).</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void ExpandKeyCore(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        Span<uint> w = MemoryMarshal.Cast<ulong, uint>((Span<ulong>)schedule);
        int nk = key.Length / 4;
        int totalWords = (nk + 7) * 4;
        // Little-endian words, as Vector128 lanes are on every target .NET runs on.
        MemoryMarshal.Cast<byte, uint>(key).CopyTo(w);

        uint tmp = w[nk - 1];
        // j (position within the Nk-word period) and k (Rcon index) depend only on i: public.
        for (int i = nk, j = 0, k = 0; i < totalWords; i++)
        {
            if (j == 0)
            {
                // RotWord([a0,a1,a2,a3]) = [a1,a2,a3,a0]: with a0 the low byte, a right rotation by 8.
                tmp = SubWord((tmp >> 8) | (tmp << 24)) ^ Rcon[k];
            }
            else if (nk > 6 && j == 4)
            {
                tmp = SubWord(tmp);
            }

            tmp ^= w[i - nk];
            w[i] = tmp;
            if (++j == nk)
            {
                j = 0;
                k++;
            }
        }

        // Nothing from an earlier, longer key in the rest.
        w[totalWords..].Clear();
    }

    /// <summary>SubWord (FIPS-197 section 5.2) through the bitsliced S-box: the four bytes as byte-wide planes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint SubWord(uint word) => SubBytes(Vector128.CreateScalar(word).AsByte()).AsUInt32().ToScalar();

    /// <summary>
    /// The AES S-box on each of 16 bytes: bit j of every byte spread to a whole byte (plane j, each
    /// byte 0x00 or 0xFF), the circuit, and the bits gathered back, plus the affine constant the
    /// circuit leaves out. Internal so a test can check it against the S-box for all 256 inputs.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static Vector128<byte> SubBytes(Vector128<byte> value)
    {
        Group planes = default;
        planes[0] = Spread(value, 0x01);
        planes[1] = Spread(value, 0x02);
        planes[2] = Spread(value, 0x04);
        planes[3] = Spread(value, 0x08);
        planes[4] = Spread(value, 0x10);
        planes[5] = Spread(value, 0x20);
        planes[6] = Spread(value, 0x40);
        planes[7] = Spread(value, 0x80);
        Encrypt8(ref planes[0], 0, ref planes);
        Vector128<byte> result = ((planes[0] & Vector128.Create((byte)0x01)) | (planes[1] & Vector128.Create((byte)0x02))
            | (planes[2] & Vector128.Create((byte)0x04)) | (planes[3] & Vector128.Create((byte)0x08))
            | (planes[4] & Vector128.Create((byte)0x10)) | (planes[5] & Vector128.Create((byte)0x20))
            | (planes[6] & Vector128.Create((byte)0x40)) | (planes[7] & Vector128.Create((byte)0x80)))
            ^ Vector128.Create((byte)0x63);
        Wipe(ref planes);
        return result;
    }

    /// <summary>Each byte of the result is 0xFF where <paramref name="value"/>'s byte has <paramref name="bit"/> set, else 0x00.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Spread(Vector128<byte> value, byte bit) =>
        Vector128.Equals(value & Vector128.Create(bit), Vector128.Create(bit));

    /// <summary>One block by value, through <see cref="EncryptBlocks"/> on a stack copy that is wiped after.</summary>
    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block)
    {
        Span<byte> buffer = stackalloc byte[BlockSize];
        block.CopyTo(buffer);
        EncryptBlocks(in schedule, rounds, buffer, buffer);
        Vector128<byte> result = Vector128.Create((ReadOnlySpan<byte>)buffer);
        CryptographicOperations.ZeroMemory(buffer);
        return result;
    }

    [SkipLocalsInit] // the planes are written before they are read, and wiped
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

        // The planes live in this frame, not the core's: so the core's frame is small and the burn
        // below this one covers it and Encrypt8's, where the S-box's spills are.
        Unsafe.SkipInit(out RoundKeyPlanes planes);
        EncryptBlocksCore(in schedule, rounds, input, output, ref planes);
        Wipe(ref planes);
        BurnStack();
    }

    [SkipLocalsInit] // the group is written before it is read, and wiped
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void EncryptBlocksCore(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output, ref RoundKeyPlanes planes)
    {
        Unsafe.SkipInit(out Group group);
        ref Vector128<byte> keys = ref SpreadRoundKeys(in schedule, rounds, ref planes);
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);

        // Lengths are public: the group count and the blocks of a partial last group are too. A
        // partial group runs with zero blocks in the unused places, whose output is dropped. A group
        // is read whole before it is written, so input may be output.
        nuint length = (nuint)input.Length;
        for (nuint offset = 0; offset < length; offset += GroupBytes)
        {
            // Unused places of a partial group are zero blocks.
            nuint blocks = Math.Min(8, (length - offset) / BlockSize);
            group = default;
            for (nuint i = 0; i < blocks; i++)
            {
                group[(int)i] = Vector128.LoadUnsafe(ref source, offset + (i * BlockSize));
            }

            Encrypt8(ref keys, rounds, ref group);
            for (nuint i = 0; i < blocks; i++)
            {
                group[(int)i].StoreUnsafe(ref destination, offset + (i * BlockSize));
            }
        }

        Wipe(ref group);
    }

    public void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        CheckCtr32Arguments(rounds, counterBlock, input, output);
        Ctr32(in schedule, rounds, Vector128.Create<byte>(counterBlock).AsUInt32(), input, output);
    }

    /// <summary>CTR32 from a counter block held as four little-endian words; arguments checked by the caller.</summary>
    [SkipLocalsInit] // the planes are written before they are read, and wiped
    internal static void Ctr32(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output)
    {
        if (input.Length != 0)
        {
            // In this frame, as in EncryptBlocks.
            Unsafe.SkipInit(out RoundKeyPlanes planes);
            Ctr32Core(in schedule, rounds, counter, input, output, ref planes);
            Wipe(ref planes);
            BurnStack();
        }
    }

    internal static void CheckCtr32Arguments(int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
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
    }

    [SkipLocalsInit] // the group is written before it is read, and wiped
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Ctr32Core(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output, ref RoundKeyPlanes planes)
    {
        ref Vector128<byte> keys = ref SpreadRoundKeys(in schedule, rounds, ref planes);
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);

        // RFC 8452 section 4: the counter is the block's first four bytes as a little-endian uint32,
        // incremented mod 2^32, the rest unchanged; lane 0 of a uint vector is exactly that word, and
        // a lane add wraps as the RFC requires. The counters are public (from the tag).
        nuint length = (nuint)input.Length;
        nuint offset = 0;

        // Eight keystream blocks per pass, XORed into the input as the pass ends.
        Unsafe.SkipInit(out Group group);
        for (; length - offset >= GroupBytes; offset += GroupBytes)
        {
            Counters(ref group, ref counter);
            Encrypt8(ref keys, rounds, ref group);
            (Vector128.LoadUnsafe(ref source, offset) ^ group[0]).StoreUnsafe(ref destination, offset);
            (Vector128.LoadUnsafe(ref source, offset + 16) ^ group[1]).StoreUnsafe(ref destination, offset + 16);
            (Vector128.LoadUnsafe(ref source, offset + 32) ^ group[2]).StoreUnsafe(ref destination, offset + 32);
            (Vector128.LoadUnsafe(ref source, offset + 48) ^ group[3]).StoreUnsafe(ref destination, offset + 48);
            (Vector128.LoadUnsafe(ref source, offset + 64) ^ group[4]).StoreUnsafe(ref destination, offset + 64);
            (Vector128.LoadUnsafe(ref source, offset + 80) ^ group[5]).StoreUnsafe(ref destination, offset + 80);
            (Vector128.LoadUnsafe(ref source, offset + 96) ^ group[6]).StoreUnsafe(ref destination, offset + 96);
            (Vector128.LoadUnsafe(ref source, offset + 112) ^ group[7]).StoreUnsafe(ref destination, offset + 112);
        }

        if (offset < length)
        {
            // A shorter tail: eight keystream blocks, of which a prefix is used.
            Counters(ref group, ref counter);
            Encrypt8(ref keys, rounds, ref group);
            Span<byte> keystream = MemoryMarshal.AsBytes((Span<Vector128<byte>>)group);
            int n = (int)(length - offset);
            for (int i = 0; i < n; i++)
            {
                Unsafe.Add(ref destination, offset + (nuint)i) = (byte)(Unsafe.Add(ref source, offset + (nuint)i) ^ keystream[i]);
            }
        }

        Wipe(ref group);
    }

    /// <summary>Eight counter blocks from <paramref name="counter"/> on, which moves on by eight.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Counters(ref Group group, ref Vector128<uint> counter)
    {
        Vector128<uint> one = Vector128.CreateScalar(1u);
        group[0] = counter.AsByte();
        group[1] = (counter + one).AsByte();
        group[2] = (counter + (one * 2)).AsByte();
        group[3] = (counter + (one * 3)).AsByte();
        group[4] = (counter + (one * 4)).AsByte();
        group[5] = (counter + (one * 5)).AsByte();
        group[6] = (counter + (one * 6)).AsByte();
        group[7] = (counter + (one * 7)).AsByte();
        counter += one * 8;
    }

    /// <summary>
    /// Spreads round key r (16 bytes at 16r of <paramref name="schedule"/>) to planes 8r..8r+7: byte
    /// p of plane j is 0xFF when bit j of key byte p is set, the same for all eight blocks. Round
    /// keys 1..Nr also take the S-box's affine constant 0x63 (bits 0, 1, 5, 6), which
    /// the S-box circuit leaves out (see the file's opening comment).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Vector128<byte> SpreadRoundKeys(in AesKeySchedule schedule, int rounds, ref RoundKeyPlanes planes)
    {
        ref Vector128<byte> keys = ref Unsafe.As<RoundKeyPlanes, Vector128<byte>>(ref planes);
        ref Vector128<byte> roundKey = ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
        Vector128<byte> affine = Vector128<byte>.Zero;
        for (int r = 0; r <= rounds; r++)
        {
            Vector128<byte> k = Unsafe.Add(ref roundKey, r) ^ affine;
            ref Vector128<byte> plane = ref Unsafe.Add(ref keys, 8 * r);
            plane = Spread(k, 0x01);
            Unsafe.Add(ref plane, 1) = Spread(k, 0x02);
            Unsafe.Add(ref plane, 2) = Spread(k, 0x04);
            Unsafe.Add(ref plane, 3) = Spread(k, 0x08);
            Unsafe.Add(ref plane, 4) = Spread(k, 0x10);
            Unsafe.Add(ref plane, 5) = Spread(k, 0x20);
            Unsafe.Add(ref plane, 6) = Spread(k, 0x40);
            Unsafe.Add(ref plane, 7) = Spread(k, 0x80);
            affine = Vector128.Create((byte)0x63);
        }

        return ref keys;
    }

    /// <summary>
    /// Encrypts the eight blocks of <paramref name="group"/> in place: into planes, Nr rounds, back to
    /// blocks. With <paramref name="rounds"/> 0, only SubBytes (without its affine constant), on
    /// planes given and returned as they are: the key schedule's SubWord.
    /// </summary>
    /// <remarks>
    /// The hot loop of the backend: per round one S-box pass (115 vector gates for 128 bytes), 24
    /// constant shuffles and 36 XORs for ShiftRows and MixColumns, 8 XORs for the round key. The
    /// S-box circuit is written out in the loop, once, because the JIT does not inline a method with
    /// as many locals as it has: called, it took its eight planes through memory, and the rounds ran
    /// at half speed. Not inlined into its callers either, for the same reason (their inlining
    /// budget ran out), so the planes stay in registers for all the rounds (x64 with AVX-512 has 32,
    /// enough for the circuit's live values; with 16 some spill).
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Encrypt8(ref Vector128<byte> keys, int rounds, ref Group group)
    {
        ref Vector128<byte> blocks = ref Unsafe.As<Group, Vector128<byte>>(ref group);
        Vector128<byte> q0 = blocks, q1 = Unsafe.Add(ref blocks, 1), q2 = Unsafe.Add(ref blocks, 2), q3 = Unsafe.Add(ref blocks, 3);
        Vector128<byte> q4 = Unsafe.Add(ref blocks, 4), q5 = Unsafe.Add(ref blocks, 5), q6 = Unsafe.Add(ref blocks, 6), q7 = Unsafe.Add(ref blocks, 7);

        // rounds is public: 10, 14, or 0 for SubWord.
        if (rounds != 0)
        {
            Transpose(ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
            AddRoundKey(ref keys, ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
        }

        for (int r = 1; ; r++)
        {
            // SubBytes without its affine constant (see the file's opening comment): the
            // Boyar-Peralta circuit, as in Aes.Portable.cs with its four XNORs as XORs. The paper
            // numbers bits from the most significant: x0 is plane 7.
            Vector128<byte> x0 = q7, x1 = q6, x2 = q5, x3 = q4, x4 = q3, x5 = q2, x6 = q1, x7 = q0;

            // Top linear transformation.
            Vector128<byte> y14 = x3 ^ x5;
            Vector128<byte> y13 = x0 ^ x6;
            Vector128<byte> y9 = x0 ^ x3;
            Vector128<byte> y8 = x0 ^ x5;
            Vector128<byte> t0 = x1 ^ x2;
            Vector128<byte> y1 = t0 ^ x7;
            Vector128<byte> y4 = y1 ^ x3;
            Vector128<byte> y12 = y13 ^ y14;
            Vector128<byte> y2 = y1 ^ x0;
            Vector128<byte> y5 = y1 ^ x6;
            Vector128<byte> y3 = y5 ^ y8;
            Vector128<byte> t1 = x4 ^ y12;
            Vector128<byte> y15 = t1 ^ x5;
            Vector128<byte> y20 = t1 ^ x1;
            Vector128<byte> y6 = y15 ^ x7;
            Vector128<byte> y10 = y15 ^ t0;
            Vector128<byte> y11 = y20 ^ y9;
            Vector128<byte> y7 = x7 ^ y11;
            Vector128<byte> y17 = y10 ^ y11;
            Vector128<byte> y19 = y10 ^ y8;
            Vector128<byte> y16 = t0 ^ y11;
            Vector128<byte> y21 = y13 ^ y16;
            Vector128<byte> y18 = x0 ^ y16;

            // Non-linear section: inversion in GF(2^8) through a tower of subfields.
            Vector128<byte> t2 = y12 & y15;
            Vector128<byte> t3 = y3 & y6;
            Vector128<byte> t4 = t3 ^ t2;
            Vector128<byte> t5 = y4 & x7;
            Vector128<byte> t6 = t5 ^ t2;
            Vector128<byte> t7 = y13 & y16;
            Vector128<byte> t8 = y5 & y1;
            Vector128<byte> t9 = t8 ^ t7;
            Vector128<byte> t10 = y2 & y7;
            Vector128<byte> t11 = t10 ^ t7;
            Vector128<byte> t12 = y9 & y11;
            Vector128<byte> t13 = y14 & y17;
            Vector128<byte> t14 = t13 ^ t12;
            Vector128<byte> t15 = y8 & y10;
            Vector128<byte> t16 = t15 ^ t12;
            Vector128<byte> t17 = t4 ^ t14;
            Vector128<byte> t18 = t6 ^ t16;
            Vector128<byte> t19 = t9 ^ t14;
            Vector128<byte> t20 = t11 ^ t16;
            Vector128<byte> t21 = t17 ^ y20;
            Vector128<byte> t22 = t18 ^ y19;
            Vector128<byte> t23 = t19 ^ y21;
            Vector128<byte> t24 = t20 ^ y18;

            Vector128<byte> t25 = t21 ^ t22;
            Vector128<byte> t26 = t21 & t23;
            Vector128<byte> t27 = t24 ^ t26;
            Vector128<byte> t28 = t25 & t27;
            Vector128<byte> t29 = t28 ^ t22;
            Vector128<byte> t30 = t23 ^ t24;
            Vector128<byte> t31 = t22 ^ t26;
            Vector128<byte> t32 = t31 & t30;
            Vector128<byte> t33 = t32 ^ t24;
            Vector128<byte> t34 = t23 ^ t33;
            Vector128<byte> t35 = t27 ^ t33;
            Vector128<byte> t36 = t24 & t35;
            Vector128<byte> t37 = t36 ^ t34;
            Vector128<byte> t38 = t27 ^ t36;
            Vector128<byte> t39 = t29 & t38;
            Vector128<byte> t40 = t25 ^ t39;

            Vector128<byte> t41 = t40 ^ t37;
            Vector128<byte> t42 = t29 ^ t33;
            Vector128<byte> t43 = t29 ^ t40;
            Vector128<byte> t44 = t33 ^ t37;
            Vector128<byte> t45 = t42 ^ t41;
            Vector128<byte> z0 = t44 & y15;
            Vector128<byte> z1 = t37 & y6;
            Vector128<byte> z2 = t33 & x7;
            Vector128<byte> z3 = t43 & y16;
            Vector128<byte> z4 = t40 & y1;
            Vector128<byte> z5 = t29 & y7;
            Vector128<byte> z6 = t42 & y11;
            Vector128<byte> z7 = t45 & y17;
            Vector128<byte> z8 = t41 & y10;
            Vector128<byte> z9 = t44 & y12;
            Vector128<byte> z10 = t37 & y3;
            Vector128<byte> z11 = t33 & y4;
            Vector128<byte> z12 = t43 & y13;
            Vector128<byte> z13 = t40 & y5;
            Vector128<byte> z14 = t29 & y2;
            Vector128<byte> z15 = t42 & y9;
            Vector128<byte> z16 = t45 & y14;
            Vector128<byte> z17 = t41 & y8;

            // Bottom linear transformation (the affine map without its constant).
            Vector128<byte> t46 = z15 ^ z16;
            Vector128<byte> t47 = z10 ^ z11;
            Vector128<byte> t48 = z5 ^ z13;
            Vector128<byte> t49 = z9 ^ z10;
            Vector128<byte> t50 = z2 ^ z12;
            Vector128<byte> t51 = z2 ^ z5;
            Vector128<byte> t52 = z7 ^ z8;
            Vector128<byte> t53 = z0 ^ z3;
            Vector128<byte> t54 = z6 ^ z7;
            Vector128<byte> t55 = z16 ^ z17;
            Vector128<byte> t56 = z12 ^ t48;
            Vector128<byte> t57 = t50 ^ t53;
            Vector128<byte> t58 = z4 ^ t46;
            Vector128<byte> t59 = z3 ^ t54;
            Vector128<byte> t60 = t46 ^ t57;
            Vector128<byte> t61 = z14 ^ t57;
            Vector128<byte> t62 = t52 ^ t58;
            Vector128<byte> t63 = t49 ^ t58;
            Vector128<byte> t64 = z4 ^ t59;
            Vector128<byte> t65 = t61 ^ t62;
            Vector128<byte> t66 = z1 ^ t63;
            Vector128<byte> t67 = t64 ^ t65;

            // s0 is the top bit (plane 7); s1, s2, s6, s7 would be complemented by the affine constant.
            q7 = t59 ^ t63;
            q1 = t56 ^ t62;
            q0 = t48 ^ t60;
            Vector128<byte> s3 = t53 ^ t66;
            q4 = s3;
            q3 = t51 ^ t66;
            q2 = t47 ^ t65;
            q6 = t64 ^ s3;
            q5 = t55 ^ t67;

            if (r >= rounds)
            {
                break;
            }

            ShiftRowsMixColumns(ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
            AddRoundKey(ref Unsafe.Add(ref keys, 8 * r), ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
        }

        if (rounds != 0)
        {
            // The last round has no MixColumns.
            q0 = ShiftRows(q0);
            q1 = ShiftRows(q1);
            q2 = ShiftRows(q2);
            q3 = ShiftRows(q3);
            q4 = ShiftRows(q4);
            q5 = ShiftRows(q5);
            q6 = ShiftRows(q6);
            q7 = ShiftRows(q7);
            AddRoundKey(ref Unsafe.Add(ref keys, 8 * rounds), ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
            Transpose(ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
        }

        blocks = q0;
        Unsafe.Add(ref blocks, 1) = q1;
        Unsafe.Add(ref blocks, 2) = q2;
        Unsafe.Add(ref blocks, 3) = q3;
        Unsafe.Add(ref blocks, 4) = q4;
        Unsafe.Add(ref blocks, 5) = q5;
        Unsafe.Add(ref blocks, 6) = q6;
        Unsafe.Add(ref blocks, 7) = q7;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AddRoundKey(
        ref Vector128<byte> key,
        ref Vector128<byte> q0,
        ref Vector128<byte> q1,
        ref Vector128<byte> q2,
        ref Vector128<byte> q3,
        ref Vector128<byte> q4,
        ref Vector128<byte> q5,
        ref Vector128<byte> q6,
        ref Vector128<byte> q7)
    {
        q0 ^= key;
        q1 ^= Unsafe.Add(ref key, 1);
        q2 ^= Unsafe.Add(ref key, 2);
        q3 ^= Unsafe.Add(ref key, 3);
        q4 ^= Unsafe.Add(ref key, 4);
        q5 ^= Unsafe.Add(ref key, 5);
        q6 ^= Unsafe.Add(ref key, 6);
        q7 ^= Unsafe.Add(ref key, 7);
    }

    /// <summary>
    /// The 8x8 bit transposition in every byte position across the eight registers: afterwards bit b
    /// of byte p of register j is what bit j of byte p of register b was. SWAPMOVE exchanges bits at
    /// distance 1 between register pairs (0,1), (2,3)..., bit pairs at distance 2 between (0,2),
    /// (1,3)..., nibbles at distance 4 between (0,4), (1,5)...; the masks keep every exchange inside
    /// its byte. A transposition is its own inverse.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Transpose(
        ref Vector128<byte> q0,
        ref Vector128<byte> q1,
        ref Vector128<byte> q2,
        ref Vector128<byte> q3,
        ref Vector128<byte> q4,
        ref Vector128<byte> q5,
        ref Vector128<byte> q6,
        ref Vector128<byte> q7)
    {
        SwapMove(ref q0, ref q1, 1, 0x5555555555555555UL);
        SwapMove(ref q2, ref q3, 1, 0x5555555555555555UL);
        SwapMove(ref q4, ref q5, 1, 0x5555555555555555UL);
        SwapMove(ref q6, ref q7, 1, 0x5555555555555555UL);
        SwapMove(ref q0, ref q2, 2, 0x3333333333333333UL);
        SwapMove(ref q1, ref q3, 2, 0x3333333333333333UL);
        SwapMove(ref q4, ref q6, 2, 0x3333333333333333UL);
        SwapMove(ref q5, ref q7, 2, 0x3333333333333333UL);
        SwapMove(ref q0, ref q4, 4, 0x0F0F0F0F0F0F0F0FUL);
        SwapMove(ref q1, ref q5, 4, 0x0F0F0F0F0F0F0F0FUL);
        SwapMove(ref q2, ref q6, 4, 0x0F0F0F0F0F0F0F0FUL);
        SwapMove(ref q3, ref q7, 4, 0x0F0F0F0F0F0F0F0FUL);
    }

    /// <summary>Exchanges the bits of <paramref name="low"/> selected by mask shifted up by <paramref name="shift"/> with the bits of <paramref name="high"/> selected by mask.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void SwapMove(ref Vector128<byte> low, ref Vector128<byte> high, [ConstantExpected] byte shift, ulong mask)
    {
        Vector128<ulong> a = low.AsUInt64(), b = high.AsUInt64();
        Vector128<ulong> t = (Vector128.ShiftRightLogical(a, shift) ^ b) & Vector128.Create(mask);
        high = (b ^ t).AsByte();
        low = (a ^ Vector128.ShiftLeft(t, shift)).AsByte();
    }

    // Byte shuffles on state positions p = 4 * column + row; Shuffle(x, index)[p] = x[index[p]].
    // The indices are constants: the positions of AES's fixed permutations, never data.

    /// <summary>ShiftRows: new (row r, column c) = old (r, c + r mod 4).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> ShiftRows(Vector128<byte> plane) =>
        Vector128.Shuffle(plane, Vector128.Create((byte)0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11));

    /// <summary>ShiftRows, then every row takes the next row's byte in its column: (r, c) = old (r + 1, c + r + 1).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> ShiftRowsThenNextRow(Vector128<byte> plane) =>
        Vector128.Shuffle(plane, Vector128.Create((byte)5, 10, 15, 0, 9, 14, 3, 4, 13, 2, 7, 8, 1, 6, 11, 12));

    /// <summary>Every row takes the byte two rows down in its column.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> RowPlusTwo(Vector128<byte> plane) =>
        Vector128.Shuffle(plane, Vector128.Create((byte)2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));

    /// <summary>
    /// ShiftRows and MixColumns of a round. With b = ShiftRows(a) and a(r) the byte in row r of a column,
    /// MixColumns is out(r) = 2 b(r) + 3 b(r+1) + b(r+2) + b(r+3) = 2 t(r) + b(r+1) + t(r+2) with
    /// t(r) = b(r) + b(r+1). b(r+1) comes straight from a by one shuffle (not two in a row: the
    /// two shuffles of a run side by side). Multiplying by 2 (xtime, modulo x^8+x^4+x^3+x+1) on
    /// planes: plane j takes plane j-1, and the old top plane 7 goes into planes 0, 1, 3 and 4 (0x1B).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ShiftRowsMixColumns(
        ref Vector128<byte> q0,
        ref Vector128<byte> q1,
        ref Vector128<byte> q2,
        ref Vector128<byte> q3,
        ref Vector128<byte> q4,
        ref Vector128<byte> q5,
        ref Vector128<byte> q6,
        ref Vector128<byte> q7)
    {
        Vector128<byte> n0 = ShiftRowsThenNextRow(q0), n1 = ShiftRowsThenNextRow(q1), n2 = ShiftRowsThenNextRow(q2), n3 = ShiftRowsThenNextRow(q3);
        Vector128<byte> n4 = ShiftRowsThenNextRow(q4), n5 = ShiftRowsThenNextRow(q5), n6 = ShiftRowsThenNextRow(q6), n7 = ShiftRowsThenNextRow(q7);
        Vector128<byte> t0 = ShiftRows(q0) ^ n0, t1 = ShiftRows(q1) ^ n1, t2 = ShiftRows(q2) ^ n2, t3 = ShiftRows(q3) ^ n3;
        Vector128<byte> t4 = ShiftRows(q4) ^ n4, t5 = ShiftRows(q5) ^ n5, t6 = ShiftRows(q6) ^ n6, t7 = ShiftRows(q7) ^ n7;
        q0 = t7 ^ n0 ^ RowPlusTwo(t0);
        q1 = t0 ^ t7 ^ n1 ^ RowPlusTwo(t1);
        q2 = t1 ^ n2 ^ RowPlusTwo(t2);
        q3 = t2 ^ t7 ^ n3 ^ RowPlusTwo(t3);
        q4 = t3 ^ t7 ^ n4 ^ RowPlusTwo(t4);
        q5 = t4 ^ n5 ^ RowPlusTwo(t5);
        q6 = t5 ^ n6 ^ RowPlusTwo(t6);
        q7 = t6 ^ n7 ^ RowPlusTwo(t7);
    }

    private static void CheckRounds(int rounds)
    {
        // Public parameter: 10 rounds for AES-128, 14 for AES-256.
        if (rounds != 10 && rounds != 14)
        {
            throw new ArgumentOutOfRangeException(nameof(rounds));
        }
    }

    /// <summary>Clears a group of blocks in a way the JIT cannot drop as a dead store.</summary>
    private static void Wipe(ref Group group) =>
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<Vector128<byte>>)group));

    /// <summary>Clears the round-key planes in a way the JIT cannot drop as a dead store.</summary>
    private static void Wipe(ref RoundKeyPlanes planes) =>
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<Vector128<byte>>)planes));

    /// <summary>
    /// Overwrites the stack below the caller's frame, where a *Core method and Encrypt8 just ran.
    /// Their explicit buffers are wiped already, but the S-box has more live values than x64 has
    /// vector registers (16 without AVX-512), and the JIT spills them to frame slots C# cannot name.
    /// The frames are a few hundred bytes (the large buffers are in the caller's frame).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing
    private static void BurnStack()
    {
        Span<byte> scratch = stackalloc byte[BurnBytes];
        CryptographicOperations.ZeroMemory(scratch);
    }
}
