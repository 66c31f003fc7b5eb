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
public sealed class GuardedChaCha20Poly1305 : IDisposable
{
    private readonly ChaCha20Poly1305 _aead;
    private readonly NonceHistory _history;
    private readonly NonceReusePolicy _policy;
    private readonly bool _checkDecrypt;
    private int _disposed;

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

    private GuardedChaCha20Poly1305(ChaCha20Poly1305 aead, ReadOnlySpan<byte> key, NonceGuardOptions? options)
    {
        _aead = aead;
        try
        {
            options ??= NonceGuardOptions.Default;
            options.Validate();
            _history = NonceHistoryRegistry.Acquire(Adapter.Name, key, options);
            _policy = options.Policy ?? NonceReusePolicy.Refuse;
            _checkDecrypt = options.CheckDecrypt;
        }
        catch
        {
            aead.Dispose();
            throw;
        }
    }

    /// <summary>Whether ChaCha20-Poly1305 is available on this platform (<see cref="ChaCha20Poly1305.IsSupported"/>).</summary>
    public static bool IsSupported => ChaCha20Poly1305.IsSupported;

    /// <summary>How many repeats of a nonce with a different message this key's guards have seen (refused, or let through under <see cref="NonceReusePolicy.Observe"/>).</summary>
    public long DistinctRepeats => _history.DistinctRepeats;

    /// <summary>How many repeats of a nonce with the identical message this key's guards have seen.</summary>
    public long IdenticalRepeats => _history.IdenticalRepeats;

    /// <summary>Encrypts the plaintext, unless the nonce was used before with this key for a different message.</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">Receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">Receives the 16-byte authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted; may be <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException">A required array is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="NonceReuseException">The nonce was used before for a different message; nothing was written.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(plaintext);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        Encrypt((ReadOnlySpan<byte>)nonce, plaintext, ciphertext, tag, associatedData);
    }

    /// <summary>Encrypts the plaintext, unless the nonce was used before with this key for a different message.</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">Receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">Receives the 16-byte authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="NonceReuseException">The nonce was used before for a different message; nothing was written.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData = default)
    {
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        NonceGuard.Encrypt(new Adapter(_aead), _history, _policy, nonce, plaintext, ciphertext, tag, associatedData);
    }

    /// <summary>Verifies and decrypts; with <see cref="NonceGuardOptions.CheckDecrypt"/>, also checks the nonce.</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="ciphertext">The encrypted content.</param>
    /// <param name="tag">The 16-byte authentication tag.</param>
    /// <param name="plaintext">Receives the plaintext; as long as <paramref name="ciphertext"/>.</param>
    /// <param name="associatedData">The associated data; may be <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException">A required array is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The tag does not verify.</exception>
    /// <exception cref="NonceReuseException">With <see cref="NonceGuardOptions.CheckDecrypt"/>: the nonce was used before for a different message; the plaintext buffer has been zeroed.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Decrypt(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        ArgumentNullException.ThrowIfNull(plaintext);
        Decrypt((ReadOnlySpan<byte>)nonce, ciphertext, tag, plaintext, associatedData);
    }

    /// <summary>Verifies and decrypts; with <see cref="NonceGuardOptions.CheckDecrypt"/>, also checks the nonce.</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="ciphertext">The encrypted content.</param>
    /// <param name="tag">The 16-byte authentication tag.</param>
    /// <param name="plaintext">Receives the plaintext; as long as <paramref name="ciphertext"/>.</param>
    /// <param name="associatedData">The associated data.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The tag does not verify.</exception>
    /// <exception cref="NonceReuseException">With <see cref="NonceGuardOptions.CheckDecrypt"/>: the nonce was used before for a different message; the plaintext buffer has been zeroed.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        NonceGuard.Decrypt(new Adapter(_aead), _history, _policy, _checkDecrypt, nonce, ciphertext, tag, plaintext, associatedData);
    }

    /// <summary>Disposes the wrapped <see cref="ChaCha20Poly1305"/> and lets go of the nonce history.</summary>
    public void Dispose()
    {
        if (System.Threading.Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _aead.Dispose();
            NonceHistoryRegistry.Release(_history);
        }
    }

    internal NonceHistory History => _history;

    private readonly struct Adapter(ChaCha20Poly1305 aead) : IGuardedAead
    {
        public static string Name => "ChaCha20-Poly1305";

        // Not safe for concurrent calls: NonceGuard runs every call under the history's lock.
        public static bool Concurrent => false;

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
    }
}
