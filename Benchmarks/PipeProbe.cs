// Whether AES rounds and carry-less multiplies run side by side on this CPU, or compete for the
// same execution pipes: the question behind issue 33's one miss (docs/benchmarks.md), since a
// decryption loop that stitches CTR and POLYVAL can only beat two passes if they overlap.
//
// Method: time loops of independent dependency chains, each chain one instruction per step: AESENC
// alone (8 or 12 chains: x64's AES instructions take only the 16 legacy vector registers, so more
// chains would spill), carry-less multiplies alone (4, 8, 12 chains, 256-bit and 128-bit), and the
// two merged in one body. With 12 AES chains (6 cycles a step at two AESENC a cycle) and a few
// multiplies, the merged loop takes 6 cycles if the multiplies run on pipes of their own, and more
// by the pipe time they take if they share the AES pipes. Medians of 21 rounds, in cycles per loop
// step at the clock --clock estimates (the same method, run first). Needs a quiet machine: two
// processes on one core's two hardware threads share its pipes too.
//   dotnet run -c Release --project Benchmarks -- --pipe-probe

using System;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Benchmarks;

internal static class PipeProbe
{
    private const int Steps = 2_000_000;

    public static int Run()
    {
        if (!Aes.IsSupported || !Pclmulqdq.V256.IsSupported)
        {
            Console.WriteLine("# needs AES-NI and VPCLMULQDQ: nothing to measure here");
            return 0;
        }

        double gigahertz = ClockRate.Estimate();
        Vector128<byte> key = Vector128.Create((byte)Environment.TickCount);
        (string Name, Func<Vector128<byte>, Vector128<byte>> Loop)[] loops =
        [
            ("8 AESENC", Aes8),
            ("12 AESENC", Aes12),
            ("12 AESENC + 2 VPCLMULQDQ (256-bit)", Aes12Clmul256x2),
            ("12 AESENC + 3 VPCLMULQDQ (256-bit)", Aes12Clmul256x3),
            ("12 AESENC + 2 PCLMULQDQ (128-bit)", Aes12Clmul128x2),
            ("12 AESENC + 3 PCLMULQDQ (128-bit)", Aes12Clmul128x3),
            ("4 VPCLMULQDQ (256-bit)", Clmul256x4),
            ("8 AESENC + 4 VPCLMULQDQ (256-bit)", Aes8Clmul256x4),
            ("8 VPCLMULQDQ (256-bit)", Clmul256x8),
            ("8 AESENC + 8 VPCLMULQDQ (256-bit)", Aes8Clmul256x8),
            ("12 VPCLMULQDQ (256-bit)", Clmul256x12),
            ("8 AESENC + 12 VPCLMULQDQ (256-bit)", Aes8Clmul256x12),
            ("4 PCLMULQDQ (128-bit)", Clmul128x4),
            ("8 AESENC + 4 PCLMULQDQ (128-bit)", Aes8Clmul128x4),
            ("8 PCLMULQDQ (128-bit)", Clmul128x8),
            ("8 AESENC + 8 PCLMULQDQ (128-bit)", Aes8Clmul128x8),
            ("12 PCLMULQDQ (128-bit)", Clmul128x12),
            ("8 AESENC + 12 PCLMULQDQ (128-bit)", Aes8Clmul128x12),
        ];
        double[][] times = [.. loops.Select(_ => new double[21])];
        for (int round = -2; round < 21; round++)
        {
            for (int i = 0; i < loops.Length; i++)
            {
                long start = Stopwatch.GetTimestamp();
                GC.KeepAlive(loops[i].Loop(key));
                double cycles = Stopwatch.GetElapsedTime(start).TotalNanoseconds * gigahertz / Steps;
                if (round >= 0)
                {
                    times[i][round] = cycles;
                }
            }
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# cycles per loop step at {gigahertz:F2} GHz, median of 21 rounds"));
        for (int i = 0; i < loops.Length; i++)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {loops[i].Name} | {times[i].Order().ElementAt(10):F2} |"));
        }

        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
        }

        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul256x4(Vector128<byte> k)
    {
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3;
        return (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul256x4(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul256x8(Vector128<byte> k)
    {
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
            c4 = Pclmulqdq.V256.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.V256.CarrylessMultiply(c5, m, 0x01); c6 = Pclmulqdq.V256.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.V256.CarrylessMultiply(c7, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
        return (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul256x8(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c4 = Pclmulqdq.V256.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.V256.CarrylessMultiply(c5, m, 0x01); c6 = Pclmulqdq.V256.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.V256.CarrylessMultiply(c7, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul256x12(Vector128<byte> k)
    {
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m, c8 = m + m + m + m + m + m + m + m + m, c9 = m + m + m + m + m + m + m + m + m + m, c10 = m + m + m + m + m + m + m + m + m + m + m, c11 = m + m + m + m + m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01); c4 = Pclmulqdq.V256.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.V256.CarrylessMultiply(c5, m, 0x01);
            c6 = Pclmulqdq.V256.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.V256.CarrylessMultiply(c7, m, 0x01); c8 = Pclmulqdq.V256.CarrylessMultiply(c8, m, 0x01); c9 = Pclmulqdq.V256.CarrylessMultiply(c9, m, 0x01); c10 = Pclmulqdq.V256.CarrylessMultiply(c10, m, 0x01); c11 = Pclmulqdq.V256.CarrylessMultiply(c11, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11;
        return (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul256x12(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m, c8 = m + m + m + m + m + m + m + m + m, c9 = m + m + m + m + m + m + m + m + m + m, c10 = m + m + m + m + m + m + m + m + m + m + m, c11 = m + m + m + m + m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01); c4 = Pclmulqdq.V256.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.V256.CarrylessMultiply(c5, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c6 = Pclmulqdq.V256.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.V256.CarrylessMultiply(c7, m, 0x01); c8 = Pclmulqdq.V256.CarrylessMultiply(c8, m, 0x01); c9 = Pclmulqdq.V256.CarrylessMultiply(c9, m, 0x01); c10 = Pclmulqdq.V256.CarrylessMultiply(c10, m, 0x01); c11 = Pclmulqdq.V256.CarrylessMultiply(c11, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul128x4(Vector128<byte> k)
    {
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01);
            c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3;
        return c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul128x4(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul128x8(Vector128<byte> k)
    {
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01);
            c4 = Pclmulqdq.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.CarrylessMultiply(c5, m, 0x01); c6 = Pclmulqdq.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.CarrylessMultiply(c7, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
        return c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul128x8(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c4 = Pclmulqdq.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.CarrylessMultiply(c5, m, 0x01); c6 = Pclmulqdq.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.CarrylessMultiply(c7, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul128x12(Vector128<byte> k)
    {
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m, c8 = m + m + m + m + m + m + m + m + m, c9 = m + m + m + m + m + m + m + m + m + m, c10 = m + m + m + m + m + m + m + m + m + m + m, c11 = m + m + m + m + m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01); c4 = Pclmulqdq.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.CarrylessMultiply(c5, m, 0x01);
            c6 = Pclmulqdq.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.CarrylessMultiply(c7, m, 0x01); c8 = Pclmulqdq.CarrylessMultiply(c8, m, 0x01); c9 = Pclmulqdq.CarrylessMultiply(c9, m, 0x01); c10 = Pclmulqdq.CarrylessMultiply(c10, m, 0x01); c11 = Pclmulqdq.CarrylessMultiply(c11, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11;
        return c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes8Clmul128x12(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m, c3 = m + m + m + m, c4 = m + m + m + m + m, c5 = m + m + m + m + m + m, c6 = m + m + m + m + m + m + m, c7 = m + m + m + m + m + m + m + m, c8 = m + m + m + m + m + m + m + m + m, c9 = m + m + m + m + m + m + m + m + m + m, c10 = m + m + m + m + m + m + m + m + m + m + m, c11 = m + m + m + m + m + m + m + m + m + m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01); c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.CarrylessMultiply(c3, m, 0x01); c4 = Pclmulqdq.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.CarrylessMultiply(c5, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c6 = Pclmulqdq.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.CarrylessMultiply(c7, m, 0x01); c8 = Pclmulqdq.CarrylessMultiply(c8, m, 0x01); c9 = Pclmulqdq.CarrylessMultiply(c9, m, 0x01); c10 = Pclmulqdq.CarrylessMultiply(c10, m, 0x01); c11 = Pclmulqdq.CarrylessMultiply(c11, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = k + k + k, a3 = k + k + k + k, a4 = k + k + k + k + k, a5 = k + k + k + k + k + k, a6 = k + k + k + k + k + k + k, a7 = k + k + k + k + k + k + k + k, a8 = k + k + k + k + k + k + k + k + k, a9 = k + k + k + k + k + k + k + k + k + k, a10 = k + k + k + k + k + k + k + k + k + k + k, a11 = k + k + k + k + k + k + k + k + k + k + k + k;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k);
            a1 = Aes.Encrypt(a1, k);
            a2 = Aes.Encrypt(a2, k);
            a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k);
            a5 = Aes.Encrypt(a5, k);
            a6 = Aes.Encrypt(a6, k);
            a7 = Aes.Encrypt(a7, k);
            a8 = Aes.Encrypt(a8, k);
            a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k);
            a11 = Aes.Encrypt(a11, k);
        }

        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul256x2(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = k + k + k, a3 = k + k + k + k, a4 = k + k + k + k + k, a5 = k + k + k + k + k + k, a6 = k + k + k + k + k + k + k, a7 = k + k + k + k + k + k + k + k, a8 = k + k + k + k + k + k + k + k + k, a9 = k + k + k + k + k + k + k + k + k + k, a10 = k + k + k + k + k + k + k + k + k + k + k, a11 = k + k + k + k + k + k + k + k + k + k + k + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k);
            a1 = Aes.Encrypt(a1, k);
            a2 = Aes.Encrypt(a2, k);
            a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k);
            a5 = Aes.Encrypt(a5, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01);
            a6 = Aes.Encrypt(a6, k);
            a7 = Aes.Encrypt(a7, k);
            a8 = Aes.Encrypt(a8, k);
            a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k);
            a11 = Aes.Encrypt(a11, k);
            c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul256x3(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = k + k + k, a3 = k + k + k + k, a4 = k + k + k + k + k, a5 = k + k + k + k + k + k, a6 = k + k + k + k + k + k + k, a7 = k + k + k + k + k + k + k + k, a8 = k + k + k + k + k + k + k + k + k, a9 = k + k + k + k + k + k + k + k + k + k, a10 = k + k + k + k + k + k + k + k + k + k + k, a11 = k + k + k + k + k + k + k + k + k + k + k + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k);
            a1 = Aes.Encrypt(a1, k);
            a2 = Aes.Encrypt(a2, k);
            a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01);
            a4 = Aes.Encrypt(a4, k);
            a5 = Aes.Encrypt(a5, k);
            a6 = Aes.Encrypt(a6, k);
            a7 = Aes.Encrypt(a7, k);
            c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            a8 = Aes.Encrypt(a8, k);
            a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k);
            a11 = Aes.Encrypt(a11, k);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul128x2(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = k + k + k, a3 = k + k + k + k, a4 = k + k + k + k + k, a5 = k + k + k + k + k + k, a6 = k + k + k + k + k + k + k, a7 = k + k + k + k + k + k + k + k, a8 = k + k + k + k + k + k + k + k + k, a9 = k + k + k + k + k + k + k + k + k + k, a10 = k + k + k + k + k + k + k + k + k + k + k, a11 = k + k + k + k + k + k + k + k + k + k + k + k;
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k);
            a1 = Aes.Encrypt(a1, k);
            a2 = Aes.Encrypt(a2, k);
            a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k);
            a5 = Aes.Encrypt(a5, k);
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01);
            a6 = Aes.Encrypt(a6, k);
            a7 = Aes.Encrypt(a7, k);
            a8 = Aes.Encrypt(a8, k);
            a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k);
            a11 = Aes.Encrypt(a11, k);
            c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ c.AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul128x3(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = k + k + k, a3 = k + k + k + k, a4 = k + k + k + k + k, a5 = k + k + k + k + k + k, a6 = k + k + k + k + k + k + k, a7 = k + k + k + k + k + k + k + k, a8 = k + k + k + k + k + k + k + k + k, a9 = k + k + k + k + k + k + k + k + k + k, a10 = k + k + k + k + k + k + k + k + k + k + k, a11 = k + k + k + k + k + k + k + k + k + k + k + k;
        Vector128<ulong> m = k.AsUInt64();
        Vector128<ulong> c0 = m, c1 = m + m, c2 = m + m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k);
            a1 = Aes.Encrypt(a1, k);
            a2 = Aes.Encrypt(a2, k);
            a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.CarrylessMultiply(c0, m, 0x01);
            a4 = Aes.Encrypt(a4, k);
            a5 = Aes.Encrypt(a5, k);
            a6 = Aes.Encrypt(a6, k);
            a7 = Aes.Encrypt(a7, k);
            c1 = Pclmulqdq.CarrylessMultiply(c1, m, 0x01);
            a8 = Aes.Encrypt(a8, k);
            a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k);
            a11 = Aes.Encrypt(a11, k);
            c2 = Pclmulqdq.CarrylessMultiply(c2, m, 0x01);
        }

        Vector128<ulong> c = c0 ^ c1 ^ c2;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ c.AsByte();
    }
}
