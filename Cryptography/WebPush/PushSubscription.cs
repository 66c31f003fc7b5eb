// The subscription a browser hands the application server: PushSubscription.toJSON() of the Push API
// (W3C Push API, section 4.2: PushSubscriptionJSON), e.g.
//   {"endpoint":"https://push.example.net/...","expirationTime":null,"keys":{"p256dh":"BCVx...","auth":"BTBZ..."}}
// read and written with System.Text.Json, by a converter of our own (no reflection, so trimming and
// Native AOT keep working), and handed to WebPushContent / VapidAuthorization as it is.

using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>
/// A browser's push subscription, as <c>PushSubscription.toJSON()</c> gives it: the push service's
/// <see cref="Endpoint"/>, the encryption <see cref="Keys"/> (<c>keys.p256dh</c>, <c>keys.auth</c>) and an
/// optional <see cref="ExpirationTime"/>. System.Text.Json reads and writes it in that form
/// (<c>JsonSerializer.Deserialize&lt;PushSubscription&gt;(json)</c>, an ASP.NET Core <c>[FromBody]</c> or minimal
/// API parameter, or <see cref="Parse(string)"/>), checking the keys as <see cref="WebPushSubscriptionKeys"/> does.
/// </summary>
[JsonConverter(typeof(PushSubscriptionJsonConverter))]
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // WebPushSubscriptionKeys validates the key with ECDH
public sealed class PushSubscription
{
    /// <summary>Creates a subscription.</summary>
    /// <param name="endpoint">The push resource: an absolute https (or http) URI.</param>
    /// <param name="keys">The subscription's encryption keys.</param>
    /// <param name="expirationTime">When the push service ends the subscription, if it says; usually <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="endpoint"/> or <paramref name="keys"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="endpoint"/> is not an absolute http(s) URI.</exception>
    public PushSubscription(Uri endpoint, WebPushSubscriptionKeys keys, DateTimeOffset? expirationTime = null)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        ArgumentNullException.ThrowIfNull(keys);
        if (!IsHttpUri(endpoint))
        {
            throw new ArgumentException(WebPushMessages.SubscriptionEndpoint, nameof(endpoint));
        }

        Endpoint = endpoint;
        Keys = keys;
        ExpirationTime = expirationTime;
    }

    /// <summary>Gets the push resource the message is POSTed to (<c>endpoint</c>); its origin is the VAPID audience.</summary>
    public Uri Endpoint { get; }

    /// <summary>Gets the encryption keys (<c>keys.p256dh</c> and <c>keys.auth</c>).</summary>
    public WebPushSubscriptionKeys Keys { get; }

    /// <summary>Gets when the subscription expires (<c>expirationTime</c>, milliseconds since 1970 in JSON), or
    /// <see langword="null"/> when the push service set none, as most do.</summary>
    public DateTimeOffset? ExpirationTime { get; }

    /// <summary>Reads the JSON of <c>PushSubscription.toJSON()</c>. Members it does not know are ignored.</summary>
    /// <param name="json">The JSON text.</param>
    /// <returns>The subscription.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="json"/> is <see langword="null"/>.</exception>
    /// <exception cref="JsonException">The text is not JSON, is not one object, lacks <c>endpoint</c> or <c>keys</c>, or holds a
    /// value that is not valid: the endpoint not an absolute http(s) URI, a key not base64url, <c>p256dh</c> not a point
    /// on P-256, <c>auth</c> not 16 bytes (the message says which; the inner exception is the <see cref="ArgumentException"/>).</exception>
    public static PushSubscription Parse(string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        return Parse(Encoding.UTF8.GetBytes(json));
    }

    /// <summary>Reads the UTF-8 JSON of <c>PushSubscription.toJSON()</c>, as <see cref="Parse(string)"/> does.</summary>
    /// <param name="utf8Json">The JSON, UTF-8 encoded.</param>
    /// <returns>The subscription.</returns>
    /// <exception cref="JsonException">As for <see cref="Parse(string)"/>.</exception>
    public static PushSubscription Parse(ReadOnlySpan<byte> utf8Json)
    {
        var reader = new Utf8JsonReader(utf8Json);
        reader.Read();
        PushSubscription subscription = PushSubscriptionJsonConverter.ReadSubscription(ref reader);
        reader.Read(); // throws JsonException at anything but whitespace after the object: the reader takes one JSON value
        return subscription;
    }

    /// <summary>Writes the subscription as <c>PushSubscription.toJSON()</c> does:
    /// <c>{"endpoint":...,"expirationTime":...,"keys":{"p256dh":...,"auth":...}}</c>, the keys as unpadded base64url.</summary>
    /// <returns>The JSON text.</returns>
    public string ToJson()
    {
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            PushSubscriptionJsonConverter.WriteSubscription(writer, this);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    internal static bool IsHttpUri(Uri endpoint) =>
        endpoint.IsAbsoluteUri && (endpoint.Scheme == Uri.UriSchemeHttps || endpoint.Scheme == Uri.UriSchemeHttp);
}

/// <summary>
/// Reads and writes <see cref="PushSubscription"/> as the JSON of <c>PushSubscription.toJSON()</c>. It is the
/// type's own converter (<see cref="JsonConverterAttribute"/>), so nothing needs registering; it is public so
/// that System.Text.Json's source generator can name it.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")]
public sealed class PushSubscriptionJsonConverter : JsonConverter<PushSubscription>
{
    /// <summary>Reads a subscription.</summary>
    /// <param name="reader">The reader, at the object's start (or at <c>null</c>).</param>
    /// <param name="typeToConvert">The type: <see cref="PushSubscription"/>.</param>
    /// <param name="options">Not used: the member names are the Push API's, whatever the naming policy.</param>
    /// <returns>The subscription.</returns>
    /// <exception cref="JsonException">The JSON is not a valid subscription (see <see cref="PushSubscription.Parse(string)"/>).</exception>
    public override PushSubscription Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        ReadSubscription(ref reader);

