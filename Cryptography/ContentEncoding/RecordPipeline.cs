// Parallel sealing and opening for ContentEncryptingStream and ContentDecryptingStream, when the caller
// asks for it (MaxDegreeOfParallelism above 1; the default is 1: like CryptoStream and GZipStream, a
// stream starts no work of its own unless asked, so a server decoding many bodies pays no background
// tasks or batch buffers), once a body is past its first two batches' worth (about 1 MiB, StartBytes). The caller's thread and background stages overlap: to
// encrypt, the caller fills input batches while the stage seals each on up to N threads (RecordBatch)
// and writes it; to decrypt, a reader fills batches with records from the source, and an opener opens
// each on up to N threads and closes the gaps the delimiters and tags leave, while the caller takes
// the plaintext of the batch before. Batches travel through bounded System.Threading.Channels, so memory is a fixed handful of
// batch buffers (pinned, wiped before they are let go: they hold plaintext).
//
// Why a stage of its own rather than parallel records alone: reading (or writing) a batch costs
// about as much as sealing it on one core, so a caller that did both in turn would leave the second
// core idle for half the time. Records above one batch stay on the streams' one-record path: a few
// batch buffers of 16 MiB records would not fit the memory a stream may hold. The buffers come from
// PinnedBuffers, so a server that makes such streams one after another does not allocate them anew.
//
// Security: a batch's plaintext reaches the caller only after every record in it verified; the
// records of a batch before a failing record are handed out, then the failure. A record marked as
// the last is held back until the source is known to end right after it. Errors of the stage reach
// the caller at its next call; Dispose stops the stage and waits for it before wiping the buffers.

using System;
using System.Globalization;
using System.IO;
using System.Runtime.ExceptionServices;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;

namespace Cryptography.Internal;

internal static class RecordPipeline
{
    /// <summary>About how much data a batch covers: large enough that a batch splits well across
    /// threads and each read or write moves many records, small beside a stream's memory.</summary>
    public const int BatchBytes = 1 << 19;

    /// <summary>How much data a body must have had before its pipeline starts: two batches. The pipeline
    /// has a fixed cost (a task, the channels, the hand-offs, the batch buffers' wipe) that one batch
    /// does not earn back; in two rounds of ContentEncodingBenchmarks a 1 MiB body whose second half went
    /// through the pipeline took 0.97–1.27 times as long as on the one-record path, a 16 MiB body 0.62–0.91.</summary>
    public const int StartBytes = 2 * BatchBytes;

    /// <summary>Batches in flight: the caller's, the stages', and up to <see cref="Depth"/> − 2 queued between them.</summary>
    public const int Depth = 4;

    public static int RecordsPerBatch(int recordSize) => Math.Max(1, BatchBytes / recordSize);

    /// <summary>The default degree of parallelism of the streams: 1, no pipeline; a caller with cores to
    /// spare on one large body (the file tool) opts in.</summary>
    public const int DefaultParallelism = 1;

    /// <summary>Whether a stream with this degree of parallelism and record size uses a pipeline once past its first batches.</summary>
    public static bool Applies(int maxDegreeOfParallelism, int recordSize) => maxDegreeOfParallelism > 1 && recordSize <= BatchBytes;

    public static T Wait<T>(ValueTask<T> task) => task.IsCompletedSuccessfully ? task.Result : task.AsTask().GetAwaiter().GetResult();

    public static void Wait(ValueTask task)
    {
        if (!task.IsCompletedSuccessfully)
        {
            task.AsTask().GetAwaiter().GetResult();
        }
    }

    public static BoundedChannelOptions Queue => new(Depth - 2) { SingleReader = true, SingleWriter = true, FullMode = BoundedChannelFullMode.Wait };

    // Free buffers: taken by one thread, given back by the stage and, on the sealing side, by the caller.
    public static UnboundedChannelOptions Pool => new() { SingleReader = true };
}

