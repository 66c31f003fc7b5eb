// netstandard2.0: the stack burn after every call of a backend, on Mono's and .NET Framework's JITs.
// The browser's .NET takes the package's net10.0 build (Platform/Net/CallStack.cs), so here frames are
// on the machine stack. The software backends (the only ones in this build) spill S-box terms, round
// keys and POLYVAL's products to frame slots C# cannot name. Burning them once per message, below
// Backend's frame, replaces a burn after every step (key expansion, key derivation, POLYVAL's set-up
// and update, the tag, CTR), which cost more in all and, at 1 or 2 KiB each, did not reach the bottom
// of Mono's frames: under Mono 6.8 on x64, Ctr32's core (about 1.6 KiB with its stackalloc) and the
// rounds below it (EncryptGroups, about 2 KiB) go some 3.7 KiB below the step's own frame.

using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Cryptography.Internal;

internal static class CallStack
{
    /// <summary>
    /// Bytes zeroed below Backend's frame. The deepest chain measured under Mono 6.8 (x64, the frame
    /// sizes its JIT printed with MONO_VERBOSE_METHOD): GcmSiv's Encrypt or Decrypt frame, about 4.8
    /// KiB with its MessageState, then a step of the backend, about 4 KiB: some 9 KiB. But the stack
    /// tests under Mono 6.8 find bytes of H after an encryption with this set to 11 KiB (12,696 bytes
    /// below their probe), and with 12 KiB after a change that grew GcmSiv.Encrypt's frame by about
    /// 1 KiB (docs/platforms.md, the fifth round): at 12 KiB the margin was under 1 KiB, and .NET
    /// Framework's frames are not measured here. So 16 KiB: about 4 KiB beyond the deepest residue
    /// measured under Mono, whose JIT makes the larger frames (it zero-initialises and keeps in memory
    /// what RyuJIT keeps in registers). Its cost under Mono was within the noise (docs/platforms.md).
    /// </summary>
    private const int BurnBytes = 16 * 1024;

    /// <summary>True: <see cref="BurnAfterCall"/> clears what every step of the software backends left.</summary>
    public static bool BurnsAfterCall => true;

    /// <summary>
    /// Zeroes the stack below the caller's frame, where the message's frames just were. The zeroing is
    /// the stackalloc's own: this method keeps the IL's localsinit flag (no [SkipLocalsInit]), and with it
    /// ECMA-335 (Partition III, localloc) makes the runtime return the block initialised to 0, as every
    /// C# stackalloc was before SkipLocalsInit existed (.NET Framework's JIT included). Mono 6.8's JIT
    /// zero-fills it whatever the flag says (rep stos), so the ZeroMemory that followed cleared the
    /// block a second time: under Mono the copy took about 4% of a 64-byte call (docs/platforms.md). The
    /// block goes to a method that is not inlined, so no JIT can prove it unread and drop its zeroing.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void BurnAfterCall()
    {
        Span<byte> area = stackalloc byte[BurnBytes];
        KeepZeroed(area);
    }

    /// <summary>Reads the zeroed block's last byte: the block escapes to a call, so its zeroing stays.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void KeepZeroed(Span<byte> area) => Volatile.Write(ref s_lastByte, area[area.Length - 1]);

    private static byte s_lastByte;
}
