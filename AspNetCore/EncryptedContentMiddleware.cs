// The middleware: decrypts request bodies whose Content-Encoding is aes128gcm or aes256gcmsiv and encrypts responses, both
// as they stream. Why middleware and not ASP.NET Core's decompression and compression providers: the request decompression
// middleware passes a coding it has no provider for through unchanged (no 415) and lets a provider's exceptions surface
// as 500s; the response compression middleware encrypts only when the request's Accept-Encoding asks for the coding, only
// for its list of MIME types, and over HTTPS only when told to, and it ends the body by disposing the provider's stream,
// which for ContentEncryptingStream writes no last record (issue 47). Here the last record is written only after the
// rest of the pipeline returned normally: a failing endpoint leaves a body every decoder rejects as truncated.

using System;
using System.IO;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Cryptography.AspNetCore;

internal sealed partial class EncryptedContentMiddleware(
    RequestDelegate next, IOptions<EncryptedContentOptions> options, IContentKeyRing keyRing, ILogger<EncryptedContentMiddleware> logger)
{
    // RFC 9110 section 15.5.16: a 415 for an unsupported coding says in Accept-Encoding which codings would be accepted.
    internal static readonly string AcceptedCodings = $"{ContentEncryption.Aes256GcmSivName}, {ContentEncryption.Aes128GcmName}";

    private readonly EncryptedContentOptions _options = options.Value;
    private readonly ContentKeyProvider _keys = keyRing.TryCopyKey;

    public async Task InvokeAsync(HttpContext context)
    {
        HttpRequest request = context.Request;
        DecryptingRequestBody? requestBody = null;
        Stream originalRequestBody = request.Body;
        switch (ParseRequestCoding(context, out ContentCoding coding))
        {
            case RequestCoding.Encrypted:
                requestBody = new DecryptingRequestBody(new ContentDecryptingStream(originalRequestBody, _keys, WithCoding(_options.Requests, coding), leaveOpen: true));
                request.Body = requestBody;
                request.Headers.ContentLength = null;   // the decrypted length is known only once it has been read
                break;
            case RequestCoding.Unsupported:
                await RefuseAsync(context, request.Headers.ContentEncoding.ToString()).ConfigureAwait(false);
                return;
        }

        IHttpResponseBodyFeature originalResponseBody = context.Features.GetRequiredFeature<IHttpResponseBodyFeature>();
        EncryptingResponseBody? responseBody = null;
        if (_options.EncryptResponses?.Invoke(context) ?? true)
        {
            responseBody = new EncryptingResponseBody(context, originalResponseBody, _options.Responses, keyRing);
            context.Features.Set<IHttpResponseBodyFeature>(responseBody);
            request.Headers.Remove(HeaderNames.Range);   // a range of the plaintext cannot be served as an encrypted body
        }

        try
        {
            await next(context).ConfigureAwait(false);

            // The pipeline returned normally: only now is the response body complete.
            if (responseBody is not null)
            {
                await responseBody.FinishAsync().ConfigureAwait(false);
            }
        }
        catch (ContentEncodingException exception) when (requestBody is { Failed: true } && !context.Response.HasStarted)
        {
            LogBadRequestBody(logger, exception.GetType().Name, exception);
            context.Features.Set(originalResponseBody);
            if (responseBody is not null)
            {
                await responseBody.ReleaseAsync().ConfigureAwait(false);
                responseBody = null;
            }

            context.Response.Clear();
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            context.Response.ContentType = "text/plain; charset=utf-8";
            await context.Response.WriteAsync(Describe(exception), context.RequestAborted).ConfigureAwait(false);
        }
        finally
        {
            context.Features.Set(originalResponseBody);
            if (responseBody is not null)
            {
                // After FinishAsync this only releases; on the exception path it writes nothing more, so the body is truncated.
                await responseBody.ReleaseAsync().ConfigureAwait(false);
            }

            if (requestBody is not null)
            {
                request.Body = originalRequestBody;
                await requestBody.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private enum RequestCoding
    {
        None,
        Encrypted,
        Unsupported,
    }

    // The outermost coding (the last one listed, RFC 9110 section 8.4) must be one of the two to be decrypted; the codings
    // under it stay in the header for whatever reads the body next. Any other coding is refused: the endpoint would read
    // bytes it takes for plaintext.
    private RequestCoding ParseRequestCoding(HttpContext context, out ContentCoding coding)
    {
        coding = default;
        HttpRequest request = context.Request;
        string[] codings = request.Headers.ContentEncoding.ToString().Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        int count = codings.Length;
        while (count > 0 && string.Equals(codings[count - 1], "identity", StringComparison.OrdinalIgnoreCase))
        {
            count--;
        }

        if (count == 0)
        {
            bool hasBody = context.Features.Get<IHttpRequestBodyDetectionFeature>()?.CanHaveBody ?? request.ContentLength > 0;
            return _options.RequireEncryptedRequests && hasBody ? RequestCoding.Unsupported : RequestCoding.None;
        }

        if (!ContentEncryption.TryGetCoding(codings[count - 1], out coding))
        {
            return RequestCoding.Unsupported;
        }

        if (count == 1)
        {
            request.Headers.Remove(HeaderNames.ContentEncoding);
        }
        else
        {
            request.Headers.ContentEncoding = string.Join(", ", codings, 0, count - 1);
        }

        return RequestCoding.Encrypted;
    }

    private static async Task RefuseAsync(HttpContext context, string received)
    {
        HttpResponse response = context.Response;
        response.StatusCode = StatusCodes.Status415UnsupportedMediaType;
        response.Headers.AcceptEncoding = AcceptedCodings;
        response.ContentType = "text/plain; charset=utf-8";
        string message = received.Length == 0
            ? $"The request body must be encrypted: Content-Encoding {AcceptedCodings}."
            : $"Unsupported Content-Encoding; this endpoint accepts {AcceptedCodings}.";
        await response.WriteAsync(message, context.RequestAborted).ConfigureAwait(false);
    }

    // What went wrong, without the details a prober could use beyond what the status already says.
    private static string Describe(ContentEncodingException exception) => exception switch
    {
        ContentEncodingTruncatedException => "The encrypted request body is truncated.",
        ContentEncodingHeaderException => "The encrypted request body's header is invalid, or its key id is unknown.",
        _ => "The encrypted request body is corrupted or sealed under another key.",
    };

    internal static ContentEncodingOptions WithCoding(ContentEncodingOptions options, ContentCoding coding) => new()
    {
        Coding = coding,
        MaxRecordSize = options.MaxRecordSize,
        MaxDegreeOfParallelism = options.MaxDegreeOfParallelism,
    };

    [LoggerMessage(1, LogLevel.Information, "The encrypted request body was refused with 400 Bad Request: {Reason}.")]
    private static partial void LogBadRequestBody(ILogger logger, string reason, Exception exception);
}