/// <summary>The encrypting side: input batches in, records out to the destination.</summary>
internal sealed class SealingPipeline : IDisposable
{
    private readonly ContentEncryptor _encryptor;
    private readonly Stream _destination;
    private readonly int _threads;
    private readonly bool _async;
    private readonly Channel<(byte[] Data, int Count, bool IsLast)> _toSeal = Channel.CreateBounded<(byte[], int, bool)>(RecordPipeline.Queue);
    private readonly Channel<byte[]> _free = Channel.CreateUnbounded<byte[]>(RecordPipeline.Pool);
    private readonly byte[][] _inputs = new byte[RecordPipeline.Depth][];

    // Which inputs have been handed to the caller: only those may hold plaintext when the pipeline
    // ends. A body that ends after a batch or two leaves the others untouched, and their wipe unpaid.
    private readonly bool[] _handedOut = new bool[RecordPipeline.Depth];
    private readonly byte[] _output;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _stage;
    private ExceptionDispatchInfo? _error;

    public SealingPipeline(ContentEncryptor encryptor, Stream destination, int threads, bool async)
    {
        _encryptor = encryptor;
        _destination = destination;
        _threads = threads;
        _async = async;
        int records = RecordPipeline.RecordsPerBatch(encryptor.RecordSize);
        BatchLength = records * encryptor.MaxRecordDataLength;
        for (int i = 0; i < _inputs.Length; i++)
        {
            _inputs[i] = PinnedBuffers.Rent(BatchLength);
            _free.Writer.TryWrite(_inputs[i]);
        }

        _output = PinnedBuffers.Rent(records * encryptor.RecordSize);
        _stage = Task.Run(SealAll);
    }

    /// <summary>The data length of a full batch: whole records' data.</summary>
    public int BatchLength { get; }

    /// <summary>A free input buffer of <see cref="BatchLength"/> bytes to fill; waits while all are in use.</summary>
    public byte[] TakeBuffer()
    {
        try
        {
            return HandOut(_free.Reader.TryRead(out byte[]? buffer) ? buffer : RecordPipeline.Wait(_free.Reader.ReadAsync()));
        }
        catch (ChannelClosedException)
        {
            throw Failure();
        }
    }

    /// <inheritdoc cref="TakeBuffer"/>
    public async ValueTask<byte[]> TakeBufferAsync(CancellationToken cancellationToken)
    {
        try
        {
            return HandOut(_free.Reader.TryRead(out byte[]? buffer) ? buffer : await _free.Reader.ReadAsync(cancellationToken).ConfigureAwait(false));
        }
        catch (ChannelClosedException)
        {
            throw Failure();
        }
    }

    /// <summary>Gives back a buffer from <see cref="TakeBuffer"/> that received no data.</summary>
    public void GiveBack(byte[] buffer) => _free.Writer.TryWrite(buffer);

    /// <summary>Hands a filled buffer to the stage. Only the last batch (<paramref name="isLast"/>) may be
    /// short; it ends with the last record.</summary>
    public void Submit(byte[] data, int count, bool isLast)
    {
        try
        {
            if (!_toSeal.Writer.TryWrite((data, count, isLast)))
            {
                RecordPipeline.Wait(_toSeal.Writer.WriteAsync((data, count, isLast)));
            }
        }
        catch (ChannelClosedException)
        {
            throw Failure();
        }
    }

