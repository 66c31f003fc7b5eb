// Estimates the core clock the benchmarks actually ran at, for the cycles-per-byte column:
// a virtual machine reports its nominal rate in /proc/cpuinfo, not the boost clock it runs at.
//
// Method: time a chain of dependent 64-bit integer multiplies. Each IMUL r64 waits for the
// previous one, so the chain runs at one multiply per IMUL latency: 3 cycles on AMD Zen 1-4 and
// Intel cores since Nehalem (Agner Fog's instruction tables; uops.info). The loop counter and
// branch run in parallel on other ports and do not lengthen the chain.
//   dotnet run -c Release --project Benchmarks -- --clock

using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Benchmarks;

public static class ClockRate
{
    private const int MultiplyLatencyCycles = 3;
    private const long Multiplies = 400_000_000;

    public static void Print()
    {
        double gigahertz = Estimate(out double best);
        Console.WriteLine($"Estimated clock: {gigahertz:F2} GHz ({Multiplies:N0} dependent 64-bit multiplies at {MultiplyLatencyCycles} cycles each, best of 5 runs: {best:F3} s)");
    }

    /// <summary>The estimated clock in GHz.</summary>
    public static double Estimate() => Estimate(out _);

    private static double Estimate(out double best)
    {
        // The multiplier is a runtime value so the JIT cannot fold the four multiplies into one.
        ulong multiplier = (ulong)Environment.TickCount64 | 1;
        Chain(1_000_000, 3, multiplier); // tier up before timing
        best = double.MaxValue;
        for (int run = 0; run < 5; run++)
        {
            var watch = Stopwatch.StartNew();
            ulong sink = Chain(Multiplies, (ulong)run + 3, multiplier);
            best = Math.Min(best, watch.Elapsed.TotalSeconds);
            GC.KeepAlive(sink);
        }

        return Multiplies * MultiplyLatencyCycles / best / 1e9;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Chain(long count, ulong x, ulong multiplier)
    {
        // Four multiplies per iteration keep the loop overhead off the chain's critical path.
        for (long i = 0; i < count; i += 4)
        {
            x *= multiplier;
            x *= multiplier;
            x *= multiplier;
            x *= multiplier;
        }

        return x;
    }
}
