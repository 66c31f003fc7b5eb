// The lifetime of a key shared by concurrent calls, checked without a lock-prefixed instruction per
// call (issue 49). The guarantee is CallCounter's: a call that returns never used a wiped key, and
// a call that starts after Dispose throws ObjectDisposedException. CallCounter keeps it by counting
// calls in flight with two interlocked instructions per call, about 20 cycles each on Intel cores
// (a few on Zen), so that Dispose never wipes under a call. Here a call instead checks, after it has
// read the key for the last time, that Dispose has not begun: if it has, the call may have read
// wiped words, so the caller zeroes the call's outputs and throws ObjectDisposedException as if the
// call had started after Dispose. Dispose wipes at once.
//
// Why the check after the call sees every Dispose whose wipe the call could have read: Close sets
// the flag with an interlocked exchange (a full fence), so the flag's store is visible before any
// store of the wipe that follows it. If one of the call's loads of the key saw a wiped word,
// every later load of the call sees the flag: Volatile.ReadBarrier keeps the flag's load after the
// key's loads (free on x64, where loads are not reordered with loads; dmb ishld on ARM64). This is
// the reader's half of a sequence lock, with one sequence step: Dispose.
//
// What it costs the racing call, and only it: its outputs held values computed from a partly wiped
// key until it zeroed them and threw; a caller that reads an output buffer before the call returns
// already reads unfinished output.

using System.Runtime.CompilerServices;
using System.Threading;

namespace Cryptography.Internal;

internal struct KeyLifetime
{
    // Not readonly members: netstandard2.0's Volatile.Read takes the field by ref.
    private int _closed;

    /// <summary>Whether <see cref="Close"/> has run: checked before a call reads the key.</summary>
    public bool IsClosed
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Volatile.Read(ref _closed) != 0;
    }

    /// <summary>
    /// Whether <see cref="Close"/> began before the caller's last read of the key; when true the call
    /// may have read wiped words, and its outputs must be discarded.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool ClosedDuringCall()
    {
        Volatile.ReadBarrier();
        return Volatile.Read(ref _closed) != 0;
    }

    /// <summary>Marks the owner disposed; true for the first call, which must then wipe.</summary>
    public bool Close() => Interlocked.Exchange(ref _closed, 1) == 0;
}
