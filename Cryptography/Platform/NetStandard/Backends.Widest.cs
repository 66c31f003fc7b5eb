// The backends this target has, widest first: the list Backends.cs chooses from (the choice itself
// is there, the same on every target). netstandard2.0: software only
// (no System.Runtime.Intrinsics): the portable backend; PortableFlat is listed for the tests and the
// benchmarks that run every backend, and is never chosen (its IsSupported is false outside the browser).

namespace Cryptography.Internal;

internal static partial class Backends
{
    /// <summary>Every backend there is, widest first: the order the choice tries them in.</summary>
    private static Backend[] AllWidestFirst() =>
    [
        new Backend<AesPortable, PolyvalPortable>(AesGcmSivBackend.Portable),
        new Backend<AesPortableFlat, PolyvalPortable>(AesGcmSivBackend.PortableFlat),
    ];
}
