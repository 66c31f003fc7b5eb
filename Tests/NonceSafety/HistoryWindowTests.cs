// The exact window's structure (NonceHistory.Window, issue 49): a ring of the newest entries and an
// index of one-line buckets that spill into the next bucket when full. These tests hold it to its
// invariant (none of the newest WindowSize nonces is ever lost) where it is weakest: every nonce in
// one bucket, the spill wrapping past the last bucket, the sequence numbers crossing a sweep and the
// 32-bit wrap; and the vector compare to the scalar loop netstandard2.0 runs.

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class HistoryWindowTests
{
    /// <summary>
    /// Nonces chosen (by the history's own keyed hash, a new key each seed) to land in one bucket:
    /// the first seven fill it and every later one spills, along up to ten buckets, wrapping past the
    /// last bucket for bucket 31. Checked step by step against a model ring of the last 64 nonces.
    /// </summary>
    [TestCase(1, 0)]
    [TestCase(2, 0)]
    [TestCase(3, 31)]
    [TestCase(4, 31)]
    [TestCase(5, 17)]
    public void NoneOfTheNewestNoncesIsLostWhenAllPileIntoOneBucket(int seed, int bucket)
    {
        const int Window = 64, Buckets = Window / 2; // the window's layout: capacity / 2 buckets
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointCapacity = 0 });
        var random = new Random(seed);
        var pool = new List<ulong>();
        while (pool.Count < 3 * Window)
        {
            ulong candidate = WindowModel.Next64(random);
            if ((history.Hash(candidate, 7) & (Buckets - 1)) == (ulong)bucket && !pool.Contains(candidate))
            {
                pool.Add(candidate);
            }
        }

        var model = new WindowModel(Window);
        byte[] tag = new byte[16];
        int seen = 0;
        for (int step = 0; step < 20_000; step++)
        {
            ulong nonce = pool[random.Next(pool.Count)];
            BinaryPrimitives.WriteUInt64LittleEndian(tag, nonce);
            NonceLookup found = history.Observe(nonce, 7, tag, out StoredTag earlier);
            if (model.Check(found, nonce, step))
            {
                Assert.That(earlier.Matches(tag), Is.True);
                seen++;
            }
        }

        Assert.That(history.Count.Exact, Is.EqualTo(Window));
        Assert.That(seen, Is.GreaterThan(1000), "the pattern repeats nonces inside the window");
    }

    /// <summary>
    /// The window's sequence numbers are 32 bits, compared modulo 2^32, and swept every 2^31 inserts:
    /// a history that starts just before 2^31 or 2^32 crosses a sweep (and at 2^32 the wrap) with
    /// every step checked against a model ring, with reservations, cancellations and the count.
    /// </summary>
    [TestCase((1UL << 31) - 500, 8)]
    [TestCase((1UL << 32) - 500, 8)]
    [TestCase((1UL << 32) - 500, 100)]
    [TestCase((3UL << 32) - 1000, 1)]
    public void TheWindowStaysExactAcrossASweepAndTheWrap(ulong first, int window)
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = window, DistinguishedPointCapacity = 0 }, firstSequence: first);
        int ring = 1;
        while (ring < window)
        {
            ring <<= 1;
        }

        var random = new Random(window);
        var kept = new Queue<(ulong Nonce, bool Cancelled)>();
        byte[] tag = new byte[16];
        for (int step = 0; step < 3000; step++)
        {
            ulong nonce = (ulong)random.Next(window * 4);
            NonceLookup found = history.Reserve(nonce, 1, out long ticket, out _);
            bool expectSeen = kept.Contains((nonce, false));
            Assert.That(found, Is.EqualTo(expectSeen ? NonceLookup.Seen : NonceLookup.New), $"step {step}");
            if (expectSeen)
            {
                continue;
            }

            Assert.That(ticket, Is.GreaterThanOrEqualTo((long)first));
            bool cancel = random.Next(5) == 0;
            if (cancel)
            {
                history.Cancel(ticket, nonce, 1);
            }
            else
            {
                history.Publish(ticket, nonce, 1, tag);
            }

            kept.Enqueue((nonce, cancel));
            if (kept.Count > ring)
            {
                kept.Dequeue();
            }

            Assert.That(history.Count.Exact, Is.EqualTo(kept.Count(k => !k.Cancelled)), $"step {step}");
        }
    }

    /// <summary>The vector compare (Platform/Net/BucketMatch.cs) gives the scalar loop's masks (what
    /// netstandard2.0 runs) for buckets of matching, live, just-stale and random words.</summary>
    [Test]
    public void TheBucketCompareMatchesTheScalarLoop()
    {
        var random = new Random(11);
        uint[] bucket = new uint[16];
        int mismatches = 0, live = 0, candidates = 0;
        for (int round = 0; round < 200_000; round++)
        {
            uint capacity = 1u << random.Next(0, 25);
            uint last = (uint)WindowModel.Next64(random);
            uint fingerprint = (uint)WindowModel.Next64(random);
            for (int i = 0; i < 16; i++)
            {
                bucket[i] = random.Next(4) switch
                {
                    0 => fingerprint,
                    1 => unchecked(last - (uint)(WindowModel.Next64(random) % (2UL * capacity))),
                    2 => unchecked(last - capacity + (uint)random.Next(-1, 2)),
                    _ => (uint)WindowModel.Next64(random),
                };
            }

            uint liveMask = BucketMatch.Live(ref bucket[0], last, capacity);
            uint candidateMask = BucketMatch.Candidates(ref bucket[0], fingerprint, last, capacity);
            mismatches += liveMask != NonceHistory.Window.LiveScalar(ref bucket[0], last, capacity) ? 1 : 0;
            mismatches += candidateMask != NonceHistory.Window.CandidatesScalar(ref bucket[0], fingerprint, last, capacity) ? 1 : 0;
            live += liveMask != 0 ? 1 : 0;
            candidates += candidateMask != 0 ? 1 : 0;
        }

        Assert.That(mismatches, Is.Zero);
        Assert.That(live, Is.GreaterThan(100_000), "the rounds had live slots");
        Assert.That(candidates, Is.GreaterThan(10_000), "the rounds had candidates");
    }
}
