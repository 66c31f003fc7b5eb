// One guarded AEAD under test (GuardTests and the other guard fixtures run every kind).

using System;
using System.Collections.Generic;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.NonceSafety;

namespace Tests.NonceSafety;

/// <summary>One guarded AEAD under test, with its bare counterpart for making messages by hand.</summary>
public sealed partial class GuardKind
{
    private GuardKind(string name, int keySize, Func<byte[], NonceGuardOptions?, GuardedAead> create, Action<byte[], byte[], byte[], byte[], byte[]> encryptUnguarded, NonceReusePolicy defaultPolicy)
    {
        Name = name;
        KeySize = keySize;
        Create = create;
        EncryptUnguarded = encryptUnguarded;
        DefaultPolicy = defaultPolicy;
    }

    public string Name { get; }

    public int KeySize { get; }

    public NonceReusePolicy DefaultPolicy { get; }

    /// <summary>Creates the guard: (key, options).</summary>
    public Func<byte[], NonceGuardOptions?, GuardedAead> Create { get; }

    /// <summary>Encrypts with the bare AEAD, bypassing every check: (key, nonce, plaintext, ciphertext, tag).</summary>
    public Action<byte[], byte[], byte[], byte[], byte[]> EncryptUnguarded { get; }

    public static IEnumerable<GuardKind> All()
    {
        // The guards of .NET's own AEADs: GuardKind.Platform.cs (net10.0; the .NET Framework build has none).
        foreach (GuardKind kind in PlatformKinds())
        {
            yield return kind;
        }

        yield return new GuardKind("AesGcmSiv", 32, (key, options) => new GuardedAesGcmSiv(key, options), (key, nonce, plaintext, ciphertext, tag) =>
        {
            using var bare = new AesGcmSiv(key);
            bare.Encrypt(nonce, plaintext, ciphertext, tag);
        }, NonceReusePolicy.Observe);
    }

    private static partial IEnumerable<GuardKind> PlatformKinds();

    public byte[] NewKey() => RandomNumberGenerator.GetBytes(KeySize);

    public override string ToString() => Name;
}
