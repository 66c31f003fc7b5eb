// The backends this target has, widest first: the list Backends.cs chooses from (the choice itself
// is there, the same on every target). netstandard2.0: software only (no System.Runtime.Intrinsics).
// PortableVector first where the JIT accelerates Vector<T> (Mono 6.8 on x64 does): PortableFlat with its
// CTR over 2 KiB and more on Vector<T>, 0.74-0.92 of PortableFlat's time from 2 KiB to 64 KiB and the
// same below (docs/platforms.md). Then PortableFlat: under Mono 6.8's JIT it took 0.33-0.43 of
// Portable's time for AES-256 at 64 B to 64 KiB; Portable stays as the last fallback.

namespace Cryptography.Internal;

internal static partial class Backends
{
    /// <summary>Always: the fixsliced AES is this build's fastest constant-time AES (see above).</summary>
    internal static bool PortableFlatAvailable => true;

    /// <summary>Every backend there is, widest first: the order the choice tries them in.</summary>
    private static Backend[] AllWidestFirst() =>
    [
        new Backend<AesPortableVector, PolyvalPortable>(AesGcmSivBackend.PortableVector),
        new Backend<AesPortableFlat, PolyvalPortable>(AesGcmSivBackend.PortableFlat),
        new Backend<AesPortable, PolyvalPortable>(AesGcmSivBackend.Portable),
    ];
}
