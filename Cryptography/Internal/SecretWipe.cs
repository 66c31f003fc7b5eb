// The per-message wipe (GcmSiv.Wipe): zeroes the few hundred bytes of a message's keys and scratch
// with 32-byte stores where the CPU has them. CryptographicOperations.ZeroMemory is compiled without
// optimisation (so that nothing can drop its stores), which leaves a chain of calls to the general
// memset helper; at these sizes that chain, not the stores, is the cost: 20 ns on AMD Zen 4 and
// 36-40 ns on Intel Xeon per message (issue 49), for 400-900 bytes. The stores here cannot be
// dropped either: the method is never inlined, so the JIT compiling it cannot know that the memory
// is dead, and a caller cannot remove the call. Elsewhere (no 256-bit vectors: ARM64, the browser,
// old x64) it is ZeroMemory as before.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;

namespace Cryptography.Internal;

internal static class SecretWipe
{
    /// <summary>Zeroes <paramref name="buffer"/>; never inlined, so the stores are never removed.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void Zero(Span<byte> buffer)
    {
        nuint length = (nuint)buffer.Length;
        if (!Vector256.IsHardwareAccelerated || length < 32)
        {
            CryptographicOperations.ZeroMemory(buffer);
            return;
        }

        ref byte start = ref MemoryMarshal.GetReference(buffer);
        nuint offset = 0;
        for (; length - offset > 32; offset += 32)
        {
            Vector256<byte>.Zero.StoreUnsafe(ref start, offset);
        }

        // The last 1 to 32 bytes: one store ending at the buffer's end (it may overlap the previous one).
        Vector256<byte>.Zero.StoreUnsafe(ref start, length - 32);
    }
}
