// Tests/HardwarePrimitives.cs for .NET Framework: the netstandard2.0 library has no hardware backends,
// so there are no hardware primitives and the backend the choice must make is PortableVector where the
// JIT accelerates Vector<T> with 16- or 32-byte vectors, PortableFlat elsewhere.

using Cryptography;

namespace Tests;

internal static class HardwarePrimitives
{
    public static Primitives? For(AesGcmSivBackend backend) => null;

    // The netstandard2.0 build's fastest where it runs (Platform/NetStandard/Backends.Widest.cs), asked
    // of the runtime directly rather than of the backend's IsSupported.
    public static AesGcmSivBackend ExpectedFromCpu() =>
        System.Numerics.Vector.IsHardwareAccelerated && System.Numerics.Vector<uint>.Count is 4 or 8
            ? AesGcmSivBackend.PortableVector
            : AesGcmSivBackend.PortableFlat;
}
