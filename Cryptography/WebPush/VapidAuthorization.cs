// Voluntary Application Server Identification for Web Push (RFC 8292): the Authorization header
//   vapid t=<JWT>, k=<application server public key, base64url of the 65-byte uncompressed point>
// where the JWT (RFC 7519) is signed with ES256 (ECDSA P-256 with SHA-256, the signature as r || s,
// RFC 7515 appendix A.3) and carries "aud" (the push resource's origin), "exp" (at most 24 hours
// ahead, section 2) and "sub" (a mailto: or https: contact, section 2.1).

using System;
using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>
/// Builds the <c>Authorization: vapid t=..., k=...</c> header of RFC 8292, which identifies the
/// application server to a push service with a JWT signed by its P-256 key (the key whose public half
/// the page passed to <c>pushManager.subscribe({ applicationServerKey })</c>).
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // ECDsa throws PlatformNotSupportedException in the browser
public static class VapidAuthorization
{
    /// <summary>The longest validity RFC 8292 section 2 allows: 24 hours.</summary>
    public static readonly TimeSpan MaxValidity = TimeSpan.FromHours(24);

    /// <summary>The validity used when none is given: 12 hours, as common Web Push libraries use.</summary>
    public static readonly TimeSpan DefaultValidity = TimeSpan.FromHours(12);

    /// <summary>Creates the header for a push to <paramref name="endpoint"/>.</summary>
    /// <param name="endpoint">The subscription's endpoint (push resource); its origin (scheme, host and port; no
    /// userinfo, path or query) becomes the token's audience.</param>
    /// <param name="subject">A contact for the application server's operator: a <c>mailto:</c> or <c>https:</c> URI.</param>
    /// <param name="applicationServerKey">The application server's P-256 signing key (with its private part).</param>
    /// <param name="validity">How long the token is valid, more than zero and at most <see cref="MaxValidity"/>;
    /// <see langword="null"/> for <see cref="DefaultValidity"/>.</param>
    /// <returns>The header value: scheme <c>vapid</c>, parameter <c>t=..., k=...</c>.</returns>
    /// <exception cref="ArgumentNullException">An argument is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="endpoint"/> is not an absolute http(s) URI, <paramref name="subject"/>
    /// is not a <c>mailto:</c> or <c>https:</c> URI, or <paramref name="applicationServerKey"/> is not a P-256 key with its private part.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="validity"/> is not more than zero and at most 24 hours.</exception>
    public static AuthenticationHeaderValue Create(Uri endpoint, string subject, ECDsa applicationServerKey, TimeSpan? validity = null) =>
        Create(endpoint, subject, applicationServerKey, validity, DateTimeOffset.UtcNow);

    /// <summary>Gets the application server's public key as the page passes it to
    /// <c>pushManager.subscribe({ applicationServerKey })</c> and as the header's <c>k</c>: base64url of the 65-byte uncompressed point.</summary>
    /// <param name="applicationServerKey">The application server's P-256 key.</param>
    /// <returns>87 characters.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="applicationServerKey"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="applicationServerKey"/> is not a P-256 key.</exception>
    public static string GetPublicKey(ECDsa applicationServerKey)
    {
        ArgumentNullException.ThrowIfNull(applicationServerKey);
        ECParameters parameters;
        try
        {
            parameters = applicationServerKey.ExportParameters(includePrivateParameters: false);
        }
        catch (CryptographicException exception)
        {
            throw new ArgumentException(WebPushMessages.NotP256, nameof(applicationServerKey), exception);
        }

        using ECDiffieHellman asAgreementKey = ECDiffieHellman.Create(new ECParameters { Curve = parameters.Curve, Q = parameters.Q });
        Span<byte> point = stackalloc byte[WebPushSubscriptionKeys.PublicKeySize];
        WebPushSubscriptionKeys.ExportPublicKey(asAgreementKey, point, nameof(applicationServerKey));
        return Base64Url.EncodeToString(point);
    }

