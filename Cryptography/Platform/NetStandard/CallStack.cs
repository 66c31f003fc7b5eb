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
using System.Security.Cryptography;

namespace Cryptography.Internal;

internal static class CallStack
{
    /// <summary>
    /// Bytes zeroed below Backend's frame. The deepest chain measured under Mono 6.8 (x64, the frame
    /// sizes its JIT printed with MONO_VERBOSE_METHOD): GcmSiv's Encrypt or Decrypt frame, about 4.8
    /// KiB with its MessageState, then a step of the backend, about 4 KiB: some 9 KiB. The margin is
    /// for other JITs (.NET Framework's) and versions, whose frames were not measured.
    /// </summary>
    private const int BurnBytes = 12 * 1024;

    /// <summary>True: <see cref="BurnAfterCall"/> clears what every step of the software backends left.</summary>
    public static bool BurnsAfterCall => true;

    /// <summary>Zeroes the stack below the caller's frame, where the message's frames just were.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory does the clearing
    public static void BurnAfterCall()
    {
        Span<byte> area = stackalloc byte[BurnBytes];
        CryptographicOperations.ZeroMemory(area);
    }
}
