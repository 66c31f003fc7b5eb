// The memory of a nonce guard: which nonces one key has already been used with, and the tag each
// message got. Two bounded tables:
//   - the exact window: the most recent WindowSize nonces, every one of them (a ring of entries
//     plus an open-addressing hash table over it);
//   - distinguished points: the nonces whose keyed hash has its top DistinguishedPointBits bits
//     zero (1 in 2^bits of all nonces), kept in a second, larger ring long after they leave the
//     exact window, so a repeat far back is still caught with probability 2^-bits.
// It holds nothing secret: nonces and tags are public (they travel with every message), the key
// is known only by a fingerprint (NonceHistoryRegistry), and a message is known only by its tag,
// which the AEAD computes anyway (no extra hashing of the plaintext on the fast path).
//
// All state is touched under one lock; nothing allocates after construction.

using System;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.NonceSafety;

/// <summary>What <see cref="NonceHistory.Reserve"/> found.</summary>
internal enum NonceLookup
{
    /// <summary>Never seen (within the window or as a distinguished point); now reserved for the caller.</summary>
    New,

    /// <summary>Seen before, within the exact window; the earlier message's tag is returned.</summary>
    Seen,

    /// <summary>Seen before, found among the distinguished points beyond the window; the earlier tag is returned.</summary>
    SeenLongRange,

    /// <summary>Reserved by a call still in flight; try again when it has finished.</summary>
    Pending,
}

/// <summary>A message's tag as the history keeps it: up to 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct StoredTag
{
    public ulong Low;
    public ulong High;
    public int Length;

    public static StoredTag From(ReadOnlySpan<byte> tag)
    {
        Span<byte> padded = stackalloc byte[16];
        padded.Clear();
        int length = Math.Min(tag.Length, 16);
        tag[..length].CopyTo(padded);
        return new StoredTag
        {
            Low = BinaryPrimitives.ReadUInt64LittleEndian(padded),
            High = BinaryPrimitives.ReadUInt64LittleEndian(padded[8..]),
            Length = length,
        };
    }

    /// <summary>
    /// Whether <paramref name="tag"/> is the tag stored here, compared over the length both have
    /// (AES-GCM tags may be truncated; a truncated GCM tag is a prefix of the full one). Fixed
    /// time, because the tag compared may belong to a message that is about to be refused and
    /// must not be released, not even bit by bit.
    /// </summary>
    public readonly bool Matches(ReadOnlySpan<byte> tag)
    {
        Span<byte> stored = stackalloc byte[16];
        BinaryPrimitives.WriteUInt64LittleEndian(stored, Low);
        BinaryPrimitives.WriteUInt64LittleEndian(stored[8..], High);
        int length = Math.Min(Length, tag.Length);
        return length > 0 && CryptographicOperations.FixedTimeEquals(stored[..length], tag[..length]);
    }
}

/// <summary>The nonces one key has been used with, bounded; see the file header.</summary>
internal sealed class NonceHistory
{
    private const int Empty = 0;
    private const int Pending = -1;

    private readonly Lock _lock = new();
    private readonly Window _exact;
    private readonly Window? _distinguished;
    private readonly ulong _distinguishedMask; // the top DistinguishedPointBits bits
    private readonly ulong _hashKey0;
    private readonly ulong _hashKey1;
    private long _distinctRepeats;
    private long _identicalRepeats;

    public NonceHistory(NonceGuardOptions options, ulong fingerprintLow = 0, ulong fingerprintHigh = 0)
    {
        options.Validate();
        Span<byte> key = stackalloc byte[16];
        RandomNumberGenerator.Fill(key);
        _hashKey0 = BinaryPrimitives.ReadUInt64LittleEndian(key);
        _hashKey1 = BinaryPrimitives.ReadUInt64LittleEndian(key[8..]);
        _exact = new Window(options.WindowSize, this);
        if (options.DistinguishedPointCapacity > 0)
        {
            _distinguished = new Window(options.DistinguishedPointCapacity, this);
            _distinguishedMask = options.DistinguishedPointBits == 0 ? 0 : ulong.MaxValue << (64 - options.DistinguishedPointBits);
        }

        FingerprintLow = fingerprintLow;
        FingerprintHigh = fingerprintHigh;
        WindowSize = options.WindowSize;
    }

    /// <summary>The key's fingerprint (NonceHistoryRegistry), or zero for a history of its own.</summary>
    public ulong FingerprintLow { get; }

