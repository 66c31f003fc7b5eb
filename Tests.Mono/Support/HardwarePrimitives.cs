// Tests/HardwarePrimitives.cs for .NET Framework: the netstandard2.0 library has no hardware backends,
// so there are no hardware primitives and the backend the choice must make is always Portable.

using Cryptography;

namespace Tests;

internal static class HardwarePrimitives
{
    public static Primitives? For(AesGcmSivBackend backend) => null;

    // The netstandard2.0 build has Portable alone (Platform/NetStandard/Backends.Widest.cs).
    public static AesGcmSivBackend ExpectedFromCpu() => AesGcmSivBackend.Portable;
}
