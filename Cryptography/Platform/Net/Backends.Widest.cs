// The backends this target has, widest first: the list Backends.cs chooses from (the choice itself
// is there, the same on every target). net10.0: the hardware backends, then the software ones.

namespace Cryptography.Internal;

internal static partial class Backends
{
    /// <summary>
    /// False: in the browser's interpreter the message key expanded inside the tag block's pass
    /// (AesPortable.ExpandKeyEncryptBlock, which the netstandard2.0 build uses under Mono's JIT)
    /// measured slower than the expansion and the tag one after the other (AES-128 64-byte encryption
    /// 0.41 instead of 0.34 of the deleted bitsliced AES's time, docs/platforms.md), so encryption keeps the two steps.
    /// </summary>
    internal static bool PortableExpandsKeyInTagPass => false;

    /// <summary>
    /// False: decryption's key expansion inside key derivation's second pass
    /// (AesPortable.DeriveKeysExpandKey) is the netstandard2.0 build's, measured under Mono's JIT only;
    /// here (the browser, .NET's software backend) decryption keeps key derivation and the expansion apart.
    /// </summary>
    internal static bool PortableExpandsKeyInDerivationPass => false;

    /// <summary>Every backend there is, widest first: the order the choice tries them in.</summary>
    private static Backend[] AllWidestFirst() =>
    [
        new Backend<AesVector<AesNi>, PolyvalVpclmulqdq, StitchedWideDecrypt<AesNi>>(AesGcmSivBackend.AesNiVpclmulqdq),
        new Backend<AesVector<AesNi>, PolyvalClmul<Pclmul>, StitchedDecrypt<AesNi, Pclmul>>(AesGcmSivBackend.AesNiPclmulqdq),
        new Backend<AesVector<AesArm64>, PolyvalClmul<Pmull>>(AesGcmSivBackend.Arm64),
        new Backend<AesBitslicedVector<AesBitslicedAvx2>, PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>>(AesGcmSivBackend.BitslicedVector),
        new Backend<AesPortable, PolyvalPortable>(AesGcmSivBackend.Portable),
    ];
}
