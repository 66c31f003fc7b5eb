// The ARMv8 carry-less multiply for POLYVAL (Polyval.Clmul.cs): PMULL (lower 64-bit lanes) and
// PMULL2 (upper lanes). Only AdvSimd and Arm.Aes intrinsics here: an x86 one compiles but throws
// on ARM64.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using ArmAes = System.Runtime.Intrinsics.Arm.Aes;

namespace Cryptography.Internal;

/// <summary>POLYVAL with PMULL: the shared body over the ARM64 multiply.</summary>
internal readonly struct Pmull : ICarrylessMultiply
{
    public static bool IsSupported => ArmAes.IsSupported && AdvSimd.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Lower(Vector128<ulong> a, Vector128<ulong> b) =>
        ArmAes.PolynomialMultiplyWideningLower(a.GetLower(), b.GetLower());

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Upper(Vector128<ulong> a, Vector128<ulong> b) =>
        ArmAes.PolynomialMultiplyWideningUpper(a, b);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> LowerUpper(Vector128<ulong> a, Vector128<ulong> b) =>
        ArmAes.PolynomialMultiplyWideningLower(a.GetLower(), b.GetUpper());

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> UpperLower(Vector128<ulong> a, Vector128<ulong> b) =>
        ArmAes.PolynomialMultiplyWideningLower(a.GetUpper(), b.GetLower());

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> SwapHalves(Vector128<ulong> x) => AdvSimd.ExtractVector128(x, x, 1);
}
