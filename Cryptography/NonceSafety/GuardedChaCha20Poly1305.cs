// ChaCha20-Poly1305 behind a nonce-reuse guard: System.Security.Cryptography.ChaCha20Poly1305's constructors and
// calls, plus a memory of the nonces its key has used (NonceHistory). See docs/nonce-safety.md.

using System;
using System.Security.Cryptography;
using Cryptography.NonceSafety;

namespace Cryptography;

/// <summary>
/// <see cref="ChaCha20Poly1305"/> with a nonce-reuse guard: an encryption that would use a (key, nonce)
/// pair again for a different message throws <see cref="NonceReuseException"/> before writing
/// anything. Same constructors and calls as <see cref="ChaCha20Poly1305"/>, each with an optional
/// <see cref="NonceGuardOptions"/>.
/// </summary>
/// <remarks>
/// <para>Repeating the identical encryption (same nonce, plaintext and associated data) is allowed:
/// it reveals nothing new. Every other repeat within <see cref="NonceGuardOptions.WindowSize"/>
/// nonces is refused, and one further back with probability 2^-<see cref="NonceGuardOptions.DistinguishedPointBits"/>.
/// Guards built from the same key in one process share their memory (<see cref="NonceGuardOptions.ShareHistory"/>).</para>
/// <para>Thread-safe: any number of threads may encrypt and decrypt at once. (<see cref="ChaCha20Poly1305"/>
/// itself is not safe for concurrent calls, so the guard runs one call at a time per key, under
/// the lock of the key's nonce history.) Calls do not allocate, except the first time a repeat of a given size is
/// examined.</para>
/// </remarks>
/// <example>
/// A drop-in replacement for <see cref="ChaCha20Poly1305"/>: change the type name, keep the calls.
/// <code>
/// using var aead = new GuardedChaCha20Poly1305(key);                // was: new ChaCha20Poly1305(key)
/// aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
/// aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
/// </code>
/// </example>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // ChaCha20Poly1305 throws PlatformNotSupportedException in the browser
public sealed class GuardedChaCha20Poly1305 : GuardedAead
{
    /// <summary>Creates a guarded ChaCha20-Poly1305.</summary>
    /// <param name="key">The 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException">The key is not 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedChaCha20Poly1305(byte[] key, NonceGuardOptions? options = null)
        : this(new ChaCha20Poly1305(key), key, options)
    {
    }

    /// <summary>Creates a guarded ChaCha20-Poly1305.</summary>
    /// <param name="key">The 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>.</param>
    /// <exception cref="CryptographicException">The key is not 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedChaCha20Poly1305(ReadOnlySpan<byte> key, NonceGuardOptions? options = null)
        : this(new ChaCha20Poly1305(key), key, options)
    {
    }

    // Internal for the benchmarks: GuardBenchmarks wraps the very instance its bare row calls, so
    // that the two rows differ only by the guard. The guard owns and disposes the instance, and
    // its history is that of this key, which must be the instance's.
    internal GuardedChaCha20Poly1305(ChaCha20Poly1305 aead, ReadOnlySpan<byte> key, NonceGuardOptions? options)
        : base(GuardedCalls.Create(new Adapter(aead), aead), key, options, NonceReusePolicy.Refuse)
    {
    }

    /// <summary>Whether ChaCha20-Poly1305 is available on this platform (<see cref="ChaCha20Poly1305.IsSupported"/>).</summary>
    public static bool IsSupported => ChaCha20Poly1305.IsSupported;

    private readonly struct Adapter(ChaCha20Poly1305 aead) : IGuardedAead
    {
        public string Name => "ChaCha20-Poly1305";

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
