// Runs a batch of consecutive records on up to N threads. Each record has its own sequence number and
// nonce, so workers share nothing but the (read-only) key; the callers validate every argument first,
// so a body never throws in normal use. The calling thread is worker 0 and works from the start;
// helpers are queued to the thread pool and join when a thread picks them up. Records are claimed in
// small chunks from a shared counter, not split into one fixed run per worker: a helper that starts
// late, or shares its core with other work (a file tool's reader and writer), then simply does fewer
// chunks, instead of the caller waiting for the slowest fixed share. A helper that has not started by
// the time the records run out is not waited for.

using System;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;

namespace Cryptography.Internal;

internal static class RecordBatch
{
    /// <summary>About how much data a stream's batch covers: large enough that a batch splits well across
    /// threads and each read or write moves many records, small beside a stream's memory.</summary>
    public const int BatchBytes = 1 << 19;

    /// <summary>How much data a body must have had before a stream that opted in starts batches: two
    /// batches' worth. Batches have a fixed cost (a task, a second buffer) that a short body does not earn back.</summary>
    public const int StartBytes = 2 * BatchBytes;

    /// <summary>Whether a stream with this degree of parallelism and record size works in batches once past
    /// <see cref="StartBytes"/>: records larger than a batch stay one at a time, one buffer each.</summary>
    public static bool Applies(int maxDegreeOfParallelism, int recordSize) => maxDegreeOfParallelism > 1 && recordSize <= BatchBytes;

    public static int RecordsPerBatch(int recordSize) => Math.Max(1, BatchBytes / recordSize);

    public static int Workers(int count, int maxDegreeOfParallelism) => Math.Max(1, Math.Min(count, maxDegreeOfParallelism));

    /// <summary>Calls <paramref name="body"/>(state, worker, first record, end record) for chunks of the
    /// records until all are done. Worker numbers run from 0 (the calling thread) to
    /// <see cref="Workers"/> − 1, and no two threads share a worker number at the same time.</summary>
    public static void Run<TState>(int count, int maxDegreeOfParallelism, TState state, Action<TState, int, int, int> body) =>
        RunAsync(count, maxDegreeOfParallelism, state, body, meanwhile: null).GetAwaiter().GetResult();

    /// <summary><see cref="Run"/>, with the calling thread doing <paramref name="meanwhile"/> first (a stream
    /// reads its next batch) while the helpers start on the records; it joins them once that is done, and
    /// the records are all done when this completes, whatever <paramref name="meanwhile"/> threw.</summary>
    public static async ValueTask RunAsync<TState>(int count, int maxDegreeOfParallelism, TState state, Action<TState, int, int, int> body, Func<ValueTask>? meanwhile)
    {
        int workers = Workers(count, maxDegreeOfParallelism);
        Batch<TState>? batch = workers == 1 ? null : new Batch<TState>(count, workers, state, body);
        for (int helper = 1; helper < workers; helper++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(batch!, preferLocal: false);
        }

        try
        {
            await (meanwhile?.Invoke() ?? default).ConfigureAwait(false);
        }
        finally
        {
            if (batch is null)
            {
                body(state, 0, 0, count);
            }
            else
            {
                batch.RunOnCaller();
            }
        }
    }

    /// <summary>Checks a parallelism argument (at least 1) and returns it.</summary>
    public static int Validate(int maxDegreeOfParallelism, string paramName)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxDegreeOfParallelism, 1, paramName);
        return maxDegreeOfParallelism;
    }

    private sealed class Batch<TState>(int count, int workers, TState state, Action<TState, int, int, int> body) : IThreadPoolWorkItem
    {
        // _gate counts the helpers inside Execute; Closed is added once the caller has finished its own
        // work, and a helper that enters after that does none. The helper that leaves last sets _done.
        private const int Closed = 1 << 30;

        // About eight chunks per worker: small enough to even out a late or preempted helper, large
        // enough (a record each at least) that claiming one costs nothing beside sealing it.
        private readonly int _chunk = Math.Max(1, count / (workers * 8));
        private readonly ManualResetEventSlim _done = new();
        private int _next;
        private int _gate;
        private int _lastWorker;
        private ExceptionDispatchInfo? _error;

        // A helper, on a thread-pool thread. Work catches every exception, so the gate is always left.
        public void Execute()
        {
            if ((Interlocked.Increment(ref _gate) & Closed) == 0)
            {
                // At most workers - 1 helpers are queued, each runs once: numbers 1 to workers - 1.
                Work(Interlocked.Increment(ref _lastWorker));
            }

            if (Interlocked.Decrement(ref _gate) == Closed)
            {
                _done.Set();
            }
        }

        public void RunOnCaller()
        {
            Work(0);

            // No helper enters from now on; wait for those inside (their records write the destination,
            // which the caller may wipe on failure) before returning or throwing.
            if (Interlocked.Add(ref _gate, Closed) != Closed)
            {
                _done.Wait();
            }

            // _done is not disposed: the last helper may still be inside Set, and without a wait handle
            // ever requested it holds no kernel object.
            _error?.Throw();
        }

        private void Work(int worker)
        {
            try
            {
                int start;
                while ((start = Interlocked.Add(ref _next, _chunk) - _chunk) < count)
                {
                    body(state, worker, start, Math.Min(count, start + _chunk));
                }
            }
            catch (Exception exception)
            {
                // The first error is the one thrown; the others stop claiming records.
                Interlocked.CompareExchange(ref _error, ExceptionDispatchInfo.Capture(exception), null);
                Volatile.Write(ref _next, count);
            }
        }
    }
}
