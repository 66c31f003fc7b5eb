// net10.0: the nonce history's window compares a bucket's slots at once (NonceHistory.Window,
// issue 49): one 32-byte compare of the fingerprints and one of the slots' ages, a bit mask out.
// Platform/NetStandard/BucketMatch.cs gives the same masks from NonceHistory's scalar loop; the
// vector and scalar paths answer the same for every input (HistoryTests checks them against each other).

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cryptography.NonceSafety;

/// <summary>A window bucket's slots compared at once; see NonceHistory.Window.</summary>
internal static class BucketMatch
{
    /// <summary>
    /// The live slots of a bucket (bit i: slot i, bit 7: the bucket's spill mark): those whose
    /// sequence number <c>s</c> has <c>last - s &lt; capacity</c> (unsigned, modulo 2^32).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Live(ref uint bucket, uint last, uint capacity)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            Vector256<uint> ages = Vector256.Create(last) - Vector256.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset);
            return Vector256.LessThan(ages, Vector256.Create(capacity)).ExtractMostSignificantBits();
        }

        if (Vector128.IsHardwareAccelerated)
        {
            Vector128<uint> limit = Vector128.Create(capacity);
            Vector128<uint> ages0 = Vector128.Create(last) - Vector128.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset);
            Vector128<uint> ages1 = Vector128.Create(last) - Vector128.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset + 4);
            return Vector128.LessThan(ages0, limit).ExtractMostSignificantBits() | (Vector128.LessThan(ages1, limit).ExtractMostSignificantBits() << 4);
        }

        return NonceHistory.Window.LiveScalar(ref bucket, last, capacity);
    }

    /// <summary>The live slots (not the spill mark) whose fingerprint is <paramref name="fingerprint"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Candidates(ref uint bucket, uint fingerprint, uint last, uint capacity)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            Vector256<uint> ages = Vector256.Create(last) - Vector256.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset);
            Vector256<uint> match = Vector256.Equals(Vector256.LoadUnsafe(ref bucket), Vector256.Create(fingerprint)) & Vector256.LessThan(ages, Vector256.Create(capacity));
            return match.ExtractMostSignificantBits() & NonceHistory.Window.SlotMask;
        }

        if (Vector128.IsHardwareAccelerated)
        {
            Vector128<uint> limit = Vector128.Create(capacity), wanted = Vector128.Create(fingerprint);
            Vector128<uint> ages0 = Vector128.Create(last) - Vector128.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset);
            Vector128<uint> ages1 = Vector128.Create(last) - Vector128.LoadUnsafe(ref bucket, NonceHistory.Window.SequenceOffset + 4);
            uint low = (Vector128.Equals(Vector128.LoadUnsafe(ref bucket), wanted) & Vector128.LessThan(ages0, limit)).ExtractMostSignificantBits();
            uint high = (Vector128.Equals(Vector128.LoadUnsafe(ref bucket, 4), wanted) & Vector128.LessThan(ages1, limit)).ExtractMostSignificantBits();
            return (low | (high << 4)) & NonceHistory.Window.SlotMask;
        }

        return NonceHistory.Window.CandidatesScalar(ref bucket, fingerprint, last, capacity);
    }

    /// <summary>The window's bucket words: pinned and over-allocated by a line, <paramref name="origin"/> the first word on a 64-byte boundary, so a bucket is one line.</summary>
    public static unsafe uint[] AllocateBuckets(int words, out int origin)
    {
        uint[] array = System.GC.AllocateArray<uint>(words + 16, pinned: true);
        origin = (int)((64 - ((nuint)Unsafe.AsPointer(ref array[0]) & 63)) & 63) / sizeof(uint);
        return array;
    }

    /// <summary>The lowest set bit's number of a non-zero mask.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int FirstLane(uint mask) => System.Numerics.BitOperations.TrailingZeroCount(mask);
}