    /// <inheritdoc cref="Submit"/>
    public async ValueTask SubmitAsync(byte[] data, int count, bool isLast, CancellationToken cancellationToken)
    {
        try
        {
            await _toSeal.Writer.WriteAsync((data, count, isLast), cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            throw Failure();
        }
    }

    /// <summary>After the last batch: waits until every record has been written; throws the stage's error.</summary>
    public void Finish()
    {
        _toSeal.Writer.TryComplete();
        _stage.GetAwaiter().GetResult();
        _error?.Throw();
    }

    /// <inheritdoc cref="Finish"/>
    public async ValueTask FinishAsync()
    {
        _toSeal.Writer.TryComplete();
        await _stage.ConfigureAwait(false);
        _error?.Throw();
    }

    /// <summary>Stops the stage (batches not yet written are dropped), waits for it, wipes every buffer.</summary>
    public void Dispose()
    {
        _stop.Cancel();
        _toSeal.Writer.TryComplete();
        _stage.GetAwaiter().GetResult();   // SealAll never throws
        for (int i = 0; i < _inputs.Length; i++)
        {
            PinnedBuffers.Return(_inputs[i], _handedOut[i] ? BatchLength : 0);   // wipes what may hold plaintext
        }

        PinnedBuffers.Return(_output, holdsOnlyPublicData: true);
        _stop.Dispose();
    }

    private byte[] HandOut(byte[] buffer)
    {
        _handedOut[Array.IndexOf(_inputs, buffer)] = true;
        return buffer;
    }

    private Exception Failure()
    {
        _error?.Throw();
        return new ObjectDisposedException(nameof(ContentEncryptingStream));
    }

    private async Task SealAll()
    {
        CancellationToken stop = _stop.Token;
        int maxData = _encryptor.MaxRecordDataLength;
        try
        {
            while (await _toSeal.Reader.WaitToReadAsync(stop).ConfigureAwait(false))
            {
                while (_toSeal.Reader.TryRead(out (byte[] Data, int Count, bool IsLast) batch))
                {
                    stop.ThrowIfCancellationRequested();

                    // A full batch is followed by more data, so all its records are not the last; the last
                    // batch seals every piece but its final one that way, then the final one as the last.
                    int full = batch.IsLast ? Math.Max(0, batch.Count - 1) / maxData : batch.Count / maxData;
                    int length = _encryptor.EncryptRecords(batch.Data.AsMemory(0, full * maxData), _output, _threads);
                    if (batch.IsLast)
                    {
                        length += _encryptor.EncryptRecord(batch.Data.AsSpan(full * maxData, batch.Count - (full * maxData)), _output.AsSpan(length), isLastRecord: true);
                    }

                    _free.Writer.TryWrite(batch.Data);
                    if (_async)
                    {
                        await _destination.WriteAsync(_output.AsMemory(0, length), stop).ConfigureAwait(false);
                    }
                    else
                    {
                        _destination.Write(_output, 0, length);
                    }
                }
            }
        }
        catch (Exception exception)
        {
            if (!stop.IsCancellationRequested)
            {
                _error = ExceptionDispatchInfo.Capture(exception);
            }

            // Wake a caller waiting for a free buffer or for room in the queue: it finds the error.
            _free.Writer.TryComplete();
            _toSeal.Writer.TryComplete();
        }
    }
}

/// <summary>The decrypting side: records read from the source and opened, plaintext out to the caller.</summary>
internal sealed class OpeningPipeline : IDisposable
{
    private readonly Stream _source;
    private readonly ContentDecryptor _decryptor;
    private readonly int _threads;
    private readonly bool _async;

    // Batches go free -> (reader) filled -> (opener) ready -> (caller) free. The reader only reads, so
    // the next batch arrives while the opener's threads open this one: in one stage that read its
    // batch and then opened it, every core but one stood idle for the read.
    private readonly Channel<Item> _filled = Channel.CreateBounded<Item>(RecordPipeline.Queue);
    private readonly Channel<Item> _ready = Channel.CreateBounded<Item>(RecordPipeline.Queue);
    // Given back by the caller (Return) and by the opener (the empty batch that shows the source ended).
    private readonly Channel<Batch> _free = Channel.CreateUnbounded<Batch>(RecordPipeline.Pool);
    private readonly Batch[] _batches = new Batch[RecordPipeline.Depth];
    private readonly CancellationTokenSource _stop = new();
    private Task _reader;
    private Task _opener;

    // Set by a task that stopped on an error it handed to the caller; Restart starts it again, and it
    // resumes with the batch it had (the reader's, with the bytes it had received; the opener's).
    private volatile bool _readerStopped;
    private volatile bool _openerStopped;
    private Batch? _resumeRead;
    private Batch? _resumeOpen;

    public OpeningPipeline(Stream source, ContentDecryptor decryptor, int threads, bool async)
    {
        _source = source;
        _decryptor = decryptor;
        _threads = threads;
        _async = async;
        int recordSize = decryptor.Header.RecordSize;
        int records = RecordPipeline.RecordsPerBatch(recordSize);
        for (int i = 0; i < _batches.Length; i++)
        {
            _batches[i] = new Batch(records * recordSize, records * (recordSize - ContentEncryption.TagSize), records);
            _free.Writer.TryWrite(_batches[i]);
        }

        _reader = Task.Run(ReadAll);
        _opener = Task.Run(OpenAll);
    }

