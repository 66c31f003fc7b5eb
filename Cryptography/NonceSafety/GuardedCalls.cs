// The one piece of plumbing every nonce guard shares: a GuardedAead holds a GuardedCalls, which
// sends each call through NonceGuard with the guard's struct adapter as a type argument, so each
// wrapped AEAD still gets its own specialised NonceGuard with direct calls. A new guard writes its
// constructors and an adapter, nothing else.

using System;

namespace Cryptography.NonceSafety;

/// <summary>Encrypt and Decrypt of one wrapped AEAD through <see cref="NonceGuard"/>, and its disposal.</summary>
internal abstract class GuardedCalls
{
    public abstract string Name { get; }

    /// <summary>Wraps <paramref name="aead"/>; <paramref name="owned"/> is what disposing releases.</summary>
    public static GuardedCalls Create<TAead>(TAead aead, IDisposable owned)
        where TAead : struct, IGuardedAead
        => new Typed<TAead>(aead, owned);

    public abstract void Encrypt(NonceHistory history, NonceReusePolicy policy, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData);

    public abstract void Decrypt(NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);

    public abstract void DisposeAead();

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

            _aead = aead;
            _owned = owned;
        }

        public override string Name => default(TAead).Name;

        public override void Encrypt(NonceHistory history, NonceReusePolicy policy, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => NonceGuard.Encrypt(_aead, history, policy, nonce, plaintext, ciphertext, tag, associatedData);

        public override void Decrypt(NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => NonceGuard.Decrypt(_aead, history, policy, check, nonce, ciphertext, tag, plaintext, associatedData);

        public override void DisposeAead() => _owned.Dispose();
    }
}
