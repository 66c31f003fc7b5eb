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
        // A small nonce space forces repeats, evictions and long probe chains (with deletions
        // from their middle), checked step by step against a queue and a set.
        var history = new NonceHistory(new NonceGuardOptions { WindowSize = window, DistinguishedPointCapacity = 0 });
        var random = new Random(seed);
        var ring = new Queue<ulong>();
        var present = new HashSet<ulong>();
        byte[] tag = new byte[16];
        for (int step = 0; step < 200_000; step++)
        {
            ulong nonce = (ulong)random.Next(window * 3);
            uint high = (uint)(nonce % 3);
            NonceLookup found = history.Reserve(nonce, high, out int slot, out StoredTag seen);
            bool expectSeen = present.Contains(nonce);
            Assert.That(found, Is.EqualTo(expectSeen ? NonceLookup.Seen : NonceLookup.New), $"step {step}, seed {seed}");
            if (expectSeen)
            {
                BitConverter.TryWriteBytes(tag, nonce);
                Assert.That(seen.Matches(tag), Is.True, "the stored tag is the one published for this nonce");
                continue;
            }

            BitConverter.TryWriteBytes(tag, nonce);
            history.Publish(slot, nonce, high, tag);
            if (ring.Count == window)
            {
                present.Remove(ring.Dequeue());
            }

            ring.Enqueue(nonce);
            present.Add(nonce);
        }

        Assert.That(history.Count.Exact, Is.EqualTo(present.Count));
    }

    [Test]
    public void PlantedRepeatsOverAMillionEncryptions()
    {
        // A million AES-GCM encryptions through a guard with the default options (exact window
        // 4096, distinguished points 1 in 16, 16,384 of them). One call in 40 reuses the nonce of
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
            (options.WindowSize + 1, 200_000, "beyond the window, within distinguished-point reach"),
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
                if (history.Reserve(n, 7, out int slot, out _) == NonceLookup.New)
                {
                    BitConverter.TryWriteBytes(tag, n);
                    history.Publish(slot, n, 7, tag);
                }
            }
        }

        Run(0, 1_000_000); // both rings full
        long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
        Run(1_000_000, 9_000_000);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;

        TestContext.Out.WriteLine($"tracker after 10^7 operations: {history.MemoryBytes} bytes in its tables, {history.Count.Exact} exact + {history.Count.Distinguished} distinguished nonces, {allocated} bytes allocated by the last 9*10^6");
        Assert.Multiple(() =>
        {
            Assert.That(history.MemoryBytes, Is.EqualTo(bytes));
            Assert.That(bytes, Is.LessThan(1_000_000), "the documented default footprint, under 1 MB");
            Assert.That(history.Count.Exact, Is.EqualTo(options.WindowSize));
            Assert.That(history.Count.Distinguished, Is.EqualTo(options.DistinguishedPointCapacity));
            Assert.That(allocated, Is.Zero);
        });

        // The oldest of the window has just left it; the newest is still there.
        Assert.That(history.Reserve(10_000_000 - 1, 7, out _, out _), Is.EqualTo(NonceLookup.Seen));
        Assert.That(history.Reserve(10_000_000 - (ulong)options.WindowSize - 1, 7, out _, out StoredTag _), Is.Not.EqualTo(NonceLookup.Seen));
    }
}