    /// <summary>The next batch of verified plaintext, the end of the body (null, null), or a failure.
    /// After a failure from the source, call <see cref="Restart"/> before asking again.</summary>
    public Item Next() => _ready.Reader.TryRead(out Item item) ? item : RecordPipeline.Wait(_ready.Reader.ReadAsync());

    /// <inheritdoc cref="Next"/>
    public ValueTask<Item> NextAsync(CancellationToken cancellationToken) => _ready.Reader.ReadAsync(cancellationToken);

    /// <summary>Gives a batch the caller has taken all data from back to the reader.</summary>
    public void Return(Batch batch)
    {
        batch.Reset();
        _free.Writer.TryWrite(batch);
    }

    /// <summary>Starts what stopped on an error from the source again: reading goes on where the
    /// source left off, with the data of the batch being read kept.</summary>
    public void Restart()
    {
        if (_readerStopped)
        {
            _readerStopped = false;
            _reader = Task.Run(ReadAll);
        }

        if (_openerStopped)
        {
            _openerStopped = false;
            _opener = Task.Run(OpenAll);
        }
    }

    public void Dispose()
    {
        Task both = Stop();
        bool stopped;
        try
        {
            stopped = both.Wait(StopWait);
        }
        catch (AggregateException)
        {
            stopped = true;
        }

        Wipe(both, stopped);
    }

    /// <inheritdoc cref="Dispose"/>
    public async ValueTask DisposeAsync()
    {
        Task both = Stop();
        bool stopped = true;
        try
        {
            await both.WaitAsync(StopWait).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            stopped = false;
        }
        catch (Exception)
        {
            // The tasks ended; their errors were handed to the caller already.
        }

        Wipe(both, stopped);
    }

    // The reader may be blocked in a read from the source (a pipe that does not end), which no
    // token interrupts; the caller disposes the source after this, which ends that read. Then
    // the tasks' end wipes the buffers, as this does at once when they have stopped.
    private static readonly TimeSpan StopWait = TimeSpan.FromSeconds(1);

    private Task Stop()
    {
        _stop.Cancel();
        _free.Writer.TryComplete();
        _filled.Writer.TryComplete();
        _ready.Writer.TryComplete();
        return Task.WhenAll(_reader, _opener);
    }

