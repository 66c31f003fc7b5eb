// The memory of a nonce guard: which nonces one key has already been used with, and the tag each
// message got. Two bounded tables:
//   - the exact window: the most recent WindowSize nonces rounded up to a power of two (so at
//     least WindowSize, under twice that), every one of them;
//   - distinguished points: the nonces whose keyed hash has its top DistinguishedPointBits bits
//     zero (1 in 2^bits of all nonces), kept in a second, larger table long after they leave the
//     exact window, so a repeat far back is still caught with probability 2^-bits.
// It holds nothing secret: nonces and tags are public (they travel with every message), the key
// is known only by a fingerprint (NonceHistoryRegistry), and a message is known only by its tag,
// which the AEAD computes anyway (no extra hashing of the plaintext on the fast path).
//
// The window (Window, below) is a ring of the newest entries and an index of one-cache-line
// buckets, seven slots each compared at once (a fingerprint and a sequence number per slot; a slot
// whose entry has left the ring is free, so nothing is ever deleted or cleared), a full bucket
// spilling into the next (a mark that the lookup follows while it is live): a lookup of a new nonce
// reads one line, with no probe loop (issue 49, fifth pass). The long-range table (Table) is two
// generations of a hash table that only ever grows (no deletion): inserts go to the current
// generation; when it is full, the older generation is cleared and becomes the current one. So
// the newest `capacity` entries are always present, lookups probe at most two short chains, and
// forgetting costs one pass clearing the index per `capacity` inserts instead of a deletion per
// insert (backward-shift deletion from an open-addressing table measured at ~2x the whole cost).
//
// Two locks, one per kind of caller, never both on one path (a history belongs to one algorithm,
// so its guards all take the same path):
//   - SyncRoot, a Lock, which the serialised guards (AesGcm, ChaCha20Poly1305) hold across a whole
//     call, AEAD included, and which may be held for as long as a large message takes;
//   - a spin lock of its own for the short sections of the concurrent path (Reserve, Publish,
//     Cancel, Observe: a lookup and an insert, tens of nanoseconds). It costs one lock-prefixed
//     instruction to enter and a plain store to leave, where a Lock costs two lock-prefixed
//     instructions (about 20 cycles each on Intel cores, a few on Zen; issue 49). A waiter spins,
//     then yields and sleeps (SpinWait), so a holder that is descheduled does not starve it. The
//     spin lock's word also carries the window's next sequence number (see _lock).
// A guard that records after the AEAD (Observe) asks for the lines it will touch before the AEAD
// runs (Prefetch). After the AEAD it looks the nonce up in the window without the lock (Probe),
// and one compare-exchange both takes the lock and checks that no insert has come between
// (TryRecordNew); then the section only writes. Otherwise Observe looks again.
// Nothing allocates after construction.

using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.NonceSafety;

/// <summary>What a lookup in a <see cref="NonceHistory"/> found.</summary>
internal enum NonceLookup
{
    /// <summary>Never seen (within the window or as a distinguished point).</summary>
    New,

    /// <summary>Seen before, within the exact window; the earlier message's tag is returned.</summary>
    Seen,

    /// <summary>Seen before, found among the distinguished points beyond the window; the earlier tag is returned.</summary>
    SeenLongRange,

    /// <summary>Reserved by a call still in flight; try again when it has finished.</summary>
    Pending,
}

/// <summary>A message's tag as the history keeps it: up to 16 bytes.</summary>
internal readonly struct StoredTag(ulong low, ulong high, int length)
{
    public ulong Low { get; } = low;

    public ulong High { get; } = high;

    public int Length { get; } = length;

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public static StoredTag From(ReadOnlySpan<byte> tag) => tag.Length >= 16
        ? new StoredTag(BinaryPrimitives.ReadUInt64LittleEndian(tag), BinaryPrimitives.ReadUInt64LittleEndian(tag[8..]), 16)
        : FromShort(tag);

    // A truncated AES-GCM tag: padded with zeros (a stack buffer, kept off the common path).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static StoredTag FromShort(ReadOnlySpan<byte> tag)
    {
        Span<byte> padded = stackalloc byte[16];
        padded.Clear();
        tag.CopyTo(padded);
        return new StoredTag(BinaryPrimitives.ReadUInt64LittleEndian(padded), BinaryPrimitives.ReadUInt64LittleEndian(padded[8..]), tag.Length);
    }

    /// <summary>
    /// Whether <paramref name="tag"/> is the tag stored here, compared over the length both have
    /// (AES-GCM tags may be truncated; a truncated GCM tag is a prefix of the full one). Fixed
    /// time, because the tag compared may belong to a message that is about to be refused and
    /// must not be released, not even bit by bit.
    /// </summary>
    public bool Matches(ReadOnlySpan<byte> tag)
    {
        Span<byte> stored = stackalloc byte[16];
        BinaryPrimitives.WriteUInt64LittleEndian(stored, Low);
        BinaryPrimitives.WriteUInt64LittleEndian(stored[8..], High);
        int length = Math.Min(Length, tag.Length);
        return length > 0 && CryptographicOperations.FixedTimeEquals(stored[..length], tag[..length]);
    }
}

/// <summary>
/// A lookup of a nonce in the window made without the lock (see <see cref="NonceHistory.Probe"/>):
/// the window's next sequence number when it was made and the free slot an insert may take, or -1
/// when the probe found anything but a plain miss.
/// </summary>
internal readonly struct WindowProbe(ulong next, int lane)
{
    /// <summary>A probe that never stands: the locked section looks the nonce up itself.</summary>
    public static WindowProbe None => new(0, -1);

    /// <summary>The window's next sequence number when the probe read the bucket.</summary>
    public ulong Next { get; } = next;

    /// <summary>The free slot of the nonce's bucket, or -1.</summary>
    public int Lane { get; } = lane;
}

