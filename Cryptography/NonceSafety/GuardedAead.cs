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
    private readonly GuardedCalls _aead;

    // Calls in flight and the disposed flag (Internal/CallCounter.cs): the wrapped AEAD is disposed
    // and the history let go only once no call is using them.
    private CallCounter _calls;

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
            aead.DisposeAead();
            GC.SuppressFinalize(this);
            throw;
        }
    }

    /// <summary>
    /// Lets go of the nonce history if the guard was never disposed, so the registry of shared
    /// histories does not keep it for the life of the process; other guards of the key keep theirs.
    /// </summary>
    /// <remarks>
    /// Only the history: the wrapped AEAD has a finalizer of its own. A call in flight keeps the
    /// guard reachable (it touches the guard after the AEAD returns), so this never runs under one.
    /// History is null when a constructor threw before setting it.
    /// </remarks>
    ~GuardedAead()
    {
        if (History is { } history && _calls.Close())
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
        ObjectDisposedException.ThrowIf(!_calls.TryEnter(), this);
        try
        {
            _aead.Encrypt(History, Policy, nonce, plaintext, ciphertext, tag, associatedData);
        }
        finally
        {
            ExitCall();
        }
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
        ObjectDisposedException.ThrowIf(!_calls.TryEnter(), this);
        try
        {
            _aead.Decrypt(History, Policy, CheckDecrypt, nonce, ciphertext, tag, plaintext, associatedData);
        }
        finally
        {
            ExitCall();
        }
    }

    /// <summary>
    /// Disposes the wrapped AEAD and lets go of the nonce history (the last guard of a key drops it),
    /// at once or, if calls are in flight on other threads, as the last of them returns. Calls that
    /// start later throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    public void Dispose()
    {
        if (_calls.Close())
        {
            Release();
        }

        GC.SuppressFinalize(this);
    }

    private void ExitCall()
    {
        if (_calls.Exit())
        {
            Release();
        }
    }

    private void Release()
    {
        _aead.DisposeAead();
        NonceHistoryRegistry.Release(History);
    }
}
