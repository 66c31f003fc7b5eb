// AES (FIPS-197) with the ARMv8 Cryptography Extension: AESE (AddRoundKey, SubBytes, ShiftRows)
// and AESMC (MixColumns). Round keys are FIPS-197 bytes at the start of AesKeySchedule, the same
// layout as the AES-NI backend. The instructions run in constant time.

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using ArmAes = System.Runtime.Intrinsics.Arm.Aes;

namespace Cryptography.Internal;

internal readonly struct AesArm64 : IAesBlock
{
    private const int BlockSize = 16;

    // FIPS-197 section 5.2 round constants, as the low byte of a little-endian word.
    private static ReadOnlySpan<byte> RoundConstants => [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

    public static bool IsSupported => ArmAes.IsSupported && AdvSimd.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
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

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // never run unoptimised: Tier0 code keeps every local, keys included, in stack slots
    public static void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output)
    {
        ref Vector128<byte> roundKeys = ref RoundKeys(in schedule);
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        int blocks = input.Length / BlockSize;
        int i = 0;
        for (; i + 4 <= blocks; i += 4)
        {
            nuint offset = (nuint)(i * BlockSize);
            Vector128<byte> b0 = Vector128.LoadUnsafe(ref source, offset);
            Vector128<byte> b1 = Vector128.LoadUnsafe(ref source, offset + 16);
            Vector128<byte> b2 = Vector128.LoadUnsafe(ref source, offset + 32);
            Vector128<byte> b3 = Vector128.LoadUnsafe(ref source, offset + 48);
            for (int r = 0; r < rounds - 1; r++)
            {
                Vector128<byte> k = Unsafe.Add(ref roundKeys, r);
                b0 = ArmAes.MixColumns(ArmAes.Encrypt(b0, k));
                b1 = ArmAes.MixColumns(ArmAes.Encrypt(b1, k));
                b2 = ArmAes.MixColumns(ArmAes.Encrypt(b2, k));
                b3 = ArmAes.MixColumns(ArmAes.Encrypt(b3, k));
            }

            Vector128<byte> penultimate = Unsafe.Add(ref roundKeys, rounds - 1);
            Vector128<byte> last = Unsafe.Add(ref roundKeys, rounds);
            (ArmAes.Encrypt(b0, penultimate) ^ last).StoreUnsafe(ref destination, offset);
            (ArmAes.Encrypt(b1, penultimate) ^ last).StoreUnsafe(ref destination, offset + 16);
            (ArmAes.Encrypt(b2, penultimate) ^ last).StoreUnsafe(ref destination, offset + 32);
            (ArmAes.Encrypt(b3, penultimate) ^ last).StoreUnsafe(ref destination, offset + 48);
        }

        for (; i < blocks; i++)
        {
            nuint offset = (nuint)(i * BlockSize);
            EncryptBlock(ref roundKeys, rounds, Vector128.LoadUnsafe(ref source, offset)).StoreUnsafe(ref destination, offset);
        }
    }

    public static void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output) =>
        CtrMode<AesArm64>.Apply(in schedule, rounds, counterBlock, input, output);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block) =>
        EncryptBlock(ref RoundKeys(in schedule), rounds, block);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<uint> Ctr8(in AesKeySchedule schedule, int rounds, Vector128<uint> counter, ref byte input, ref byte output)
    {
        // Eight independent blocks hide the AESE/AESMC latency. Lane 0 is the little-endian 32-bit
        // counter; a 32-bit lane add wraps mod 2^32 (RFC 8452).
        ref Vector128<byte> roundKeys = ref RoundKeys(in schedule);
        Vector128<byte> b0 = counter.AsByte();
        Vector128<byte> b1 = (counter + Vector128.Create(1u, 0, 0, 0)).AsByte();
        Vector128<byte> b2 = (counter + Vector128.Create(2u, 0, 0, 0)).AsByte();
        Vector128<byte> b3 = (counter + Vector128.Create(3u, 0, 0, 0)).AsByte();
        Vector128<byte> b4 = (counter + Vector128.Create(4u, 0, 0, 0)).AsByte();
        Vector128<byte> b5 = (counter + Vector128.Create(5u, 0, 0, 0)).AsByte();
        Vector128<byte> b6 = (counter + Vector128.Create(6u, 0, 0, 0)).AsByte();
        Vector128<byte> b7 = (counter + Vector128.Create(7u, 0, 0, 0)).AsByte();
        for (int r = 0; r < rounds - 1; r++)
        {
            Vector128<byte> k = Unsafe.Add(ref roundKeys, r);
            b0 = ArmAes.MixColumns(ArmAes.Encrypt(b0, k));
            b1 = ArmAes.MixColumns(ArmAes.Encrypt(b1, k));
            b2 = ArmAes.MixColumns(ArmAes.Encrypt(b2, k));
            b3 = ArmAes.MixColumns(ArmAes.Encrypt(b3, k));
            b4 = ArmAes.MixColumns(ArmAes.Encrypt(b4, k));
            b5 = ArmAes.MixColumns(ArmAes.Encrypt(b5, k));
            b6 = ArmAes.MixColumns(ArmAes.Encrypt(b6, k));
            b7 = ArmAes.MixColumns(ArmAes.Encrypt(b7, k));
        }

        Vector128<byte> penultimate = Unsafe.Add(ref roundKeys, rounds - 1);
        Vector128<byte> last = Unsafe.Add(ref roundKeys, rounds);
        (ArmAes.Encrypt(b0, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input)).StoreUnsafe(ref output);
        (ArmAes.Encrypt(b1, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 16)).StoreUnsafe(ref output, 16);
        (ArmAes.Encrypt(b2, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 32)).StoreUnsafe(ref output, 32);
        (ArmAes.Encrypt(b3, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 48)).StoreUnsafe(ref output, 48);
        (ArmAes.Encrypt(b4, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 64)).StoreUnsafe(ref output, 64);
        (ArmAes.Encrypt(b5, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 80)).StoreUnsafe(ref output, 80);
        (ArmAes.Encrypt(b6, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 96)).StoreUnsafe(ref output, 96);
        (ArmAes.Encrypt(b7, penultimate) ^ last ^ Vector128.LoadUnsafe(ref input, 112)).StoreUnsafe(ref output, 112);
        return counter + Vector128.Create(8u, 0, 0, 0);
    }

    /// <summary>
    /// SubWord through AESE with a zero round key: with the word in all four columns, ShiftRows
    /// only moves equal bytes, so lane 0 of the result is the S-box applied to each byte.
    /// </summary>
    private static uint SubWord(uint word) =>
        ArmAes.Encrypt(Vector128.Create(word).AsByte(), Vector128<byte>.Zero).AsUInt32().ToScalar();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> EncryptBlock(ref Vector128<byte> roundKeys, int rounds, Vector128<byte> block)
    {
        for (int r = 0; r < rounds - 1; r++)
        {
            block = ArmAes.MixColumns(ArmAes.Encrypt(block, Unsafe.Add(ref roundKeys, r)));
        }

        return ArmAes.Encrypt(block, Unsafe.Add(ref roundKeys, rounds - 1)) ^ Unsafe.Add(ref roundKeys, rounds);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Vector128<byte> RoundKeys(in AesKeySchedule schedule) =>
        ref Unsafe.As<AesKeySchedule, Vector128<byte>>(ref Unsafe.AsRef(in schedule));
}
