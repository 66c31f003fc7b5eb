// POLYVAL (RFC 8452 section 3) with VPCLMULQDQ on 256-bit vectors: two blocks per carry-less
// multiply. Same arithmetic and key layout as Polyval.Pclmulqdq.cs (8 blocks per reduction,
// Karatsuba), with blocks and powers taken in pairs; short inputs use the 128-bit path.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

internal readonly struct PolyvalVpclmulqdq : IPolyval
{
    public static bool IsSupported => Pclmulqdq.V256.IsSupported && Avx2.IsSupported && PolyvalPclmulqdq.IsSupported;

    public static void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key) =>
        PolyvalClmul.Init(h, blockCount, ref key);

    public static void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks)
    {
        int wide = PolyvalClmul.HasPowers(in key) ? blocks.Length & ~127 : 0;
        if (wide != 0)
        {
            ref Vector256<ulong> pairs = ref Unsafe.As<Vector128<ulong>, Vector256<ulong>>(ref PolyvalClmul.Table(in key));
            ref byte source = ref MemoryMarshal.GetReference(blocks);
            Vector128<ulong> acc = Vector128.Create<byte>(accumulator).AsUInt64();
            for (nuint offset = 0; offset < (nuint)wide; offset += 128)
            {
                // Pair j holds blocks 2j, 2j+1 and meets powers H^(8-2j), H^(7-2j); the running
                // accumulator joins the first block only.
                Vector256<ulong> x = Vector256.LoadUnsafe(ref source, offset).AsUInt64() ^ Vector256.Create(acc, Vector128<ulong>.Zero);
                Vector256<ulong> power = pairs;
                Vector256<ulong> karatsuba = Unsafe.Add(ref pairs, PolyvalClmul.KaratsubaIndex / 2);
                Vector256<ulong> lo = Pclmulqdq.V256.CarrylessMultiply(x, power, 0x00);
                Vector256<ulong> hi = Pclmulqdq.V256.CarrylessMultiply(x, power, 0x11);
                Vector256<ulong> mid = Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), karatsuba, 0x00);
                for (int j = 1; j < 4; j++)
                {
                    x = Vector256.LoadUnsafe(ref source, offset + (nuint)(32 * j)).AsUInt64();
                    power = Unsafe.Add(ref pairs, j);
                    karatsuba = Unsafe.Add(ref pairs, (PolyvalClmul.KaratsubaIndex / 2) + j);
                    lo ^= Pclmulqdq.V256.CarrylessMultiply(x, power, 0x00);
                    hi ^= Pclmulqdq.V256.CarrylessMultiply(x, power, 0x11);
                    mid ^= Pclmulqdq.V256.CarrylessMultiply(x ^ SwapHalves(x), karatsuba, 0x00);
                }

                Vector128<ulong> lo128 = lo.GetLower() ^ lo.GetUpper();
                Vector128<ulong> hi128 = hi.GetLower() ^ hi.GetUpper();
                Vector128<ulong> mid128 = mid.GetLower() ^ mid.GetUpper();
                acc = PolyvalClmul.Reduce(lo128, mid128 ^ lo128 ^ hi128, hi128);
            }

            acc.AsByte().CopyTo(accumulator);
        }

        if (wide != blocks.Length)
        {
            PolyvalPclmulqdq.Update(in key, accumulator, blocks[wide..]);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> SwapHalves(Vector256<ulong> x) => Avx2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
