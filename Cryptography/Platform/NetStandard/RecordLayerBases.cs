// The record layer's base types, for netstandard2.0. .NET Standard 2.0's Stream has no span and
// Memory overloads and no DisposeAsync, its HttpContent no cancellable or synchronous serialisation,
// its DelegatingHandler no synchronous Send. These bases declare those members with .NET's
// signatures, so ContentEncoding/ overrides them unchanged, and map what the framework does call
// (Read/Write on arrays, SerializeToStreamAsync(Stream, TransportContext), SendAsync) onto them.
// On net10.0 the same names are aliases of Stream, HttpContent and DelegatingHandler
// (Platform/Net/RecordLayerBases.cs).

using System;
using System.Buffers;
using System.ComponentModel;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;

namespace Cryptography.ContentEncoding
{
    /// <summary>The base of the record layer's streams in the netstandard2.0 build: <see cref="Stream"/> with the span,
    /// <see cref="Memory{T}"/> and <see cref="IAsyncDisposable"/> members of newer .NET. Not for use of its own.</summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public abstract class RecordStreamBase : Stream, IAsyncDisposable
    {
        private protected RecordStreamBase()
        {
        }

        /// <summary>Reads into <paramref name="buffer"/>, as .NET's <c>Stream.Read(Span&lt;byte&gt;)</c>.</summary>
        /// <param name="buffer">Where the bytes go.</param>
        /// <returns>The number of bytes read; 0 at the end.</returns>
        /// <exception cref="NotSupportedException">The stream does not read.</exception>
        public virtual int Read(Span<byte> buffer) => throw new NotSupportedException();

        /// <summary>Writes <paramref name="buffer"/>, as .NET's <c>Stream.Write(ReadOnlySpan&lt;byte&gt;)</c>.</summary>
        /// <param name="buffer">The bytes to write.</param>
        /// <exception cref="NotSupportedException">The stream does not write.</exception>
        public virtual void Write(ReadOnlySpan<byte> buffer) => throw new NotSupportedException();

        /// <summary>Reads into <paramref name="buffer"/>, as .NET's <c>Stream.ReadAsync(Memory&lt;byte&gt;, CancellationToken)</c>.</summary>
        /// <param name="buffer">Where the bytes go.</param>
        /// <param name="cancellationToken">Cancels the read.</param>
        /// <returns>The number of bytes read; 0 at the end.</returns>
        /// <exception cref="NotSupportedException">The stream does not read.</exception>
        public virtual ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        /// <summary>Writes <paramref name="buffer"/>, as .NET's <c>Stream.WriteAsync(ReadOnlyMemory&lt;byte&gt;, CancellationToken)</c>.</summary>
        /// <param name="buffer">The bytes to write.</param>
        /// <param name="cancellationToken">Cancels the write.</param>
        /// <returns>The write.</returns>
        /// <exception cref="NotSupportedException">The stream does not write.</exception>
        public virtual ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        /// <summary>Copies the rest of the stream to <paramref name="destination"/>. .NET Standard 2.0's
        /// <c>Stream.CopyTo(Stream, int)</c> is not virtual: this one is reached through a reference of the stream's own type.</summary>
        /// <param name="destination">Where the bytes go.</param>
        /// <param name="bufferSize">The size of the copy buffer.</param>
        /// <exception cref="NotSupportedException">The stream does not read.</exception>
        public new virtual void CopyTo(Stream destination, int bufferSize) => base.CopyTo(destination, bufferSize);

        /// <summary>Copies the rest of the stream to <paramref name="destination"/> through the stream's own
        /// <see cref="CopyTo(Stream, int)"/>, as .NET's <c>Stream.CopyTo(Stream)</c> does. .NET Standard 2.0's
        /// <c>Stream.CopyTo(Stream)</c> would run the framework's copy, whose buffer is not wiped; this one is reached
        /// through a reference of the stream's own type.</summary>
        /// <param name="destination">Where the bytes go.</param>
        /// <exception cref="NotSupportedException">The stream does not read.</exception>
        public new void CopyTo(Stream destination) => CopyTo(destination, DefaultCopyBufferSize);

        // .NET's Stream.CopyTo(Stream) default (81,920 bytes: under the large object heap's threshold).
        private const int DefaultCopyBufferSize = 81920;

        private protected static void ValidateBufferArguments(byte[] buffer, int offset, int count)
        {
            ArgumentNullException.ThrowIfNull(buffer);
            ArgumentOutOfRangeException.ThrowIfNegative(offset);
            if ((uint)count > (uint)(buffer.Length - offset))
            {
                throw new ArgumentOutOfRangeException(nameof(count), count, "The count runs past the end of the buffer.");
            }
        }

        private protected static void ValidateCopyToArguments(Stream destination, int bufferSize)
        {
            ArgumentNullException.ThrowIfNull(destination);
            if (bufferSize <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(bufferSize), bufferSize, "The buffer size must be positive.");
            }

            if (!destination.CanWrite)
            {
                throw destination.CanRead ? new NotSupportedException("The destination does not write.") : new ObjectDisposedException(destination.GetType().Name);
            }
        }

