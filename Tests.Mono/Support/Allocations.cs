// Tests/Allocations.cs for .NET Framework and Mono: they have no per-thread allocation counter
// (GC.GetAllocatedBytesForCurrentThread), so a zero-allocation check cannot be made here. It is
// reported as ignored, not passed; the net10.0 legs make it.

using System;
using NUnit.Framework;

namespace Tests;

public static class Allocations
{
    public static long[] PerRound(Action round, int rounds = 3)
    {
        Assert.Ignore("no per-thread allocation counter on .NET Framework / Mono; checked by the net10.0 legs");
        return [];
    }

    public static string Describe(long[] allocated, string round) => round;

    public static long Least(long[] allocated) => 0;
}
