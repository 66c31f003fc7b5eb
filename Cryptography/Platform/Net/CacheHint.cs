// net10.0: a hint that a line of memory will be needed soon (x86's PREFETCHT0). The nonce history
// asks for the lines a guarded encryption will touch after the AEAD, before the AEAD runs
// (NonceHistory.Prefetch, issue 49). Platform/NetStandard/CacheHint.cs is the same hint as a no-op.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

/// <summary>Cache hints; they change timing only, never a result.</summary>
internal static class CacheHint
{
    /// <summary>
    /// Asks for the cache line holding <paramref name="location"/> to be brought into every cache
    /// level, without waiting for it. A prefetch never faults and is never waited on, so a stale
    /// address (the array moved by the GC after the pointer was taken) costs nothing but the hint.
    /// Only on x86 (SSE): .NET has no prefetch intrinsic for ARM64, where this does nothing.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static unsafe void Prefetch<T>(ref T location)
    {
        if (Sse.IsSupported)
        {
            Sse.Prefetch0(Unsafe.AsPointer(ref location));
        }
    }
}
