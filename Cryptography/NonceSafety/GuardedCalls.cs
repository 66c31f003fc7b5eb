// The one piece of plumbing every nonce guard shares: a GuardedAead holds a GuardedCalls, which
// sends each call through NonceGuard with the guard's struct adapter as a type argument, so each
// wrapped AEAD still gets its own specialised NonceGuard with direct calls. A new guard writes its
// constructors and an adapter, nothing else.

using System;
using Cryptography.Internal;

namespace Cryptography.NonceSafety;

/// <summary>Encrypt and Decrypt of one wrapped AEAD through <see cref="NonceGuard"/>, and its disposal.</summary>
internal abstract class GuardedCalls
{
    // The guard's disposed flag (Internal/KeyLifetime.cs): NonceGuard checks it (under the history's
    // lock on the serialised path) and Dispose sets it; no per-call count (see NonceGuard.cs).
    private protected KeyLifetime _lifetime;

    public abstract string Name { get; }

    /// <summary>Wraps <paramref name="aead"/>; <paramref name="owned"/> is what disposing releases.</summary>
    public static GuardedCalls Create<TAead>(TAead aead, IDisposable owned)
        where TAead : struct, IGuardedAead
        => new Typed<TAead>(aead, owned);

    /// <summary>Marks the guard disposed; true for the first call, which must then <see cref="DisposeAead"/>.</summary>
    public bool Close() => _lifetime.Close();

    /// <summary>Encrypts through <see cref="NonceGuard.Encrypt"/>; the nonce as <see cref="NonceGuard.ReadNonce"/> read it.</summary>
    public abstract void Encrypt(object owner, NonceHistory history, NonceReusePolicy policy, ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData);

    public abstract void Decrypt(object owner, NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);

    /// <summary>
    /// Disposes the wrapped AEAD: for a serialised one under <paramref name="history"/>'s lock, which
    /// every call holds while it uses the AEAD (so none is in flight); a concurrent one at once (it
    /// keeps a wiped key from calls in flight by itself). <paramref name="history"/> is null when a
    /// constructor failed before any call could start.
    /// </summary>
    public abstract void DisposeAead(NonceHistory? history);

    private sealed class Typed<TAead> : GuardedCalls
        where TAead : struct, IGuardedAead
    {
        private readonly TAead _aead;
        private readonly IDisposable _owned;

        public Typed(TAead aead, IDisposable owned)
        {
            // The history keys entries by exactly 96 bits; an AEAD with other nonces needs another history.
            if (default(TAead).NonceSize != NonceHistory.NonceSize)
            {
                throw new NotSupportedException($"{default(TAead).Name} takes {default(TAead).NonceSize}-byte nonces; the nonce history keeps {NonceHistory.NonceSize}-byte nonces only.");
            }

            // The history keeps tags of up to 16 bytes, and the guard's copy of a received tag has 16.
            if (default(TAead).MaxTagSize > 16)
            {
                throw new NotSupportedException($"{default(TAead).Name} takes tags of up to {default(TAead).MaxTagSize} bytes; the nonce guard keeps tags of up to 16 bytes only.");
            }

            _aead = aead;
            _owned = owned;
        }

        public override string Name => default(TAead).Name;

        public override void Encrypt(object owner, NonceHistory history, NonceReusePolicy policy, ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => NonceGuard.Encrypt(_aead, ref _lifetime, owner, history, policy, nonceLow, nonceHigh, plaintext, ciphertext, tag, associatedData);

        public override void Decrypt(object owner, NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => NonceGuard.Decrypt(_aead, ref _lifetime, owner, history, policy, check, nonce, ciphertext, tag, plaintext, associatedData);

        public override void DisposeAead(NonceHistory? history)
        {
            if (default(TAead).Concurrent || history is null)
            {
                _owned.Dispose();
                return;
            }

            lock (history.SyncRoot)
            {
                _owned.Dispose();
            }
        }
    }
}