    /// <summary>Imports a raw 32-byte P-256 private key (the form Web Push libraries keep VAPID keys in, base64url-decoded).</summary>
    /// <param name="privateKey">The scalar d, big-endian, 32 bytes.</param>
    /// <returns>The signing key.</returns>
    /// <exception cref="ArgumentException"><paramref name="privateKey"/> is not 32 bytes, or not a valid P-256 scalar (d in [1, n-1],
    /// n the group order). The key is checked, and its public point computed, here: the same input gives the same
    /// exception on every runtime (.NET 11 no longer checks inside <c>ECParameters</c> import).</exception>
    public static ECDsa ImportPrivateKey(ReadOnlySpan<byte> privateKey) =>
        P256.ImportPrivateKey(privateKey, nameof(privateKey), ECDsa.Create);

    /// <summary>As the public overload, at a given time: for tests.</summary>
    internal static AuthenticationHeaderValue Create(Uri endpoint, string subject, ECDsa applicationServerKey, TimeSpan? validity, DateTimeOffset now)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        ArgumentNullException.ThrowIfNull(subject);
        ArgumentNullException.ThrowIfNull(applicationServerKey);
        if (!endpoint.IsAbsoluteUri || (endpoint.Scheme != Uri.UriSchemeHttps && endpoint.Scheme != Uri.UriSchemeHttp))
        {
            throw new ArgumentException(WebPushMessages.VapidEndpoint, nameof(endpoint));
        }

        if (!(subject.StartsWith("mailto:", StringComparison.OrdinalIgnoreCase) || subject.StartsWith("https://", StringComparison.OrdinalIgnoreCase))
            || !Uri.IsWellFormedUriString(subject, UriKind.Absolute))
        {
            throw new ArgumentException(WebPushMessages.VapidSubject, nameof(subject));
        }

        TimeSpan lifetime = validity ?? DefaultValidity;
        if (lifetime <= TimeSpan.Zero || lifetime > MaxValidity)
        {
            throw new ArgumentOutOfRangeException(nameof(validity), validity, WebPushMessages.VapidValidity);
        }

        string publicKey = GetPublicKey(applicationServerKey);
        long expires = (now + lifetime).ToUnixTimeSeconds();

        string audience = Audience(endpoint);
        string signingInput = Base64Url.EncodeToString("{\"typ\":\"JWT\",\"alg\":\"ES256\"}"u8) + "." + Base64Url.EncodeToString(Claims(audience, expires, subject));

        byte[] signature;
        try
        {
            signature = applicationServerKey.SignData(Encoding.ASCII.GetBytes(signingInput), HashAlgorithmName.SHA256, DSASignatureFormat.IeeeP1363FixedFieldConcatenation);
        }
        catch (CryptographicException exception)
        {
            throw new ArgumentException(WebPushMessages.PrivateKeyInvalid, nameof(applicationServerKey), exception);
        }

        return new AuthenticationHeaderValue("vapid", $"t={signingInput}.{Base64Url.EncodeToString(signature)}, k={publicKey}");
    }

    /// <summary>
    /// The origin (RFC 8292 section 2, RFC 6454) as browsers serialise it (<c>new URL(endpoint).origin</c>)
    /// and push services compare it: scheme://host[:port], the port only when it is not the default,
    /// never the userinfo (GetLeftPart(Authority) kept user:secret@), and the host in its ASCII form,
    /// an internationalised name as IDNA's punycode (<c>xn--bcher-kva.example</c> for
    /// <c>bücher.example</c>). Uri.Host keeps such a name in Unicode and IdnHost gives its ASCII form;
    /// an IPv6 address comes from Host, which keeps the brackets an origin has.
    /// </summary>
    private static string Audience(Uri endpoint)
    {
        string host = endpoint.HostNameType == UriHostNameType.IPv6 ? endpoint.Host : endpoint.IdnHost;
        return endpoint.IsDefaultPort
            ? $"{endpoint.Scheme}://{host}"
            : string.Create(CultureInfo.InvariantCulture, $"{endpoint.Scheme}://{host}:{endpoint.Port}");
    }

    private static byte[] Claims(string audience, long expires, string subject)
    {
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteString("aud", audience);
            writer.WriteNumber("exp", expires);
            writer.WriteString("sub", subject);
            writer.WriteEndObject();
        }

        return buffer.WrittenSpan.ToArray();
    }
}
