// HttpClient integration for Web Push: the body of a push message request (RFC 8030 section 5)
// encrypted for a subscription (RFC 8291), with the headers a push service needs: Content-Encoding
// aes128gcm (RFC 8291 section 4: exactly that one value), TTL (RFC 8030 section 5.2: required), and
// optionally Urgency (5.3) and Topic (5.4). The body is at most 4096 bytes, so it is encrypted once,
// when the content is made: a retry resends the same message.

using System;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>How urgently a push service should deliver a message (RFC 8030 section 5.3), sent as the <c>Urgency</c> header.</summary>
public enum WebPushUrgency
{
    /// <summary><c>normal</c>: the default when no Urgency header is sent.</summary>
    Normal = 0,

    /// <summary><c>very-low</c>: deliver when the device is on power and Wi-Fi, say.</summary>
    VeryLow = 1,

    /// <summary><c>low</c>: deliver when on power or Wi-Fi.</summary>
    Low = 2,

    /// <summary><c>high</c>: deliver at once, even on low battery (an incoming call, say).</summary>
    High = 3,
}

/// <summary>
/// The content of a Web Push request: a message encrypted for one subscription (RFC 8291), with the
/// <c>Content-Encoding: aes128gcm</c>, <c>Content-Type: application/octet-stream</c> and <c>TTL</c>
/// headers a push service requires. POST it to the subscription's endpoint.
/// </summary>
/// <remarks>
/// <para>The message is encrypted once, in the constructor, with a fresh ephemeral key and salt; sending
/// the same instance again (a retry) sends the same body. <c>TTL</c>, <c>Urgency</c> and <c>Topic</c>
/// are request headers in RFC 8030; this content carries them so that a plain
/// <c>httpClient.PostAsync(endpoint, content)</c> sends them. Add VAPID's <c>Authorization</c> header
/// (RFC 8292) to the request yourself when the push service wants it.</para>
/// <para>Disposing wipes the encrypted body.</para>
/// </remarks>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // aes128gcm (AesGcm) and ECDH throw PlatformNotSupportedException in the browser
public sealed class WebPushContent : HttpContent
{
    /// <summary>The longest time to live this type sends: 28 days, in seconds (push services cap it lower, often at 4 weeks).</summary>
    public const int MaxTimeToLiveSeconds = 28 * 24 * 60 * 60;

    private readonly byte[] _body;
    private WebPushUrgency _urgency;
    private string? _topic;

    /// <summary>Encrypts a message for a subscription.</summary>
    /// <param name="plaintext">The message: at most <see cref="WebPushEncryption.MaxPlaintextLength"/> bytes less the padding.</param>
    /// <param name="subscription">The subscription's keys.</param>
    /// <param name="timeToLive">How long the push service may keep the message for a device that is offline,
    /// whole seconds from 0 to <see cref="MaxTimeToLiveSeconds"/>; sent as <c>TTL</c>. Zero means deliver now or never.</param>
    /// <param name="paddingLength">Zero bytes to add after the message so its length does not show.</param>
    /// <exception cref="ArgumentNullException"><paramref name="subscription"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeToLive"/> or <paramref name="paddingLength"/> is out of range.</exception>
    /// <exception cref="ArgumentException">The message and padding exceed <see cref="WebPushEncryption.MaxPlaintextLength"/>.</exception>
    public WebPushContent(ReadOnlySpan<byte> plaintext, WebPushSubscriptionKeys subscription, TimeSpan timeToLive, int paddingLength = 0)
    {
        ArgumentNullException.ThrowIfNull(subscription);
        if (timeToLive < TimeSpan.Zero || timeToLive > TimeSpan.FromSeconds(MaxTimeToLiveSeconds))
        {
            throw new ArgumentOutOfRangeException(nameof(timeToLive), timeToLive, string.Format(CultureInfo.InvariantCulture, WebPushMessages.TimeToLiveOutOfRange, MaxTimeToLiveSeconds));
        }

        _body = WebPushEncryption.Encrypt(plaintext, subscription, paddingLength);
        TimeToLive = TimeSpan.FromSeconds(Math.Floor(timeToLive.TotalSeconds));
        Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        Headers.ContentEncoding.Add(ContentEncryption.Aes128GcmName);
        Headers.ContentLength = _body.Length;
        Headers.TryAddWithoutValidation("TTL", ((long)TimeToLive.TotalSeconds).ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>Gets the time to live sent as <c>TTL</c>, in whole seconds.</summary>
    public TimeSpan TimeToLive { get; }

    /// <summary>Gets or sets the <c>Urgency</c> header; <see cref="WebPushUrgency.Normal"/> (the default) sends none.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a <see cref="WebPushUrgency"/>.</exception>
    public WebPushUrgency Urgency
    {
        get => _urgency;
        set
        {
            string? name = value switch
            {
                WebPushUrgency.Normal => null,
                WebPushUrgency.VeryLow => "very-low",
                WebPushUrgency.Low => "low",
                WebPushUrgency.High => "high",
                _ => throw new ArgumentOutOfRangeException(nameof(value), value, WebPushMessages.UnknownUrgency),
            };
            Headers.Remove("Urgency");
            if (name is not null)
            {
                Headers.TryAddWithoutValidation("Urgency", name);
            }

            _urgency = value;
        }
    }

    /// <summary>Gets or sets the <c>Topic</c> header: a message with the same topic replaces an undelivered
    /// earlier one. <see langword="null"/> (the default) sends none.</summary>
    /// <exception cref="ArgumentException">The topic is empty, longer than 32 characters, or has characters outside the base64url alphabet.</exception>
    public string? Topic
    {
        get => _topic;
        set
        {
            if (value is not null && (value.Length is 0 or > 32 || !IsBase64UrlAlphabet(value)))
            {
                throw new ArgumentException(WebPushMessages.TopicInvalid, nameof(value));
            }

            Headers.Remove("Topic");
            if (value is not null)
            {
                Headers.TryAddWithoutValidation("Topic", value);
            }

            _topic = value;
        }
    }

    /// <summary>Gets the encrypted body: <see cref="WebPushEncryption.GetEncryptedLength"/> bytes.</summary>
    public ReadOnlyMemory<byte> Body => _body;

    /// <summary>Writes the encrypted body.</summary>
    /// <param name="stream">The transport stream.</param>
    /// <param name="context">The transport context.</param>
    /// <returns>A task that completes when the body has been written.</returns>
    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
        SerializeToStreamAsync(stream, context, CancellationToken.None);

    /// <summary>Writes the encrypted body.</summary>
    /// <param name="stream">The transport stream.</param>
    /// <param name="context">The transport context.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <returns>A task that completes when the body has been written.</returns>
    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
        stream.WriteAsync(_body, cancellationToken).AsTask();

    /// <summary>Writes the encrypted body, synchronously.</summary>
    /// <param name="stream">The transport stream.</param>
    /// <param name="context">The transport context.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
        stream.Write(_body);

    /// <summary>Gets the body's length, which is always known.</summary>
    /// <param name="length">The body's length.</param>
    /// <returns><see langword="true"/>.</returns>
    protected override bool TryComputeLength(out long length)
    {
        length = _body.Length;
        return true;
    }

    /// <summary>Wipes the encrypted body.</summary>
    /// <param name="disposing">Whether this is a call to Dispose rather than a finalizer.</param>
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            CryptographicOperations.ZeroMemory(_body);
        }

        base.Dispose(disposing);
    }

    private static bool IsBase64UrlAlphabet(string value)
    {
        foreach (char c in value)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c is '-' or '_'))
            {
                return false;
            }
        }

        return true;
    }
}
