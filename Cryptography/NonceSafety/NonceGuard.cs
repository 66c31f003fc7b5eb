// The guard's logic, once for all three wrapped AEADs (GuardedAesGcm, GuardedChaCha20Poly1305,
// GuardedAesGcmSiv). The AEAD is a type parameter over a struct adapter, so each wrapper gets its
// own specialised copy with direct calls.
//
// Encrypt, fast path (a nonce not seen before): look the nonce up, encrypt straight into the
// caller's buffers, record the tag. Nothing else is hashed or copied. For AEADs that must not run
// concurrently anyway (.NET's AesGcm, ChaCha20Poly1305) that is one critical section; for
// AesGcmSiv, which does run concurrently, the nonce is reserved first and the tag published
// after, so encryptions under one key proceed in parallel. Under Observe (GuardedAesGcmSiv's
// default) nothing is refused, so there is nothing to reserve: the AEAD encrypts first and one
// short section records the tag or, for a repeat, compares it with the earlier one; a concurrent
// call with the same nonce is counted exactly as after a reservation (whichever records second
// compares with the first's tag).
//
// Disposal (issue 49: no lock-prefixed instruction of its own per call). The guard's disposed
// flag is Internal/KeyLifetime.cs. A serialised guard checks it under the history's lock, and
// Dispose disposes the AEAD under that lock, so a call either runs to its end on a live AEAD or
// throws ObjectDisposedException. A concurrent AEAD (AesGcmSiv) keeps Dispose from reaching a call
// in flight by itself (its own KeyLifetime: a call Dispose overtakes zeroes its outputs and throws
// ObjectDisposedException), so the guard checks the flag once, before it touches the history, and
// a reservation whose encryption threw is given back as before.
// Encrypt, a repeat: under Refuse, encrypt into a private buffer and compare its tag with the one
// the earlier message got. Equal tags mean the same (nonce, associated data, plaintext): the
// result is copied out. Different tags: the private buffer is wiped and NonceReuseException is
// thrown, so nothing reaches the caller's buffers. (Two different messages under one nonce get
// equal tags only with probability about 2^-100 or less for all three AEADs, and nobody can steer
// that without the key.)
//
// The caller's nonce (and, on a checked decryption, the received tag) is copied to the stack once,
// first, and that copy is what both the history and the AEAD see: another thread changing the
// caller's buffer mid-call must not make the history check one nonce while the AEAD uses another.
// Nonce and tag sizes are the adapter's (IGuardedAead.NonceSize, MaxTagSize). The history keys its
// entries by all 96 bits of a nonce (a ulong and a uint), so an adapter's NonceSize must be
// NonceHistory.NonceSize: all three wrapped AEADs take only 96-bit nonces (AesGcm, ChaCha20Poly1305
// and AesGcmSiv each have NonceByteSizes 12..12), and GuardedCalls checks it once per adapter type.
// A call with any other length is rejected before the history is touched.
// The tag an encryption writes is read back from the caller's buffer to be recorded; a concurrent
// change there can only record a wrong tag, which makes a later identical re-encryption look
// different (refused), never a different message look identical.

using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Threading;
using Cryptography.Internal;

namespace Cryptography.NonceSafety;

/// <summary>The calls a guard makes on the AEAD it wraps.</summary>
internal interface IGuardedAead
{
    string Name { get; }

    /// <summary>The one nonce length the AEAD takes, in bytes; the history supports only
    /// <see cref="NonceHistory.NonceSize"/>.</summary>
    int NonceSize { get; }

    /// <summary>The longest tag the AEAD takes, in bytes: the size of the guard's private tag copies.</summary>
    int MaxTagSize { get; }

    /// <summary>
    /// Whether the AEAD may be called from many threads at once. .NET's AesGcm and
    /// ChaCha20Poly1305 may not (one native cipher context per instance), so their guards run
    /// each whole call under the history's lock, which also spares them a second lock
    /// acquisition and the pending state of the two-phase path. A concurrent AEAD must also be safe
    /// to dispose under calls in flight (a call that returns never used a disposed key), as
    /// AesGcmSiv is: the guard disposes it at once and does not count calls.
    /// </summary>
    bool Concurrent { get; }