        /// <summary>Disposes the stream asynchronously, as .NET's <c>Stream.DisposeAsync</c>.</summary>
        /// <returns>The disposal.</returns>
        public virtual ValueTask DisposeAsync()
        {
            Dispose();
            return default;
        }
    }

    /// <summary>The base of <see cref="EncryptedHttpContent"/> in the netstandard2.0 build: <see cref="HttpContent"/> with the
    /// cancellable and synchronous members of newer .NET. Not for use of its own.</summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public abstract class RecordHttpContentBase : HttpContent
    {
        private protected RecordHttpContentBase()
        {
        }

        /// <summary>Serialises the content, as .NET's cancellable <c>SerializeToStreamAsync</c>.</summary>
        /// <param name="stream">Where the content goes.</param>
        /// <param name="context">The transport context.</param>
        /// <param name="cancellationToken">Cancels the serialisation.</param>
        /// <returns>The serialisation.</returns>
        protected virtual Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
            SerializeToStreamAsync(stream, context);

        /// <summary>Serialises the content synchronously, as .NET 5's <c>SerializeToStream</c>. .NET Standard 2.0's
        /// <see cref="HttpContent"/> never calls it.</summary>
        /// <param name="stream">Where the content goes.</param>
        /// <param name="context">The transport context.</param>
        /// <param name="cancellationToken">Cancels the serialisation.</param>
        /// <exception cref="NotSupportedException">The content has no synchronous form.</exception>
        protected virtual void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
            throw new NotSupportedException();

        /// <summary>Opens the content for reading, as .NET 5's cancellable <c>CreateContentReadStreamAsync</c>.</summary>
        /// <param name="cancellationToken">Cancels the opening.</param>
        /// <returns>The stream.</returns>
        protected virtual Task<Stream> CreateContentReadStreamAsync(CancellationToken cancellationToken) => CreateContentReadStreamAsync();

        /// <summary>Opens the content for reading synchronously, as .NET 5's <c>CreateContentReadStream</c>. .NET Standard 2.0's
        /// <see cref="HttpContent"/> never calls it.</summary>
        /// <param name="cancellationToken">Cancels the opening.</param>
        /// <returns>The stream.</returns>
        /// <exception cref="NotSupportedException">The content has no synchronous form.</exception>
        protected virtual Stream CreateContentReadStream(CancellationToken cancellationToken) => throw new NotSupportedException();
    }

    /// <summary>The base of <see cref="ContentDecryptingHandler"/> in the netstandard2.0 build: <see cref="DelegatingHandler"/> with
    /// the synchronous <c>Send</c> of newer .NET, which .NET Standard 2.0's <see cref="HttpClient"/> never calls. Not for use of its own.</summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public abstract class RecordHandlerBase : DelegatingHandler
    {
        private protected RecordHandlerBase()
        {
        }

        private protected RecordHandlerBase(HttpMessageHandler innerHandler)
            : base(innerHandler)
        {
        }

        /// <summary>Sends synchronously, as .NET 5's <c>HttpMessageHandler.Send</c>: not on .NET Standard 2.0.</summary>
        /// <param name="request">The request.</param>
        /// <param name="cancellationToken">Cancels the send.</param>
        /// <returns>Never.</returns>
        /// <exception cref="NotSupportedException">Always: .NET Standard 2.0 sends asynchronously only.</exception>
        protected virtual HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken) =>
            throw new NotSupportedException("Send: .NET Standard 2.0 has no synchronous HTTP; use SendAsync.");
    }
}

