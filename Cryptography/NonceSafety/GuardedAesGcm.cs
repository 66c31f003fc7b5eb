// AES-GCM behind a nonce-reuse guard: System.Security.Cryptography.AesGcm's constructors and
// calls, plus a memory of the nonces its key has used (NonceHistory). See docs/nonce-safety.md.

using System;
using System.Security.Cryptography;
using Cryptography.NonceSafety;

namespace Cryptography;

/// <summary>
/// <see cref="AesGcm"/> with a nonce-reuse guard: an encryption that would use a (key, nonce)
/// pair again for a different message throws <see cref="NonceReuseException"/> before writing
/// anything. Same constructors and calls as <see cref="AesGcm"/>, each with an optional
/// <see cref="NonceGuardOptions"/>.
/// </summary>
/// <remarks>
/// <para>Repeating the identical encryption (same nonce, plaintext and associated data) is allowed:
/// it reveals nothing new. Every other repeat within <see cref="NonceGuardOptions.WindowSize"/>
/// nonces is refused, and one further back with probability 2^-<see cref="NonceGuardOptions.DistinguishedPointBits"/>.
/// Guards built from the same key in one process share their memory (<see cref="NonceGuardOptions.ShareHistory"/>).</para>
/// <para>Thread-safe: any number of threads may encrypt and decrypt at once. (<see cref="AesGcm"/>
/// itself is not safe for concurrent calls, so the guard runs one call at a time per key, under
/// the lock of the key's nonce history.) Calls do not allocate, except the first time a repeat of a given size is
/// examined.</para>
/// </remarks>
/// <example>
/// A drop-in replacement for <see cref="AesGcm"/>: change the type name, keep the calls.
/// <code>
/// using var aead = new GuardedAesGcm(key, tagSizeInBytes: 16);      // was: new AesGcm(key, 16)
/// aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
/// try
/// {
///     aead.Encrypt(nonce, otherPlaintext, otherCiphertext, otherTag, associatedData);
/// }
/// catch (NonceReuseException)
/// {
///     // Refused before anything was written: otherCiphertext and otherTag are untouched.
/// }
/// </code>
/// </example>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // AesGcm throws PlatformNotSupportedException in the browser
public sealed class GuardedAesGcm : GuardedAead
{
    private readonly AesGcm _aead;

    /// <summary>Creates a guarded AES-GCM that accepts any tag size <see cref="AesGcm"/> allows.</summary>
    /// <param name="key">The 16-, 24- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    [Obsolete("AesGcm should be used with a fixed tag size; use the constructor that takes tagSizeInBytes.")]
    public GuardedAesGcm(byte[] key, NonceGuardOptions? options = null)
        : this(new AesGcm(key), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM that accepts any tag size <see cref="AesGcm"/> allows.</summary>
    /// <param name="key">The 16-, 24- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    [Obsolete("AesGcm should be used with a fixed tag size; use the constructor that takes tagSizeInBytes.")]
    public GuardedAesGcm(ReadOnlySpan<byte> key, NonceGuardOptions? options = null)
        : this(new AesGcm(key), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM with a fixed tag size.</summary>
    /// <param name="key">The 16-, 24- or 32-byte key.</param>
    /// <param name="tagSizeInBytes">The tag size every call must use (12 to 16).</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException">The key size is not one AES-GCM allows.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not one AES-GCM allows.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcm(byte[] key, int tagSizeInBytes, NonceGuardOptions? options = null)
        : this(new AesGcm(key, tagSizeInBytes), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM with a fixed tag size.</summary>
    /// <param name="key">The 16-, 24- or 32-byte key.</param>
    /// <param name="tagSizeInBytes">The tag size every call must use (12 to 16).</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    /// <exception cref="CryptographicException">The key size is not one AES-GCM allows.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not one AES-GCM allows.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcm(ReadOnlySpan<byte> key, int tagSizeInBytes, NonceGuardOptions? options = null)
        : this(new AesGcm(key, tagSizeInBytes), key, options)
    {
    }

    // Internal for the benchmarks: GuardBenchmarks wraps the very instance its bare row calls, so
    // that the two rows differ only by the guard. The guard owns and disposes the instance, and
    // its history is that of this key, which must be the instance's.
    internal GuardedAesGcm(AesGcm aead, ReadOnlySpan<byte> key, NonceGuardOptions? options)
        : base(GuardedCalls.Create(new Adapter(aead), aead), key, options, NonceReusePolicy.Refuse)
    {
        _aead = aead;
    }

    /// <summary>Whether AES-GCM is available on this platform (<see cref="AesGcm.IsSupported"/>).</summary>
    public static bool IsSupported => AesGcm.IsSupported;

    /// <summary>The nonce sizes AES-GCM accepts: 12 bytes.</summary>
    public static KeySizes NonceByteSizes => AesGcm.NonceByteSizes;

    /// <summary>The tag sizes AES-GCM accepts: 12 to 16 bytes.</summary>
    public static KeySizes TagByteSizes => AesGcm.TagByteSizes;

    /// <summary>The tag size given to the constructor, or <see langword="null"/> if any is accepted.</summary>
    public int? TagSizeInBytes => _aead.TagSizeInBytes;

    private readonly struct Adapter(AesGcm aead) : IGuardedAead
    {
        public string Name => "AES-GCM";

        public int NonceSize => 12;

        public int MaxTagSize => 16;

        // Not safe for concurrent calls: NonceGuard runs every call under the history's lock.
        public bool Concurrent => false;

        // Never reserves: every call runs under the history's lock and records only on success.
        public void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag)
        {
        }

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
    }
}