/// <summary>The nonces one key has been used with, bounded; see the file header.</summary>
internal sealed class NonceHistory
{
    private const int Empty = 0; // a cancelled reservation; lookups skip it
    private const int Pending = -1;

    private readonly Window _exact;
    private readonly Table? _distinguished;
    private readonly ulong _distinguishedMask; // the top DistinguishedPointBits bits
    private readonly ulong _hashKey0;
    private readonly ulong _hashKey1;
    private long _distinctRepeats;
    private long _identicalRepeats;

    /// <param name="options">The window's and the long-range table's sizes.</param>
    /// <param name="fingerprintLow">The key's fingerprint (NonceHistoryRegistry), low half.</param>
    /// <param name="fingerprintHigh">The key's fingerprint, high half.</param>
    /// <param name="firstSequence">The window's first sequence number: 0, or for tests one just before
    /// a sweep or the 32-bit wrap (see Window).</param>
    public NonceHistory(NonceGuardOptions options, ulong fingerprintLow = 0, ulong fingerprintHigh = 0, ulong firstSequence = 0)
    {
        options.Validate();
        Span<byte> key = stackalloc byte[16];
        RandomNumberGenerator.Fill(key);
        _hashKey0 = BinaryPrimitives.ReadUInt64LittleEndian(key);
        _hashKey1 = BinaryPrimitives.ReadUInt64LittleEndian(key[8..]);
        // The window: a ring of the last WindowSize (rounded up to a power of two) entries and a
        // bucket index (Window). The long-range table, probed by one call in 2^bits, keeps two
        // generations with two index slots per entry. Memory: under 1 MiB in all by default.
        _exact = new Window(options.WindowSize, firstSequence);
        if (options.DistinguishedPointCapacity > 0)
        {
            // Two generations of half the capacity each: between capacity/2 and capacity kept.
            _distinguished = new Table(Math.Max(1, options.DistinguishedPointCapacity / 2), slotsPerEntry: 2);
            _distinguishedMask = options.DistinguishedPointBits == 0 ? 0 : ulong.MaxValue << (64 - options.DistinguishedPointBits);
        }

        FingerprintLow = fingerprintLow;
        FingerprintHigh = fingerprintHigh;
        WindowSize = options.WindowSize;
        _lock = (long)_exact.Next << 1;
    }

    // The spin lock of the concurrent path's short sections (see the file header), and a copy of the
    // window's next sequence number: bit 0 set while the lock is held, the number in the bits above.
    // A section leaves by writing the number as it then is (ExitShort), so one load gives a probe
    // (Probe) what TryRecordNew's one compare-exchange checks: the lock free and no insert since.
    // The serialised path (SyncRoot) inserts without it and leaves the copy behind; it never probes,
    // and a history serves one algorithm's guards, so no probe ever meets such a history.
    private long _lock;

    /// <summary>The lock the serialised guard path holds across a whole call (with <see cref="FindLocked"/>
    /// and <see cref="AddLocked"/>); the concurrent path's methods take a spin lock of their own instead.</summary>
    public Lock SyncRoot { get; } = new();

    /// <summary>The key's fingerprint (NonceHistoryRegistry), or zero for a history of its own.</summary>
    public ulong FingerprintLow { get; }

    /// <summary>The key's fingerprint, high half.</summary>
    public ulong FingerprintHigh { get; }

