// The application server's VAPID key pair (RFC 8292 section 3.2) in the form every Web Push stack
// stores it: the public key as the base64url of the 65-byte uncompressed P-256 point (what the page
// passes to pushManager.subscribe({ applicationServerKey }) and the header's k), the private key as
// the base64url of the 32-byte scalar d (web-push's generateVAPIDKeys(), pywebpush, WebPush for .NET).

using System;
using System.Buffers.Text;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>
/// An application server's VAPID key pair (RFC 8292): made once with <see cref="Generate"/>, stored as
/// the two base64url strings <see cref="PublicKey"/> and <see cref="ExportPrivateKey"/> give, and read
/// back with <see cref="FromBase64Url"/>; it signs the <c>Authorization</c> header of each push request.
/// </summary>
/// <remarks>
/// Keep the key pair for as long as its subscriptions live: every subscription is bound to the public
/// key the page subscribed with, and a new key pair invalidates them all. The private key string is a
/// secret: keep it where you keep other secrets (a secret store, not the repository); a .NET string
/// cannot be wiped, so export it only to store it. Dispose the instance when the key's lifetime ends,
/// not while another thread may still be signing with it.
/// </remarks>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // ECDsa throws PlatformNotSupportedException in the browser
public sealed class VapidKeyPair : IDisposable
{
    private readonly ECDsa _key;
    private bool _disposed;

    private VapidKeyPair(ECDsa key, string publicKey)
    {
        _key = key;
        PublicKey = publicKey;
    }

    /// <summary>Gets the public key: the base64url (unpadded) of the 65-byte uncompressed P-256 point,
    /// 87 characters. It is the page's <c>applicationServerKey</c> and the <c>k</c> of the header.</summary>
    public string PublicKey { get; }

    /// <summary>Gets the signing key, for <see cref="VapidAuthorization.Create(Uri, string, ECDsa, TimeSpan?)"/>.
    /// It belongs to this instance: do not dispose it; <see cref="Dispose"/> does.</summary>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public ECDsa Key
    {
        get
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _key;
        }
    }

    /// <summary>Generates a new key pair on P-256 with the platform's random number generator.</summary>
    /// <returns>The key pair; store <see cref="PublicKey"/> and <see cref="ExportPrivateKey"/>.</returns>
    public static VapidKeyPair Generate()
    {
        ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        try
        {
            return new VapidKeyPair(key, VapidAuthorization.GetPublicKey(key));
        }
        catch
        {
            key.Dispose();
            throw;
        }
    }

    /// <summary>Reads a stored key pair back: the two base64url strings of <see cref="PublicKey"/> and
    /// <see cref="ExportPrivateKey"/> (or of another Web Push library: web-push's <c>generateVAPIDKeys()</c>
    /// gives the same two strings). Unpadded base64url, or with exactly RFC 4648's <c>=</c> padding.</summary>
    /// <param name="publicKey">The public key: base64url of the 65-byte uncompressed point.</param>
    /// <param name="privateKey">The private key: base64url of the 32-byte scalar d.</param>
    /// <returns>The key pair.</returns>
    /// <exception cref="ArgumentNullException">An argument is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A value is not base64url; <paramref name="privateKey"/> is not 32 bytes or not a
    /// valid P-256 scalar (d in [1, n-1]); or <paramref name="publicKey"/> is not the public key of
    /// <paramref name="privateKey"/> (the exception names the parameter; its message holds no key material).</exception>
    public static VapidKeyPair FromBase64Url(string publicKey, string privateKey)
    {
        ArgumentNullException.ThrowIfNull(publicKey);
        ArgumentNullException.ThrowIfNull(privateKey);
        byte[] expectedPublicKey = WebPushSubscriptionKeys.DecodeBase64Url(publicKey, nameof(publicKey));
        byte[] d = WebPushSubscriptionKeys.DecodeBase64Url(privateKey, nameof(privateKey));
        ECDsa key;
        try
        {
            key = P256.ImportPrivateKey(d, nameof(privateKey), ECDsa.Create);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(d);
        }

        try
        {
            string actual = VapidAuthorization.GetPublicKey(key);
            if (!Base64Url.DecodeFromChars(actual).AsSpan().SequenceEqual(expectedPublicKey))
            {
                throw new ArgumentException(WebPushMessages.VapidKeysDoNotMatch, nameof(publicKey));
            }

            return new VapidKeyPair(key, actual);
        }
        catch
        {
            key.Dispose();
            throw;
        }
    }

    /// <summary>Exports the private key as it is stored: the base64url (unpadded) of the 32-byte scalar d, 43 characters.</summary>
    /// <returns>The private key. It is a secret; the string cannot be wiped, so export it only to store it.</returns>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public string ExportPrivateKey()
    {
        ECParameters parameters = Key.ExportParameters(includePrivateParameters: true);
        try
        {
            return Base64Url.EncodeToString(parameters.D);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(parameters.D);
        }
    }

    /// <summary>Creates the <c>Authorization</c> header for a push to <paramref name="endpoint"/>, signed with this key pair:
    /// <see cref="VapidAuthorization.Create(Uri, string, ECDsa, TimeSpan?)"/>.</summary>
    /// <param name="endpoint">The subscription's endpoint; its origin becomes the token's audience.</param>
    /// <param name="subject">A contact for the application server's operator: a <c>mailto:</c> or <c>https:</c> URI.</param>
    /// <param name="validity">How long the token is valid, more than zero and at most 24 hours; <see langword="null"/> for 12 hours.</param>
    /// <returns>The header value: scheme <c>vapid</c>, parameter <c>t=..., k=...</c>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="endpoint"/> or <paramref name="subject"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="endpoint"/> is not an absolute http(s) URI, or <paramref name="subject"/>
    /// is not a <c>mailto:</c> or <c>https:</c> URI.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="validity"/> is not more than zero and at most 24 hours.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public AuthenticationHeaderValue CreateAuthorization(Uri endpoint, string subject, TimeSpan? validity = null) =>
        VapidAuthorization.Create(endpoint, subject, Key, validity);

    /// <summary>Disposes the signing key. Later calls throw <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose()
    {
        _disposed = true;
        _key.Dispose();
    }
}
