// Runs a batch of consecutive records on up to N threads: the records are split into contiguous
// runs, one per worker, and worker 0 runs on the calling thread. Each record has its own sequence
// number and nonce, so the runs share nothing but the (read-only) key; the callers validate every
// argument first, so a body never throws in normal use.

using System;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks;

namespace Cryptography.Internal;

internal static class RecordBatch
{
    /// <summary>The number of workers a batch of <paramref name="count"/> records gets.</summary>
    public static int Workers(int count, int maxDegreeOfParallelism) => Math.Max(1, Math.Min(count, maxDegreeOfParallelism));

    /// <summary>Calls <paramref name="body"/>(state, worker, first record, end record) for each worker's run.</summary>
    public static void Run<TState>(int count, int maxDegreeOfParallelism, TState state, Action<TState, int, int, int> body)
    {
        int workers = Workers(count, maxDegreeOfParallelism);
        if (workers == 1)
        {
            body(state, 0, 0, count);
            return;
        }

        try
        {
            Parallel.For(0, workers, new ParallelOptions { MaxDegreeOfParallelism = workers }, worker =>
                body(state, worker, (int)((long)count * worker / workers), (int)((long)count * (worker + 1) / workers)));
        }
        catch (AggregateException exception) when (exception.InnerExceptions.Count > 0)
        {
            ExceptionDispatchInfo.Throw(exception.InnerExceptions[0]);
        }
    }

    /// <summary>Checks a parallelism argument: at least 1.</summary>
    public static void Validate(int maxDegreeOfParallelism, string paramName) =>
        ArgumentOutOfRangeException.ThrowIfLessThan(maxDegreeOfParallelism, 1, paramName);
}
