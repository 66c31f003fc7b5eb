// What the three nonce guards (GuardedAesGcm, GuardedChaCha20Poly1305, GuardedAesGcmSiv) have in
// common: the Encrypt/Decrypt calls of .NET's AEADs, the repeat counters, and the lifetime of the
// wrapped AEAD and of the key's nonce history. Each guard adds only its constructors, its statics,
// and the struct adapter through which NonceGuard calls its AEAD (handed over as a GuardedCalls).

using System;
using System.Security.Cryptography;
using Cryptography.Internal;
using Cryptography.NonceSafety;

namespace Cryptography;

/// <summary>
/// The calls of a nonce-guarded AEAD: <see cref="GuardedAesGcm"/>, <see cref="GuardedChaCha20Poly1305"/>
/// or <see cref="GuardedAesGcmSiv"/>. See each for its default <see cref="NonceReusePolicy"/>.
/// </summary>
public abstract class GuardedAead : IDisposable
{
    // The wrapped AEAD's calls and the disposed flag. Disposal costs calls no lock-prefixed
    // instruction (issue 49; NonceGuard.cs says how a call in flight never uses a disposed AEAD).
    // Letting go of the history at once is harmless to a call still in flight: the history stays a
    // valid object; only new guards of the key no longer find it in the registry, as after the last
    // guard's Dispose, when everything it remembered is forgotten anyway.
    private readonly GuardedCalls _aead;

    private protected GuardedAead(GuardedCalls aead, ReadOnlySpan<byte> key, NonceGuardOptions? options, NonceReusePolicy defaultPolicy)
    {
        _aead = aead;
        try
        {
            options ??= NonceGuardOptions.Default;
            options.Validate();
            History = NonceHistoryRegistry.Acquire(aead.Name, key, options);
            Policy = options.Policy ?? defaultPolicy;
            CheckDecrypt = options.CheckDecrypt;
        }
        catch
        {
            aead.DisposeAead(null);
            GC.SuppressFinalize(this);
            throw;
        }
    }

    /// <summary>
    /// Lets go of the nonce history if the guard was never disposed, so the registry of shared
    /// histories does not keep it for the life of the process; other guards of the key keep theirs.
    /// </summary>
    /// <remarks>
    /// Only the history: the wrapped AEAD has a finalizer of its own. Should it run under a call in
    /// flight (the guard unreachable while its history and AEAD are still in use), it only takes the
    /// history out of the registry, which a call does not need.
    /// History is null when a constructor threw before setting it.
    /// </remarks>
    ~GuardedAead()
    {
        if (History is { } history && _aead.Close())
        {
            NonceHistoryRegistry.Release(history);
        }
    }

    /// <summary>What this guard does with a repeated nonce.</summary>
    public NonceReusePolicy Policy { get; }

    /// <summary>Whether <see cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/> also checks nonces (<see cref="NonceGuardOptions.CheckDecrypt"/>).</summary>
    public bool CheckDecrypt { get; }

    /// <summary>How many repeats of a nonce with a different message this key's guards have seen (refused, or let through under <see cref="NonceReusePolicy.Observe"/>).
    /// Under <see cref="NonceReusePolicy.RefuseAll"/> every repeat counts here: that policy refuses without encrypting, so it cannot tell an identical message.</summary>
    public long DistinctRepeats => History.DistinctRepeats;

    /// <summary>How many repeats of a nonce with the identical message this key's guards have seen.</summary>
    public long IdenticalRepeats => History.IdenticalRepeats;

    internal NonceHistory History { get; }

    /// <inheritdoc cref="Encrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, Span{byte}, ReadOnlySpan{byte})"/>
    /// <exception cref="ArgumentNullException">A required array is <see langword="null"/>.</exception>
    public void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(plaintext);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        Encrypt((ReadOnlySpan<byte>)nonce, plaintext, ciphertext, tag, associatedData);
    }

    /// <summary>Encrypts the plaintext unless the policy refuses a repeated nonce.</summary>
    /// <param name="nonce">The 12-byte nonce.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">Receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">Receives the authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="NonceReuseException">The policy refuses this repeat (by default: the nonce was used before with this key for a different message); nothing was written.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData = default)
    {
        NonceGuard.ReadNonce(nonce, out ulong nonceLow, out uint nonceHigh);
        _aead.Encrypt(this, History, Policy, nonceLow, nonceHigh, plaintext, ciphertext, tag, associatedData);
    }

    /// <inheritdoc cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/>
    /// <exception cref="ArgumentNullException">A required array is <see langword="null"/>.</exception>
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
    /// <param name="tag">The authentication tag.</param>
    /// <param name="plaintext">Receives the plaintext; as long as <paramref name="ciphertext"/>.</param>
    /// <param name="associatedData">The associated data.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The tag does not verify.</exception>
    /// <exception cref="NonceReuseException">With <see cref="NonceGuardOptions.CheckDecrypt"/>: the nonce was used before for a different message; the plaintext buffer has been zeroed.</exception>
    /// <exception cref="ObjectDisposedException">The guard has been disposed.</exception>
    public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        _aead.Decrypt(this, History, Policy, CheckDecrypt, nonce, ciphertext, tag, plaintext, associatedData);
    }

    /// <summary>
    /// Disposes the wrapped AEAD and lets go of the nonce history (the last guard of a key drops it).
    /// Calls that start later throw <see cref="ObjectDisposedException"/>. Calls in flight on other
    /// threads either finish with the real key or throw <see cref="ObjectDisposedException"/>: a call
    /// that returns never used a disposed key. <see cref="GuardedAesGcm"/> and
    /// <see cref="GuardedChaCha20Poly1305"/> wait for a call in flight under the key to finish;
    /// <see cref="GuardedAesGcmSiv"/> returns at once, and a call it overtakes zeroes its outputs.
    /// </summary>
    public void Dispose()
    {
        if (_aead.Close())
        {
            _aead.DisposeAead(History);
            NonceHistoryRegistry.Release(History);
        }

        GC.SuppressFinalize(this);
    }
}
