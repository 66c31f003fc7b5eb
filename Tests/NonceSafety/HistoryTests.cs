// The tracker behind the guards (NonceHistory): its tables against a reference model, the
// detection rate of planted repeats over a million encryptions, and its memory after ten million.

using System;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class HistoryTests
{
    [TestCase(1, 0)]
    [TestCase(8, 1)]
    [TestCase(8, 2)]
    [TestCase(100, 3)]
    public void TheExactWindowMatchesAReferenceModel(int window, int seed)
    {
        // A small nonce space forces repeats, a ring that wraps and full buckets, checked step by
        // step against a model: the last `window` nonces rounded up to a power of two (a ring), the
        // oldest forgotten by each insert. So at least the last `window` nonces are always known.
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = window, DistinguishedPointCapacity = 0 });
        int ring = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)window);
        var random = new Random(seed);
        var kept = new Queue<ulong>();
        var recent = new Queue<ulong>();
        byte[] tag = new byte[16];
        for (int step = 0; step < 200_000; step++)
        {
            ulong nonce = (ulong)random.Next(window * 5);
            uint high = (uint)(nonce % 3);
            NonceLookup found = history.Reserve(nonce, high, out long slot, out StoredTag seen);
            bool expectSeen = kept.Contains(nonce);
            Assert.That(found, Is.EqualTo(expectSeen ? NonceLookup.Seen : NonceLookup.New), $"step {step}, seed {seed}");
            if (recent.Contains(nonce))
            {
                Assert.That(found, Is.EqualTo(NonceLookup.Seen), "one of the last `window` nonces was forgotten");
            }

            BitConverter.TryWriteBytes(tag, nonce);
            if (expectSeen)
            {
                Assert.That(seen.Matches(tag), Is.True, "the stored tag is the one published for this nonce");
                continue;
            }

            history.Publish(slot, nonce, high, tag);
            kept.Enqueue(nonce);
            if (kept.Count > ring)
            {
                kept.Dequeue();
            }

            recent.Enqueue(nonce);
            if (recent.Count > window)
            {
                recent.Dequeue();
            }
        }

        Assert.That(history.Count.Exact, Is.EqualTo(kept.Count));
    }

    [Test]
    public void ACancelledReservationIsForgotten()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = 4, DistinguishedPointCapacity = 0 });
        Assert.That(history.Reserve(1, 0, out long ticket, out _), Is.EqualTo(NonceLookup.New));
        Assert.That(history.Reserve(1, 0, out _, out _), Is.EqualTo(NonceLookup.Pending));
        history.Cancel(ticket, 1, 0);
        Assert.That(history.Count.Exact, Is.Zero);
        Assert.That(history.Reserve(1, 0, out ticket, out _), Is.EqualTo(NonceLookup.New));
        history.Publish(ticket, 1, 0, new byte[16]);
        Assert.That(history.Reserve(1, 0, out _, out _), Is.EqualTo(NonceLookup.Seen));
    }

    [Test]
    public void PlantedRepeatsOverAMillionEncryptions()
    {
        // A million AES-GCM encryptions through a guard with the default options (exact window
        // 4096 to 8192, distinguished points 1 in 16, 16,384 of them). One call in 40 reuses the nonce of
        // an earlier call, at a distance drawn from one of three bands, with a different message.
        const int Operations = 1_000_000;
        var options = new NonceGuardOptions { Policy = NonceReusePolicy.Refuse };
        using var guard = new GuardedAesGcm(new byte[16].Select((_, i) => (byte)(i + 101)).ToArray(), 16, options);
        var random = new Random(8452);
        var nonces = new byte[Operations][];
        var reusable = new bool[Operations];
        (int Low, int High, string Name)[] bands =
        [
            (1, options.WindowSize, "within the window"),
            ((2 * options.WindowSize) + 1, 200_000, "beyond the window, within distinguished-point reach"),
            (400_000, 900_000, "beyond distinguished-point reach"),
        ];
        int[] planted = new int[bands.Length], caught = new int[bands.Length];
        byte[] plaintext = new byte[16], ciphertext = new byte[16], tag = new byte[16];

        for (int i = 0; i < Operations; i++)
        {
            BitConverter.TryWriteBytes(plaintext, i);
            if (random.Next(40) == 0)
            {
                int band = random.Next(bands.Length);
                int earlier = i - random.Next(bands[band].Low, bands[band].High + 1);
                if (earlier >= 0 && reusable[earlier])
                {
                    reusable[earlier] = false; // each nonce is planted at most once
                    planted[band]++;
                    try
                    {
                        guard.Encrypt(nonces[earlier], plaintext, ciphertext, tag);
                    }
                    catch (NonceReuseException)
                    {
                        caught[band]++;
                    }

                    continue;
                }
            }

            nonces[i] = new byte[12];
            random.NextBytes(nonces[i]);
            reusable[i] = true;
            guard.Encrypt(nonces[i], plaintext, ciphertext, tag);
        }

        for (int band = 0; band < bands.Length; band++)
        {
            TestContext.Out.WriteLine($"{bands[band].Name} ({bands[band].Low}..{bands[band].High} calls back): {caught[band]} of {planted[band]} caught ({100.0 * caught[band] / planted[band]:F2} %)");
        }

        Assert.That(planted, Is.All.GreaterThan(2000)); // the far band only starts 400,000 calls in
        Assert.That(caught[0], Is.EqualTo(planted[0]), "every repeat within the window is caught");

        // Beyond the window a repeat is caught exactly when its nonce is a distinguished point:
        // a binomial with p = 1/16. Six standard deviations either side.
        double p = 1.0 / (1 << options.DistinguishedPointBits);
        double mean = planted[1] * p, sigma = Math.Sqrt(planted[1] * p * (1 - p));
        Assert.That(caught[1], Is.InRange(mean - (6 * sigma), mean + (6 * sigma)));
        Assert.That(caught[2], Is.Zero, "distinguished points that old have been dropped");
        Assert.That(guard.DistinctRepeats, Is.EqualTo(caught.Sum()));
    }

    [Test]
    public void TheTrackersMemoryIsFixedAfterTenMillionOperations()
    {
        var options = NonceGuardOptions.Default;
        var history = new NonceHistory(options);
        long bytes = history.MemoryBytes;
        byte[] tag = new byte[16];

        void Run(ulong from, ulong count)
        {
            for (ulong n = from; n < from + count; n++)
            {
                if (history.Reserve(n, 7, out long slot, out _) == NonceLookup.New)
                {
                    BitConverter.TryWriteBytes(tag, n);
                    history.Publish(slot, n, 7, tag);
                }
            }
        }

        Run(0, 1_000_000); // both rings full
        ulong next = 1_000_000;
        long[] rounds = Allocations.PerRound(() => { Run(next, 3_000_000); next += 3_000_000; });
        long allocated = Allocations.Least(rounds);

        TestContext.Out.WriteLine($"tracker after 10^7 operations: {history.MemoryBytes} bytes in its tables, {history.Count.Exact} exact + {history.Count.Distinguished} distinguished nonces, {Allocations.Describe(rounds, "3*10^6")}");
        Assert.Multiple(() =>
        {
            Assert.That(history.MemoryBytes, Is.EqualTo(bytes));
            Assert.That(bytes, Is.LessThanOrEqualTo(1 << 20), "the documented default footprint, 1 MiB (983,040 bytes before issue 49 widened the window's index)");
            Assert.That(history.Count.Exact, Is.InRange(options.WindowSize, 2 * options.WindowSize));
            Assert.That(history.Count.Distinguished, Is.InRange(options.DistinguishedPointCapacity / 2, options.DistinguishedPointCapacity));
            Assert.That(allocated, Is.Zero, Allocations.Describe(rounds, "3*10^6 reserves and publishes"));
        });

        // The window reaches back at least WindowSize nonces and at most twice that.
        Assert.That(history.Reserve(10_000_000 - (ulong)options.WindowSize, 7, out _, out _), Is.EqualTo(NonceLookup.Seen));
        Assert.That(history.Reserve(10_000_000 - (2 * (ulong)options.WindowSize) - 1, 7, out _, out StoredTag _), Is.Not.EqualTo(NonceLookup.Seen));
    }
    /// <summary>AES-GCM tags may be truncated (12 to 16 bytes); the history pads a short tag and compares
    /// over the length both tags have, since a truncated GCM tag is a prefix of the full one. An
    /// empty comparison never matches.</summary>
    [Test]
    public void StoredTagsCompareOverTheLengthBothHave()
    {
        byte[] full = Enumerable.Range(1, 16).Select(i => (byte)(i * 17)).ToArray();
        StoredTag shortTag = StoredTag.From(full.AsSpan(0, 12));
        StoredTag fullTag = StoredTag.From(full);
        Assert.Multiple(() =>
        {
            Assert.That(shortTag.Length, Is.EqualTo(12));
            Assert.That(fullTag.Length, Is.EqualTo(16));
            Assert.That(shortTag.Matches(full.AsSpan(0, 12)), Is.True, "the same 12 bytes");
            Assert.That(shortTag.Matches(full), Is.True, "a full tag whose first 12 bytes are the stored ones");
            Assert.That(fullTag.Matches(full.AsSpan(0, 12)), Is.True, "a truncated tag of the stored one");
            Assert.That(fullTag.Matches(full), Is.True);
            Assert.That(shortTag.Matches(ReadOnlySpan<byte>.Empty), Is.False, "nothing to compare is no match");
            for (int i = 0; i < 12; i++)
            {
                byte[] other = (byte[])full.Clone();
                other[i] ^= 0x80;
                Assert.That(shortTag.Matches(other.AsSpan(0, 12)), Is.False, $"byte {i} differs");
                Assert.That(fullTag.Matches(other), Is.False, $"byte {i} differs (16)");
            }

            byte[] tail = (byte[])full.Clone();
            tail[15] ^= 1;
            Assert.That(fullTag.Matches(tail), Is.False, "byte 15 differs");
            Assert.That(shortTag.Matches(tail), Is.True, "beyond the 12 stored bytes nothing is compared");
        });
    }
    /// <summary>The memory the options' docs promise (64 bytes per window nonce, the window rounded up
    /// to a power of two, plus a line; 40 per distinguished point: 256 KiB + 640 KiB by default) is
    /// what MemoryBytes reports and what construction allocates.</summary>
    [TestCase(4096, 16384, (256 * 1024) + 64 + (640 * 1024))]
    [TestCase(4096, 0, (256 * 1024) + 64)]
    [TestCase(1000, 2000, (1024 * 64) + 64 + (2 * ((1000 * 32) + (2048 * 4))))]   // the ring and each index rounded up to a power of two
    public void MemoryBytesIsWhatTheDocsSayAndWhatIsAllocated(int window, int capacity, long expected)
    {
        var options = new NonceGuardOptions { WindowSize = window, DistinguishedPointCapacity = capacity };
        NonceHistory history = null!;
        long[] rounds = Allocations.PerRound(() => history = new NonceHistory(options));
        long allocated = Allocations.Least(rounds);
        Assert.That(history.MemoryBytes, Is.EqualTo(expected));
        Assert.That(allocated - history.MemoryBytes, Is.InRange(0, 2048), "the tables are the history's memory, and all of it but a few objects");
    }

    /// <summary>1 in 2^DistinguishedPointBits nonces is a distinguished point, and the long-range table
    /// keeps between half its capacity and its capacity.</summary>
    [TestCase(0)]
    [TestCase(4)]
    [TestCase(8)]
    public void DistinguishedPointsAreTheDocumentedFractionAndBounded(int bits)
    {
        const int Capacity = 1000, Nonces = 1 << 17;
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = 16, DistinguishedPointBits = bits, DistinguishedPointCapacity = Capacity });
        var random = new Random(bits);
        byte[] tag = new byte[16];
        int distinguished = 0;
        for (int i = 0; i < Nonces; i++)
        {
            ulong low = (ulong)random.NextInt64();
            uint high = (uint)random.Next();
            distinguished += history.IsDistinguished(low, high) ? 1 : 0;
            Assert.That(history.Observe(low, high, tag, out _), Is.EqualTo(NonceLookup.New));
        }

        double expected = (double)Nonces / (1 << bits);
        double sigma = Math.Sqrt(expected * (1 - (1.0 / (1 << bits))));
        Assert.That(distinguished, Is.InRange(expected - (6 * sigma) - 1, expected + (6 * sigma) + 1), "1 in 2^bits");
        Assert.That(history.Count.Distinguished, Is.InRange(Math.Min(distinguished, Capacity / 2), Math.Min(distinguished, Capacity)), "two generations of capacity/2");
        Assert.That(history.Count.Exact, Is.InRange(16, 32), "two generations of the window");
    }
    /// <summary>A ticket that no longer names a pending reservation (already published, or its generation
    /// forgotten) changes nothing when it is published or cancelled again.</summary>
    [Test]
    public void AStaleTicketChangesNothing()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = 4, DistinguishedPointCapacity = 0 });
        byte[] first = Enumerable.Repeat((byte)1, 16).ToArray(), second = Enumerable.Repeat((byte)2, 16).ToArray();
        Assert.That(history.Reserve(1, 0, out long ticket, out _), Is.EqualTo(NonceLookup.New));
        history.Publish(ticket, 1, 0, first);
        history.Publish(ticket, 1, 0, second);
        history.Cancel(ticket, 1, 0);
        Assert.That(history.Observe(1, 0, second, out StoredTag seen), Is.EqualTo(NonceLookup.Seen), "a published nonce stays after a late cancel");
        Assert.That(seen.Matches(first), Is.True, "the first tag stays");
        Assert.That(history.Count.Exact, Is.EqualTo(1));

        // A reservation whose generation is forgotten before it is published or cancelled.
        Assert.That(history.Reserve(2, 0, out long old, out _), Is.EqualTo(NonceLookup.New));
        for (ulong n = 100; n < 110; n++)
        {
            Assert.That(history.Reserve(n, 0, out long t, out _), Is.EqualTo(NonceLookup.New));
            history.Publish(t, n, 0, first);
        }

        int count = history.Count.Exact;
        Assert.DoesNotThrow(() => history.Publish(old, 2, 0, first));
        Assert.DoesNotThrow(() => history.Cancel(old, 2, 0));
        Assert.That(history.Count.Exact, Is.EqualTo(count));
        Assert.That(history.Observe(2, 0, first, out _), Is.EqualTo(NonceLookup.New), "nonce 2 was forgotten with its generation");

        // A ticket for another nonce's position: nothing happens to that nonce.
        Assert.That(history.Reserve(3, 0, out long third, out _), Is.EqualTo(NonceLookup.New));
        history.Cancel(third, 4, 0);
        history.Publish(third, 4, 0, second);
        Assert.That(history.Reserve(3, 0, out _, out _), Is.EqualTo(NonceLookup.Pending), "still reserved for nonce 3");
        Assert.That(history.Observe(4, 0, second, out _), Is.EqualTo(NonceLookup.New));
    }

    /// <summary>The count of nonces held follows cancellations across generation swaps: a cancelled
    /// entry still takes its place in a generation, but is not counted when the generation is forgotten.</summary>
    [TestCase(1)]
    [TestCase(2)]
    public void TheCountFollowsCancellationsAcrossGenerations(int seed)
    {
        const int Window = 8;
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointCapacity = 0 });
        var random = new Random(seed);
        var added = new List<ulong>();
        byte[] tag = new byte[16];
        for (ulong n = 1; n <= 200; n++)
        {
            Assert.That(history.Reserve(n, 0, out long ticket, out _), Is.EqualTo(NonceLookup.New));
            added.Add(n);
            if (random.Next(3) == 0)
            {
                history.Cancel(ticket, n, 0);
            }
            else
            {
                history.Publish(ticket, n, 0, tag);
            }

            int held;
            lock (history.SyncRoot)
            {
                held = added.Count(m => history.FindLocked(m, 0, history.Hash(m, 0), out _) != NonceLookup.New);
            }

            Assert.That(history.Count.Exact, Is.EqualTo(held), $"after nonce {n}");
        }
    }

    /// <summary>The long-range table takes entries without a lookup just before (a reservation is
    /// published after other calls looked up other nonces): it must find its own free slot, past
    /// taken ones, and every nonce stays findable.</summary>
    [Test]
    public void DistinguishedPointsPublishedOutOfOrderStayFindable()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = 1, DistinguishedPointBits = 0, DistinguishedPointCapacity = 64 });
        byte[] tag = Enumerable.Repeat((byte)9, 16).ToArray();
        var published = new List<ulong>();
        for (ulong n = 1; n <= 32; n += 2)
        {
            Assert.That(history.Reserve(n, 7, out long a, out _), Is.EqualTo(NonceLookup.New));
            Assert.That(history.Reserve(n + 1, 7, out long b, out _), Is.EqualTo(NonceLookup.New));
            history.Publish(a, n, 7, tag);        // the last lookup was of n + 1
            history.Publish(b, n + 1, 7, tag);
            published.Add(n);
            published.Add(n + 1);
        }

        foreach (ulong n in published)
        {
            Assert.That(history.Observe(n, 7, tag, out StoredTag seen), Is.Not.EqualTo(NonceLookup.New), $"nonce {n}");
            Assert.That(seen.Matches(tag), Is.True);
        }
    }
    /// <summary>The table hash is keyed at random per history, so where a nonce lands (and whether it
    /// is a distinguished point) cannot be chosen from outside.</summary>
    [Test]
    public void EachHistoryHashesWithItsOwnKey()
    {
        var options = new NonceGuardOptions();
        var (a, b) = (new NonceHistory(options), new NonceHistory(options));
        ulong first = a.Hash(1, 0);
        Assert.That(b.Hash(1, 0), Is.Not.EqualTo(first));
        Assert.That(a.Hash(1, 0), Is.EqualTo(first), "the same nonce, the same slot");
        Assert.That(a.Hash(1, 1), Is.Not.EqualTo(first), "the nonce's high 32 bits count");
    }
}
