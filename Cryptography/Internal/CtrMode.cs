// RFC 8452 CTR mode (section 4) for the vector AES backends (AES-NI, ARM64): batches of 8 blocks
// through the backend's Ctr8, then single blocks, then a final partial block through a stack
// buffer so nothing past the spans is touched. The portable backend has its own 4-block driver.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>An AES backend that encrypts one block held in a vector.</summary>
internal interface IAesBlock : IAes
{
    static abstract Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block);
}

internal static class CtrMode<TAes>
    where TAes : IAesBlock
{
    private const int BlockSize = 16;
    private const int Batch = 8 * BlockSize;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Apply(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output)
    {
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);

        // The counter is lane 0 as a little-endian uint32; a 32-bit lane add wraps mod 2^32 exactly
        // as RFC 8452 requires and leaves the other 96 bits alone.
        Vector128<uint> counter = Vector128.Create(counterBlock).AsUInt32();
        Vector128<uint> one = Vector128.Create(1u, 0, 0, 0);
        int length = input.Length;
        nuint offset = 0;

        for (; length >= Batch; length -= Batch, offset += Batch)
        {
            counter = TAes.Ctr8(in schedule, rounds, counter, ref Unsafe.Add(ref source, offset), ref Unsafe.Add(ref destination, offset));
        }

        for (; length >= BlockSize; length -= BlockSize, offset += BlockSize)
        {
            Vector128<byte> keystream = TAes.EncryptBlock(in schedule, rounds, counter.AsByte());
            counter += one;
            (keystream ^ Vector128.LoadUnsafe(ref source, offset)).StoreUnsafe(ref destination, offset);
        }

        if (length > 0)
        {
            Span<byte> keystream = stackalloc byte[BlockSize];
            TAes.EncryptBlock(in schedule, rounds, counter.AsByte()).CopyTo(keystream);
            for (int i = 0; i < length; i++)
            {
                Unsafe.Add(ref destination, offset + (nuint)i) = (byte)(Unsafe.Add(ref source, offset + (nuint)i) ^ keystream[i]);
            }

            CryptographicOperations.ZeroMemory(keystream);
        }
    }
}
