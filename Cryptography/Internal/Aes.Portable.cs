// Portable, constant-time AES-128/AES-256 encryption (FIPS-197) in plain scalar C#: no hardware
// intrinsics, no table lookups indexed by secret data, no branches or loop counts that depend on
// secret data.
//
// The technique is the bitsliced "ct64" AES of BearSSL (Thomas Pornin, src/symcipher/aes_ct64.c and
// aes_ct64_enc.c, https://bearssl.org/constanttime.html), re-implemented here:
//
//  * Four 16-byte blocks are held in eight 64-bit words q[0..7]. Word q[k] holds bit k of every one
//    of the 64 state bytes. Within a word, bit (16 * row + 4 * column + lane) belongs to state byte
//    (row, column) of block "lane" (0..3); so each nibble is one byte position across the 4 blocks
//    (one bit per block) and each 16-bit quarter is one row of the AES state.
//  * Getting there: InterleaveIn spreads the four little-endian 32-bit words of a block (which are
//    its four columns) over two words, and Ortho (a bit-matrix transposition made of SWAP2, SWAP4
//    and SWAP8 steps) then turns "byte in a word" into "bit plane per word". Ortho is its own
//    inverse, and InterleaveOut undoes InterleaveIn.
//  * SubBytes is the Boyar-Peralta S-box circuit ("A new combinational logic minimization technique
//    with applications to cryptology", eprint 2009/191; the gate list as BearSSL transcribes it):
//    115 gates, 32 AND and 83 XOR/XNOR, that compute GF(2^8) inversion and the affine map as pure
//    Boolean logic, so one pass runs all 64 bytes with the same instruction sequence whatever the data.
//  * ShiftRows rotates each 16-bit row by 0/4/8/12 bits (one column = 4 bits); MixColumns uses
//    word rotations by 16 and 32 bits (next row, row after that) and xtime on the bit planes.
//  * The key schedule runs SubWord through the same bitsliced S-box (a key byte is secret, so a
//    table lookup there would leak too), then stores every round key in bitsliced form with its
//    four lanes equal: (rounds + 1) * 8 ulongs, 120 for AES-256, exactly AesKeySchedule's size.