    /// <summary>How many of the most recent nonces are always remembered exactly.</summary>
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
            lock (SyncRoot)
            {
                EnterShort();
                try
                {
                    return (_exact.Count, _distinguished?.Count ?? 0);
                }
                finally
                {
                    ExitShort();
                }
            }
        }
    }

    /// <summary>The nonce length the history keys its entries by: 96 bits, as a ulong (<see cref="NonceLow"/>) and a uint (<see cref="NonceHigh"/>).</summary>
    public const int NonceSize = 12;

    public static ulong NonceLow(ReadOnlySpan<byte> nonce) => BinaryPrimitives.ReadUInt64LittleEndian(nonce);

    public static uint NonceHigh(ReadOnlySpan<byte> nonce) => BinaryPrimitives.ReadUInt32LittleEndian(nonce[8..]);

    public void CountRepeat(bool identical) => Interlocked.Increment(ref identical ? ref _identicalRepeats : ref _distinctRepeats);

    // ---- Under SyncRoot (the serialised path: the caller holds it across the whole call) ----

    /// <summary>Looks a nonce up. The caller holds <see cref="SyncRoot"/> (or, inside this class, the spin lock).</summary>
    public NonceLookup FindLocked(ulong nonceLow, uint nonceHigh, ulong hash, out StoredTag seen) => Find(nonceLow, nonceHigh, hash, out seen);

    // FindLocked's body, inlined into Observe, the call every GuardedAesGcmSiv encryption makes.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private NonceLookup Find(ulong nonceLow, uint nonceHigh, ulong hash, out StoredTag seen)
    {
        ref Entry entry = ref _exact.Find(nonceLow, nonceHigh, hash);
        if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref entry))
        {
            seen = entry.Tag;
            return entry.State == Pending ? NonceLookup.Pending : NonceLookup.Seen;
        }

        if (IsDistinguished(hash))
        {
            ref Entry far = ref _distinguished!.Find(nonceLow, nonceHigh, hash);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref far))
            {
                seen = far.Tag;
                return NonceLookup.SeenLongRange;
            }
        }

        seen = default;
        return NonceLookup.New;
    }

    /// <summary>Records a nonce not seen before with its message's tag. The caller holds <see cref="SyncRoot"/> (or, inside this class, the spin lock).</summary>
    public void AddLocked(ulong nonceLow, uint nonceHigh, ulong hash, ReadOnlySpan<byte> tag) => AddStored(nonceLow, nonceHigh, hash, StoredTag.From(tag));

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private void AddStored(ulong nonceLow, uint nonceHigh, ulong hash, StoredTag stored)
    {
        _exact.Add(nonceLow, nonceHigh, hash, stored.Length, stored);
        if (IsDistinguished(hash))
        {
            _distinguished!.Add(nonceLow, nonceHigh, hash, stored.Length, stored);
        }
    }

    // ---- For AEADs that run concurrently (AesGcmSiv): each method one short section under the spin lock ----

    /// <summary>
    /// Looks the nonce up; when it is new, reserves it (as pending) so that a concurrent call with
    /// the same nonce waits for this one's tag. The caller must then <see cref="Publish(long, ulong, uint, ulong, ReadOnlySpan{byte})"/>
    /// or <see cref="Cancel"/> with the returned ticket.
    /// </summary>
    public NonceLookup Reserve(ulong nonceLow, uint nonceHigh, out long ticket, out StoredTag seen)
        => Reserve(nonceLow, nonceHigh, Hash(nonceLow, nonceHigh), out ticket, out seen);

    /// <summary><see cref="Reserve(ulong, uint, out long, out StoredTag)"/> with the nonce's <see cref="Hash"/> already computed.</summary>
    public NonceLookup Reserve(ulong nonceLow, uint nonceHigh, ulong hash, out long ticket, out StoredTag seen)
    {
        EnterShort();
        try
        {
            NonceLookup found = FindLocked(nonceLow, nonceHigh, hash, out seen);
            ticket = found == NonceLookup.New ? _exact.Add(nonceLow, nonceHigh, hash, Pending, default) : -1;
            return found;
        }
        finally
        {
            ExitShort();
        }
    }

    /// <summary>Records the tag of a reserved nonce's message; a distinguished nonce is also kept long-range.</summary>
    public void Publish(long ticket, ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> tag)
        => Publish(ticket, nonceLow, nonceHigh, Hash(nonceLow, nonceHigh), tag);

    /// <summary><see cref="Publish(long, ulong, uint, ReadOnlySpan{byte})"/> with the nonce's <see cref="Hash"/> already computed.</summary>
    public void Publish(long ticket, ulong nonceLow, uint nonceHigh, ulong hash, ReadOnlySpan<byte> tag)
    {
        StoredTag stored = StoredTag.From(tag);
        EnterShort();
        try
        {
            ref Entry entry = ref _exact.At(ticket);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref entry) && entry.State == Pending && entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
            {
                entry.Tag = stored;
                entry.State = stored.Length;
            }

            if (IsDistinguished(hash))
            {
                _distinguished!.Add(nonceLow, nonceHigh, hash, stored.Length, stored);
            }
        }
        finally
        {
            ExitShort();
        }
    }

    /// <summary>Gives a reservation back: the call that made it failed before producing a message.</summary>
    public void Cancel(long ticket, ulong nonceLow, uint nonceHigh)
    {
        EnterShort();
        try
        {
            _exact.Cancel(ticket, nonceLow, nonceHigh);
        }
        finally
        {
            ExitShort();
        }
    }

    /// <summary>
    /// For a message that was produced (an encryption under <see cref="NonceReusePolicy.Observe"/>) or
    /// received and authenticated: records its nonce and tag unless the nonce is already known, in
    /// which case the earlier tag is returned (or <see cref="NonceLookup.Pending"/>: try again).
    /// </summary>
    public NonceLookup Observe(ulong nonceLow, uint nonceHigh, ReadOnlySpan<byte> tag, out StoredTag seen)
        => Observe(nonceLow, nonceHigh, Hash(nonceLow, nonceHigh), tag, out seen);

    /// <summary><see cref="Observe(ulong, uint, ReadOnlySpan{byte}, out StoredTag)"/> with the nonce's <see cref="Hash"/> already computed.</summary>
    public NonceLookup Observe(ulong nonceLow, uint nonceHigh, ulong hash, ReadOnlySpan<byte> tag, out StoredTag seen)
        => Observe(nonceLow, nonceHigh, hash, tag, WindowProbe.None, out seen);

    /// <summary>
    /// <see cref="Observe(ulong, uint, ulong, ReadOnlySpan{byte}, out StoredTag)"/> after a
    /// <see cref="Probe"/> of the same hash: when no insert has reached the window since the probe,
    /// its lookup stands and the locked section only writes.
    /// </summary>
    /// <remarks>
    /// One call with the lookup and the insert inlined into it (issue 49). Inlined into
    /// GuardedAesGcmSiv's call, whose method has the guard, AesGcmSiv's checks and the AEAD's call
    /// inlined already, it exhausted the JIT's inlining budget there: the call made three calls
    /// (FindLocked, AddStored, and MemoryMarshal.Read for the tag's second word).
    /// </remarks>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    public NonceLookup Observe(ulong nonceLow, uint nonceHigh, ulong hash, ReadOnlySpan<byte> tag, WindowProbe probe, out StoredTag seen)
    {
        StoredTag stored = StoredTag.From(tag);
        EnterShort();
        try
        {
            if (_exact.Stands(probe))
            {
                // The window has not changed since the probe found no entry for this nonce and a free
                // slot for it: what is left of the lookup is the long-range table's part.
                if (IsDistinguished(hash))
                {
                    ref Entry far = ref _distinguished!.Find(nonceLow, nonceHigh, hash);
                    if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref far))
                    {
                        seen = far.Tag;
                        return NonceLookup.SeenLongRange;
                    }

                    _distinguished.Add(nonceLow, nonceHigh, hash, stored.Length, stored);
                }

                _exact.AddProbed(probe, nonceLow, nonceHigh, hash, stored.Length, stored);
                seen = default;
                return NonceLookup.New;
            }

            NonceLookup found = Find(nonceLow, nonceHigh, hash, out seen);
            if (found == NonceLookup.New)
            {
                AddStored(nonceLow, nonceHigh, hash, stored);
            }

            return found;
        }
        finally
        {
            ExitShort();
        }
    }

    /// <summary>
    /// The common case of <see cref="Observe(ulong, uint, ulong, ReadOnlySpan{byte}, WindowProbe, out StoredTag)"/>,
    /// inlined into the guard's call: a nonce that is not distinguished, a full 16-byte tag, and a
    /// probe that still <see cref="Window.Stands">stands</see>, so the nonce is new and the section
    /// under the lock only writes. Returns false, having changed nothing, in every other case; the
    /// caller then calls Observe.
    /// </summary>
    /// <remarks>
    /// Issue 49, sixth pass: with the window's lookup made without the lock (Probe), the common case
    /// is one compare-exchange and the insert's stores, inlined where the guard's call is compiled (Observe
    /// is a call of its own). Nothing between taking and leaving the spin lock can throw (fixed
    /// arrays reached through references checked at construction, no allocation, no bounds check),
    /// so this section needs no try/finally to be sure to leave it.
    /// </remarks>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public bool TryRecordNew(ulong nonceLow, uint nonceHigh, ulong hash, ReadOnlySpan<byte> tag, WindowProbe probe)
    {
        if (tag.Length != 16 || probe.Lane < 0 || IsDistinguished(hash))
        {
            return false;
        }

        var stored = new StoredTag(BinaryPrimitives.ReadUInt64LittleEndian(tag), BinaryPrimitives.ReadUInt64LittleEndian(tag.Slice(8)), 16);

        // One compare-exchange takes the lock and checks the probe: it succeeds only if the lock is
        // free and the window's number is still the one the probe read (see _lock).
        long free = (long)probe.Next << 1;
        if (Interlocked.CompareExchange(ref _lock, free | 1, free) != free)
        {
            return false;
        }

        _exact.AddProbed(probe, nonceLow, nonceHigh, hash, 16, stored);
        Volatile.Write(ref _lock, free + 2); // leaves, with the number one higher
        return true;
    }

    /// <summary>
    /// Asks for the cache lines a record of this hash will touch, without waiting for them: the
    /// window's bucket, the ring entry the next insert overwrites and, for a distinguished nonce,
    /// the long-range table's index line and next entry. Issued before the AEAD, they arrive while
    /// it runs.
    /// </summary>
    /// <remarks>
    /// Issue 49, seventh pass: the sixth pass read the bucket here, before the AEAD (a demand load,
    /// which holds up retirement when it misses); asking for it here and reading it after the AEAD
    /// (Probe) took a 64-byte guarded encryption from 1.21 and 1.28 to 1.15 and 1.14 of the bare
    /// call (BenchmarkDotNet, alternated runs; see docs/nonce-safety.md). The long-range lines are
    /// touched by one call in 2^bits and rarely cached (a 1350-byte guarded encryption took about
    /// 10 ns less with them asked for early, issue 49's fourth pass).
    /// </remarks>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public void Prefetch(ulong hash)
    {
        _exact.Prefetch(hash, (ulong)(Volatile.Read(ref _lock) >> 1));
        if (IsDistinguished(hash))
        {
            _distinguished!.PrefetchIndex(hash);
            _distinguished.PrefetchNextEntry();
        }
    }

    /// <summary>
    /// Looks a nonce up in the window without the lock, for a <see cref="TryRecordNew"/> or an
    /// <see cref="Observe(ulong, uint, ulong, ReadOnlySpan{byte}, WindowProbe, out StoredTag)"/> of
    /// the same hash.
    /// </summary>
    /// <remarks>
    /// Issue 49, sixth pass: the window's lookup moves out of the locked section, which then only
    /// checks and writes (TryRecordNew). The probe reads memory other threads may be writing, so it
    /// is used only if the lock word still holds the sequence number the probe read first (an
    /// acquire) and nobody holds the lock: every write to a bucket is made by an insert, under the
    /// lock, and the section that inserts leaves with a higher number (see _lock and Window.Stands).
    /// </remarks>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public WindowProbe Probe(ulong hash)
    {
        // An acquire: the bucket's loads cannot move above it. Read while a section holds the lock,
        // the number may be about to change; then TryRecordNew's compare-exchange fails.
        return _exact.Probe(hash, (ulong)(Volatile.Read(ref _lock) >> 1));
    }

    // One lock-prefixed instruction to enter when the lock is free; a plain (release) store to leave.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private void EnterShort()
    {
        long free = Volatile.Read(ref _lock) & ~1L;
        if (Interlocked.CompareExchange(ref _lock, free | 1, free) != free)
        {
            EnterShortContended();
        }
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private void EnterShortContended()
    {
        var spinner = default(SpinWait);
        do
        {
            spinner.SpinOnce();
        }
        while (!TryEnter(Volatile.Read(ref _lock)));
    }

    private bool TryEnter(long seen) => (seen & 1) == 0 && Interlocked.CompareExchange(ref _lock, seen | 1, seen) == seen;

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private void ExitShort() => Volatile.Write(ref _lock, (long)_exact.Next << 1);

    /// <summary>Whether a nonce is one of the distinguished points kept beyond the exact window.</summary>
    public bool IsDistinguished(ulong nonceLow, uint nonceHigh) => IsDistinguished(Hash(nonceLow, nonceHigh));

    private bool IsDistinguished(ulong hash) => _distinguished is not null && (hash & _distinguishedMask) == 0;

    // A keyed mix of the 96-bit nonce into 64 bits (two multiply-xorshift rounds). The key is
    // random per history, so neither the table slots nor which nonces are distinguished can be
    // predicted from outside; that keeps a peer's chosen nonces (on the decrypt check) from
    // piling into one probe chain. Not a cryptographic hash, and it protects nothing secret.
    public ulong Hash(ulong nonceLow, uint nonceHigh)
    {
        ulong x = (nonceLow ^ _hashKey0) * 0x9E3779B97F4A7C15UL;
        x ^= x >> 29;
        x = (x ^ nonceHigh ^ _hashKey1) * 0xBF58476D1CE4E5B9UL;
        return x ^ (x >> 32);
    }

    internal struct Entry
    {
        public ulong NonceLow;
        public uint NonceHigh;
        public int State; // Empty, Pending, or the stored tag's length
        public ulong TagLow;
        public ulong TagHigh;

        public StoredTag Tag
        {
            readonly get => new(TagLow, TagHigh, State);
            set
            {
                TagLow = value.Low;
                TagHigh = value.High;
            }
        }
    }

    /// <summary>Two generations of an insert-only hash table; see the file header.</summary>
    /// <remarks>
    /// Both generations live in one entry array (generation g at g times its capacity) and one
    /// index array, reached from this object in one load each: a lookup probes both generations
    /// from one base, with no object of its own per generation to load first. In the index the two
    /// generations' slots alternate (slot i of generation g at 2i + g), so the lookup of a new
    /// nonce, which probes both, reads one cache line of the index instead of two (issue 49: in a
    /// profile of the guard, the index's loads were where its time went). The probes read without
    /// bounds checks: every slot number is masked below the generation's slot count, and every
    /// position stored in the index is below the generation's capacity (Add writes no other).
    /// </remarks>
    private sealed class Table
    {
        // An index slot holds the entry's position in its generation + 1 in its low 25 bits
        // (0 = free; capacities are at most 2^24) and 7 bits of the nonce's hash above them, so a
        // probe that passes other nonces' slots rarely has to load their entries.
        private const int PositionBits = 25;
        private const uint PositionMask = (1u << PositionBits) - 1;

        private readonly Entry[] _entries;
        private readonly uint[] _index;
        private readonly int _capacity;
        private readonly int _slotMask;

        private int _newer;           // which generation takes inserts: 0 or 1
        private int _newerCount;      // entries it holds, cancelled included
        private int _newerCancelled;
        private int _olderLive;       // entries of the older generation not cancelled
        private long _epoch;          // the newer generation's; the older one's is _epoch - 1

        // Where the last unsuccessful Find stopped in the newer generation: the free slot an Add of
        // the same hash takes, so the usual lookup-then-add walks the probe chain once.
        private ulong _freeHash;
        private int _freeSlot = -1;

        /// <param name="capacity">Entries per generation.</param>
        /// <param name="slotsPerEntry">Index slots per entry (rounded up to a power of two in all):
        /// 2 keeps the index at most half full, 4 at most a quarter.</param>
        public Table(int capacity, int slotsPerEntry)
        {
            _capacity = capacity;
            int slots = Math.Max(4, (int)BitOperations.RoundUpToPowerOf2((uint)(capacity * slotsPerEntry)));
            _slotMask = slots - 1;
            _entries = new Entry[2 * capacity];
            _index = new uint[2 * slots];
        }

        public int Count => _newerCount - _newerCancelled + _olderLive;

        public long MemoryBytes => ((long)_entries.Length * System.Runtime.CompilerServices.Unsafe.SizeOf<Entry>()) + ((long)_index.Length * sizeof(uint));

        /// <summary>The live entry for a nonce, newest generation first, or a null reference.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public ref Entry Find(ulong nonceLow, uint nonceHigh, ulong hash)
        {
            int newer = _newer;
            ref Entry entry = ref Probe(newer, nonceLow, nonceHigh, hash, out int free);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref entry))
            {
                return ref entry;
            }

            _freeHash = hash;
            _freeSlot = free;
            return ref Probe(newer ^ 1, nonceLow, nonceHigh, hash, out _);
        }

        /// <summary>Adds an entry; returns a ticket (generation epoch and position) to find it again.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public long Add(ulong nonceLow, uint nonceHigh, ulong hash, int state, StoredTag tag)
        {
            if (_newerCount == _capacity)
            {
                Rotate();
            }

            int position = _newerCount++;
            ref Entry entry = ref _entries[(_newer * _capacity) + position];
            entry.NonceLow = nonceLow;
            entry.NonceHigh = nonceHigh;
            entry.State = state;
            entry.Tag = tag;

            uint[] index = _index;
            int newer = _newer;
            int i = _freeSlot;
            if (i < 0 || _freeHash != hash || index[(2 * i) + newer] != 0)
            {
                i = (int)hash & _slotMask;
                while (index[(2 * i) + newer] != 0)
                {
                    i = (i + 1) & _slotMask;
                }
            }

            _freeSlot = -1;
            index[(2 * i) + newer] = HashCheck(hash) | (uint)(position + 1);
            return (_epoch << 32) | (uint)position;
        }

        /// <summary>A prefetch of the index line where a probe for this hash starts (both generations: their slots alternate).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public void PrefetchIndex(ulong hash)
            => Internal.CacheHint.Prefetch(ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_index), 2 * ((int)hash & _slotMask)));

        /// <summary>A prefetch of the entry the next <see cref="Add"/> writes (read without a lock: a hint may be stale).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public void PrefetchNextEntry()
        {
            int count = _newerCount;
            int position = count < _capacity ? (_newer * _capacity) + count : (_newer ^ 1) * _capacity;
            if ((uint)position < (uint)_entries.Length)
            {
                Internal.CacheHint.Prefetch(ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_entries), position));
            }
        }

        /// <summary>The entry a ticket names, or a null reference if its generation has been forgotten.</summary>
        public ref Entry At(long ticket) => ref At(ticket, out _);

        /// <summary>Gives back a pending reservation, if the ticket still names it.</summary>
        public void Cancel(long ticket, ulong nonceLow, uint nonceHigh)
        {
            ref Entry entry = ref At(ticket, out bool newer);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref entry) && entry.State == Pending && entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
            {
                entry.State = Empty;
                if (newer)
                {
                    _newerCancelled++;
                }
                else
                {
                    _olderLive--;
                }
            }
        }

        private ref Entry At(long ticket, out bool newer)
        {
            long epoch = ticket >> 32;
            int position = (int)ticket;
            newer = epoch == _epoch;
            int generation = newer ? _newer : _newer ^ 1;
            return ref (newer || (epoch == _epoch - 1 && epoch >= 0)) && (uint)position < (uint)_capacity
                ? ref _entries[(generation * _capacity) + position]
                : ref System.Runtime.CompilerServices.Unsafe.NullRef<Entry>();
        }

        // The newer generation is full: the older one is forgotten and takes the new entries.
        private void Rotate()
        {
            _olderLive = _capacity - _newerCancelled;
            _newer ^= 1;
            // Every other slot, a word at a time: a slot pair is one ulong, the slot at 2i in its
            // low half on a little-endian machine.
            ulong keep = (_newer == 0) == BitConverter.IsLittleEndian ? 0xFFFF_FFFF_0000_0000UL : 0x0000_0000_FFFF_FFFFUL;
            Span<ulong> pairs = System.Runtime.InteropServices.MemoryMarshal.Cast<uint, ulong>(_index.AsSpan());
            for (int i = 0; i < pairs.Length; i++)
            {
                pairs[i] &= keep;
            }
            _newerCount = 0;
            _newerCancelled = 0;
            _epoch++;
            _freeSlot = -1;
        }

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        private ref Entry Probe(int generation, ulong nonceLow, uint nonceHigh, ulong hash, out int free)
        {
            ref uint index = ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_index), generation);
            ref Entry entries = ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_entries), generation * _capacity);
            uint check = HashCheck(hash);
            int mask = _slotMask;
            for (int i = (int)hash & mask; ; i = (i + 1) & mask)
            {
                uint slot = System.Runtime.CompilerServices.Unsafe.Add(ref index, 2 * i);
                if (slot == 0)
                {
                    free = i;
                    return ref System.Runtime.CompilerServices.Unsafe.NullRef<Entry>();
                }

                if ((slot & ~PositionMask) == check)
                {
                    ref Entry entry = ref System.Runtime.CompilerServices.Unsafe.Add(ref entries, (int)(slot & PositionMask) - 1);
                    if (entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh && entry.State != Empty)
                    {
                        free = -1;
                        return ref entry;
                    }
                }
            }
        }

        // Bits 40-46: apart from the low bits that pick the slot and the top bits that pick distinguished points.
        private static uint HashCheck(ulong hash) => (uint)((hash >> 40) & 0x7F) << PositionBits;
    }

    /// <summary>The exact window: a ring of the newest entries and an index of one-line buckets.</summary>
    /// <remarks>
    /// <para>The ring holds the last <c>capacity</c> entries (WindowSize rounded up to a power of
    /// two: from WindowSize to under twice that), the entry with sequence number n at n mod
    /// capacity; an insert overwrites the entry capacity inserts older. Nothing is ever deleted
    /// from the index: a slot names its entry by sequence number, and it is live while that entry
    /// is still in the ring (<c>last - s &lt; capacity</c>, last the newest entry's number). A stale
    /// slot is free; so forgetting costs nothing, where the two-generation table before it cleared
    /// its index once per generation and probed two chains (issue 49).</para>
    /// <para>A bucket is 16 words, one cache line on net10.0 (the array is pinned and aligned):
    /// words 0-6 the slots' fingerprints (32 bits of the keyed hash apart from the bucket's bits),
    /// word 7 unused, words 8-14 the slots' sequence numbers, word 15 the spill mark. A lookup
    /// compares the seven fingerprints and ages at once (BucketMatch), with no probe loop; a match
    /// is confirmed against the ring's entry (nonce, and not cancelled).</para>
    /// <para>Why no nonce in the window is ever lost: an insert takes a free (stale) slot of its
    /// bucket; when all seven are live it sets the bucket's spill mark to its own sequence number
    /// and goes on to the next bucket, and so on. A lookup goes on to the next bucket exactly when
    /// the spill mark is live. If entry s sits in bucket b + j, each of buckets b .. b+j-1 had its
    /// mark set to s or (later) to a larger number, so while s is live every mark on its way is
    /// live too and the lookup reaches it. An insert always finds a free slot: at most capacity
    /// slots are live and there are 7 * buckets = 3.5 * capacity slots (buckets = capacity / 2, at
    /// least one, which holds 7 &gt;= capacity for capacity &lt;= 4). Buckets are chosen by the keyed
    /// hash, so a peer cannot aim nonces at one (a spill happens to about one bucket in a thousand
    /// at the default load, two per bucket); a spill costs a lookup one more line, never a nonce.</para>
    /// <para>Sequence numbers are kept as 32 bits, compared modulo 2^32; every 2^31 inserts a sweep
    /// sets every stale number to one exactly capacity old, so no stale number can come back as live
    /// when the counter wraps (an age, taken modulo 2^32, stays under capacity + 2^31 &lt; 2^32 between
    /// two sweeps).</para>
    /// </remarks>
    internal sealed class Window
    {
        /// <summary>Where a bucket's sequence numbers start (words 8-15; word 15 the spill mark).</summary>
        public const int SequenceOffset = 8;

        /// <summary>The bits of a match mask that are slots (not the spill mark).</summary>
        public const uint SlotMask = 0x7F;

        private const int BucketWords = 16;
        private const int SpillWord = 15;
        private const uint SweepMask = 0x7FFF_FFFF;

        private readonly Entry[] _ring;
        private readonly uint[] _words;
        private readonly int _origin;     // bucket 0's first word in _words (a line boundary on net10.0)
        private readonly int _bucketMask;
        private readonly uint _capacity;  // the ring's size, a power of two
        private readonly ulong _first;    // the first entry's sequence number (0 but in tests)
        private ulong _next;              // the next entry's sequence number

        public Window(int windowSize, ulong firstSequence)
        {
            _first = _next = firstSequence;
            int capacity = (int)BitOperations.RoundUpToPowerOf2((uint)windowSize);
            _capacity = (uint)capacity;
            int buckets = Math.Max(1, capacity / 2);
            _bucketMask = buckets - 1;
            _ring = new Entry[capacity];
            _words = BucketMatch.AllocateBuckets(buckets * BucketWords, out _origin);
            uint stale = unchecked((uint)firstSequence - 1 - _capacity); // exactly capacity old while nothing is inserted
            for (int b = 0; b < buckets; b++)
            {
                _words.AsSpan(_origin + (b * BucketWords) + SequenceOffset, BucketWords - SequenceOffset).Fill(stale);
            }
        }

        /// <summary>The next entry's sequence number. The caller holds the lock.</summary>
        public ulong Next => _next;

        /// <summary>The entries in the ring that are not cancelled: a count of the ring (this is for tests
        /// and diagnostics; an insert then need not read the entry it overwrites).</summary>
        public int Count
        {
            get
            {
                int count = 0;
                ulong held = Math.Min(_next - _first, _capacity);
                for (ulong s = _next - held; s < _next; s++)
                {
                    count += _ring[(int)(s & (_capacity - 1))].State != Empty ? 1 : 0;
                }

                return count;
            }
        }

        public long MemoryBytes => ((long)_ring.Length * System.Runtime.CompilerServices.Unsafe.SizeOf<Entry>()) + ((long)_words.Length * sizeof(uint));

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        private ref uint Bucket(int bucket)
            => ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_words), _origin + (bucket * BucketWords));

        // 32 bits of the hash above the bucket's (at most 23) and below the top bits that pick distinguished points, mostly.
        private static uint Fingerprint(ulong hash) => (uint)(hash >> 24);

        /// <summary>The live, not cancelled entry for a nonce, or a null reference.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public ref Entry Find(ulong nonceLow, uint nonceHigh, ulong hash)
        {
            uint last = (uint)_next - 1;
            uint capacity = _capacity;
            uint fingerprint = Fingerprint(hash);
            ref Entry ring = ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_ring);
            int b = (int)hash & _bucketMask;
            while (true)
            {
                ref uint bucket = ref Bucket(b);
                uint candidates = BucketMatch.Candidates(ref bucket, fingerprint, last, capacity);
                while (candidates != 0)
                {
                    uint sequence = System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SequenceOffset + BucketMatch.FirstLane(candidates));
                    ref Entry entry = ref System.Runtime.CompilerServices.Unsafe.Add(ref ring, (int)(sequence & (capacity - 1)));
                    if (entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh && entry.State != Empty)
                    {
                        return ref entry;
                    }

                    candidates &= candidates - 1;
                }

                if (last - System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SpillWord) >= capacity)
                {
                    return ref System.Runtime.CompilerServices.Unsafe.NullRef<Entry>();
                }

                b = (b + 1) & _bucketMask;
            }
        }

        /// <summary>Adds an entry (overwriting the one capacity inserts older); returns its sequence number as the ticket.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public long Add(ulong nonceLow, uint nonceHigh, ulong hash, int state, StoredTag tag)
        {
            ulong next = _next;
            uint sequence = (uint)next;
            if ((sequence & SweepMask) == 0 && next != 0)
            {
                Sweep(sequence);
            }

            WriteEntry(next, nonceLow, nonceHigh, state, tag);
            uint capacity = _capacity;
            uint last = sequence - 1;
            int b = (int)hash & _bucketMask;
            while (true)
            {
                ref uint bucket = ref Bucket(b);
                uint free = ~BucketMatch.Live(ref bucket, last, capacity) & SlotMask;
                if (free != 0)
                {
                    int lane = BucketMatch.FirstLane(free);
                    System.Runtime.CompilerServices.Unsafe.Add(ref bucket, lane) = Fingerprint(hash);
                    System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SequenceOffset + lane) = sequence;
                    break;
                }

                System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SpillWord) = sequence;
                b = (b + 1) & _bucketMask;
            }

            _next = next + 1;
            return (long)next;
        }

        /// <summary>
        /// A lookup without the lock (NonceHistory.Probe): whether the nonce's bucket holds no live
        /// slot of its fingerprint, no live spill mark and a free slot. Only a plain miss gives a
        /// lane; anything else (a candidate to confirm, a spill to follow, a sweep due) leaves the
        /// locked section to look the nonce up as before.
        /// </summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public WindowProbe Probe(ulong hash, ulong next)
        {
            uint capacity = _capacity;
            uint last = (uint)next - 1;
            ref uint bucket = ref Bucket((int)hash & _bucketMask);
            uint live = BucketMatch.Live(ref bucket, last, capacity);
            uint candidates = BucketMatch.Candidates(ref bucket, Fingerprint(hash), last, capacity);
            uint free = ~live & SlotMask;

            bool sweepDue = ((uint)next & SweepMask) == 0 && next != 0; // Add sweeps first (see Sweep)
            bool miss = candidates == 0 && live <= SlotMask && free != 0 && !sweepDue;
            return new WindowProbe(next, miss ? BucketMatch.FirstLane(free) : -1);
        }

        /// <summary>
        /// Whether a probe's lookup still holds. The caller holds the lock. Every write to a bucket is
        /// made by an insert, under the lock, before the insert advances the sequence number; so if
        /// the number is the one the probe read first, no insert had written to the window before the
        /// probe's reads, or has since, and what the probe read is what is there now (a cancelled or
        /// published entry changes the ring, not the buckets, and a plain miss read no entry).
        /// </summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public bool Stands(WindowProbe probe) => probe.Lane >= 0 && _next == probe.Next;

        /// <summary>Adds an entry into the slot a probe that <see cref="Stands"/> found free. The caller holds the lock.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public void AddProbed(WindowProbe probe, ulong nonceLow, uint nonceHigh, ulong hash, int state, StoredTag tag)
        {
            ulong next = probe.Next;
            WriteEntry(next, nonceLow, nonceHigh, state, tag);
            ref uint bucket = ref Bucket((int)hash & _bucketMask);
            System.Runtime.CompilerServices.Unsafe.Add(ref bucket, probe.Lane) = Fingerprint(hash);
            System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SequenceOffset + probe.Lane) = (uint)next;
            _next = next + 1;
        }

        // The ring's part of an insert: the entry 'capacity' inserts older is overwritten.
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        private void WriteEntry(ulong next, ulong nonceLow, uint nonceHigh, int state, StoredTag tag)
        {
            ref Entry entry = ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_ring), (int)((uint)next & (_capacity - 1)));
            entry.NonceLow = nonceLow;
            entry.NonceHigh = nonceHigh;
            entry.State = state;
            entry.Tag = tag;
        }

        /// <summary>Prefetches of the bucket a lookup or insert of this hash starts at and of the ring entry the next insert overwrites.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        public void Prefetch(ulong hash, ulong next)
        {
            Internal.CacheHint.Prefetch(ref Bucket((int)hash & _bucketMask));
            Internal.CacheHint.Prefetch(ref System.Runtime.CompilerServices.Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(_ring), (int)((uint)next & (_capacity - 1))));
        }

        /// <summary>The entry a ticket names, or a null reference if it has left the ring.</summary>
        public ref Entry At(long ticket)
            => ref ticket >= 0 && (ulong)ticket < _next && _next - (ulong)ticket <= _capacity
                ? ref _ring[(int)((ulong)ticket & (_capacity - 1))]
                : ref System.Runtime.CompilerServices.Unsafe.NullRef<Entry>();

        /// <summary>Gives back a pending reservation, if the ticket still names it.</summary>
        public void Cancel(long ticket, ulong nonceLow, uint nonceHigh)
        {
            ref Entry entry = ref At(ticket);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref entry) && entry.State == Pending && entry.NonceLow == nonceLow && entry.NonceHigh == nonceHigh)
            {
                entry.State = Empty;
            }
        }

        // Every 2^31 inserts: each stale sequence number (and spill mark) becomes exactly capacity
        // old, so that none is older than capacity + 2^31 at the next sweep (see the remarks).
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
        internal void Sweep(uint next)
        {
            uint last = next - 1;
            uint stale = last - _capacity;
            for (int b = 0; b <= _bucketMask; b++)
            {
                ref uint bucket = ref Bucket(b);
                for (int i = SequenceOffset; i < BucketWords; i++)
                {
                    ref uint word = ref System.Runtime.CompilerServices.Unsafe.Add(ref bucket, i);
                    if (last - word >= _capacity)
                    {
                        word = stale;
                    }
                }
            }
        }

        /// <summary>Platform/Net/BucketMatch.cs's live mask, a slot at a time (netstandard2.0, and the reference the tests hold the vector paths to).</summary>
        public static uint LiveScalar(ref uint bucket, uint last, uint capacity)
        {
            uint mask = 0;
            for (int i = 0; i < BucketWords - SequenceOffset; i++)
            {
                mask |= (last - System.Runtime.CompilerServices.Unsafe.Add(ref bucket, SequenceOffset + i) < capacity ? 1u : 0u) << i;
            }

            return mask;
        }

        /// <summary>Platform/Net/BucketMatch.cs's candidate mask, a slot at a time.</summary>
        public static uint CandidatesScalar(ref uint bucket, uint fingerprint, uint last, uint capacity)
        {
            uint mask = 0;
            for (int i = 0; i < 7; i++)
            {
                bool match = System.Runtime.CompilerServices.Unsafe.Add(ref bucket, i) == fingerprint;
                mask |= (match ? 1u : 0u) << i;
            }

            return mask & LiveScalar(ref bucket, last, capacity);
        }
    }
}