namespace Cryptography
{
    /// <summary>The members of newer .NET's Stream, HttpContent, Task and ThreadPool that the record layer calls on
    /// objects it does not own, for netstandard2.0.</summary>
    internal static class RecordLayerExtensions
    {
        extension(Stream stream)
        {
            public int Read(Span<byte> buffer)
            {
                if (stream is ContentEncoding.RecordStreamBase own)
                {
                    return own.Read(buffer);
                }

                byte[] rented = ArrayPool<byte>.Shared.Rent(buffer.Length);
                try
                {
                    int read = stream.Read(rented, 0, buffer.Length);
                    rented.AsSpan(0, read).CopyTo(buffer);
                    return read;
                }
                finally
                {
                    CryptographicOperations.ZeroMemory(rented);
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }

            public void Write(ReadOnlySpan<byte> buffer)
            {
                if (stream is ContentEncoding.RecordStreamBase own)
                {
                    own.Write(buffer);
                    return;
                }

                byte[] rented = ArrayPool<byte>.Shared.Rent(buffer.Length);
                try
                {
                    buffer.CopyTo(rented);
                    stream.Write(rented, 0, buffer.Length);
                }
                finally
                {
                    CryptographicOperations.ZeroMemory(rented);
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }

            public ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
            {
                if (stream is ContentEncoding.RecordStreamBase own)
                {
                    return own.ReadAsync(buffer, cancellationToken);
                }

                return MemoryMarshal.TryGetArray(buffer, out ArraySegment<byte> array)
                    ? new ValueTask<int>(stream.ReadAsync(array.Array!, array.Offset, array.Count, cancellationToken))
                    : ReadRented(stream, buffer, cancellationToken);
            }

            public ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
            {
                if (stream is ContentEncoding.RecordStreamBase own)
                {
                    return own.WriteAsync(buffer, cancellationToken);
                }

                return MemoryMarshal.TryGetArray(buffer, out ArraySegment<byte> array)
                    ? new ValueTask(stream.WriteAsync(array.Array!, array.Offset, array.Count, cancellationToken))
                    : WriteRented(stream, buffer, cancellationToken);
            }

            public System.Runtime.CompilerServices.ConfiguredAsyncDisposable ConfigureAwait(bool continueOnCapturedContext) =>
                (stream as IAsyncDisposable ?? new AsyncDisposer(stream)).ConfigureAwait(continueOnCapturedContext);

            public Task CopyToAsync(Stream destination, CancellationToken cancellationToken) =>
                stream.CopyToAsync(destination, 81920, cancellationToken);

            public ValueTask DisposeAsync()
            {
                if (stream is IAsyncDisposable asyncDisposable)
                {
                    return asyncDisposable.DisposeAsync();
                }

                stream.Dispose();
                return default;
            }
        }

        private static async ValueTask<int> ReadRented(Stream stream, Memory<byte> buffer, CancellationToken cancellationToken)
        {
            byte[] rented = ArrayPool<byte>.Shared.Rent(buffer.Length);
            try
            {
                int read = await stream.ReadAsync(rented, 0, buffer.Length, cancellationToken).ConfigureAwait(false);
                rented.AsMemory(0, read).CopyTo(buffer);
                return read;
            }
            finally
            {
                CryptographicOperations.ZeroMemory(rented);
                ArrayPool<byte>.Shared.Return(rented);
            }
        }

        private static async ValueTask WriteRented(Stream stream, ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken)
        {
            byte[] rented = ArrayPool<byte>.Shared.Rent(buffer.Length);
            try
            {
                buffer.CopyTo(rented);
                await stream.WriteAsync(rented, 0, buffer.Length, cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(rented);
                ArrayPool<byte>.Shared.Return(rented);
            }
        }

        extension(HttpContent content)
        {
            /// <summary>.NET 5's synchronous read: on .NET Standard 2.0, the asynchronous one, waited for.</summary>
            public Stream ReadAsStream(CancellationToken cancellationToken) =>
                content.ReadAsStreamAsync(cancellationToken).GetAwaiter().GetResult();

            /// <summary>.NET 5's synchronous copy: on .NET Standard 2.0, the asynchronous one, waited for.</summary>
            public void CopyTo(Stream stream, TransportContext? context, CancellationToken cancellationToken)
            {
                cancellationToken.ThrowIfCancellationRequested();
                content.CopyToAsync(stream, context).GetAwaiter().GetResult();
            }

            public Task<Stream> ReadAsStreamAsync(CancellationToken cancellationToken)
            {
                cancellationToken.ThrowIfCancellationRequested();
                return content.ReadAsStreamAsync();
            }

            public Task CopyToAsync(Stream stream, CancellationToken cancellationToken)
            {
                cancellationToken.ThrowIfCancellationRequested();
                return content.CopyToAsync(stream);
            }
        }

        extension(Task task)
        {
            public Task WaitAsync(CancellationToken cancellationToken) => WaitAsync(task, Timeout.InfiniteTimeSpan, cancellationToken);

            public Task WaitAsync(TimeSpan timeout) => WaitAsync(task, timeout, CancellationToken.None);

            /// <summary>.NET 8's SuppressThrowing: awaiting the result never throws.</summary>
            public System.Runtime.CompilerServices.ConfiguredTaskAwaitable ConfigureAwait(ConfigureAwaitOptions options) =>
                task.ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default).ConfigureAwait(false);
        }

        private static async Task WaitAsync(Task task, TimeSpan timeout, CancellationToken cancellationToken)
        {
            if (!task.IsCompleted)
            {
                using CancellationTokenSource stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                Task delay = Task.Delay(timeout, stop.Token);
                if (await Task.WhenAny(task, delay).ConfigureAwait(false) != task)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    throw new TimeoutException();
                }

                stop.Cancel();
            }

            await task.ConfigureAwait(false);
        }