    /// <summary>Writes a subscription as <see cref="PushSubscription.ToJson"/> does.</summary>
    /// <param name="writer">The writer.</param>
    /// <param name="value">The subscription.</param>
    /// <param name="options">Not used.</param>
    /// <exception cref="ArgumentNullException"><paramref name="writer"/> or <paramref name="value"/> is <see langword="null"/>.</exception>
    public override void Write(Utf8JsonWriter writer, PushSubscription value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(value);
        WriteSubscription(writer, value);
    }

    internal static void WriteSubscription(Utf8JsonWriter writer, PushSubscription value)
    {
        writer.WriteStartObject();
        writer.WriteString("endpoint", value.Endpoint.OriginalString);
        if (value.ExpirationTime is { } expires)
        {
            writer.WriteNumber("expirationTime", expires.ToUnixTimeMilliseconds());
        }
        else
        {
            writer.WriteNull("expirationTime");
        }

        writer.WriteStartObject("keys");
        writer.WriteString("p256dh", value.Keys.GetP256dhBase64Url());
        writer.WriteString("auth", value.Keys.GetAuthBase64Url());
        writer.WriteEndObject();
        writer.WriteEndObject();
    }

    internal static PushSubscription ReadSubscription(ref Utf8JsonReader reader)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException(WebPushMessages.SubscriptionNotAnObject);
        }

        string? endpoint = null;
        DateTimeOffset? expirationTime = null;
        string? p256dh = null;
        string? auth = null;
        bool sawEndpoint = false, sawExpiration = false, sawKeys = false;
        while (reader.Read() && reader.TokenType != JsonTokenType.EndObject)
        {
            string name = reader.GetString()!;
            reader.Read();
            switch (name)
            {
                case "endpoint":
                    Once(ref sawEndpoint, name);
                    endpoint = ReadString(ref reader, name);
                    break;
                case "expirationTime":
                    Once(ref sawExpiration, name);
                    expirationTime = ReadExpirationTime(ref reader);
                    break;
                case "keys":
                    Once(ref sawKeys, name);
                    (p256dh, auth) = ReadKeys(ref reader);
                    break;
                default:
                    reader.Skip();
                    break;
            }
        }

        if (endpoint is null || !sawKeys)
        {
            throw new JsonException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.SubscriptionMissing, endpoint is null ? "endpoint" : "keys"));
        }

        if (!Uri.TryCreate(endpoint, UriKind.Absolute, out Uri? uri) || !PushSubscription.IsHttpUri(uri))
        {
            throw new JsonException(WebPushMessages.SubscriptionEndpoint);
        }

        WebPushSubscriptionKeys keys;
        try
        {
            keys = WebPushSubscriptionKeys.FromBase64Url(p256dh!, auth!);
        }
        catch (ArgumentException exception)
        {
            throw new JsonException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.SubscriptionKeys, exception.Message), exception);
        }

        return new PushSubscription(uri, keys, expirationTime);
    }

    private static (string P256dh, string Auth) ReadKeys(ref Utf8JsonReader reader)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException(WebPushMessages.SubscriptionKeysNotAnObject);
        }

        string? p256dh = null;
        string? auth = null;
        bool sawP256dh = false, sawAuth = false;
        while (reader.Read() && reader.TokenType != JsonTokenType.EndObject)
        {
            string name = reader.GetString()!;
            reader.Read();
            switch (name)
            {
                case "p256dh":
                    Once(ref sawP256dh, name);
                    p256dh = ReadString(ref reader, "keys.p256dh");
                    break;
                case "auth":
                    Once(ref sawAuth, name);
                    auth = ReadString(ref reader, "keys.auth");
                    break;
                default:
                    reader.Skip();
                    break;
            }
        }

        if (p256dh is null || auth is null)
        {
            throw new JsonException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.SubscriptionMissing, p256dh is null ? "keys.p256dh" : "keys.auth"));
        }

        return (p256dh, auth);
    }

    private static DateTimeOffset? ReadExpirationTime(ref Utf8JsonReader reader)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return null;
        }

        // A DOMHighResTimeStamp: milliseconds since 1970, possibly with a fraction.
        if (reader.TokenType != JsonTokenType.Number || !reader.TryGetDouble(out double milliseconds)
            || !(milliseconds >= DateTimeOffset.MinValue.ToUnixTimeMilliseconds() && milliseconds <= DateTimeOffset.MaxValue.ToUnixTimeMilliseconds()))
        {
            throw new JsonException(WebPushMessages.SubscriptionExpirationTime);
        }

        return DateTimeOffset.FromUnixTimeMilliseconds((long)Math.Floor(milliseconds));
    }

    private static string ReadString(ref Utf8JsonReader reader, string name) =>
        reader.TokenType == JsonTokenType.String
            ? reader.GetString()!
            : throw new JsonException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.SubscriptionNotAString, name));

    private static void Once(ref bool seen, string name)
    {
        if (seen)
        {
            throw new JsonException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.SubscriptionDuplicate, name));
        }

        seen = true;
    }
}