    /// <summary>The key's fingerprint, high half.</summary>
    public ulong FingerprintHigh { get; }

    /// <summary>How many of the most recent nonces are remembered exactly.</summary>
    public int WindowSize { get; }

    /// <summary>Repeats of a nonce with a different message (refused or, under Observe, let through).</summary>
    public long DistinctRepeats => Interlocked.Read(ref _distinctRepeats);

    /// <summary>Repeats of a nonce with the identical message.</summary>
    public long IdenticalRepeats => Interlocked.Read(ref _identicalRepeats);

    /// <summary>The bytes held by the tables; fixed at construction.</summary>
    public long MemoryBytes => _exact.MemoryBytes + (_distinguished?.MemoryBytes ?? 0);

    /// <summary>How many nonces the tables hold now (exact window, distinguished points).</summary>
    public (int Exact, int Distinguished) Count
    {
        get
        {
            lock (_lock)
            {
                return (_exact.Count, _distinguished?.Count ?? 0);
            }
        }
    }

    public static ulong NonceLow(ReadOnlySpan<byte> nonce) => BinaryPrimitives.ReadUInt64LittleEndian(nonce);

    public static uint NonceHigh(ReadOnlySpan<byte> nonce) => BinaryPrimitives.ReadUInt32LittleEndian(nonce[8..]);

    /// <summary>
    /// Looks the nonce up; when it is new, reserves it (as pending) so that a concurrent call with
    /// the same nonce waits for this one's tag. The caller must then <see cref="Publish"/> or
    /// <see cref="Cancel"/> with the returned slot.
    /// </summary>
    public NonceLookup Reserve(ulong nonceLow, uint nonceHigh, out int slot, out StoredTag seen)
    {
        ulong hash = Hash(nonceLow, nonceHigh);
        lock (_lock)
        {
            NonceLookup found = Find(nonceLow, nonceHigh, hash, out seen);
            slot = found == NonceLookup.New ? _exact.Add(nonceLow, nonceHigh, hash, Pending, default) : -1;
            return found;
        }
    }

