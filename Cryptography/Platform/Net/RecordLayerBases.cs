// The record layer's base types, for net10.0: the framework's Stream, HttpContent and DelegatingHandler,
// with nothing added. The netstandard2.0 build's types of these names (Platform/NetStandard/RecordLayerBases.cs)
// add the members .NET Standard 2.0 lacks. They are real types on both builds, not an alias here: a
// netstandard2.0 library compiled against that build calls, say, RecordStreamBase::Write(ReadOnlySpan<byte>),
// and on a .NET 10 app, which loads this build, that call must find the same type (package validation checks it).

using System.ComponentModel;
using System.Net.Http;

namespace Cryptography.ContentEncoding;

/// <summary>The base of the record layer's streams: <see cref="System.IO.Stream"/>. It exists so that the netstandard2.0
/// build, whose Stream lacks the span and <see cref="System.Memory{T}"/> members, has the same types. Not for use of its own.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public abstract class RecordStreamBase : System.IO.Stream
{
    private protected RecordStreamBase()
    {
    }
}

/// <summary>The base of <see cref="EncryptedHttpContent"/>: <see cref="HttpContent"/>, for the same reason as
/// <see cref="RecordStreamBase"/>. Not for use of its own.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public abstract class RecordHttpContentBase : HttpContent
{
    private protected RecordHttpContentBase()
    {
    }
}

/// <summary>The base of <see cref="ContentDecryptingHandler"/>: <see cref="DelegatingHandler"/>, for the same reason as
/// <see cref="RecordStreamBase"/>. Not for use of its own.</summary>
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
}
