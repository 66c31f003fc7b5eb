// What a benchmark method needs from this machine, and the filter that leaves out the cases it
// cannot run, so that the suite skips them instead of failing: AesGcmSiv backends this CPU lacks,
// BoringSSL where its library is not installed, libsodium where the library or its AES-GCM is missing, and libsodium with a 16-byte key (it has
// AES-256-GCM only: its rows exist for KeySize 32 alone).

using System;
using System.Linq;
using System.Reflection;
using System.Security.Cryptography;
using BenchmarkDotNet.Running;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

internal enum Requirement
{
    AesGcm,
    ChaCha20Poly1305,
    Libsodium,
    BoringSsl,
    BackendAesNiVpclmulqdq,
    BackendAesNiPclmulqdq,
    BackendArm64,
    BackendBitslicedVector,
    BackendPortable,
    PolyvalVpclmulqdq,
    PolyvalPclmulqdq,
    PolyvalPmull,
    PolyvalPortable,
}

/// <summary>Marks a benchmark method that runs only where <see cref="Requirement"/> holds.</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
internal sealed class RequiresAttribute(Requirement requirement) : Attribute
{
    public Requirement Requirement { get; } = requirement;
}

internal static class Requirements
{
    /// <summary>The filter: false for a case whose method's requirements do not hold here.</summary>
    public static bool IsRunnable(BenchmarkCase benchmarkCase)
    {
        int? keySize = Parameter(benchmarkCase, "KeySize");
        return benchmarkCase.Descriptor.WorkloadMethod.GetCustomAttributes<RequiresAttribute>()
            .All(attribute => Holds(attribute.Requirement, keySize));
    }

    public static bool Holds(Requirement requirement, int? keySize = null) => requirement switch
    {
        Requirement.AesGcm => AesGcm.IsSupported,
        Requirement.ChaCha20Poly1305 => ChaCha20Poly1305.IsSupported,
        Requirement.Libsodium => Libsodium.Unavailable is null && keySize is null or 32,
        Requirement.BoringSsl => BoringSsl.Unavailable is null,
        Requirement.BackendAesNiVpclmulqdq => Backends.IsSupported(AesGcmSivBackend.AesNiVpclmulqdq),
        Requirement.BackendAesNiPclmulqdq => Backends.IsSupported(AesGcmSivBackend.AesNiPclmulqdq),
        Requirement.BackendArm64 => Backends.IsSupported(AesGcmSivBackend.Arm64),
        Requirement.BackendBitslicedVector => Backends.IsSupported(AesGcmSivBackend.BitslicedVector),
        Requirement.BackendPortable => Backends.IsSupported(AesGcmSivBackend.Portable),
        Requirement.PolyvalVpclmulqdq => default(PolyvalVpclmulqdq).IsSupported,
        Requirement.PolyvalPclmulqdq => default(PolyvalClmul<Pclmul>).IsSupported,
        Requirement.PolyvalPmull => default(PolyvalClmul<Pmull>).IsSupported,
        Requirement.PolyvalPortable => default(PolyvalPortable).IsSupported,
        _ => false,
    };

    /// <summary>The value of an int [Params] property of the case, or null when its class has none.</summary>
    public static int? Parameter(BenchmarkCase benchmarkCase, string name) =>
        benchmarkCase.Parameters.Items.FirstOrDefault(parameter => parameter.Name == name)?.Value as int?;
}