using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>Bitsliced constant-time AES (BearSSL ct64 technique); runs everywhere.</summary>
internal readonly struct AesPortable : IAes
{
    /// <summary>Bytes handled per bitsliced pass: four blocks.</summary>
    private const int GroupBytes = 64;

    /// <summary>Bytes of stack <see cref="BurnStack"/> overwrites after each operation.</summary>
    private const int BurnBytes = 2048;

    // FIPS-197 section 5.2 round constants: x^0..x^9 in GF(2^8) mod x^8+x^4+x^3+x+1 (so x^8 = 0x1B,
    // x^9 = 0x36); AES-128 uses all 10, AES-256 the first 7.
    // Indexed only by the (public) round-key number, never by key data.
    private static ReadOnlySpan<byte> Rcon => [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36];

    public bool IsSupported => true;

    public int ScheduleBytes(int rounds) => AesKeySchedule.Length * sizeof(ulong);

    public bool EncryptsBlockInRegisters => false;

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

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ExpandKeyCore(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        int nk = key.Length / 4;      // key length in 32-bit words (FIPS-197 Nk)
        int rounds = nk + 6;          // FIPS-197 Nr: 10 or 14
        int totalWords = (rounds + 1) * 4;

        // FIPS-197 section 5.2 key expansion, on little-endian words: byte 0 of a word is its low byte.
        Span<uint> w = stackalloc uint[60];
        Slices q = default;
        for (int i = 0; i < nk; i++)
        {
            w[i] = BinaryPrimitives.ReadUInt32LittleEndian(key.Slice(4 * i, 4));
        }

        uint tmp = w[nk - 1];
        // j (position within the Nk-word period) and k (Rcon index) depend only on i: public.
        for (int i = nk, j = 0, k = 0; i < totalWords; i++)
        {
            if (j == 0)
            {
                // RotWord([a0,a1,a2,a3]) = [a1,a2,a3,a0]: with a0 the low byte, a right rotation by 8.
                tmp = SubWord(BitOperations.RotateRight(tmp, 8)) ^ Rcon[k];
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

        // Bitslice each round key. The key is replicated into all four lanes so that one XOR per
        // bit plane adds it to four blocks at once. As in BearSSL the result goes through the
        // "compressed" form: since all four lanes of a plane are equal, planes 0-3 (and 4-7) fit
        // in one word, plane m kept in lane m of every nibble; expanding copies lane m back to all
        // four lanes of plane m, giving (rounds + 1) * 8 words ready for AddRoundKey.
        for (int r = 0; r <= rounds; r++)
        {
            InterleaveIn(w[4 * r], w[4 * r + 1], w[4 * r + 2], w[4 * r + 3], out q[0], out q[4]);
            q[1] = q[0];
            q[2] = q[0];
            q[3] = q[0];
            q[5] = q[4];
            q[6] = q[4];
            q[7] = q[4];
            Ortho(ref q);

            // 0x1111.., 0x2222.., 0x4444.., 0x8888..: lane 0, 1, 2, 3 of every nibble.
            ulong comp0 = (q[0] & 0x1111111111111111UL) | (q[1] & 0x2222222222222222UL)
                        | (q[2] & 0x4444444444444444UL) | (q[3] & 0x8888888888888888UL);
            ulong comp1 = (q[4] & 0x1111111111111111UL) | (q[5] & 0x2222222222222222UL)
                        | (q[6] & 0x4444444444444444UL) | (q[7] & 0x8888888888888888UL);

            ExpandCompressed(comp0, ref schedule, 8 * r);
            ExpandCompressed(comp1, ref schedule, 8 * r + 4);
        }

        // Leave nothing from an earlier, longer key in the unused tail.
        for (int i = (rounds + 1) * 8; i < AesKeySchedule.Length; i++)
        {
            schedule[i] = 0;
        }

        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(w));
        Wipe(ref q);
    }

    /// <summary>One block by value, through <see cref="EncryptBlocks"/> on a stack copy that is wiped after.</summary>
    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block)
    {
        Span<byte> buffer = stackalloc byte[16];
        block.CopyTo(buffer);
        EncryptBlocks(in schedule, rounds, buffer, buffer);
        Vector128<byte> result = Vector128.Create((ReadOnlySpan<byte>)buffer);
        CryptographicOperations.ZeroMemory(buffer);
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

        EncryptBlocksCore(schedule.AsSpan().Slice(0, (rounds + 1) * 8), rounds, input, output);
        BurnStack();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void EncryptBlocksCore(ReadOnlySpan<ulong> sk, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        Span<byte> buffer = stackalloc byte[GroupBytes];
        Slices q = default;

        // Lengths are public, so the loop count and the partial last group are too. A partial
        // group is padded with zero blocks, encrypted as a full group, and the padding discarded.
        // The whole group is read before anything is written, so input may alias output.
        // The offset is a nuint, as in the hardware backends: an int stepped by 64 overflows for
        // inputs within 64 bytes of int.MaxValue (Array.MaxLength is 2^31 - 57).
        nuint length = (nuint)input.Length;
        for (nuint offset = 0; offset < length; offset += GroupBytes)
        {
            int n = (int)Math.Min(GroupBytes, length - offset);
            buffer.Clear();
            input.Slice((int)offset, n).CopyTo(buffer);

            for (int i = 0; i < 4; i++)
            {
                ReadOnlySpan<byte> block = buffer.Slice(16 * i, 16);
                InterleaveIn(
                    BinaryPrimitives.ReadUInt32LittleEndian(block),
                    BinaryPrimitives.ReadUInt32LittleEndian(block.Slice(4)),
                    BinaryPrimitives.ReadUInt32LittleEndian(block.Slice(8)),
                    BinaryPrimitives.ReadUInt32LittleEndian(block.Slice(12)),
                    out q[i], out q[i + 4]);
            }

            EncryptGroup(sk, rounds, ref q, buffer);
            buffer.Slice(0, n).CopyTo(output.Slice((int)offset, n));
        }

        CryptographicOperations.ZeroMemory(buffer);
        Wipe(ref q);
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

        Ctr32Core(schedule.AsSpan().Slice(0, (rounds + 1) * 8), rounds, counterBlock, input, output);
        BurnStack();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Ctr32Core(ReadOnlySpan<ulong> sk, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        Span<byte> keystream = stackalloc byte[GroupBytes];
        Slices q = default;

        // RFC 8452 section 4: the counter is the first four bytes read as a little-endian uint32,
        // incremented mod 2^32; the other 12 bytes stay as they are. Block words are little-endian
        // too, so the counter is exactly word 0 of each counter block.
        uint counter = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock);
        uint w1 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(4));
        uint w2 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(8));
        uint w3 = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(12));

        // Four keystream blocks per pass; a shorter tail still computes four and uses a prefix.
        // The offset is a nuint, as in the hardware backends: an int stepped by 64 overflowed for
        // inputs within 64 bytes of int.MaxValue (Array.MaxLength is 2^31 - 57) after most of the
        // output had been written.
        nuint length = (nuint)input.Length;
        for (nuint offset = 0; offset < length; offset += GroupBytes)
        {
            for (int i = 0; i < 4; i++)
            {
                InterleaveIn(unchecked(counter + (uint)i), w1, w2, w3, out q[i], out q[i + 4]);
            }

            EncryptGroup(sk, rounds, ref q, keystream);

            int n = (int)Math.Min(GroupBytes, length - offset);
            Xor(input.Slice((int)offset, n), keystream.Slice(0, n), output.Slice((int)offset, n));
            counter = unchecked(counter + 4);
        }

        CryptographicOperations.ZeroMemory(keystream);
        Wipe(ref q);
    }

    /// <summary>
    /// AES SubWord (FIPS-197 section 5.2) through the bitsliced S-box. The word goes straight into
    /// the low 32 bits of q[0] (no InterleaveIn: SubWord works bytewise, so which state positions
    /// its bytes take does not matter); Ortho turns them into four bitsliced bytes, and Ortho again
    /// brings them back to the same bits. The other 60 byte slots are zero and are discarded.
    /// Internal so tests can check the circuit against the S-box for all 256 inputs.
    /// </summary>
    internal static uint SubWord(uint x)
    {
        Slices q = default;
        q[0] = x;
        Ortho(ref q);
        Sbox(ref q);
        Ortho(ref q);
        uint result = (uint)q[0];
        Wipe(ref q);
        return result;
    }

    private static void CheckRounds(int rounds)
    {
        // Public parameter: 10 rounds for AES-128, 14 for AES-256.
        if (rounds != 10 && rounds != 14)
        {
            throw new ArgumentOutOfRangeException(nameof(rounds));
        }
    }

    /// <summary>Expands a compressed round-key word (plane m in lane m of each nibble) into four bit planes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ExpandCompressed(ulong comp, ref AesKeySchedule schedule, int index)
    {
        ulong x0 = comp & 0x1111111111111111UL;
        ulong x1 = (comp & 0x2222222222222222UL) >> 1;
        ulong x2 = (comp & 0x4444444444444444UL) >> 2;
        ulong x3 = (comp & 0x8888888888888888UL) >> 3;
        // Every nibble of x is 0 or 1, so 16x - x = 15x replicates that bit into all four bits of
        // its nibble without any borrow crossing a nibble boundary.
        schedule[index] = (x0 << 4) - x0;
        schedule[index + 1] = (x1 << 4) - x1;
        schedule[index + 2] = (x2 << 4) - x2;
        schedule[index + 3] = (x3 << 4) - x3;
    }

    /// <summary>
    /// Transposes the interleaved blocks into bit planes, encrypts, transposes back and writes the
    /// four resulting blocks to <paramref name="output"/> (64 bytes).
    /// </summary>
    private static void EncryptGroup(ReadOnlySpan<ulong> sk, int rounds, ref Slices q, Span<byte> output)
    {
        Ortho(ref q);

        // FIPS-197 Cipher(): AddRoundKey, then rounds-1 full rounds, then a last round without MixColumns.
        AddRoundKey(ref q, sk.Slice(0, 8));
        for (int r = 1; r < rounds; r++)
        {
            Sbox(ref q);
            ShiftRows(ref q);
            MixColumns(ref q);
            AddRoundKey(ref q, sk.Slice(8 * r, 8));
        }
        Sbox(ref q);
        ShiftRows(ref q);
        AddRoundKey(ref q, sk.Slice(8 * rounds, 8));

        Ortho(ref q);

        for (int i = 0; i < 4; i++)
        {
            InterleaveOut(q[i], q[i + 4], out uint w0, out uint w1, out uint w2, out uint w3);
            Span<byte> block = output.Slice(16 * i, 16);
            BinaryPrimitives.WriteUInt32LittleEndian(block, w0);
            BinaryPrimitives.WriteUInt32LittleEndian(block.Slice(4), w1);
            BinaryPrimitives.WriteUInt32LittleEndian(block.Slice(8), w2);
            BinaryPrimitives.WriteUInt32LittleEndian(block.Slice(12), w3);
        }
    }

    /// <summary>output = input XOR keystream; input and output may be the same memory.</summary>
    private static void Xor(ReadOnlySpan<byte> input, ReadOnlySpan<byte> keystream, Span<byte> output)
    {
        int i = 0;
        // Each 8-byte chunk is read completely before it is written, so exact aliasing is safe.
        for (; i + 8 <= input.Length; i += 8)
        {
            ulong v = BinaryPrimitives.ReadUInt64LittleEndian(input.Slice(i))
                    ^ BinaryPrimitives.ReadUInt64LittleEndian(keystream.Slice(i));
            BinaryPrimitives.WriteUInt64LittleEndian(output.Slice(i), v);
        }
        for (; i < input.Length; i++)
        {
            output[i] = (byte)(input[i] ^ keystream[i]);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AddRoundKey(ref Slices q, ReadOnlySpan<ulong> sk)
    {
        q[0] ^= sk[0];
        q[1] ^= sk[1];
        q[2] ^= sk[2];
        q[3] ^= sk[3];
        q[4] ^= sk[4];
        q[5] ^= sk[5];
        q[6] ^= sk[6];
        q[7] ^= sk[7];
    }

    /// <summary>
    /// Spreads one block (four little-endian column words w0..w3; byte 4c + r of the block is state
    /// byte (row r, column c)) over two 64-bit words: q0 gets columns 0 and 2, q1 columns 1 and 3,
    /// and 16-bit unit r of each word holds row r (low byte from w0/w1, high byte from w2/w3).
    /// With block i placed in q[i] and q[i + 4], Ortho then yields the bit-plane layout.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void InterleaveIn(uint w0, uint w1, uint w2, uint w3, out ulong q0, out ulong q1)
    {
        ulong x0 = w0, x1 = w1, x2 = w2, x3 = w3;
        // Move the upper 16 bits of each word up by 16 (mask 0x0000FFFF0000FFFF keeps 16-bit halves apart).
        x0 |= x0 << 16;
        x1 |= x1 << 16;
        x2 |= x2 << 16;
        x3 |= x3 << 16;
        x0 &= 0x0000FFFF0000FFFFUL;
        x1 &= 0x0000FFFF0000FFFFUL;
        x2 &= 0x0000FFFF0000FFFFUL;
        x3 &= 0x0000FFFF0000FFFFUL;
        // Then each byte up by 8 within its 16-bit half (mask 0x00FF00FF00FF00FF): one byte per 16 bits.
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

    /// <summary>Inverse of <see cref="InterleaveIn"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void InterleaveOut(ulong q0, ulong q1, out uint w0, out uint w1, out uint w2, out uint w3)
    {
        ulong x0 = q0 & 0x00FF00FF00FF00FFUL;
        ulong x1 = q1 & 0x00FF00FF00FF00FFUL;
        ulong x2 = (q0 >> 8) & 0x00FF00FF00FF00FFUL;
        ulong x3 = (q1 >> 8) & 0x00FF00FF00FF00FFUL;
        x0 |= x0 >> 8;
        x1 |= x1 >> 8;
        x2 |= x2 >> 8;
        x3 |= x3 >> 8;
        x0 &= 0x0000FFFF0000FFFFUL;
        x1 &= 0x0000FFFF0000FFFFUL;
        x2 &= 0x0000FFFF0000FFFFUL;
        x3 &= 0x0000FFFF0000FFFFUL;
        w0 = (uint)x0 | (uint)(x0 >> 16);
        w1 = (uint)x1 | (uint)(x1 >> 16);
        w2 = (uint)x2 | (uint)(x2 >> 16);
        w3 = (uint)x3 | (uint)(x3 >> 16);
    }

    /// <summary>
    /// 8x8 bit-matrix transposition applied to every group of eight bits spread across q[0..7]
    /// (BearSSL br_aes_ct64_ortho): SWAP2 exchanges single bits between word pairs (distance 1),
    /// SWAP4 bit pairs (distance 2), SWAP8 nibbles (distance 4). It is an involution.
    /// </summary>
    private static void Ortho(ref Slices q)
    {
        // Masks select alternate 1-, 2- and 4-bit groups: 0x55../0xAA.., 0x33../0xCC.., 0x0F../0xF0...
        Swap(ref q[0], ref q[1], 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q[2], ref q[3], 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q[4], ref q[5], 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);
        Swap(ref q[6], ref q[7], 0x5555555555555555UL, 0xAAAAAAAAAAAAAAAAUL, 1);

        Swap(ref q[0], ref q[2], 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q[1], ref q[3], 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q[4], ref q[6], 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);
        Swap(ref q[5], ref q[7], 0x3333333333333333UL, 0xCCCCCCCCCCCCCCCCUL, 2);

        Swap(ref q[0], ref q[4], 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q[1], ref q[5], 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q[2], ref q[6], 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
        Swap(ref q[3], ref q[7], 0x0F0F0F0F0F0F0F0FUL, 0xF0F0F0F0F0F0F0F0UL, 4);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Swap(ref ulong x, ref ulong y, ulong lowMask, ulong highMask, int shift)
    {
        ulong a = x, b = y;
        x = (a & lowMask) | ((b & lowMask) << shift);
        y = ((a & highMask) >> shift) | (b & highMask);
    }

    /// <summary>
    /// ShiftRows: row r (bits 16r..16r+15) rotates left by r columns, i.e. right by 4r bits inside
    /// its 16-bit field, since bit index is 16 * row + 4 * column + lane.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ShiftRows(ref Slices q)
    {
        for (int i = 0; i < 8; i++)
        {
            ulong x = q[i];
            q[i] = (x & 0x000000000000FFFFUL)                // row 0: unchanged
                 | ((x & 0x00000000FFF00000UL) >> 4)         // row 1: columns 1..3 down one column
                 | ((x & 0x00000000000F0000UL) << 12)        //        column 0 to column 3
                 | ((x & 0x0000FF0000000000UL) >> 8)         // row 2: swap column pairs (rotate by 2)
                 | ((x & 0x000000FF00000000UL) << 8)
                 | ((x & 0xF000000000000000UL) >> 12)        // row 3: column 3 to column 0
                 | ((x & 0x0FFF000000000000UL) << 4);        //        columns 0..2 up one column
        }
    }

    /// <summary>
    /// MixColumns: out(row) = 2*a(row) + 3*a(row+1) + a(row+2) + a(row+3)
    ///                      = 2*(a(row) ^ a(row+1)) ^ a(row+1) ^ (a(row+2) ^ a(row+3)).
    /// Rotating a word right by 16 bits brings row+1 into row's place (r), by 32 bits row+2
    /// (rotr32). Multiplication by 2 (xtime, reduction by x^8+x^4+x^3+x+1 = 0x11B) on bit planes:
    /// plane k takes plane k-1, and the old top plane 7 is XORed into planes 0, 1, 3 and 4.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void MixColumns(ref Slices q)
    {
        ulong q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];
        ulong q4 = q[4], q5 = q[5], q6 = q[6], q7 = q[7];
        ulong r0 = BitOperations.RotateRight(q0, 16);
        ulong r1 = BitOperations.RotateRight(q1, 16);
        ulong r2 = BitOperations.RotateRight(q2, 16);
        ulong r3 = BitOperations.RotateRight(q3, 16);
        ulong r4 = BitOperations.RotateRight(q4, 16);
        ulong r5 = BitOperations.RotateRight(q5, 16);
        ulong r6 = BitOperations.RotateRight(q6, 16);
        ulong r7 = BitOperations.RotateRight(q7, 16);

        q[0] = q7 ^ r7 ^ r0 ^ BitOperations.RotateRight(q0 ^ r0, 32);
        q[1] = q0 ^ r0 ^ q7 ^ r7 ^ r1 ^ BitOperations.RotateRight(q1 ^ r1, 32);
        q[2] = q1 ^ r1 ^ r2 ^ BitOperations.RotateRight(q2 ^ r2, 32);
        q[3] = q2 ^ r2 ^ q7 ^ r7 ^ r3 ^ BitOperations.RotateRight(q3 ^ r3, 32);
        q[4] = q3 ^ r3 ^ q7 ^ r7 ^ r4 ^ BitOperations.RotateRight(q4 ^ r4, 32);
        q[5] = q4 ^ r4 ^ r5 ^ BitOperations.RotateRight(q5 ^ r5, 32);
        q[6] = q5 ^ r5 ^ r6 ^ BitOperations.RotateRight(q6 ^ r6, 32);
        q[7] = q6 ^ r6 ^ r7 ^ BitOperations.RotateRight(q7 ^ r7, 32);
    }

    /// <summary>
    /// The AES S-box on all 64 bitsliced bytes: the Boyar-Peralta circuit, written once, in
    /// <see cref="AesPortableFlat.SubBytes"/>. This forwarder inlines; RyuJIT does not inline the circuit
    /// (too many locals), so a round makes one call for its S-box, as when the circuit was written here.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Sbox(ref Slices q) =>
        AesPortableFlat.SubBytes(ref q[0], ref q[1], ref q[2], ref q[3], ref q[4], ref q[5], ref q[6], ref q[7]);

    /// <summary>
    /// Overwrites the stack below the caller's frame, where the *Core method and its callees just
    /// ran. Their explicit buffers are already wiped, but the JIT spills scalar temporaries (the
    /// S-box alone has over 100 live values, far more than there are registers) to frame slots that
    /// C# cannot name; this zeroes that region. BurnBytes comfortably exceeds the deepest call
    /// chain here (about 700 bytes on x64 for Core, SubWord/EncryptGroup and the S-box).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing; no need for the prolog to do it too
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

    /// <summary>Clears a bitsliced state in a way the JIT cannot drop as a dead store.</summary>
    private static void Wipe(ref Slices q)
    {
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(q.AsSpan()));
    }
}
