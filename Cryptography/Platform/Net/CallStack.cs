// net10.0: the browser's stack burn (netstandard2.0 never runs in the browser, which takes the
// net10.0 build: Platform/NetStandard/CallStack.cs burns Mono's and .NET Framework's machine stack).

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>
/// Clears what a message's computation left in the browser interpreter's stack. The browser's .NET
/// interprets IL (its jiterpreter compiles hot traces that work on the same frames): every local of
/// a method, the bitsliced state and S-box terms of a round or POLYVAL's accumulator included, lives
/// in a frame of the interpreter's own stack in WebAssembly memory, and stays there after the call
/// returns. The Portable backend's stack burns use stackalloc, which the interpreter takes from a
/// separate allocator, so they do not reach those frames (a browser check found the last CTR group's
/// keystream there after an encryption: Browser/BrowserHost/StackChecks.cs). The frames of a call
/// begin where the caller's end, so one local as large as the deepest chain of the library's frames,
/// zeroed right after the call, overwrites them all.
/// </summary>
internal static class CallStack
{
    /// <summary>Bytes zeroed: more than GcmSiv's frame (its MessageState) and the deepest chain below it.</summary>
    private const int BurnBytes = 8192;

    [InlineArray(BurnBytes / sizeof(ulong))]
    private struct Area
    {
        private ulong _element0;
    }

    /// <summary>
    /// Whether <see cref="BurnAfterCall"/> clears what the software backends' frames left, so that
    /// they need not burn the stack after each primitive: only in the browser. Elsewhere this build
    /// runs under RyuJIT, where frames are on the machine stack, the software backends burn their own
    /// and the hardware ones keep keys in registers (SECURITY.md).
    /// </summary>
    public static bool BurnsAfterCall => OperatingSystem.IsBrowser();

    /// <summary>Does nothing outside the browser (<see cref="BurnsAfterCall"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void BurnAfterCall()
    {
        if (OperatingSystem.IsBrowser())
        {
            Burn();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit] // ZeroMemory does the clearing, once
    private static void Burn()
    {
        Unsafe.SkipInit(out Area area);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes((Span<ulong>)area));
    }
}

