// Tests/ContentEncoding/Support/FrameworkBases.cs for .NET Framework: the tests' own streams, contents and
// handlers override members .NET Framework's Stream, MemoryStream, HttpContent and HttpMessageHandler do
// not have. These bases declare them with newer .NET's signatures, so the same sources compile here.
//
// What calls them on this build: a source or destination stream derived from SourceStreamBase (the
// library's RecordStreamBase) is called through its span and Memory members by the library, as on net10.0
// (Platform/NetStandard/RecordLayerBases.cs). Any other stream, MemoryStreamBase's included, is called
// through its byte[] members: the library's span calls on a plain Stream copy through a rented array, and
// its Memory calls pass the array behind the Memory. So a test stream that overrides both keeps working;
// only its span overload goes uncalled by the library. The synchronous SerializeToStream and Send are
// never called here: .NET Framework's HttpContent and HttpClient have no synchronous paths (the library's
// synchronous CopyTo on a content waits for the asynchronous one).

global using SourceStreamBase = Cryptography.ContentEncoding.RecordStreamBase;

using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Tests;

/// <summary>MemoryStream with .NET Core 2.1's span and Memory write members, each as MemoryStream's own does it.</summary>
public abstract class MemoryStreamBase : MemoryStream
{
    protected MemoryStreamBase()
    {
    }

    protected MemoryStreamBase(byte[] buffer, bool writable)
        : base(buffer, writable)
    {
    }

    public virtual void Write(ReadOnlySpan<byte> buffer) => Write(buffer.ToArray(), 0, buffer.Length);

    public virtual ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) =>
        MemoryMarshal.TryGetArray(buffer, out ArraySegment<byte> segment)
            ? new ValueTask(WriteAsync(segment.Array!, segment.Offset, segment.Count, cancellationToken))
            : new ValueTask(WriteAsync(buffer.ToArray(), 0, buffer.Length, cancellationToken));
}

/// <summary>HttpContent with .NET 5's synchronous serialisation, which .NET Framework's HttpContent never calls.</summary>
public abstract class HttpContentBase : HttpContent
{
    protected virtual void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
        throw new NotSupportedException("no synchronous serialisation on .NET Framework");
}

/// <summary>HttpMessageHandler with .NET 5's synchronous Send, which .NET Framework's HttpClient never calls.</summary>
public abstract class HttpMessageHandlerBase : HttpMessageHandler
{
    protected virtual HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken) =>
        throw new NotSupportedException("no synchronous Send on .NET Framework");
}