    /// <summary>
    /// For a <see cref="Concurrent"/> AEAD: throws the exception its Encrypt would throw for these
    /// buffers, before a nonce is reserved. A reservation given back still takes its place in the
    /// window's ring, so a run of calls failing after the reservation would push
    /// real nonces out of the exact window early.
    /// </summary>
    void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag);

    void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData);

    void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);
}

internal static class NonceGuard
{
    /// <summary>
    /// Checks a caller's nonce for an encryption and reads it, once, as the two words the history
    /// keys it by. The guards call it before their call into <see cref="Encrypt"/>, so that the nonce
    /// crosses that call in two registers: as a span it was spilled to the stack in two 8-byte
    /// stores and reloaded in one 16-byte load, a store-forwarding stall at the head of the guard's
    /// critical path (issue 49).
    /// </summary>
    /// <exception cref="ArgumentException">The nonce is not <see cref="NonceHistory.NonceSize"/> bytes long.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void ReadNonce(ReadOnlySpan<byte> callersNonce, out ulong low, out uint high)
    {
        if (callersNonce.Length != NonceHistory.NonceSize)
        {
            throw new ArgumentException(Internal.Messages.InvalidNonceSize, "nonce");
        }

        low = NonceHistory.NonceLow(callersNonce);
        high = NonceHistory.NonceHigh(callersNonce);
    }

    /// <summary>Encrypts under the guard; the nonce as <see cref="ReadNonce"/> read it (every adapter's
    /// NonceSize is <see cref="NonceHistory.NonceSize"/>: GuardedCalls checks it).</summary>
    [SkipLocalsInit]
    public static void Encrypt<TAead>(TAead aead, ref KeyLifetime lifetime, object owner, NonceHistory history, NonceReusePolicy policy, ulong low, uint high, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        // The nonce the history checks is exactly the one the AEAD uses: one read of the caller's
        // buffer (ReadNonce), written here to the stack for the AEAD, in a struct local rather than
        // a stackalloc buffer (Internal/StackBytes.cs says why: issue 49, eighth pass).
        Unsafe.SkipInit(out StackBytes12 nonceBuffer);
        Span<byte> nonce = StackBytes12.Span(ref nonceBuffer);
        BinaryPrimitives.WriteUInt64LittleEndian(nonce, low);
        BinaryPrimitives.WriteUInt32LittleEndian(nonce[8..], high);

        // Checked here because a repeat encrypts into a private buffer of the plaintext's length
        // first; the wrapped AEAD checks everything else.
        if (ciphertext.Length != plaintext.Length)
        {
            throw new ArgumentException(Internal.Messages.PlaintextCiphertextLengthMismatch, nameof(ciphertext));
        }

        ulong hash = history.Hash(low, high);
        if (!default(TAead).Concurrent)
        {
            // A method of its own: the serialised path's IL (a lock, a try/finally) no longer counts
            // against the JIT's inlining budget where GuardedAesGcmSiv's call is compiled (issue 49).
            EncryptSerialised(aead, ref lifetime, owner, history, policy, low, high, hash, nonce, plaintext, ciphertext, tag, associatedData);
            return;
        }

        ObjectDisposedException.ThrowIf(lifetime.IsClosed, owner);
        if (policy == NonceReusePolicy.Observe)
        {
            // Nothing to refuse: encrypt (the AEAD checks the buffers), then record or compare. The
            // history's lines are asked for first, to arrive while the AEAD runs; after it the window
            // is looked up without the lock, and the locked section only checks that no insert came
            // between and writes (NonceHistory.Prefetch, Probe, TryRecordNew).
            history.Prefetch(hash);
            aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
            WindowProbe probe = history.Probe(hash);
            if (!history.TryRecordNew(low, high, hash, tag, probe))
            {
                Observe(history, low, high, hash, tag, probe);
            }

            return;
        }

        EncryptReserving(aead, history, policy, low, high, hash, nonce, plaintext, ciphertext, tag, associatedData);
    }

    // An AEAD that must not run concurrently (AesGcm, ChaCha20Poly1305): the whole call under the history's lock.
    private static void EncryptSerialised<TAead>(TAead aead, ref KeyLifetime lifetime, object owner, NonceHistory history, NonceReusePolicy policy, ulong low, uint high, ulong hash, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        lock (history.SyncRoot)
        {
            ObjectDisposedException.ThrowIf(lifetime.IsClosed, owner);
            NonceLookup known = history.FindLocked(low, high, hash, out StoredTag earlier);
            if (known == NonceLookup.New)
            {
                aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
                history.AddLocked(low, high, hash, tag);
            }
            else
            {
                EncryptRepeat(aead, history, policy, known == NonceLookup.SeenLongRange, earlier, nonce, plaintext, ciphertext, tag, associatedData);
            }
        }
    }

