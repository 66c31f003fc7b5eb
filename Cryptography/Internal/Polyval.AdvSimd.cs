// The ARM64 widening multiply for the software POLYVAL (Polyval.Widening.cs): XTN takes the low 32
// bits of each 64-bit lane, UMULL multiplies them into 64-bit products. Base AdvSimd, on every
// ARM64 core, with or without the Cryptography Extension; its time does not depend on the operands.
// Only AdvSimd intrinsics here: an x86 one compiles but throws on ARM64.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;

namespace Cryptography.Internal;

/// <summary>XTN + UMULL as <see cref="IWideningMultiply"/>.</summary>
internal readonly struct AdvSimdWideningMultiply : IWideningMultiply
{
    public static bool IsSupported => AdvSimd.Arm64.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Multiply(Vector128<ulong> a, Vector128<ulong> b) =>
        AdvSimd.MultiplyWideningLower(AdvSimd.ExtractNarrowingLower(a).AsUInt32(), AdvSimd.ExtractNarrowingLower(b).AsUInt32());
}
