// AES-GCM-SIV behind a nonce-reuse guard: AesGcmSiv's constructors and calls, plus a memory of
// the nonces its key has used (NonceHistory). See docs/nonce-safety.md.

using System;
using System.Security.Cryptography;
using Cryptography.NonceSafety;

namespace Cryptography;

/// <summary>
/// <see cref="AesGcmSiv"/> with a nonce-reuse guard. Same constructors and calls as
/// <see cref="AesGcmSiv"/>, each with an optional <see cref="NonceGuardOptions"/>.
/// </summary>
/// <remarks>
/// <para>By default (<see cref="NonceReusePolicy.Observe"/>) a repeated nonce is let through and
/// counted in <see cref="DistinctRepeats"/> and <see cref="IdenticalRepeats"/>: under AES-GCM-SIV a
/// repeat reveals only whether two messages were equal, so refusing it would turn a harmless event
/// into an outage. The strict mode, <see cref="NonceReusePolicy.Refuse"/>, refuses a repeat with a
/// different message before writing anything, as <see cref="GuardedAesGcm"/> does; it suits
/// deployments whose message limits assume unique nonces. <see cref="NonceReusePolicy.RefuseAll"/>
/// refuses identical re-encryption too, for when even message equality must not show.</para>
/// <para>Thread-safe, like <see cref="AesGcmSiv"/>. Calls do not allocate, except the first time a
/// repeat of a given size is examined under <see cref="NonceReusePolicy.Refuse"/>.</para>
/// </remarks>
public sealed class GuardedAesGcmSiv : IDisposable
{
    private readonly AesGcmSiv _aead;
    private readonly NonceHistory _history;
    private readonly NonceReusePolicy _policy;
    private readonly bool _checkDecrypt;
    private int _disposed;

    /// <summary>Creates a guarded AES-GCM-SIV.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(byte[] key, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM-SIV.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(ReadOnlySpan<byte> key, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key), key, options)
    {
    }

    private GuardedAesGcmSiv(AesGcmSiv aead, ReadOnlySpan<byte> key, NonceGuardOptions? options)
    {
        _aead = aead;
        try
        {
            options ??= NonceGuardOptions.Default;
            options.Validate();
            _history = NonceHistoryRegistry.Acquire(Adapter.Name, key, options);
            _policy = options.Policy ?? NonceReusePolicy.Observe;
            _checkDecrypt = options.CheckDecrypt;
        }
        catch
        {
            aead.Dispose();
            throw;
        }
    }

    /// <summary>Always <see langword="true"/>: AES-GCM-SIV runs everywhere (<see cref="AesGcmSiv.IsSupported"/>).</summary>
    public static bool IsSupported => AesGcmSiv.IsSupported;

    /// <summary>The key sizes AES-GCM-SIV accepts: 16 and 32 bytes.</summary>
    public static KeySizes KeyByteSizes => AesGcmSiv.KeyByteSizes;

    /// <summary>The nonce sizes AES-GCM-SIV accepts: 12 bytes.</summary>
    public static KeySizes NonceByteSizes => AesGcmSiv.NonceByteSizes;

    /// <summary>The tag sizes AES-GCM-SIV accepts: 16 bytes.</summary>
    public static KeySizes TagByteSizes => AesGcmSiv.TagByteSizes;

    /// <summary>How many repeats of a nonce with a different message this key's guards have seen (refused, or let through under <see cref="NonceReusePolicy.Observe"/>).</summary>
    public long DistinctRepeats => _history.DistinctRepeats;

    /// <summary>How many repeats of a nonce with the identical message this key's guards have seen.</summary>
    public long IdenticalRepeats => _history.IdenticalRepeats;

    /// <summary>Encrypts the plaintext; what a repeated nonce does depends on the policy (by default it is counted and let through).</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">Receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">Receives the 16-byte authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted; may be <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException">A required array is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="NonceReuseException">Under <see cref="NonceReusePolicy.Refuse"/> or <see cref="NonceReusePolicy.RefuseAll"/>: the nonce was used before; nothing was written.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(plaintext);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        Encrypt((ReadOnlySpan<byte>)nonce, plaintext, ciphertext, tag, associatedData);
    }

    /// <summary>Encrypts the plaintext; what a repeated nonce does depends on the policy (by default it is counted and let through).</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">Receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">Receives the 16-byte authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="NonceReuseException">Under <see cref="NonceReusePolicy.Refuse"/> or <see cref="NonceReusePolicy.RefuseAll"/>: the nonce was used before; nothing was written.</exception>
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

    /// <summary>Disposes the wrapped <see cref="AesGcmSiv"/> and lets go of the nonce history.</summary>
    public void Dispose()
    {
        if (System.Threading.Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _aead.Dispose();
            NonceHistoryRegistry.Release(_history);
        }
    }

    internal NonceHistory History => _history;

    private readonly struct Adapter(AesGcmSiv aead) : IGuardedAead
    {
        public static string Name => "AES-GCM-SIV";

        // AesGcmSiv is safe for concurrent calls: NonceGuard reserves and publishes around them.
        public static bool Concurrent => true;

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
    }
}
