// The x64 widening multiply for the software POLYVAL (Polyval.Widening.cs): PMULUDQ, which
// multiplies the low 32 bits of each 64-bit lane into a 64-bit product. In SSE2, so every x64 CPU
// has it; its time does not depend on the operands.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

/// <summary>PMULUDQ as <see cref="IWideningMultiply"/>.</summary>
internal readonly struct Sse2WideningMultiply : IWideningMultiply
{
    public static bool IsSupported => Sse2.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Multiply(Vector128<ulong> a, Vector128<ulong> b) => Sse2.Multiply(a.AsUInt32(), b.AsUInt32());
}