    // Observe, all but the common case that NonceHistory.TryRecordNew records inline: a distinguished
    // nonce, a probe that no longer stands, a nonce known already (or reserved by a guard of the same
    // key under another policy, whose tag decides): a repeat is counted as identical or distinct.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Observe(NonceHistory history, ulong low, uint high, ulong hash, ReadOnlySpan<byte> tag, WindowProbe probe)
    {
        NonceLookup recorded = history.Observe(low, high, hash, tag, probe, out StoredTag earlier);
        var spinner = default(SpinWait);
        while (recorded == NonceLookup.Pending)
        {
            spinner.SpinOnce();
            recorded = history.Observe(low, high, hash, tag, out earlier);
        }

        if (recorded != NonceLookup.New)
        {
            history.CountRepeat(earlier.Matches(tag));
        }
    }

    // A concurrent AEAD under Refuse or RefuseAll: reserve the nonce, encrypt, publish the tag.
    private static void EncryptReserving<TAead>(TAead aead, NonceHistory history, NonceReusePolicy policy, ulong low, uint high, ulong hash, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        default(TAead).CheckEncryptBuffers(plaintext, ciphertext, tag);
        var spinner = default(SpinWait);
        while (true)
        {
            NonceLookup found = history.Reserve(low, high, hash, out long slot, out StoredTag seen);
            switch (found)
            {
                case NonceLookup.New:
                    try
                    {
                        aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
                    }
                    catch
                    {
                        history.Cancel(slot, low, high);
                        throw;
                    }

                    history.Publish(slot, low, high, hash, tag);
                    return;

                case NonceLookup.Pending:
                    // Another thread is encrypting under this nonce right now; its tag decides.
                    spinner.SpinOnce();
                    continue;

                default:
                    EncryptRepeat(aead, history, policy, found == NonceLookup.SeenLongRange, seen, nonce, plaintext, ciphertext, tag, associatedData);
                    return;
            }
        }
    }

    [SkipLocalsInit]
    public static void Decrypt<TAead>(TAead aead, ref KeyLifetime lifetime, object owner, NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        if (check)
        {
            if (nonce.Length != default(TAead).NonceSize)
            {
                throw new ArgumentException(Internal.Messages.InvalidNonceSize, nameof(nonce));
            }

            // One read of the caller's nonce and tag: the history records exactly what the AEAD
            // verified. A tag longer than any AEAD takes is passed on for the AEAD to reject.
            // Struct locals, not stackalloc: see Internal/StackBytes.cs (GuardedCalls checks both sizes).
            var nonceBuffer = default(StackBytes12);
            var tagBuffer = default(StackBytes16);
            Span<byte> nonceCopy = StackBytes12.Span(ref nonceBuffer);
            Span<byte> tagCopy = StackBytes16.Span(ref tagBuffer)[..default(TAead).MaxTagSize];
            nonce.CopyTo(nonceCopy);
            if (tag.Length <= default(TAead).MaxTagSize)
            {
                tag.CopyTo(tagCopy);
                DecryptLocking(aead, ref lifetime, owner, history, policy, check, nonceCopy, ciphertext, tagCopy[..tag.Length], plaintext, associatedData);
            }
            else
            {
                DecryptLocking(aead, ref lifetime, owner, history, policy, check, nonceCopy, ciphertext, tag, plaintext, associatedData);
            }

            return;
        }

        DecryptLocking(aead, ref lifetime, owner, history, policy, check, nonce, ciphertext, tag, plaintext, associatedData);
    }

    private static void DecryptLocking<TAead>(TAead aead, ref KeyLifetime lifetime, object owner, NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        if (!default(TAead).Concurrent)
        {
            lock (history.SyncRoot)
            {
                ObjectDisposedException.ThrowIf(lifetime.IsClosed, owner);
                DecryptAndCheck(aead, history, policy, check, nonce, ciphertext, tag, plaintext, associatedData);
            }

            return;
        }

        ObjectDisposedException.ThrowIf(lifetime.IsClosed, owner);
        DecryptAndCheck(aead, history, policy, check, nonce, ciphertext, tag, plaintext, associatedData);
    }

