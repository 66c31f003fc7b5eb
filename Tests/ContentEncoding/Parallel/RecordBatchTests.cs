// The scheduler under the batch calls (RecordBatch): records are claimed in chunks by the calling
// thread and by thread-pool helpers. Whatever the timing, every record is handed out exactly once,
// worker numbers stay below the worker count and are never held by two threads at once (the AES-GCM
// coding gives each number its own AesGcm, which is not safe for concurrent use), and the call
// returns only after every chunk has finished, throwing the first error.

using System;
using System.Linq;
using System.Threading;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class RecordBatchTests
{
    [TestCase(1, 1)]
    [TestCase(1, 4)]
    [TestCase(2, 2)]
    [TestCase(7, 3)]
    [TestCase(31, 2)]
    [TestCase(32, 4)]
    [TestCase(1000, 2)]
    [TestCase(4096, 8)]
    public void EveryRecordIsHandedOutOnceToOneWorkerAtATime(int count, int threads)
    {
        int workers = RecordBatch.Workers(count, threads);
        int[] seen = new int[count];
        int[] busy = new int[workers];
        int clashes = 0;
        for (int round = 0; round < 20; round++)
        {
            Array.Clear(seen);
            RecordBatch.Run(count, threads, seen, (records, worker, start, end) =>
            {
                Assert.That(worker, Is.InRange(0, workers - 1));
                Assert.That(start, Is.LessThan(end));
                if (Interlocked.Increment(ref busy[worker]) != 1)
                {
                    Interlocked.Increment(ref clashes);
                }

                for (int i = start; i < end; i++)
                {
                    Interlocked.Increment(ref records[i]);
                }

                Thread.SpinWait(20_000);
                Interlocked.Decrement(ref busy[worker]);
            });

            Assert.That(seen, Is.All.EqualTo(1), $"round {round}");
        }

        Assert.That(clashes, Is.Zero);
    }

    [Test]
    public void TheCallerDoesEverythingWhenNoHelperStarts()
    {
        // With every pool thread held up, helpers cannot start: the caller must finish alone and not
        // wait for them.
        int count = 64;
        int[] byWorker = new int[2];
        int blockers = Environment.ProcessorCount * 4;
        ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
        ThreadPool.GetMaxThreads(out int maxWorkers, out int maxIo);

        // Not disposed: a blocker may still be returning from Wait after release is set.
        var release = new ManualResetEventSlim();
        int started = 0;
        try
        {
            // Cap the pool and queue more blockers than it has threads: once some blockers wait in the
            // queue and no more start, every pool thread is held and a helper cannot start. (Queuing only
            // as many as the cap relied on the test host keeping a pool thread busy; NUnit's own runner on
            // .NET 11 often did not, and the pool never saturated: issue 35.)
            Assert.That(ThreadPool.SetMinThreads(blockers, minIo) && ThreadPool.SetMaxThreads(blockers, maxIo), Is.True);
            int queued = 0;
            void Block(int more)
            {
                for (int i = 0; i < more; i++, queued++)
                {
                    ThreadPool.UnsafeQueueUserWorkItem(_ => { Interlocked.Increment(ref started); release.Wait(); }, null);
                }
            }

            Block(blockers + Environment.ProcessorCount);

            int seen = -1;
            for (int wait = 0; wait < 600 && (seen != Volatile.Read(ref started) || ThreadPool.PendingWorkItemCount == 0); wait++)
            {
                seen = Volatile.Read(ref started);
                if (seen == queued)
                {
                    // Every blocker runs: the pool has more threads than the cap. Mono's keeps the threads it
                    // already has (earlier tests grew it) and runs work on them whatever the cap; more
                    // blockers until one waits.
                    Block(Environment.ProcessorCount);
                }

                Thread.Sleep(100);
            }

            Assert.That(ThreadPool.PendingWorkItemCount, Is.GreaterThan(0), "the pool was not saturated");
            RecordBatch.Run(count, 2, byWorker, (counts, worker, start, end) => Interlocked.Add(ref counts[worker], end - start));
            Assert.That(byWorker, Is.EqualTo(new[] { count, 0 }));
        }
        finally
        {
            release.Set();
            ThreadPool.SetMaxThreads(maxWorkers, maxIo);
            ThreadPool.SetMinThreads(minWorkers, minIo);
        }
    }

    [Test]
    public void TheFirstErrorIsThrownAfterEveryWorkerHasStopped()
    {
        int running = 0;
        int runningAtThrow = -1;
        var error = Assert.Throws<InvalidOperationException>(() =>
        {
            try
            {
                RecordBatch.Run(256, 4, 0, (_, _, start, _) =>
                {
                    Interlocked.Increment(ref running);
                    try
                    {
                        Thread.SpinWait(20_000);
                        if (start >= 64)
                        {
                            throw new InvalidOperationException("bad record");
                        }
                    }
                    finally
                    {
                        Interlocked.Decrement(ref running);
                    }
                });
            }
            finally
            {
                runningAtThrow = Volatile.Read(ref running);
            }
        });

        Assert.That(error!.Message, Is.EqualTo("bad record"));
        Assert.That(runningAtThrow, Is.Zero, "a worker was still inside the body when the call returned");
    }

    // Workers ask for their AES-GCM cipher from their own threads, all at once when a batch starts.
    // However the requests interleave, each worker number gets one sibling, the same one every time,
    // and no two numbers share one.
    [Test]
    public void WorkersAskingForTheirCipherAtOnceEachGetOneOfTheirOwn()
    {
        byte[] ikm = Enumerable.Range(0, 16).Select(i => (byte)i).ToArray();
        for (int round = 0; round < 50; round++)
        {
            using RecordCipher cipher = RecordCipher.Create(ContentCoding.Aes128Gcm, ikm, new byte[16]);
            const int Workers = 24;
            var seen = new RecordCipher?[Workers];
            int mismatches = 0;
            using var start = new Barrier(8);
            var threads = Enumerable.Range(0, 8).Select(t => new Thread(() =>
            {
                start.SignalAndWait();
                for (int k = 0; k < 4 * Workers; k++)
                {
                    int worker = ((k * 7) + (t * 5)) % Workers;
                    RecordCipher got = cipher.ForWorker(worker);
                    RecordCipher first = Interlocked.CompareExchange(ref seen[worker], got, null) ?? got;
                    if (!ReferenceEquals(first, got))
                    {
                        Interlocked.Increment(ref mismatches);
                    }
                }
            })).ToArray();
            foreach (Thread thread in threads)
            {
                thread.Start();
            }

            foreach (Thread thread in threads)
            {
                thread.Join();
            }

            Assert.That(mismatches, Is.Zero, "a worker number was given two ciphers");
            var distinct = Enumerable.Range(0, Workers).Select(w => cipher.ForWorker(w)).Distinct().Count();
            Assert.That(distinct, Is.EqualTo(Workers));
        }
    }
}
