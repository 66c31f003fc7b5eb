// AES (FIPS-197) with the ARMv8 Cryptography Extension: the key expansion, and the rounds that
// Aes.Vector.cs runs, from AESE (AddRoundKey, SubBytes, ShiftRows) and AESMC (MixColumns). Round keys are FIPS-197 bytes at the start of AesKeySchedule, the same
// layout as the AES-NI backend. The instructions run in constant time.

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using ArmAes = System.Runtime.Intrinsics.Arm.Aes;

namespace Cryptography.Internal;

internal readonly struct AesArm64 : IAesInstructions
{
    // FIPS-197 section 5.2 round constants, as the low byte of a little-endian word.
    private static ReadOnlySpan<byte> RoundConstants => [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

    public static bool IsSupported => ArmAes.IsSupported && AdvSimd.IsSupported;

    // Never run unoptimised (Tier0 code keeps every local, keys included, in stack slots), and never
    // inlined: inlined into a caller, the JIT kept the key words in stack slots of its frame.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        // FIPS-197 figure 11 on 32-bit little-endian words, which is the byte layout AESE expects.
        Span<uint> words = MemoryMarshal.Cast<ulong, uint>((Span<ulong>)schedule);
        int nk = key.Length / 4;
        int total = 4 * ((key.Length == 16 ? 10 : 14) + 1);
        for (int i = 0; i < nk; i++)
        {
            words[i] = BinaryPrimitives.ReadUInt32LittleEndian(key[(4 * i)..]);
        }

        for (int i = nk; i < total; i++)
        {
            uint temp = words[i - 1];
            if (i % nk == 0)
            {
                // RotWord on a little-endian word is a right rotation by 8 bits.
                temp = SubWord(uint.RotateRight(temp, 8)) ^ RoundConstants[(i / nk) - 1];
            }
            else if (nk > 6 && i % nk == 4)
            {
                temp = SubWord(temp);
            }

            words[i] = words[i - nk] ^ temp;
        }
    }

    // AESE adds the round key before SubBytes and ShiftRows, and AESMC is MixColumns: round r is
    // AESMC(AESE(block, k_r)); the penultimate key goes through AESE alone and the last is XORed.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> First(Vector128<byte> block, Vector128<byte> roundKey) => ArmAes.MixColumns(ArmAes.Encrypt(block, roundKey));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Round(Vector128<byte> block, Vector128<byte> roundKey) => ArmAes.MixColumns(ArmAes.Encrypt(block, roundKey));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Penultimate(Vector128<byte> block, Vector128<byte> roundKey) => ArmAes.Encrypt(block, roundKey);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> Final(Vector128<byte> block, Vector128<byte> roundKey) => block ^ roundKey;

    /// <summary>
    /// SubWord through AESE with a zero round key: with the word in all four columns, ShiftRows
    /// only moves equal bytes, so lane 0 of the result is the S-box applied to each byte.
    /// </summary>
    private static uint SubWord(uint word) =>
        ArmAes.Encrypt(Vector128.Create(word).AsByte(), Vector128<byte>.Zero).AsUInt32().ToScalar();
}
