// Constant-time AES-128/AES-256 (FIPS-197) and RFC 8452's CTR mode (section 4) for runtimes whose JIT
// accelerates System.Numerics.Vector<T> but that have no AES instructions to call: the netstandard2.0
// build under Mono (6.8 compiles Vector<T> to SSE) and .NET Framework's RyuJIT (SSE or AVX2). Issue 48.
//
// Everything but long CTR runs is AesPortableFlat's (key derivation, the tag, short messages, a
// message's last blocks): this backend adds a bulk CTR for 32 * Vector<uint>.Count blocks per pass
// (128 with 16-byte vectors, 256 with 32-byte ones). netstandard2.0's Vector<T> has bitwise operators
// but no shifts and no shuffles, so the state is "fully" bitsliced: one Vector<uint> per bit of the
// 128-bit AES state (slice 8p + b is bit b of byte p), each bit of a lane a different block. Then
//   * SubBytes is the Boyar-Peralta circuit (AesPortableFlat.SubWord's) on each byte's 8 slices;
//   * ShiftRows is only where each byte's S-box result is written (no operation);
//   * MixColumns is XORs of slices (xtime is a renaming of bits plus XORs for x^8 = x^4 + x^3 + x + 1);
//   * AddRoundKey XORs slices with all-ones/all-zeros masks of the round keys' bits, built per call
//     from the FIPS-197 round keys that ExpandKey stores after AesPortableFlat's schedule.
// Into that form go only the counter blocks, whose last 12 bytes are the same in every block (96
// constant slices) and whose first word is the counter (32 slices, from scalar 32x32 bit transposes
// of public values); out of it goes the keystream, through the same transposes, which run on secret
// bits but are shifts and masks with no data-dependent branch or index. Measured under Mono 6.8 on
// Zen 4 (MonoBenchmark, `kernels`): the rounds take about a third of AesPortableFlat's CTR time per
// block, the whole pass about 0.6 (docs/platforms.md).
//
// Secrets: the round-key masks, the state and the keystream live in stack buffers this file wipes;
// the S-box's temporaries, which the JIT spills below Ctr32's frame, are burnt after each run.

using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;
using V = System.Numerics.Vector<uint>;

namespace Cryptography.Internal;

