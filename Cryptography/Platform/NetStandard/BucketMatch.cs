// netstandard2.0: Platform/Net/BucketMatch.cs's masks from NonceHistory's scalar loop (this build
// has no vector intrinsics); the same answers.

using System.Runtime.CompilerServices;

namespace Cryptography.NonceSafety;

/// <summary>A window bucket's slots compared; see NonceHistory.Window.</summary>
internal static class BucketMatch
{
    /// <summary>The live slots of a bucket (bit 7: the spill mark); see Platform/Net/BucketMatch.cs.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Live(ref uint bucket, uint last, uint capacity) => NonceHistory.Window.LiveScalar(ref bucket, last, capacity);

    /// <summary>The live slots whose fingerprint is <paramref name="fingerprint"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Candidates(ref uint bucket, uint fingerprint, uint last, uint capacity) => NonceHistory.Window.CandidatesScalar(ref bucket, fingerprint, last, capacity);

    /// <summary>The window's bucket words; unaligned here (no pinned heap on this build), which changes timing only.</summary>
    public static uint[] AllocateBuckets(int words, out int origin)
    {
        origin = 0;
        return new uint[words];
    }

    /// <summary>The lowest set bit's number of a non-zero mask (at most 8 bits here; public data, so a loop).</summary>
    public static int FirstLane(uint mask)
    {
        int lane = 0;
        while ((mask & 1) == 0 && lane < 31)
        {
            mask >>= 1;
            lane++;
        }

        return lane;
    }
}
