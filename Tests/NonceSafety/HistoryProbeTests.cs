// The window looked up without the lock (NonceHistory.Probe, issue 49, sixth pass; after the AEAD since the seventh),
// and the write after it (TryRecordNew, Observe with a probe). A probe stands only while no insert
// has reached the window since it was made; these tests make inserts overtake probes, sequentially
// (step by step, against a model ring) and on real threads (GuardedAesGcmSiv under Observe, every
// repeat counted once).

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class HistoryProbeTests
{
    private const int Window = 64, Buckets = Window / 2; // the window's layout: capacity / 2 buckets

    /// <summary>
    /// A probe finds slot 0 of an empty bucket free; another nonce of the same bucket is recorded
    /// first and takes that slot. The overtaken probe must not be used: had it been, the first
    /// nonce would overwrite the second's slot and the second would be forgotten at once.
    /// </summary>
    [Test]
    public void AProbeThatAnInsertOvertookIsNotUsed()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointCapacity = 0 });
        (ulong a, ulong b) = TwoInOneBucket(history, new Random(5));
        byte[] tagA = Tag(1), tagB = Tag(2);

        WindowProbe probe = history.Probe(history.Hash(a, 0));
        Assert.That(probe.Lane, Is.Zero, "an empty bucket's first slot");
        Assert.That(history.Observe(b, 0, tagB, out _), Is.EqualTo(NonceLookup.New));

        Assert.That(history.TryRecordNew(a, 0, history.Hash(a, 0), tagA, probe), Is.False, "the probe was overtaken");
        Assert.That(history.Observe(a, 0, history.Hash(a, 0), tagA, probe, out _), Is.EqualTo(NonceLookup.New));
        Assert.That(history.Observe(b, 0, tagB, out StoredTag seenB), Is.EqualTo(NonceLookup.Seen), "b was lost");
        Assert.That(seenB.Matches(tagB), Is.True);
        Assert.That(history.Observe(a, 0, tagA, out StoredTag seenA), Is.EqualTo(NonceLookup.Seen), "a was lost");
        Assert.That(seenA.Matches(tagA), Is.True);
        Assert.That(history.Count.Exact, Is.EqualTo(2));
    }

    /// <summary>A probe of a nonce the window holds gives no slot; the locked section finds the repeat.</summary>
    [Test]
    public void AProbeOfAKnownNonceGivesNoSlot()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointCapacity = 0 });
        byte[] first = Tag(1), second = Tag(2);
        Assert.That(history.Observe(9, 4, first, out _), Is.EqualTo(NonceLookup.New));

        ulong hash = history.Hash(9, 4);
        WindowProbe probe = history.Probe(hash);
        Assert.That(probe.Lane, Is.EqualTo(-1));
        Assert.That(history.TryRecordNew(9, 4, hash, second, probe), Is.False);
        Assert.That(history.Observe(9, 4, hash, second, probe, out StoredTag seen), Is.EqualTo(NonceLookup.Seen));
        Assert.That(seen.Matches(first), Is.True);
        Assert.That(history.Count.Exact, Is.EqualTo(1));
    }

    /// <summary>
    /// The inline path records only what is plain: a distinguished nonce (kept long-range too), a
    /// tag shorter than 16 bytes, and a probe that does not stand all go to Observe, which records
    /// them in full.
    /// </summary>
    [Test]
    public void OnlyAPlainNewNonceIsRecordedInline()
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointBits = 1, DistinguishedPointCapacity = 64 });
        var random = new Random(3);
        ulong plain = 0, distinguished = 0;
        while (plain == 0 || distinguished == 0)
        {
            ulong candidate = WindowModel.Next64(random);
            if (history.IsDistinguished(candidate, 0))
            {
                distinguished = candidate;
            }
            else
            {
                plain = candidate;
            }
        }

        byte[] tag = Tag(3);
        ulong distinguishedHash = history.Hash(distinguished, 0);
        WindowProbe probe = history.Probe(distinguishedHash);
        Assert.That(history.TryRecordNew(distinguished, 0, distinguishedHash, tag, probe), Is.False, "a distinguished nonce");
        Assert.That(history.Observe(distinguished, 0, distinguishedHash, tag, probe, out _), Is.EqualTo(NonceLookup.New));
        Assert.That(history.Count, Is.EqualTo((1, 1)));

        ulong plainHash = history.Hash(plain, 0);
        Assert.That(history.TryRecordNew(plain, 0, plainHash, tag, WindowProbe.None), Is.False, "no probe");
        Assert.That(history.TryRecordNew(plain, 0, plainHash, tag.AsSpan(0, 12), history.Probe(plainHash)), Is.False, "a 12-byte tag");
        Assert.That(history.Count, Is.EqualTo((1, 1)), "nothing recorded by a refused inline path");
        Assert.That(history.TryRecordNew(plain, 0, plainHash, tag, history.Probe(plainHash)), Is.True);
        Assert.That(history.Count, Is.EqualTo((2, 1)));
        Assert.That(history.Observe(plain, 0, tag, out StoredTag seen), Is.EqualTo(NonceLookup.Seen));
        Assert.That(seen.Matches(tag), Is.True);
    }

    /// <summary>
    /// Probes made early and used late, as by calls that probe, run their AEAD, and record while
    /// other calls record in between (up to eight probes outstanding at once), among probes used at
    /// once; nonces drawn from a small pool, half of which piles into four buckets; every step
    /// checked against a model ring of the last 64 recorded nonces.
    /// </summary>
    [TestCase(1)]
    [TestCase(2)]
    [TestCase(3)]
    public void ProbesUsedLateKeepTheWindowExact(int seed)
    {
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = Window, DistinguishedPointCapacity = 0 });
        var random = new Random(seed);
        var pool = new List<ulong>();
        while (pool.Count < 2 * Window)
        {
            // Half the pool piles into four buckets (full buckets, spills), half falls anywhere.
            ulong candidate = WindowModel.Next64(random);
            if ((pool.Count % 2 == 1 || (history.Hash(candidate, 7) & (Buckets - 1)) < 4) && !pool.Contains(candidate))
            {
                pool.Add(candidate);
            }
        }

        var model = new WindowModel(Window);
        var outstanding = new List<(ulong Nonce, WindowProbe Probe)>();
        byte[] tag = new byte[16];
        int inline = 0, fallbacks = 0, repeats = 0;
        for (int step = 0; step < 20_000; step++)
        {
            int action = random.Next(3);
            if (action == 0 && outstanding.Count < 8)
            {
                ulong drawn = pool[random.Next(pool.Count)];
                outstanding.Add((drawn, history.Probe(history.Hash(drawn, 7))));
                continue;
            }

            ulong nonce;
            WindowProbe probe;
            if (action == 1 || outstanding.Count == 0)
            {
                // Probed and recorded with nothing between: the probe stands unless it found the nonce.
                nonce = pool[random.Next(pool.Count)];
                probe = history.Probe(history.Hash(nonce, 7));
            }
            else
            {
                int pick = random.Next(outstanding.Count);
                (nonce, probe) = outstanding[pick];
                outstanding.RemoveAt(pick);
            }

            BinaryPrimitives.WriteUInt64LittleEndian(tag, nonce);
            ulong hash = history.Hash(nonce, 7);
            NonceLookup found = NonceLookup.New;
            if (history.TryRecordNew(nonce, 7, hash, tag, probe))
            {
                inline++;
            }
            else
            {
                fallbacks++;
                found = history.Observe(nonce, 7, hash, tag, probe, out StoredTag earlier);
                if (found != NonceLookup.New)
                {
                    Assert.That(earlier.Matches(tag), Is.True, $"step {step}");
                }
            }

            repeats += model.Check(found, nonce, step) ? 1 : 0;
        }

        Assert.That(history.Count.Exact, Is.EqualTo(Window));
        Assert.That(inline, Is.GreaterThan(1000), "probes that stood were recorded inline");
        Assert.That(fallbacks, Is.GreaterThan(1000), "probes that an insert overtook, or that found their nonce, went to Observe");
        Assert.That(repeats, Is.GreaterThan(1000), "the pattern repeats nonces inside the window");
    }

    /// <summary>
    /// GuardedAesGcmSiv under Observe (its default), four threads encrypting under the same nonces:
    /// whichever call records a nonce second is a repeat, so with a different message per thread
    /// every nonce is counted three times as a distinct repeat, and with the same message three
    /// times as an identical one; none is recorded twice as new, none lost.
    /// </summary>
    [TestCase(false)]
    [TestCase(true)]
    public void ConcurrentCallsUnderObserveCountEveryRepeatOnce(bool identical)
    {
        const int Nonces = 3000, Threads = 4;
        byte[] key = new byte[32];
        new Random(Nonces).NextBytes(key);
        using var guard = new GuardedAesGcmSiv(key, new NonceGuardOptions { ShareHistory = false });
        using var start = new Barrier(Threads);
        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, thread =>
        {
            byte[] nonce = new byte[12], plaintext = [identical ? (byte)0 : (byte)thread], ciphertext = new byte[1], tag = new byte[16];
            start.SignalAndWait();
            for (int i = 0; i < Nonces; i++)
            {
                BinaryPrimitives.WriteInt32LittleEndian(nonce, i);
                guard.Encrypt(nonce, plaintext, ciphertext, tag);
            }
        });

        long expected = (long)Nonces * (Threads - 1);
        Assert.That(identical ? guard.IdenticalRepeats : guard.DistinctRepeats, Is.EqualTo(expected));
        Assert.That(identical ? guard.DistinctRepeats : guard.IdenticalRepeats, Is.Zero);
    }

    private static (ulong A, ulong B) TwoInOneBucket(NonceHistory history, Random random)
    {
        ulong a = WindowModel.Next64(random);
        while (true)
        {
            ulong b = WindowModel.Next64(random);
            if (b != a && ((history.Hash(a, 0) ^ history.Hash(b, 0)) & (Buckets - 1)) == 0)
            {
                return (a, b);
            }
        }
    }

    private static byte[] Tag(byte fill)
    {
        byte[] tag = new byte[16];
        tag.AsSpan().Fill(fill);
        return tag;
    }
}