    private void Wipe(Task both, bool stopped)
    {
        if (!stopped)
        {
            both.ContinueWith(_ => WipeAll(), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
            return;
        }

        WipeAll();
    }

    private void WipeAll()
    {
        foreach (Batch batch in _batches)
        {
            batch.Release();
        }
    }

    // The reader: fills free batches from the source, each up to its size or to the end of the source.
    // Batches hold whole records, so batch boundaries are record boundaries.
    private async Task ReadAll()
    {
        CancellationToken stop = _stop.Token;
        Batch? batch = _resumeRead;
        _resumeRead = null;
        try
        {
            while (true)
            {
                batch ??= await _free.Reader.ReadAsync(stop).ConfigureAwait(false);

                // Every byte is counted as it arrives (batch.Received), so a source that throws loses
                // nothing and a restart resumes.
                while (!batch.Ended && batch.Received < batch.RecordsLength)
                {
                    Memory<byte> space = batch.Records.AsMemory(batch.Received, batch.RecordsLength - batch.Received);
                    int read = _async ? await _source.ReadAsync(space, stop).ConfigureAwait(false) : _source.Read(space.Span);
                    batch.Received += read;
                    batch.Ended = read == 0;
                }

                bool ended = batch.Ended;
                await _filled.Writer.WriteAsync(new Item(batch, null), stop).ConfigureAwait(false);
                batch = null;
                if (ended)
                {
                    return;
                }
            }
        }
        catch (Exception exception) when (!stop.IsCancellationRequested)
        {
            // From the source: keep the batch so that a restart resumes it; the opener passes the error
            // on after the batches before it.
            _resumeRead = batch;
            _readerStopped = true;
            await HandOnAsync(_filled, new Item(null, ExceptionDispatchInfo.Capture(exception))).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // Disposed: the caller has gone. The batch held only ciphertext; Release wipes the rest.
        }
    }

    // The opener: opens each filled batch on up to _threads threads and hands it to the caller.
    private async Task OpenAll()
    {
        CancellationToken stop = _stop.Token;
        int recordSize = _decryptor.Header.RecordSize;
        Batch? batch = _resumeOpen;
        _resumeOpen = null;
        try
        {
            while (true)
            {
                if (batch is null)
                {
                    Item filled = await _filled.Reader.ReadAsync(stop).ConfigureAwait(false);
                    if (filled.Batch is null)
                    {
                        // The reader stopped on an error of the source: the caller sees it after the
                        // data before it, and Restart starts the reader again.
                        await PostAsync(filled, stop).ConfigureAwait(false);
                        continue;
                    }

                    batch = filled.Batch;
                }

                if (!batch.Opened)
                {
                    ContentEncodingException? failure = Open(batch, recordSize);
                    batch.Opened = true;
                    if (failure is not null)
                    {
                        await PostAsync(new Item(batch, null), stop).ConfigureAwait(false);
                        await PostAsync(new Item(null, ExceptionDispatchInfo.Capture(failure)), stop).ConfigureAwait(false);
                        return;
                    }
                }

                if (_decryptor.IsComplete && !batch.Ended)
                {
                    // The batch ends with the record marked as the last: the source must end here, so
                    // the reader's next batch must be empty.
                    Item next = await _filled.Reader.ReadAsync(stop).ConfigureAwait(false);
                    if (next.Batch is not { } after)
                    {
                        // An error of the source before its end was seen: the batch waits for a restart.
                        await PostAsync(next, stop).ConfigureAwait(false);
                        continue;
                    }

                    bool more = after.Received != 0;
                    Return(after);
                    try
                    {
                        _decryptor.CheckEnd(sourceEnded: !more);
                    }
                    catch (ContentEncodingException failure)
                    {
                        batch.DataLength -= batch.HeldBack;
                        await PostAsync(new Item(batch, null), stop).ConfigureAwait(false);
                        await PostAsync(new Item(null, ExceptionDispatchInfo.Capture(failure)), stop).ConfigureAwait(false);
                        return;
                    }

                    batch.HeldBack = 0;
                    batch.Ended = true;
                }

                bool ended = batch.Ended;
                await PostAsync(new Item(batch, null), stop).ConfigureAwait(false);
                batch = null;
                if (ended)
                {
                    await PostAsync(new Item(null, null), stop).ConfigureAwait(false);
                    return;
                }
            }
        }
        catch (Exception exception) when (!stop.IsCancellationRequested)
        {
            // Not from the records (their failures are items) nor the source (the reader's): keep the
            // batch and hand the error on, as the reader does, so that a restart retries it.
            _resumeOpen = batch;
            _openerStopped = true;
            await HandOnAsync(_ready, new Item(null, ExceptionDispatchInfo.Capture(exception))).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // Disposed: the caller has gone.
            batch?.Wipe();
        }
    }

    // Hands an error on whatever the stop token says; only a disposed pipeline (channel closed) drops it.
    private static async Task HandOnAsync(Channel<Item> channel, Item item)
    {
        try
        {
            await channel.Writer.WriteAsync(item, CancellationToken.None).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
        }
    }

    private ValueTask PostAsync(Item item, CancellationToken stop) => _ready.Writer.WriteAsync(item, stop);

    // Opens the records the batch holds and closes the gaps between their data. Returns the failure,
    // if a record fails; the data of the records before it stays in the batch, ready to be handed out.
    private ContentEncodingException? Open(Batch batch, int recordSize)
    {
        int stride = recordSize - ContentEncryption.TagSize;
        int count = batch.Received / recordSize;
        int rest = batch.Received - (count * recordSize);
        long first = _decryptor.RecordCount;
        bool compacted = false;
        batch.Written(count * stride + rest);
        try
        {
            _decryptor.DecryptRecords(batch.Records.AsMemory(0, count * recordSize), batch.Plaintext, batch.Lengths, _threads);
            batch.DataLength = Compact(batch, count, stride);
            compacted = true;
            if (rest > 0)
            {
                // A short piece ends the source: the final record, which must be marked as the last.
                batch.DataLength += _decryptor.DecryptRecord(batch.Records.AsSpan(count * recordSize, rest), batch.Plaintext.AsSpan(batch.DataLength), out _);
            }
            else if (batch.Ended)
            {
                _decryptor.CheckEnd(sourceEnded: true);
            }
            else if (_decryptor.IsComplete && count > 0)
            {
                batch.HeldBack = batch.Lengths[count - 1];
            }

            return null;
        }
        catch (ContentEncodingException exception)
        {
            // Release the records that verified before the failure, except one marked as the last.
            int verified = (int)Math.Min(count, _decryptor.RecordCount - first);
            int released = _decryptor.IsComplete && verified > 0 ? verified - 1 : verified;
            if (compacted)
            {
                int length = 0;
                for (int i = 0; i < released; i++)
                {
                    length += batch.Lengths[i];
                }

                batch.DataLength = length;
            }
            else
            {
                batch.DataLength = Compact(batch, released, stride);
            }

            CryptographicOperations.ZeroMemory(batch.Plaintext.AsSpan(batch.DataLength));
            return exception;
        }
    }

    private static int Compact(Batch batch, int count, int stride)
    {
        int end = 0;
        for (int i = 0; i < count; i++)
        {
            int length = batch.Lengths[i];
            if (i * stride != end)
            {
                batch.Plaintext.AsSpan(i * stride, length).CopyTo(batch.Plaintext.AsSpan(end));
            }

            end += length;
        }

        return end;
    }

    /// <summary>What the stage hands the caller: a batch of plaintext, a failure, or (both null) the end.</summary>
    internal readonly record struct Item(Batch? Batch, ExceptionDispatchInfo? Error);

    internal sealed class Batch(int recordsLength, int plaintextLength, int records)
    {
        // The pool may hand out larger arrays: RecordsLength is the batch's size.
        public byte[] Records { get; } = PinnedBuffers.Rent(recordsLength);

        public int RecordsLength => recordsLength;

        public byte[] Plaintext { get; } = PinnedBuffers.Rent(plaintextLength);

        public int[] Lengths { get; } = new int[records];

        public int Received { get; set; }

        public bool Ended { get; set; }

        public bool Opened { get; set; }

        /// <summary>The data of a record marked as the last at the batch's end, until the source is known to end.</summary>
        public int HeldBack { get; set; }

        /// <summary>Verified plaintext, from the start of <see cref="Plaintext"/>.</summary>
        public int DataLength { get; set; }

        /// <summary>How much of the data the caller has taken.</summary>
        public int Taken { get; set; }

        /// <summary>Notes that the first <paramref name="length"/> bytes of <see cref="Plaintext"/> may
        /// now hold plaintext: <see cref="Release"/> wipes as far as the furthest such byte.</summary>
        public void Written(int length) => _written = Math.Max(_written, Math.Min(length, Plaintext.Length));

        /// <summary>Makes the batch ready for the next records. The plaintext it held stays until the
        /// next records overwrite it or <see cref="Release"/> wipes it, as a stream's record buffer
        /// holds its record: wiping each batch as it is reused would cost a pass over all the data.</summary>
        public void Reset()
        {
            Received = 0;
            Ended = false;
            Opened = false;
            HeldBack = 0;
            DataLength = 0;
            Taken = 0;
        }

        public void Wipe()
        {
            CryptographicOperations.ZeroMemory(Plaintext.AsSpan(0, _written));
            _written = 0;
            Reset();
        }

        /// <summary>Gives the buffers back, the plaintext wiped; once, when the pipeline is done with the batch.</summary>
        public void Release()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
            {
                PinnedBuffers.Return(Plaintext, _written);
                PinnedBuffers.Return(Records, holdsOnlyPublicData: true);
            }
        }

        private int _released;
        private int _written;
    }
}
