// The middleware's options, set with services.AddEncryptedContent(options => ...) (the options pattern). The record
// layer's own settings stay in ContentEncodingOptions, one for each direction, as everywhere else in the library.

using System;
using Cryptography.ContentEncoding;
using Microsoft.AspNetCore.Http;

namespace Cryptography.AspNetCore;

/// <summary>How the encrypted-content middleware (<c>app.UseEncryptedContent()</c>) treats request bodies and responses.</summary>
public sealed class EncryptedContentOptions
{
    /// <summary>Gets or sets the options request bodies are decoded with: the largest record size a request may declare
    /// (<see cref="ContentEncodingOptions.MaxRecordSize"/>) and the parallelism. The coding comes from each request's
    /// <c>Content-Encoding</c> and the key from its body's key id. By default the record-size limit is
    /// <see cref="ContentEncryption.DefaultRecordSize"/> (64 KiB, what this library's clients write), not the decoders'
    /// 16 MiB: a server holds one record per request in memory, for requests from anyone.</summary>
    /// <exception cref="ArgumentNullException">The value is <see langword="null"/>.</exception>
    public ContentEncodingOptions Requests
    {
        get;
        set => field = value ?? throw new ArgumentNullException(nameof(value));
    } = new() { MaxRecordSize = ContentEncryption.DefaultRecordSize };

    /// <summary>Gets or sets the options responses are encrypted with: the coding (<see cref="ContentCoding.Aes256GcmSiv"/> by
    /// default), the record size and the key id, which names the key in the <see cref="IContentKeyRing"/>.</summary>
    /// <exception cref="ArgumentNullException">The value is <see langword="null"/>.</exception>
    public ContentEncodingOptions Responses
    {
        get;
        set => field = value ?? throw new ArgumentNullException(nameof(value));
    } = ContentEncodingOptions.Default;

    /// <summary>Gets or sets whether a request that has a body must have it encrypted: <see langword="false"/> by default.
    /// When set, such a request without an encrypted <c>Content-Encoding</c> is answered 415 Unsupported Media Type.</summary>
    public bool RequireEncryptedRequests { get; set; }

    /// <summary>Gets or sets which requests get encrypted responses; <see langword="null"/> (the default) for every request.
    /// Whatever it says, responses that have no content (1xx, 204, 304 and responses to HEAD) are not encrypted, and a response
    /// the endpoint encrypted itself (its outermost <c>Content-Encoding</c> is already <c>aes128gcm</c> or
    /// <c>aes256gcmsiv</c>) is left as it is.</summary>
    /// <remarks>It runs before the endpoint, with the request: for example
    /// <c>context => context.Request.Path.StartsWithSegments("/api")</c>.</remarks>
    public Func<HttpContext, bool>? EncryptResponses { get; set; }
}