/// <summary>AesPortableFlat, with CTR over whole passes of 32 * Vector&lt;uint&gt;.Count blocks fully bitsliced on Vector&lt;T&gt;.</summary>
internal readonly struct AesPortableVector : IAes
{
    /// <summary>Where in AesKeySchedule (in 64-bit words) the cipher key is kept: after AesPortableFlat's 15 x 8 words.</summary>
    private const int CipherKey = 120;

    /// <summary>Bytes of stack zeroed below Ctr32's frame after a run: the rounds' frames (the S-box spills its terms there).</summary>
    private const int BurnBytes = 8192;

    /// <summary>Blocks per pass: one per bit of a Vector&lt;uint&gt;.</summary>
    private static int PassBlocks => 32 * V.Count;

    /// <summary>
    /// Where the JIT accelerates Vector&lt;T&gt; (otherwise each operation is a loop over lanes, slower
    /// than AesPortableFlat), with 16- or 32-byte vectors: the stack buffers are sized for them.
    /// </summary>
    public bool IsSupported => Vector.IsHardwareAccelerated && (V.Count == 4 || V.Count == 8);

    public int ScheduleBytes(int rounds) => AesKeySchedule.Length * sizeof(ulong);

    public bool EncryptsBlockInRegisters => false;

    /// <summary>
    /// AesPortableFlat's schedule, then the key itself as 32-bit little-endian words at <see cref="CipherKey"/>:
    /// the FIPS-197 round keys the bulk CTR needs are expanded from it only when a message is long
    /// enough to use it, so that short messages (most of them) do not pay for a second expansion.
    /// </summary>
    public void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        default(AesPortableFlat).ExpandKey(key, ref schedule); // checks the key's length
        ref uint words = ref Unsafe.As<ulong, uint>(ref schedule[CipherKey]);
        for (int i = 0; i < key.Length >> 2; i++)
        {
            Unsafe.Add(ref words, i) = BinaryPrimitives.ReadUInt32LittleEndian(key.Slice(4 * i, 4));
        }
    }

    public void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output) =>
        default(AesPortableFlat).EncryptBlocks(in schedule, rounds, input, output);

    public Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block) =>
        default(AesPortableFlat).EncryptBlock(in schedule, rounds, block);

    /// <summary>
    /// Whole passes on vectors; a last partial pass too when it is at least three quarters full (below
    /// that AesPortableFlat's four blocks at a time cost less than a pass); the rest AesPortableFlat's.
    /// </summary>
    public void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        if (rounds != 10 && rounds != 14)
        {
            throw new ArgumentOutOfRangeException(nameof(rounds));
        }

        if (counterBlock.Length != 16)
        {
            throw new ArgumentException("Counter block must be 16 bytes.", nameof(counterBlock));
        }

        if (input.Length != output.Length)
        {
            throw new ArgumentException("Input and output lengths differ.", nameof(output));
        }

        int passBytes = 16 * PassBlocks;
        int tail = input.Length & (passBytes - 1); // a pass is 2048 or 4096 bytes
        int bulk = input.Length - (tail >= passBytes - (passBytes >> 2) ? 0 : tail);
        if (bulk > 0)
        {
            CtrPasses(ref Unsafe.As<ulong, uint>(ref Unsafe.AsRef(in schedule[CipherKey])), rounds, counterBlock, input.Slice(0, bulk), output.Slice(0, bulk));
            BurnStack();
        }

        if (bulk == 0)
        {
            default(AesPortableFlat).Ctr32(in schedule, rounds, counterBlock, input, output);
        }
        else if (bulk < input.Length)
        {
            // The counter block is public (it is the tag): advancing it needs no care.
            Span<byte> next = stackalloc byte[16];
            counterBlock.CopyTo(next);
            BinaryPrimitives.WriteUInt32LittleEndian(next, unchecked(BinaryPrimitives.ReadUInt32LittleEndian(counterBlock) + (uint)(bulk >> 4)));
            default(AesPortableFlat).Ctr32(in schedule, rounds, next, input.Slice(bulk), output.Slice(bulk));
        }
    }

    /// <summary>
    /// FIPS-197 section 5.2 KeyExpansion() of the <paramref name="nk"/> key words at <paramref name="key"/>
    /// into <c>(Nr + 1) * 4</c> words at <paramref name="w"/>, each little-endian as the block's words are read.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ExpandFipsKey(ref uint key, int nk, ref uint w)
    {
        int totalWords = (nk + 7) * 4;
        for (int i = 0; i < nk; i++)
        {
            Unsafe.Add(ref w, i) = Unsafe.Add(ref key, i);
        }

        // Round constants x^0..x^9 in GF(2^8), indexed by the (public) word position.
        ReadOnlySpan<byte> rcon = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36];
        // j is i mod nk and k is i / nk - 1, counted rather than divided: the secret-flow check fails on
        // any division instruction (its time can depend on its operands), even of public values.
        for (int i = nk, j = 0, k = 0; i < totalWords; i++)
        {
            uint temp = Unsafe.Add(ref w, i - 1);
            if (j == 0)
            {
                temp = AesPortableFlat.SubWord((temp >> 8) | (temp << 24)) ^ rcon[k]; // RotWord: byte 0 to byte 3
            }
            else if (nk > 6 && j == 4)
            {
                temp = AesPortableFlat.SubWord(temp);
            }

            Unsafe.Add(ref w, i) = Unsafe.Add(ref w, i - nk) ^ temp;
            if (++j == nk)
            {
                j = 0;
                k++;
            }
        }
    }

    /// <summary>CTR over <paramref name="input"/> in passes of <see cref="PassBlocks"/> blocks (the last may be partial).</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    [SkipLocalsInit]
    private static void CtrPasses(ref uint cipherKey, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        int lanes = V.Count;
        int passBlocks = PassBlocks;
        Span<V> roundKeys = stackalloc V[(rounds + 1) * 128];
        Span<V> state = stackalloc V[128];
        Span<V> scratch = stackalloc V[128];
        Span<uint> keystream = stackalloc uint[4 * passBlocks]; // a pass of blocks, as 32-bit words
        Span<uint> roundKeyWords = stackalloc uint[4 * 15];
        try
        {
            ExpandFipsKey(ref cipherKey, rounds - 6, ref MemoryMarshal.GetReference(roundKeyWords));
            // Slice k of round key r: all ones where bit k % 32 of word 4r + k / 32 is set.
            ref V rk = ref MemoryMarshal.GetReference(roundKeys);
            Masks(ref MemoryMarshal.GetReference(roundKeyWords), 4 * (rounds + 1), ref rk);

            ref V s = ref MemoryMarshal.GetReference(state);
            ref uint words = ref MemoryMarshal.GetReference(keystream);
            uint counter = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock);
            Span<uint> constant = stackalloc uint[3];
            for (int i = 0; i < 3; i++)
            {
                constant[i] = BinaryPrimitives.ReadUInt32LittleEndian(counterBlock.Slice(4 + (4 * i)));
            }

            ref uint constantWords = ref MemoryMarshal.GetReference(constant);
            for (int offset = 0; offset < input.Length; offset += 16 * passBlocks)
            {
                // Slices 32..127: the counter block's last twelve bytes (words 1..3), the same in every block.
                Masks(ref constantWords, 3, ref Unsafe.Add(ref s, 32));

                // Slices 0..31: word 0, the counter, which block 32 * lane + i has plus 32 * lane + i
                // (mod 2^32). Transposed per lane: bit j of words[i] to bit i of words[j].
                ref uint slices = ref Unsafe.As<V, uint>(ref s);
                for (int lane = 0; lane < lanes; lane++)
                {
                    for (int i = 0; i < 32; i++)
                    {
                        Unsafe.Add(ref words, i) = unchecked(counter + (uint)((32 * lane) + i));
                    }

                    Transpose32(ref words);
                    for (int j = 0; j < 32; j++)
                    {
                        Unsafe.Add(ref slices, (j * lanes) + lane) = Unsafe.Add(ref words, j);
                    }
                }

                counter = unchecked(counter + (uint)passBlocks);
                Encrypt(ref rk, rounds, ref s, ref MemoryMarshal.GetReference(scratch));
                SlicesOut(ref s, ref Unsafe.As<V, uint>(ref MemoryMarshal.GetReference(scratch)), ref words);

                // Exact aliasing of input and output is safe: each word is read before it is written.
                int n = Math.Min(16 * passBlocks, input.Length - offset);
                ReadOnlySpan<byte> source = input.Slice(offset, n);
                Span<byte> destination = output.Slice(offset, n);
                Span<byte> keystreamBytes = MemoryMarshal.AsBytes(keystream);
                int i4 = 0;
                for (; i4 + 4 <= n; i4 += 4)
                {
                    uint x = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref MemoryMarshal.GetReference(source), i4)) ^ Unsafe.Add(ref words, i4 >> 2);
                    Unsafe.WriteUnaligned(ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), i4), x);
                }

                for (; i4 < n; i4++)
                {
                    destination[i4] = (byte)(source[i4] ^ keystreamBytes[i4]);
                }
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(roundKeys));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(state));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(scratch));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(keystream));
            CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(roundKeyWords));

            // From here, below this frame and its buffers: where the rounds' S-box spilled its terms.
            BurnStack();
        }
    }

    /// <summary>
    /// Slice k of the 32 slices of each of the <paramref name="count"/> words: all ones where bit k is
    /// set (0 - bit is that mask without a branch). Word 4r + i is round key r's bytes 4i..4i + 3.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Masks(ref uint words, int count, ref V masks)
    {
        for (int i = 0; i < count; i++)
        {
            uint word = Unsafe.Add(ref words, i);
            ref V m = ref Unsafe.Add(ref masks, 32 * i);
            for (int k = 0; k < 32; k++)
            {
                Unsafe.Add(ref m, k) = new V(0u - ((word >> k) & 1));
            }
        }
    }

    /// <summary>
    /// The state's slices back to blocks: word w of block 32 * lane + i (little-endian, as the block's
    /// bytes 4w..4w + 3) to words[4 * (32 * lane + i) + w]. <paramref name="column"/> is 32 words of room.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SlicesOut(ref V state, ref uint column, ref uint words)
    {
        int lanes = V.Count;
        ref uint slices = ref Unsafe.As<V, uint>(ref state);
        for (int w = 0; w < 4; w++)
        {
            for (int lane = 0; lane < lanes; lane++)
            {
                for (int j = 0; j < 32; j++)
                {
                    Unsafe.Add(ref column, j) = Unsafe.Add(ref slices, (((32 * w) + j) * lanes) + lane);
                }

                Transpose32(ref column);
                for (int i = 0; i < 32; i++)
                {
                    Unsafe.Add(ref words, (4 * ((32 * lane) + i)) + w) = Unsafe.Add(ref column, i);
                }
            }
        }
    }

    /// <summary>32x32 bit matrix transpose in place: bit j of a[i] trades places with bit i of a[j] (five rounds of block swaps).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Transpose32(ref uint a)
    {
        uint m = 0x0000FFFF;
        for (int j = 16; j != 0; j >>= 1, m ^= m << j)
        {
            for (int k = 0; k < 32; k = (k + j + 1) & ~j)
            {
                ref uint x = ref Unsafe.Add(ref a, k);
                ref uint y = ref Unsafe.Add(ref a, k + j);
                uint t = ((x >> j) ^ y) & m;
                x ^= t << j;
                y ^= t;
            }
        }
    }

    /// <summary>FIPS-197 Cipher() on one pass's slices in place: AddRoundKey, rounds - 1 full rounds, the last without MixColumns.</summary>
    private static void Encrypt(ref V roundKeys, int rounds, ref V s, ref V t)
    {
        for (int k = 0; k < 128; k++)
        {
            Unsafe.Add(ref s, k) ^= Unsafe.Add(ref roundKeys, k);
        }

        for (int r = 1; r <= rounds; r++)
        {
            // SubBytes, and ShiftRows as where each result goes: byte p is row p % 4 of column p / 4,
            // and row j moves j columns left.
            for (int p = 0; p < 16; p++)
            {
                int row = p & 3, column = ((p >> 2) - row) & 3;
                SubByte(ref Unsafe.Add(ref s, 8 * p), ref Unsafe.Add(ref t, 8 * (row + (4 * column))));
            }

            ref V key = ref Unsafe.Add(ref roundKeys, 128 * r);
            if (r < rounds)
            {
                for (int c = 0; c < 4; c++)
                {
                    MixColumn(ref Unsafe.Add(ref t, 32 * c), ref Unsafe.Add(ref s, 32 * c), ref Unsafe.Add(ref key, 32 * c));
                }
            }
            else
            {
                for (int k = 0; k < 128; k++)
                {
                    Unsafe.Add(ref s, k) = Unsafe.Add(ref t, k) ^ Unsafe.Add(ref key, k);
                }
            }
        }
    }

    /// <summary>
    /// MixColumns and AddRoundKey on one column (row r's bit b at slice 8r + b):
    /// out_r = a_r ^ (a_0 ^ a_1 ^ a_2 ^ a_3) ^ xtime(a_r ^ a_(r+1)) ^ key_r, where xtime moves bit b to
    /// b + 1 and adds bit 7 at bits 0, 1, 3 and 4 (x^8 = x^4 + x^3 + x + 1, FIPS-197 section 4.2.1).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void MixColumn(ref V a, ref V output, ref V key)
    {
        for (int b = 0; b < 8; b++)
        {
            V all = Unsafe.Add(ref a, b) ^ Unsafe.Add(ref a, 8 + b) ^ Unsafe.Add(ref a, 16 + b) ^ Unsafe.Add(ref a, 24 + b);
            for (int r = 0; r < 4; r++)
            {
                Unsafe.Add(ref output, (8 * r) + b) = Unsafe.Add(ref a, (8 * r) + b) ^ all ^ Unsafe.Add(ref key, (8 * r) + b);
            }
        }

        for (int r = 0; r < 4; r++)
        {
            ref V x = ref Unsafe.Add(ref a, 8 * r);
            ref V y = ref Unsafe.Add(ref a, 8 * ((r + 1) & 3));
            ref V o = ref Unsafe.Add(ref output, 8 * r);
            V high = Unsafe.Add(ref x, 7) ^ Unsafe.Add(ref y, 7);
            o ^= high;
            Unsafe.Add(ref o, 1) ^= x ^ y ^ high;
            Unsafe.Add(ref o, 2) ^= Unsafe.Add(ref x, 1) ^ Unsafe.Add(ref y, 1);
            Unsafe.Add(ref o, 3) ^= Unsafe.Add(ref x, 2) ^ Unsafe.Add(ref y, 2) ^ high;
            Unsafe.Add(ref o, 4) ^= Unsafe.Add(ref x, 3) ^ Unsafe.Add(ref y, 3) ^ high;
            Unsafe.Add(ref o, 5) ^= Unsafe.Add(ref x, 4) ^ Unsafe.Add(ref y, 4);
            Unsafe.Add(ref o, 6) ^= Unsafe.Add(ref x, 5) ^ Unsafe.Add(ref y, 5);
            Unsafe.Add(ref o, 7) ^= Unsafe.Add(ref x, 6) ^ Unsafe.Add(ref y, 6);
        }
    }

    /// <summary>The S-box on one byte's 8 slices (bit b at input + b) into output: the circuit of AesPortableFlat.SubWord (Boyar-Peralta).</summary>
    private static void SubByte(ref V input, ref V output)
    {
        V x0 = Unsafe.Add(ref input, 7), x1 = Unsafe.Add(ref input, 6), x2 = Unsafe.Add(ref input, 5), x3 = Unsafe.Add(ref input, 4);
        V x4 = Unsafe.Add(ref input, 3), x5 = Unsafe.Add(ref input, 2), x6 = Unsafe.Add(ref input, 1), x7 = input;

        // Top linear transformation.
        V y14 = x3 ^ x5;
        V y13 = x0 ^ x6;
        V y9 = x0 ^ x3;
        V y8 = x0 ^ x5;
        V t0 = x1 ^ x2;
        V y1 = t0 ^ x7;
        V y4 = y1 ^ x3;
        V y12 = y13 ^ y14;
        V y2 = y1 ^ x0;
        V y5 = y1 ^ x6;
        V y3 = y5 ^ y8;
        V t1 = x4 ^ y12;
        V y15 = t1 ^ x5;
        V y20 = t1 ^ x1;
        V y6 = y15 ^ x7;
        V y10 = y15 ^ t0;
        V y11 = y20 ^ y9;
        V y7 = x7 ^ y11;
        V y17 = y10 ^ y11;
        V y19 = y10 ^ y8;
        V y16 = t0 ^ y11;
        V y21 = y13 ^ y16;
        V y18 = x0 ^ y16;

        // Non-linear section (inversion in GF(2^8) through a tower of subfields).
        V t2 = y12 & y15;
        V t3 = y3 & y6;
        V t4 = t3 ^ t2;
        V t5 = y4 & x7;
        V t6 = t5 ^ t2;
        V t7 = y13 & y16;
        V t8 = y5 & y1;
        V t9 = t8 ^ t7;
        V t10 = y2 & y7;
        V t11 = t10 ^ t7;
        V t12 = y9 & y11;
        V t13 = y14 & y17;
        V t14 = t13 ^ t12;
        V t15 = y8 & y10;
        V t16 = t15 ^ t12;
        V t17 = t4 ^ t14;
        V t18 = t6 ^ t16;
        V t19 = t9 ^ t14;
        V t20 = t11 ^ t16;
        V t21 = t17 ^ y20;
        V t22 = t18 ^ y19;
        V t23 = t19 ^ y21;
        V t24 = t20 ^ y18;

        V t25 = t21 ^ t22;
        V t26 = t21 & t23;
        V t27 = t24 ^ t26;
        V t28 = t25 & t27;
        V t29 = t28 ^ t22;
        V t30 = t23 ^ t24;
        V t31 = t22 ^ t26;
        V t32 = t31 & t30;
        V t33 = t32 ^ t24;
        V t34 = t23 ^ t33;
        V t35 = t27 ^ t33;
        V t36 = t24 & t35;
        V t37 = t36 ^ t34;
        V t38 = t27 ^ t36;
        V t39 = t29 & t38;
        V t40 = t25 ^ t39;

        V t41 = t40 ^ t37;
        V t42 = t29 ^ t33;
        V t43 = t29 ^ t40;
        V t44 = t33 ^ t37;
        V t45 = t42 ^ t41;
        V z0 = t44 & y15;
        V z1 = t37 & y6;
        V z2 = t33 & x7;
        V z3 = t43 & y16;
        V z4 = t40 & y1;
        V z5 = t29 & y7;
        V z6 = t42 & y11;
        V z7 = t45 & y17;
        V z8 = t41 & y10;
        V z9 = t44 & y12;
        V z10 = t37 & y3;
        V z11 = t33 & y4;
        V z12 = t43 & y13;
        V z13 = t40 & y5;
        V z14 = t29 & y2;
        V z15 = t42 & y9;
        V z16 = t45 & y14;
        V z17 = t41 & y8;

        // Bottom linear transformation (includes the affine map; "^ ~" is XNOR).
        V t46 = z15 ^ z16;
        V t47 = z10 ^ z11;
        V t48 = z5 ^ z13;
        V t49 = z9 ^ z10;
        V t50 = z2 ^ z12;
        V t51 = z2 ^ z5;
        V t52 = z7 ^ z8;
        V t53 = z0 ^ z3;
        V t54 = z6 ^ z7;
        V t55 = z16 ^ z17;
        V t56 = z12 ^ t48;
        V t57 = t50 ^ t53;
        V t58 = z4 ^ t46;
        V t59 = z3 ^ t54;
        V t60 = t46 ^ t57;
        V t61 = z14 ^ t57;
        V t62 = t52 ^ t58;
        V t63 = t49 ^ t58;
        V t64 = z4 ^ t59;
        V t65 = t61 ^ t62;
        V t66 = z1 ^ t63;
        V s0 = t59 ^ t63;
        V s6 = t56 ^ ~t62;
        V s7 = t48 ^ ~t60;
        V t67 = t64 ^ t65;
        V s3 = t53 ^ t66;
        V s4 = t51 ^ t66;
        V s5 = t47 ^ t65;
        V s1 = t64 ^ ~s3;
        V s2 = t55 ^ ~t67;
        Unsafe.Add(ref output, 7) = s0;
        Unsafe.Add(ref output, 6) = s1;
        Unsafe.Add(ref output, 5) = s2;
        Unsafe.Add(ref output, 4) = s3;
        Unsafe.Add(ref output, 3) = s4;
        Unsafe.Add(ref output, 2) = s5;
        Unsafe.Add(ref output, 1) = s6;
        output = s7;
    }

    /// <summary>Zeroes the stack below the caller's frame, where the rounds and the key expansion just ran.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit]
    private static void BurnStack()
    {
        Span<byte> area = stackalloc byte[BurnBytes];
        CryptographicOperations.ZeroMemory(area);
    }
}
