// The knobs of a nonce guard (GuardedAesGcm, GuardedChaCha20Poly1305, GuardedAesGcmSiv): how much
// it remembers, what it does with a repeat, whether it also watches decryption.

using System;

namespace Cryptography;

/// <summary>What a nonce guard does when a (key, nonce) pair is used again.</summary>
public enum NonceReusePolicy
{
    /// <summary>
    /// Refuse a repeat with <see cref="NonceReuseException"/>, unless the plaintext and associated
    /// data are identical to the earlier message's (the same computation again reveals nothing
    /// new, so it is allowed). The default for <see cref="GuardedAesGcm"/> and
    /// <see cref="GuardedChaCha20Poly1305"/>, and the strict mode of <see cref="GuardedAesGcmSiv"/>.
    /// </summary>
    Refuse = 0,

    /// <summary>Refuse every repeat, even of an identical message.</summary>
    RefuseAll = 1,

    /// <summary>
    /// Let every repeat through and count it (<c>DistinctRepeats</c>, <c>IdenticalRepeats</c>).
    /// The default for <see cref="GuardedAesGcmSiv"/>, where a repeat only reveals whether two
    /// messages were equal.
    /// </summary>
    Observe = 2,
}

/// <summary>Options for a nonce guard. The defaults suit most services; see the "Nonce safety" docs page.</summary>
public sealed class NonceGuardOptions
{
    /// <summary>The most a window or capacity may be: 16,777,216 entries.</summary>
    public const int MaxEntries = 1 << 24;

    /// <summary>The options every guard uses when given none.</summary>
    public static NonceGuardOptions Default { get; } = new();

    /// <summary>
    /// How many of the most recent nonces are always remembered exactly: a repeat within this
    /// many encryptions (and checked decryptions) is always caught. The window keeps this many
    /// rounded up to a power of two (so up to twice as far back for other sizes), the oldest
    /// forgotten by each new nonce. Default 4096; the window takes 64 bytes per nonce of the
    /// rounded size, plus 64 (256 KiB).
    /// </summary>
    public int WindowSize { get; init; } = 4096;

    /// <summary>
    /// The fraction of nonces kept as distinguished points beyond the exact window, as a power of
    /// two: 1 in 2^<c>DistinguishedPointBits</c>. A repeat further back than the window is caught
    /// with that probability, for as long as the nonce stays among the distinguished points.
    /// Default 4 (1 in 16). Range 0 to 16.
    /// </summary>
    public int DistinguishedPointBits { get; init; } = 4;

    /// <summary>
    /// How many distinguished points are kept at most (two generations of half this; the older
    /// half is dropped when the newer fills); 0 turns long-range detection off. Default 16,384:
    /// with 1 in 16 nonces distinguished that reaches back between 131,072 and 262,144
    /// encryptions. 40 bytes each (640 KiB).
    /// </summary>
    public int DistinguishedPointCapacity { get; init; } = 16384;

    /// <summary>
    /// Also check nonces on decryption (a peer that repeats nonces under the shared key), after the
    /// tag verifies. A repeat with a different message zeroes the plaintext and, unless the policy
    /// is <see cref="NonceReusePolicy.Observe"/>, throws <see cref="NonceReuseException"/>. A
    /// replay of the identical message is not a nonce repeat and passes. Default off.
    /// </summary>
    public bool CheckDecrypt { get; init; }

    /// <summary>What to do with a repeat; <see langword="null"/> (the default) takes the guard's own default.</summary>
    public NonceReusePolicy? Policy { get; init; }

    /// <summary>
    /// Share one history among all guards of this process that hold the same key (and algorithm),
    /// so that two instances built from one key cannot hand out the same nonce unnoticed. The
    /// history is dropped when the last of them is disposed or, if never disposed, collected. Default on. The first guard's
    /// window sizes are the ones the shared history keeps.
    /// </summary>
    public bool ShareHistory { get; init; } = true;

    internal void Validate()
    {
        if (WindowSize is < 1 or > MaxEntries)
        {
            throw new ArgumentOutOfRangeException(nameof(WindowSize), WindowSize, $"The window must hold 1 to {MaxEntries} nonces.");
        }

        if (DistinguishedPointBits is < 0 or > 16)
        {
            throw new ArgumentOutOfRangeException(nameof(DistinguishedPointBits), DistinguishedPointBits, "Distinguished points are 1 in 2^bits nonces, bits from 0 to 16.");
        }

        if (DistinguishedPointCapacity is < 0 or > MaxEntries)
        {
            throw new ArgumentOutOfRangeException(nameof(DistinguishedPointCapacity), DistinguishedPointCapacity, $"The distinguished-point capacity must be 0 to {MaxEntries}.");
        }

        if (Policy is { } policy && !Enum.IsDefined(policy))
        {
            throw new ArgumentOutOfRangeException(nameof(Policy), policy, "Unknown nonce reuse policy.");
        }
    }
}
