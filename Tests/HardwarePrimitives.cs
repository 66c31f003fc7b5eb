// The hardware backends' building blocks for Primitives.For (TestBackends.cs): net10.0 only, since
// the .NET Framework test build (Tests.Mono, against the netstandard2.0 library) has no
// System.Runtime.Intrinsics backends; its Support/HardwarePrimitives.cs returns null for every backend.

using System;
using Cryptography;
using Cryptography.Internal;

namespace Tests;

internal static class HardwarePrimitives
{
    public static Primitives? For(AesGcmSivBackend backend) => backend switch
    {
        AesGcmSivBackend.AesNiVpclmulqdq => new Primitives<AesVector<AesNi>, PolyvalVpclmulqdq>(),
        AesGcmSivBackend.AesNiPclmulqdq => new Primitives<AesVector<AesNi>, PolyvalClmul<Pclmul>>(),
        AesGcmSivBackend.Arm64 => new Primitives<AesVector<AesArm64>, PolyvalClmul<Pmull>>(),
        AesGcmSivBackend.BitslicedVector => new Primitives<AesBitslicedVector<AesBitslicedAvx2>, PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>>(),
        _ => null,
    };

    /// <summary>The backend the choice must make on this CPU, asked of the CPU directly (ApiTests).</summary>
    public static AesGcmSivBackend ExpectedFromCpu()
    {
        AesGcmSivBackend expected = AesGcmSivBackend.Portable;
        if (System.Runtime.Intrinsics.Arm.Aes.IsSupported && System.Runtime.Intrinsics.Arm.AdvSimd.IsSupported)
        {
            expected = AesGcmSivBackend.Arm64;
        }
        else if (System.Runtime.Intrinsics.X86.Aes.IsSupported && System.Runtime.Intrinsics.X86.Pclmulqdq.IsSupported)
        {
            expected = System.Runtime.Intrinsics.X86.Pclmulqdq.V256.IsSupported && System.Runtime.Intrinsics.X86.Avx2.IsSupported
                ? AesGcmSivBackend.AesNiVpclmulqdq
                : AesGcmSivBackend.AesNiPclmulqdq;
        }
        else if (System.Runtime.Intrinsics.Vector128.IsHardwareAccelerated
            && (System.Runtime.Intrinsics.X86.Ssse3.IsSupported || System.Runtime.Intrinsics.Arm.AdvSimd.Arm64.IsSupported)
            && !OperatingSystem.IsBrowser())
        {
            // No AES instructions (DOTNET_EnableAES=0 on x64, say) but 128-bit SIMD with a byte shuffle.
            expected = AesGcmSivBackend.BitslicedVector;
        }

        return expected;
    }
}
