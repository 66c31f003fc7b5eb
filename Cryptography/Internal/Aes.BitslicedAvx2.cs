// The bitsliced AES of Aes.Bitsliced.cs on 256-bit AVX2 vectors: sixteen blocks per pass, for CTR
// over whole 256-byte groups when the CPU has AVX2 (AesBitslicedVector in Aes.Bitsliced.cs runs it
// first and the 128-bit code takes the rest). Each 128-bit half of a register is one eight-block
// bitsliced state exactly as in Aes.Bitsliced.cs (blocks 0..7 in the low halves, 8..15 in the
// high ones): every operation there is lane-local, so VPSHUFB, whose indices select within each
// 128-bit half, does ShiftRows and MixColumns for both at once, with the same constant indices.
// The two files hold the same rounds for two register widths: a change to one belongs in both.
// Only x64 intrinsics here (Avx2): an x86 one compiles on ARM64 but throws there.

using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>CTR over whole 16-block groups with AES bitsliced across 256-bit lanes (AVX2).</summary>
internal readonly struct AesBitslicedAvx2 : IBitslicedWide
{
    private const int BlockSize = 16;

    /// <summary>Sixteen blocks: one bitsliced pass.</summary>
    private const int GroupBytes = 16 * BlockSize;

    /// <summary>The eight planes of every round key of AES-256 (15 round keys), both halves equal.</summary>
    [InlineArray(15 * 8)]
    private struct RoundKeyPlanes
    {
        private Vector256<byte> _element0;
    }

    /// <summary>The eight registers of one pass: register b holds blocks b and b + 8.</summary>
    [InlineArray(8)]
    private struct Group
    {
        private Vector256<byte> _element0;
    }

    public static bool IsSupported => Avx2.IsSupported && Vector256.IsHardwareAccelerated;

    /// <summary>
    /// RFC 8452 CTR32 over the whole 256-byte groups of <paramref name="input"/>, from
    /// <paramref name="counter"/> (the counter block as four little-endian words), which moves on
    /// past them; returns how many bytes were done (0 without AVX2). The caller checked the arguments.
    /// </summary>
    [SkipLocalsInit] // the planes are written before they are read, and wiped
    public static int Ctr32(in AesKeySchedule schedule, int rounds, ref Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output)
    {
        if (!IsSupported || input.Length < GroupBytes)
        {
            return 0;
        }

        // The planes live in this frame, not the core's: so the core's frame is small and the burn
        // below this one covers it and Encrypt16's, where the S-box's spills are.
        Unsafe.SkipInit(out RoundKeyPlanes planes);
        int done = Ctr32Core(in schedule, rounds, ref counter, input, output, ref planes);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<Vector256<byte>>)planes));
        BurnStack();
        return done;
    }

    [SkipLocalsInit] // the group is written before it is read, and wiped
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static int Ctr32Core(in AesKeySchedule schedule, int rounds, ref Vector128<uint> counter, ReadOnlySpan<byte> input, Span<byte> output, ref RoundKeyPlanes planes)
    {
        Unsafe.SkipInit(out Group group);
        ref Vector256<byte> keys = ref Unsafe.As<RoundKeyPlanes, Vector256<byte>>(ref planes);
        ref Vector128<byte> roundKey = ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
        Vector128<byte> affine = Vector128<byte>.Zero;
        for (int r = 0; r <= rounds; r++)
        {
            // As AesBitsliced.SpreadRoundKeys, each plane in both halves.
            Vector256<byte> k = Vector256.Create(Unsafe.Add(ref roundKey, r) ^ affine);
            ref Vector256<byte> plane = ref Unsafe.Add(ref keys, 8 * r);
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

        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        nuint length = (nuint)input.Length;
        nuint offset = 0;

        // Counter lanes as in AesBitsliced.Ctr32Core: lane 0 is the little-endian 32-bit counter and
        // wraps mod 2^32. Register b takes counters b and b + 8.
        Vector128<uint> one = Vector128.CreateScalar(1u);
        Vector256<uint> step = Vector256.Create(Vector128<uint>.Zero, one * 8);
        for (; length - offset >= GroupBytes; offset += GroupBytes)
        {
            Vector256<uint> c = Vector256.Create(counter) + step;
            group[0] = c.AsByte();
            group[1] = (c + Vector256.Create(one)).AsByte();
            group[2] = (c + Vector256.Create(one * 2)).AsByte();
            group[3] = (c + Vector256.Create(one * 3)).AsByte();
            group[4] = (c + Vector256.Create(one * 4)).AsByte();
            group[5] = (c + Vector256.Create(one * 5)).AsByte();
            group[6] = (c + Vector256.Create(one * 6)).AsByte();
            group[7] = (c + Vector256.Create(one * 7)).AsByte();
            counter += one * 16;
            Encrypt16(ref keys, rounds, ref group);
            for (int b = 0; b < 8; b++)
            {
                nuint low = offset + (nuint)(b * BlockSize), high = low + (8 * BlockSize);
                (Vector128.LoadUnsafe(ref source, low) ^ group[b].GetLower()).StoreUnsafe(ref destination, low);
                (Vector128.LoadUnsafe(ref source, high) ^ group[b].GetUpper()).StoreUnsafe(ref destination, high);
            }
        }

        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<Vector256<byte>>)group));
        return (int)offset;
    }

    /// <summary>Each byte of the result is 0xFF where <paramref name="value"/>'s byte has <paramref name="bit"/> set, else 0x00.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<byte> Spread(Vector256<byte> value, byte bit) =>
        Vector256.Equals(value & Vector256.Create(bit), Vector256.Create(bit));

    /// <summary>
    /// Encrypts the sixteen blocks of <paramref name="group"/> in place (register b: blocks b, b + 8):
    /// into planes, Nr rounds, back to blocks. The same rounds as AesBitsliced.Encrypt8, one
    /// instruction doing both halves; not inlined, for the same reasons (see there).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Encrypt16(ref Vector256<byte> keys, int rounds, ref Group group)
    {
        ref Vector256<byte> blocks = ref Unsafe.As<Group, Vector256<byte>>(ref group);
        Vector256<byte> q0 = blocks, q1 = Unsafe.Add(ref blocks, 1), q2 = Unsafe.Add(ref blocks, 2), q3 = Unsafe.Add(ref blocks, 3);
        Vector256<byte> q4 = Unsafe.Add(ref blocks, 4), q5 = Unsafe.Add(ref blocks, 5), q6 = Unsafe.Add(ref blocks, 6), q7 = Unsafe.Add(ref blocks, 7);

        Transpose(ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
        AddRoundKey(ref keys, ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);

        for (int r = 1; ; r++)
        {
            // SubBytes without its affine constant (see the file's opening comment): the
            // Boyar-Peralta circuit, as in Aes.Portable.cs with its four XNORs as XORs. The paper
            // numbers bits from the most significant: x0 is plane 7.
            Vector256<byte> x0 = q7, x1 = q6, x2 = q5, x3 = q4, x4 = q3, x5 = q2, x6 = q1, x7 = q0;

            // Top linear transformation.
            Vector256<byte> y14 = x3 ^ x5;
            Vector256<byte> y13 = x0 ^ x6;
            Vector256<byte> y9 = x0 ^ x3;
            Vector256<byte> y8 = x0 ^ x5;
            Vector256<byte> t0 = x1 ^ x2;
            Vector256<byte> y1 = t0 ^ x7;
            Vector256<byte> y4 = y1 ^ x3;
            Vector256<byte> y12 = y13 ^ y14;
            Vector256<byte> y2 = y1 ^ x0;
            Vector256<byte> y5 = y1 ^ x6;
            Vector256<byte> y3 = y5 ^ y8;
            Vector256<byte> t1 = x4 ^ y12;
            Vector256<byte> y15 = t1 ^ x5;
            Vector256<byte> y20 = t1 ^ x1;
            Vector256<byte> y6 = y15 ^ x7;
            Vector256<byte> y10 = y15 ^ t0;
            Vector256<byte> y11 = y20 ^ y9;
            Vector256<byte> y7 = x7 ^ y11;
            Vector256<byte> y17 = y10 ^ y11;
            Vector256<byte> y19 = y10 ^ y8;
            Vector256<byte> y16 = t0 ^ y11;
            Vector256<byte> y21 = y13 ^ y16;
            Vector256<byte> y18 = x0 ^ y16;

            // Non-linear section: inversion in GF(2^8) through a tower of subfields.
            Vector256<byte> t2 = y12 & y15;
            Vector256<byte> t3 = y3 & y6;
            Vector256<byte> t4 = t3 ^ t2;
            Vector256<byte> t5 = y4 & x7;
            Vector256<byte> t6 = t5 ^ t2;
            Vector256<byte> t7 = y13 & y16;
            Vector256<byte> t8 = y5 & y1;
            Vector256<byte> t9 = t8 ^ t7;
            Vector256<byte> t10 = y2 & y7;
            Vector256<byte> t11 = t10 ^ t7;
            Vector256<byte> t12 = y9 & y11;
            Vector256<byte> t13 = y14 & y17;
            Vector256<byte> t14 = t13 ^ t12;
            Vector256<byte> t15 = y8 & y10;
            Vector256<byte> t16 = t15 ^ t12;
            Vector256<byte> t17 = t4 ^ t14;
            Vector256<byte> t18 = t6 ^ t16;
            Vector256<byte> t19 = t9 ^ t14;
            Vector256<byte> t20 = t11 ^ t16;
            Vector256<byte> t21 = t17 ^ y20;
            Vector256<byte> t22 = t18 ^ y19;
            Vector256<byte> t23 = t19 ^ y21;
            Vector256<byte> t24 = t20 ^ y18;

            Vector256<byte> t25 = t21 ^ t22;
            Vector256<byte> t26 = t21 & t23;
            Vector256<byte> t27 = t24 ^ t26;
            Vector256<byte> t28 = t25 & t27;
            Vector256<byte> t29 = t28 ^ t22;
            Vector256<byte> t30 = t23 ^ t24;
            Vector256<byte> t31 = t22 ^ t26;
            Vector256<byte> t32 = t31 & t30;
            Vector256<byte> t33 = t32 ^ t24;
            Vector256<byte> t34 = t23 ^ t33;
            Vector256<byte> t35 = t27 ^ t33;
            Vector256<byte> t36 = t24 & t35;
            Vector256<byte> t37 = t36 ^ t34;
            Vector256<byte> t38 = t27 ^ t36;
            Vector256<byte> t39 = t29 & t38;
            Vector256<byte> t40 = t25 ^ t39;

            Vector256<byte> t41 = t40 ^ t37;
            Vector256<byte> t42 = t29 ^ t33;
            Vector256<byte> t43 = t29 ^ t40;
            Vector256<byte> t44 = t33 ^ t37;
            Vector256<byte> t45 = t42 ^ t41;
            Vector256<byte> z0 = t44 & y15;
            Vector256<byte> z1 = t37 & y6;
            Vector256<byte> z2 = t33 & x7;
            Vector256<byte> z3 = t43 & y16;
            Vector256<byte> z4 = t40 & y1;
            Vector256<byte> z5 = t29 & y7;
            Vector256<byte> z6 = t42 & y11;
            Vector256<byte> z7 = t45 & y17;
            Vector256<byte> z8 = t41 & y10;
            Vector256<byte> z9 = t44 & y12;
            Vector256<byte> z10 = t37 & y3;
            Vector256<byte> z11 = t33 & y4;
            Vector256<byte> z12 = t43 & y13;
            Vector256<byte> z13 = t40 & y5;
            Vector256<byte> z14 = t29 & y2;
            Vector256<byte> z15 = t42 & y9;
            Vector256<byte> z16 = t45 & y14;
            Vector256<byte> z17 = t41 & y8;

            // Bottom linear transformation (the affine map without its constant).
            Vector256<byte> t46 = z15 ^ z16;
            Vector256<byte> t47 = z10 ^ z11;
            Vector256<byte> t48 = z5 ^ z13;
            Vector256<byte> t49 = z9 ^ z10;
            Vector256<byte> t50 = z2 ^ z12;
            Vector256<byte> t51 = z2 ^ z5;
            Vector256<byte> t52 = z7 ^ z8;
            Vector256<byte> t53 = z0 ^ z3;
            Vector256<byte> t54 = z6 ^ z7;
            Vector256<byte> t55 = z16 ^ z17;
            Vector256<byte> t56 = z12 ^ t48;
            Vector256<byte> t57 = t50 ^ t53;
            Vector256<byte> t58 = z4 ^ t46;
            Vector256<byte> t59 = z3 ^ t54;
            Vector256<byte> t60 = t46 ^ t57;
            Vector256<byte> t61 = z14 ^ t57;
            Vector256<byte> t62 = t52 ^ t58;
            Vector256<byte> t63 = t49 ^ t58;
            Vector256<byte> t64 = z4 ^ t59;
            Vector256<byte> t65 = t61 ^ t62;
            Vector256<byte> t66 = z1 ^ t63;
            Vector256<byte> t67 = t64 ^ t65;

            // s0 is the top bit (plane 7); s1, s2, s6, s7 would be complemented by the affine constant.
            q7 = t59 ^ t63;
            q1 = t56 ^ t62;
            q0 = t48 ^ t60;
            Vector256<byte> s3 = t53 ^ t66;
            q4 = s3;
            q3 = t51 ^ t66;
            q2 = t47 ^ t65;
            q6 = t64 ^ s3;
            q5 = t55 ^ t67;

            if (r == rounds)
            {
                break;
            }

            ShiftRowsMixColumns(ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
            AddRoundKey(ref Unsafe.Add(ref keys, 8 * r), ref q0, ref q1, ref q2, ref q3, ref q4, ref q5, ref q6, ref q7);
        }

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
        ref Vector256<byte> key,
        ref Vector256<byte> q0,
        ref Vector256<byte> q1,
        ref Vector256<byte> q2,
        ref Vector256<byte> q3,
        ref Vector256<byte> q4,
        ref Vector256<byte> q5,
        ref Vector256<byte> q6,
        ref Vector256<byte> q7)
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
        ref Vector256<byte> q0,
        ref Vector256<byte> q1,
        ref Vector256<byte> q2,
        ref Vector256<byte> q3,
        ref Vector256<byte> q4,
        ref Vector256<byte> q5,
        ref Vector256<byte> q6,
        ref Vector256<byte> q7)
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
    private static void SwapMove(ref Vector256<byte> low, ref Vector256<byte> high, [ConstantExpected] byte shift, ulong mask)
    {
        Vector256<ulong> a = low.AsUInt64(), b = high.AsUInt64();
        Vector256<ulong> t = (Vector256.ShiftRightLogical(a, shift) ^ b) & Vector256.Create(mask);
        high = (b ^ t).AsByte();
        low = (a ^ Vector256.ShiftLeft(t, shift)).AsByte();
    }

    // Byte shuffles on state positions p = 4 * column + row; Shuffle(x, index)[p] = x[index[p]].
    // The indices are constants: the positions of AES's fixed permutations, never data.

    /// <summary>ShiftRows: new (row r, column c) = old (r, c + r mod 4).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<byte> ShiftRows(Vector256<byte> plane) =>
        Avx2.Shuffle(plane, Vector256.Create(Vector128.Create((byte)0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11)));

    /// <summary>ShiftRows, then every row takes the next row's byte in its column: (r, c) = old (r + 1, c + r + 1).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<byte> ShiftRowsThenNextRow(Vector256<byte> plane) =>
        Avx2.Shuffle(plane, Vector256.Create(Vector128.Create((byte)5, 10, 15, 0, 9, 14, 3, 4, 13, 2, 7, 8, 1, 6, 11, 12)));

    /// <summary>Every row takes the byte two rows down in its column.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<byte> RowPlusTwo(Vector256<byte> plane) =>
        Avx2.Shuffle(plane, Vector256.Create(Vector128.Create((byte)2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)));

    /// <summary>
    /// ShiftRows and MixColumns of a round. With b = ShiftRows(a) and a(r) the byte in row r of a column,
    /// MixColumns is out(r) = 2 b(r) + 3 b(r+1) + b(r+2) + b(r+3) = 2 t(r) + b(r+1) + t(r+2) with
    /// t(r) = b(r) + b(r+1). b(r+1) comes straight from a by one shuffle (not two in a row: the
    /// two shuffles of a run side by side). Multiplying by 2 (xtime, modulo x^8+x^4+x^3+x+1) on
    /// planes: plane j takes plane j-1, and the old top plane 7 goes into planes 0, 1, 3 and 4 (0x1B).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ShiftRowsMixColumns(
        ref Vector256<byte> q0,
        ref Vector256<byte> q1,
        ref Vector256<byte> q2,
        ref Vector256<byte> q3,
        ref Vector256<byte> q4,
        ref Vector256<byte> q5,
        ref Vector256<byte> q6,
        ref Vector256<byte> q7)
    {
        Vector256<byte> n0 = ShiftRowsThenNextRow(q0), n1 = ShiftRowsThenNextRow(q1), n2 = ShiftRowsThenNextRow(q2), n3 = ShiftRowsThenNextRow(q3);
        Vector256<byte> n4 = ShiftRowsThenNextRow(q4), n5 = ShiftRowsThenNextRow(q5), n6 = ShiftRowsThenNextRow(q6), n7 = ShiftRowsThenNextRow(q7);
        Vector256<byte> t0 = ShiftRows(q0) ^ n0, t1 = ShiftRows(q1) ^ n1, t2 = ShiftRows(q2) ^ n2, t3 = ShiftRows(q3) ^ n3;
        Vector256<byte> t4 = ShiftRows(q4) ^ n4, t5 = ShiftRows(q5) ^ n5, t6 = ShiftRows(q6) ^ n6, t7 = ShiftRows(q7) ^ n7;
        q0 = t7 ^ n0 ^ RowPlusTwo(t0);
        q1 = t0 ^ t7 ^ n1 ^ RowPlusTwo(t1);
        q2 = t1 ^ n2 ^ RowPlusTwo(t2);
        q3 = t2 ^ t7 ^ n3 ^ RowPlusTwo(t3);
        q4 = t3 ^ t7 ^ n4 ^ RowPlusTwo(t4);
        q5 = t4 ^ n5 ^ RowPlusTwo(t5);
        q6 = t5 ^ n6 ^ RowPlusTwo(t6);
        q7 = t6 ^ n7 ^ RowPlusTwo(t7);
    }


    /// <summary>Overwrites the stack below the caller's frame, where <see cref="Ctr32Core"/> and <see cref="Encrypt16"/> just ran (spills, as in Aes.Bitsliced.cs).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory below does the clearing
    private static void BurnStack()
    {
        Span<byte> scratch = stackalloc byte[2048];
        CryptographicOperations.ZeroMemory(scratch);
    }
}