        extension(ExceptionDispatchInfo)
        {
            [System.Diagnostics.CodeAnalysis.DoesNotReturn]
            public static void Throw(Exception source)
            {
                ExceptionDispatchInfo.Capture(source).Throw();
                throw source;
            }
        }

        extension(Span<byte> span)
        {
            /// <summary>The index of the last byte other than <paramref name="value"/>, or -1.</summary>
            public int LastIndexOfAnyExcept(byte value)
            {
                for (int i = span.Length - 1; i >= 0; i--)
                {
                    if (span[i] != value)
                    {
                        return i;
                    }
                }

                return -1;
            }
        }

        extension(string)
        {
            public static string Format(IFormatProvider? provider, string format, ReadOnlySpan<object?> args) =>
                string.Format(provider, format, args.ToArray());
        }

        extension(ThreadPool)
        {
            public static bool UnsafeQueueUserWorkItem(IThreadPoolWorkItem callBack, bool preferLocal) =>
                ThreadPool.UnsafeQueueUserWorkItem(static state => ((IThreadPoolWorkItem)state!).Execute(), callBack);
        }
    }

    /// <summary>A stream as an IAsyncDisposable: its Dispose.</summary>
    internal sealed class AsyncDisposer(Stream stream) : IAsyncDisposable
    {
        public ValueTask DisposeAsync()
        {
            stream.Dispose();
            return default;
        }
    }

    /// <summary>.NET 7's HttpRequestError; the record layer uses only <see cref="InvalidResponse"/>.</summary>
    internal enum HttpRequestError
    {
        Unknown = 0,
        InvalidResponse = 8,
    }

    /// <summary>.NET 8's HttpRequestException constructor with an error and a status code. The type derives from
    /// .NET Standard 2.0's, so <c>catch (HttpRequestException)</c> catches it; the status is in <see cref="StatusCode"/> here.</summary>
    internal sealed class HttpRequestException : System.Net.Http.HttpRequestException
    {
        public HttpRequestException(HttpRequestError httpRequestError, string? message, Exception? inner = null, HttpStatusCode? statusCode = null)
            : base(message, inner)
        {
            HttpRequestError = httpRequestError;
            StatusCode = statusCode;
        }

        public HttpRequestError HttpRequestError { get; }

        public HttpStatusCode? StatusCode { get; }
    }

    /// <summary>.NET 8's options for awaiting a task; the record layer uses only <see cref="SuppressThrowing"/>.</summary>
    internal enum ConfigureAwaitOptions
    {
        None = 0,
        SuppressThrowing = 4,
    }

    /// <summary>.NET Core 3.0's work item for the thread pool.</summary>
    internal interface IThreadPoolWorkItem
    {
        void Execute();
    }
}
