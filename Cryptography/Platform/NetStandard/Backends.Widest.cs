// The backends this target has, widest first: the list Backends.cs chooses from (the choice itself
// is there, the same on every target). netstandard2.0: software only (no System.Runtime.Intrinsics),
// so Portable alone: the fixsliced AES, which under Mono 6.8's JIT took 0.29-0.33 of the time of the
// scalar bitsliced AES it replaced, for AES-256 at 64 B to 64 KiB (docs/platforms.md).

namespace Cryptography.Internal;

internal static partial class Backends
{
    /// <summary>
    /// True: encryption expands the message key inside the tag block's pass (GcmSiv,
    /// AesPortable.ExpandKeyEncryptBlock). Under Mono 6.8's JIT the tag's pass and the expansion
    /// took 1.21-1.26 µs that way, 1.43 one after the other (AES-256; docs/platforms.md). AES-256
    /// now expands in key derivation's pass instead (<see cref="PortableExpandsKeyInDerivationPass"/>),
    /// so this serves AES-128, whose derivation fills its one pass.
    /// </summary>
    internal static bool PortableExpandsKeyInTagPass => true;

    /// <summary>
    /// True: AES-256 expands the message key inside key derivation's second pass (GcmSiv,
    /// AesPortable.DeriveKeysExpandKey), in both directions. Under Mono 6.8's JIT, 64-byte decryption
    /// took 5.1-5.2 µs that way against 5.4-5.7 with the expansion's own SubWords after the derivation,
    /// and encryption 4.7-4.8 against 5.0 with the expansion in the tag's pass (docs/platforms.md).
    /// </summary>
    internal static bool PortableExpandsKeyInDerivationPass => true;

    /// <summary>Every backend there is, widest first: the order the choice tries them in.</summary>
    private static Backend[] AllWidestFirst() =>
    [
        new Backend<AesPortable, PolyvalPortable>(AesGcmSivBackend.Portable),
    ];
}
