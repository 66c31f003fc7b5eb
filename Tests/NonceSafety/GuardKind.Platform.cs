// The guards of .NET's own AEADs, AesGcm and ChaCha20Poly1305, as GuardKinds: net10.0 only. The
// .NET Framework test build (Tests.Mono) has its own, empty, PlatformKinds: the netstandard2.0
// library has no such guards.

using System.Collections.Generic;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.NonceSafety;

namespace Tests.NonceSafety;

public sealed partial class GuardKind
{
    private static partial IEnumerable<GuardKind> PlatformKinds()
    {
        yield return new GuardKind("AesGcm", 16, (key, options) => new GuardedAesGcm(key, 16, options), (key, nonce, plaintext, ciphertext, tag) =>
        {
            using var bare = new AesGcm(key, 16);
            bare.Encrypt(nonce, plaintext, ciphertext, tag);
        }, NonceReusePolicy.Refuse);
        yield return new GuardKind("ChaCha20Poly1305", 32, (key, options) => new GuardedChaCha20Poly1305(key, options), (key, nonce, plaintext, ciphertext, tag) =>
        {
            using var bare = new ChaCha20Poly1305(key);
            bare.Encrypt(nonce, plaintext, ciphertext, tag);
        }, NonceReusePolicy.Refuse);
    }
}
