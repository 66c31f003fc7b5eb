// Whether AES rounds and carry-less multiplies run side by side on this CPU, or compete for the
// same execution pipes: the question behind issue 33's one miss (docs/benchmarks.md), since a
// decryption loop that stitches CTR and POLYVAL can only beat two passes if they overlap.
//
// Method: time loops of independent dependency chains, each chain one instruction per step: AESENC
// alone (12 chains: the JIT gives AES instructions only the 16 legacy vector registers, and a loop of
// 16 chains spilled, taking 13 cycles a step instead of 8), 256-bit VPCLMULQDQ alone (4 and 8 chains: its throughput), and the two merged in one
// body. With 12 AES chains (6 cycles a step at two AESENC a cycle) and a few
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
        (string Name, Func<Vector128<byte>, int, Vector128<byte>> Loop, int Multiplies)[] loops =
        [
            ("12 AESENC", Aes12, 0),
            ("12 AESENC + 2 VPCLMULQDQ", Aes12, 2),
            ("12 AESENC + 3 VPCLMULQDQ", Aes12, 3),
            ("4 VPCLMULQDQ", Clmul, 4),
            ("8 VPCLMULQDQ", Clmul, 8),
        ];
        double[][] times = [.. loops.Select(_ => new double[21])];
        for (int round = -2; round < 21; round++)
        {
            for (int i = 0; i < loops.Length; i++)
            {
                long start = Stopwatch.GetTimestamp();
                GC.KeepAlive(loops[i].Loop(key, loops[i].Multiplies));
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

    // The loops are written out, one per case, not chosen by a branch inside one loop: with a
    // branch per multiply the merged cases ran 1.4 and 3.4 cycles slower than straight-line code
    // (one run, with another build on the machine), and a decryption loop is straight-line code. 12 AESENC chains, and 0, 2 or 3 VPCLMULQDQ chains, per step.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12(Vector128<byte> k, int multiplies) => multiplies switch
    {
        0 => Aes12Clmul0(k),
        2 => Aes12Clmul2(k),
        _ => Aes12Clmul3(k),
    };

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul0(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k;
        Vector128<byte> a6 = a5 + k, a7 = a6 + k, a8 = a7 + k, a9 = a8 + k, a10 = a9 + k, a11 = a10 + k;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            a8 = Aes.Encrypt(a8, k); a9 = Aes.Encrypt(a9, k); a10 = Aes.Encrypt(a10, k); a11 = Aes.Encrypt(a11, k);
        }

        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul2(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k;
        Vector128<byte> a6 = a5 + k, a7 = a6 + k, a8 = a7 + k, a9 = a8 + k, a10 = a9 + k, a11 = a10 + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01);
            a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k); a8 = Aes.Encrypt(a8, k); a9 = Aes.Encrypt(a9, k);
            a10 = Aes.Encrypt(a10, k); a11 = Aes.Encrypt(a11, k);
            c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Aes12Clmul3(Vector128<byte> k)
    {
        Vector128<byte> a0 = k, a1 = k + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k;
        Vector128<byte> a6 = a5 + k, a7 = a6 + k, a8 = a7 + k, a9 = a8 + k, a10 = a9 + k, a11 = a10 + k;
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = c1 + m;
        for (int i = 0; i < Steps; i++)
        {
            a0 = Aes.Encrypt(a0, k); a1 = Aes.Encrypt(a1, k); a2 = Aes.Encrypt(a2, k); a3 = Aes.Encrypt(a3, k);
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01);
            a4 = Aes.Encrypt(a4, k); a5 = Aes.Encrypt(a5, k); a6 = Aes.Encrypt(a6, k); a7 = Aes.Encrypt(a7, k);
            c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            a8 = Aes.Encrypt(a8, k); a9 = Aes.Encrypt(a9, k); a10 = Aes.Encrypt(a10, k); a11 = Aes.Encrypt(a11, k);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2;
        return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    // 4 or 8 VPCLMULQDQ chains per step, written out as above.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul(Vector128<byte> k, int multiplies) => multiplies == 4 ? Clmul4(k) : Clmul8(k);

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul4(Vector128<byte> k)
    {
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = c1 + m, c3 = c2 + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3;
        return (c.GetLower() ^ c.GetUpper()).AsByte();
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<byte> Clmul8(Vector128<byte> k)
    {
        Vector256<ulong> m = Vector256.Create(k.AsUInt64(), k.AsUInt64() + k.AsUInt64());
        Vector256<ulong> c0 = m, c1 = m + m, c2 = c1 + m, c3 = c2 + m, c4 = c3 + m, c5 = c4 + m, c6 = c5 + m, c7 = c6 + m;
        for (int i = 0; i < Steps; i++)
        {
            c0 = Pclmulqdq.V256.CarrylessMultiply(c0, m, 0x01); c1 = Pclmulqdq.V256.CarrylessMultiply(c1, m, 0x01);
            c2 = Pclmulqdq.V256.CarrylessMultiply(c2, m, 0x01); c3 = Pclmulqdq.V256.CarrylessMultiply(c3, m, 0x01);
            c4 = Pclmulqdq.V256.CarrylessMultiply(c4, m, 0x01); c5 = Pclmulqdq.V256.CarrylessMultiply(c5, m, 0x01);
            c6 = Pclmulqdq.V256.CarrylessMultiply(c6, m, 0x01); c7 = Pclmulqdq.V256.CarrylessMultiply(c7, m, 0x01);
        }

        Vector256<ulong> c = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
        return (c.GetLower() ^ c.GetUpper()).AsByte();
    }
}
