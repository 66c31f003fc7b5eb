// RFC 8452 section 5, the last step of decryption: the computed tag against the received one, in
// constant time. This is the only place the library compares GCM-SIV tags; every decrypt path
// (AesGcmSiv.Decrypt, and Open and TryOpen through it) reaches it through GcmSiv.Decrypt.
//
// The two 16-byte tags are read as two 64-bit words each; the words' XORs are ORed together and
// only that one word is tested. No instruction before the test depends on where the tags differ,
// so the time is the same whether they differ in the first byte, the last, or not at all. It is
// plain scalar code on purpose: Vector128's == has a software fallback (DOTNET_EnableHWIntrinsic=0,
// the portable backend) that compares lane by lane and stops at the first difference.
//
// CryptographicOperations.FixedTimeEquals, used before, is compiled without optimization (so that
// no compiler turns it into an early exit) and costs 54-59 ns for 16 bytes on this project's
// machine; this costs about a nanosecond. docs/backends.md shows the JIT's code for it on x64 and
// ARM64 (no branch before the result), and docs/testing.md the timing test of the rejection path.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cryptography.Internal;

/// <summary>The constant-time comparison of two GCM-SIV tags.</summary>
internal static class TagComparison
{
    private const int TagSize = 16;

    /// <summary>Whether two 16-byte tags are equal, in time independent of their contents.</summary>
    /// <exception cref="ArgumentException">A span is not 16 bytes long (a public length, checked before anything secret is read).</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Equal(ReadOnlySpan<byte> computed, ReadOnlySpan<byte> received)
    {
        if (computed.Length != TagSize || received.Length != TagSize)
        {
            throw new ArgumentException(Messages.TagComparisonLength);
        }

        return Equal16(ref MemoryMarshal.GetReference(computed), ref MemoryMarshal.GetReference(received));
    }

    /// <summary>
    /// The comparison itself, kept out of line so that the code that runs is the code the JIT
    /// disassembly in docs/backends.md shows (inlined, it would be merged into its caller's code),
    /// and optimised from the first call (Tier0 code is not the code shown either).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    internal static bool Equal16(ref byte computed, ref byte received)
    {
        ulong difference =
            (Unsafe.ReadUnaligned<ulong>(ref computed) ^ Unsafe.ReadUnaligned<ulong>(ref received)) |
            (Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref computed, 8)) ^ Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref received, 8)));
        return difference == 0;
    }
}