    private static void DecryptAndCheck<TAead>(TAead aead, NonceHistory history, NonceReusePolicy policy, bool check, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
        if (!check)
        {
            return;
        }

        // Only an authentic message is recorded: a forgery must not be able to fill the history.
        ulong low = NonceHistory.NonceLow(nonce);
        uint high = NonceHistory.NonceHigh(nonce);
        ulong hash = history.Hash(low, high);
        var spinner = default(SpinWait);
        NonceLookup found;
        StoredTag seen;
        if (!default(TAead).Concurrent)
        {
            // The caller holds the lock: no call can be in flight, so nothing is pending.
            found = history.FindLocked(low, high, hash, out seen);
            if (found == NonceLookup.New)
            {
                history.AddLocked(low, high, hash, tag);
            }
        }
        else
        {
            while ((found = history.Observe(low, high, hash, tag, out seen)) == NonceLookup.Pending)
            {
                spinner.SpinOnce();
            }
        }

        if (found == NonceLookup.New)
        {
            return;
        }

        bool identical = seen.Matches(tag);
        history.CountRepeat(identical);
        if (!identical && policy != NonceReusePolicy.Observe)
        {
            CryptographicOperations.ZeroMemory(plaintext);
            throw Refusal<TAead>(history, found == NonceLookup.SeenLongRange, nonce, decrypting: true);
        }
    }

    private static void EncryptRepeat<TAead>(TAead aead, NonceHistory history, NonceReusePolicy policy, bool longRange, StoredTag seen, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
        where TAead : struct, IGuardedAead
    {
        if (policy == NonceReusePolicy.Observe)
        {
            aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
            history.CountRepeat(seen.Matches(tag));
            return;
        }

        if (policy == NonceReusePolicy.RefuseAll)
        {
            history.CountRepeat(identical: false);
            throw Refusal<TAead>(history, longRange, nonce, decrypting: false, anyRepeat: true);
        }

        // Refuse: work out of sight first. The private buffer is pooled, so only the first repeat
        // of a size allocates; it is wiped before it goes back.
        byte[]? rented = plaintext.IsEmpty ? null : ArrayPool<byte>.Shared.Rent(plaintext.Length);
        Span<byte> privateCiphertext = rented is null ? [] : rented.AsSpan(0, plaintext.Length);
        Span<byte> privateTag = stackalloc byte[tag.Length <= default(TAead).MaxTagSize ? tag.Length : 0];
        if (privateTag.Length != tag.Length)
        {
            // A tag size the AEAD will reject anyway; let it say so.
            aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
            return;
        }

        try
        {
            aead.Encrypt(nonce, plaintext, privateCiphertext, privateTag, associatedData);
            bool identical = seen.Matches(privateTag);
            history.CountRepeat(identical);
            if (!identical)
            {
                throw Refusal<TAead>(history, longRange, nonce, decrypting: false);
            }

            privateCiphertext.CopyTo(ciphertext);
            privateTag.CopyTo(tag);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(privateCiphertext);
            CryptographicOperations.ZeroMemory(privateTag);
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    private static NonceReuseException Refusal<TAead>(NonceHistory history, bool longRange, ReadOnlySpan<byte> nonce, bool decrypting, bool anyRepeat = false)
        where TAead : struct, IGuardedAead
    {
        string where = longRange
            ? "as a distinguished point, further back than the last " + history.WindowSize.ToString(CultureInfo.InvariantCulture) + " nonces"
            : "within the last " + history.WindowSize.ToString(CultureInfo.InvariantCulture) + " nonces";
        string what = anyRepeat
            ? "The nonce {0} was already used with this {1} key, and the guard refuses every repeat (found {2}). Nothing was written."
            : decrypting
            ? "A received message reuses the nonce {0} of an earlier, different message under the same {1} key (found {2}). The plaintext buffer has been zeroed."
            : "The nonce {0} was already used with this {1} key for a different message (found {2}). Nothing was written.";
        return new NonceReuseException(string.Format(CultureInfo.InvariantCulture, what, Convert.ToHexString(nonce), default(TAead).Name, where))
        {
            LongRange = longRange,
        };
    }
}
