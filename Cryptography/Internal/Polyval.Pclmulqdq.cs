// The x64 carry-less multiply for POLYVAL (Polyval.Clmul.cs): PCLMULQDQ on 128-bit vectors. The
// instruction's control byte picks the 64-bit halves (bit 0: first operand's, bit 4: second's), and
// it must be a constant, so each product the contract names is its own method.

using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Cryptography.Internal;

/// <summary>POLYVAL with PCLMULQDQ: the shared body over the x64 multiply.</summary>
internal readonly struct Pclmul : ICarrylessMultiply
{
    public static bool IsSupported => Pclmulqdq.IsSupported && Sse2.IsSupported;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Lower(Vector128<ulong> a, Vector128<ulong> b) => Pclmulqdq.CarrylessMultiply(a, b, 0x00);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> Upper(Vector128<ulong> a, Vector128<ulong> b) => Pclmulqdq.CarrylessMultiply(a, b, 0x11);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> LowerUpper(Vector128<ulong> a, Vector128<ulong> b) => Pclmulqdq.CarrylessMultiply(a, b, 0x10);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> UpperLower(Vector128<ulong> a, Vector128<ulong> b) => Pclmulqdq.CarrylessMultiply(a, b, 0x01);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Vector128<ulong> SwapHalves(Vector128<ulong> x) => Sse2.Shuffle(x.AsUInt32(), 0x4E).AsUInt64();
}