    /// <summary>Records the tag of a reserved nonce's message; a distinguished nonce is also kept long-range.</summary>
    public void Publish(int slot, ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> tag)
    {
        StoredTag stored = StoredTag.From(tag);
        lock (_lock)
        {
            ref Entry entry = ref _exact.At(slot);
            if (entry.State == Pending && entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
            {
                entry.State = stored.Length;
                entry.Tag = stored;
            }

            AddDistinguished(nonceLow, nonceHigh, stored);
        }
    }

    /// <summary>Gives a reservation back: the call that made it failed before producing a message.</summary>
    public void Cancel(int slot, ulong nonceLow, uint nonceHigh)
    {
        lock (_lock)
        {
            ref Entry entry = ref _exact.At(slot);
            if (entry.State == Pending && entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
            {
                _exact.Remove(slot);
            }
        }
    }

    /// <summary>
    /// For a message that was received and authenticated: records its nonce and tag unless the
    /// nonce is already known, in which case the earlier tag is returned.
    /// </summary>
    public NonceLookup Observe(ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> tag, out StoredTag seen)
    {
        ulong hash = Hash(nonceLow, nonceHigh);
        StoredTag stored = StoredTag.From(tag);
        lock (_lock)
        {
            NonceLookup found = Find(nonceLow, nonceHigh, hash, out seen);
            if (found == NonceLookup.New)
            {
                _exact.Add(nonceLow, nonceHigh, hash, stored.Length, stored);
                AddDistinguished(nonceLow, nonceHigh, stored);
            }

            return found;
        }
    }

    public void CountRepeat(bool identical) => Interlocked.Increment(ref identical ? ref _identicalRepeats : ref _distinctRepeats);

    /// <summary>Whether a nonce is one of the distinguished points kept beyond the exact window.</summary>
    public bool IsDistinguished(ulong nonceLow, uint nonceHigh) => IsDistinguished(Hash(nonceLow, nonceHigh));

    private bool IsDistinguished(ulong hash) => _distinguished is not null && (hash & _distinguishedMask) == 0;

    private NonceLookup Find(ulong nonceLow, uint nonceHigh, ulong hash, out StoredTag seen)
    {
        int index = _exact.Find(nonceLow, nonceHigh, hash);
        if (index < 0 && IsDistinguished(hash))
        {
            int far = _distinguished!.Find(nonceLow, nonceHigh, hash);
            if (far >= 0)
            {
                seen = _distinguished.At(far).Tag;
                return NonceLookup.SeenLongRange;
            }
        }

        if (index < 0)
        {
            seen = default;
            return NonceLookup.New;
        }

        ref Entry entry = ref _exact.At(index);
        seen = entry.Tag;
        return entry.State == Pending ? NonceLookup.Pending : NonceLookup.Seen;
    }

    private void AddDistinguished(ulong nonceLow, uint nonceHigh, StoredTag tag)
    {
        ulong hash = Hash(nonceLow, nonceHigh);
        if (IsDistinguished(hash) && _distinguished!.Find(nonceLow, nonceHigh, hash) < 0)
        {
            _distinguished.Add(nonceLow, nonceHigh, hash, tag.Length, tag);
        }
    }

    // A keyed mix of the 96-bit nonce into 64 bits (two multiply-xorshift rounds). The key is
    // random per history, so neither the table slots nor which nonces are distinguished can be
    // predicted from outside; that keeps a peer's chosen nonces (on the decrypt check) from
    // piling into one probe chain. Not a cryptographic hash, and it protects nothing secret.
    private ulong Hash(ulong nonceLow, uint nonceHigh)
    {
        ulong x = (nonceLow ^ _hashKey0) * 0x9E3779B97F4A7C15UL;
        x ^= x >> 29;
        x = (x ^ nonceHigh ^ _hashKey1) * 0xBF58476D1CE4E5B9UL;
        return x ^ (x >> 32);
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct Entry
    {
        public ulong NonceLow;
        public uint NonceHigh;
        public int State; // Empty, Pending, or the stored tag's length
        public StoredTag Tag;
    }

    /// <summary>A ring of the most recent entries plus a linear-probing index over it.</summary>
    private sealed class Window
    {
        private readonly Entry[] _ring;
        private readonly int[] _index; // ring position + 1; 0 = free
        private readonly int _mask;
        private readonly NonceHistory _owner;
        private int _next;

        public Window(int capacity, NonceHistory owner)
        {
            _ring = new Entry[capacity];
            _index = new int[Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)capacity * 2))];
            _mask = _index.Length - 1;
            _owner = owner;
        }

        public int Count { get; private set; }

        public long MemoryBytes => ((long)_ring.Length * Marshal.SizeOf<Entry>()) + ((long)_index.Length * sizeof(int));

        public ref Entry At(int position) => ref _ring[position];

        public int Find(ulong nonceLow, uint nonceHigh, ulong hash)
        {
            for (int i = (int)hash & _mask; ; i = (i + 1) & _mask)
            {
                int position = _index[i] - 1;
                if (position < 0)
                {
                    return -1;
                }

                ref Entry entry = ref _ring[position];
                if (entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
                {
                    return position;
                }
            }
        }

        public int Add(ulong nonceLow, uint nonceHigh, ulong hash, int state, StoredTag tag)
        {
            int position = _next;
            _next = position + 1 == _ring.Length ? 0 : position + 1;
            if (_ring[position].State != Empty)
            {
                Remove(position); // the oldest entry leaves the window
            }

            _ring[position] = new Entry { NonceLow = nonceLow, NonceHigh = nonceHigh, State = state, Tag = tag };
            int i = (int)hash & _mask;
            while (_index[i] != 0)
            {
                i = (i + 1) & _mask;
            }

            _index[i] = position + 1;
            Count++;
            return position;
        }

        // Linear-probing deletion by backward shift: entries later in the probe chain move up
        // into the hole unless their home slot lies (cyclically) after it, so every remaining
        // entry stays reachable from its home slot without tombstones.
        public void Remove(int position)
        {
            ref Entry entry = ref _ring[position];
            int hole = (int)_owner.Hash(entry.NonceLow, entry.NonceHigh) & _mask;
            while (_index[hole] != position + 1)
            {
                hole = (hole + 1) & _mask;
            }

            for (int j = (hole + 1) & _mask; _index[j] != 0; j = (j + 1) & _mask)
            {
                ref Entry moved = ref _ring[_index[j] - 1];
                int home = (int)_owner.Hash(moved.NonceLow, moved.NonceHigh) & _mask;
                bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
                if (!stays)
                {
                    _index[hole] = _index[j];
                    hole = j;
                }
            }

            _index[hole] = 0;
            entry = default;
            Count--;
        }
    }
}
