// The keys a browser hands an application server with a push subscription (RFC 8291 section 2;
// the Push API's PushSubscription.getKey("p256dh") and getKey("auth")): the user agent's P-256
// public key and its 16-byte authentication secret.

using System;
using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>
/// The encryption keys of a Web Push subscription (RFC 8291): <c>p256dh</c>, the user agent's
/// P-256 public key as a 65-byte uncompressed point, and <c>auth</c>, its 16-byte authentication secret.
/// </summary>
/// <remarks>
/// The public key is checked when the instance is made: it must be a point on the curve, so a
/// malformed subscription fails here and not in the middle of a send. The auth secret must be kept
/// from the push service: with it and a copy of the traffic, nothing else protects the message's origin.
/// </remarks>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // its constructor validates the key with ECDH, which throws PlatformNotSupportedException in the browser
public sealed class WebPushSubscriptionKeys
{
    /// <summary>The length of <c>p256dh</c>: a 65-byte uncompressed P-256 point (0x04 || X || Y).</summary>
    public const int PublicKeySize = 65;

    /// <summary>The length of <c>auth</c>: 16 bytes (RFC 8291 section 3.2).</summary>
    public const int AuthSecretSize = 16;

    private readonly byte[] _publicKey;
    private readonly byte[] _authSecret;

    /// <summary>Creates the keys from their bytes.</summary>
    /// <param name="p256dh">The user agent's public key: 65 bytes, 0x04 || X || Y, a point on P-256.</param>
    /// <param name="auth">The 16-byte authentication secret.</param>
    /// <exception cref="ArgumentException"><paramref name="p256dh"/> is not a 65-byte uncompressed point on
    /// P-256, or <paramref name="auth"/> is not 16 bytes.</exception>
    public WebPushSubscriptionKeys(ReadOnlySpan<byte> p256dh, ReadOnlySpan<byte> auth)
    {
        ValidateAuthSecret(auth, nameof(auth));
        using (ImportPublicKey(p256dh, nameof(p256dh)))
        {
        }

        _publicKey = p256dh.ToArray();
        _authSecret = auth.ToArray();
    }

    /// <summary>Gets the user agent's public key, <c>p256dh</c>: 65 bytes.</summary>
    public ReadOnlyMemory<byte> P256dh => _publicKey;

    /// <summary>Gets the authentication secret, <c>auth</c>: 16 bytes.</summary>
    public ReadOnlyMemory<byte> Auth => _authSecret;

    /// <summary>Creates the keys from the base64url strings a subscription carries
    /// (<c>PushSubscription.toJSON().keys</c>): unpadded base64url, or with exactly the trailing <c>=</c>
    /// padding of RFC 4648 section 4. Whitespace, other padding and characters outside the base64url
    /// alphabet are refused.</summary>
    /// <param name="p256dh">The <c>p256dh</c> value.</param>
    /// <param name="auth">The <c>auth</c> value.</param>
    /// <returns>The keys.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="p256dh"/> or <paramref name="auth"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A value is not base64url as described above (the exception names which),
    /// <paramref name="p256dh"/> is not a 65-byte
    /// uncompressed point on P-256, or <paramref name="auth"/> is not 16 bytes.</exception>
    public static WebPushSubscriptionKeys FromBase64Url(string p256dh, string auth)
    {
        ArgumentNullException.ThrowIfNull(p256dh);
        ArgumentNullException.ThrowIfNull(auth);
        return new WebPushSubscriptionKeys(DecodeBase64Url(p256dh, nameof(p256dh)), DecodeBase64Url(auth, nameof(auth)));
    }

    /// <summary>Creates the keys a user agent would publish for its key pair: its public key and the given auth secret.</summary>
    /// <param name="userAgentKey">The user agent's P-256 key (the private part is not used).</param>
    /// <param name="auth">The 16-byte authentication secret; draw it with <see cref="RandomNumberGenerator"/>.</param>
    /// <returns>The keys.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="userAgentKey"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="userAgentKey"/> is not on P-256, or <paramref name="auth"/> is not 16 bytes.</exception>
    public static WebPushSubscriptionKeys FromKey(ECDiffieHellman userAgentKey, ReadOnlySpan<byte> auth)
    {
        ArgumentNullException.ThrowIfNull(userAgentKey);
        Span<byte> publicKey = stackalloc byte[PublicKeySize];
        ExportPublicKey(userAgentKey, publicKey, nameof(userAgentKey));
        return new WebPushSubscriptionKeys(publicKey, auth);
    }

    /// <summary>Gets <c>p256dh</c> as unpadded base64url, as <c>PushSubscription.toJSON()</c> gives it.</summary>
    /// <returns>87 characters.</returns>
    public string GetP256dhBase64Url() => Base64Url.EncodeToString(_publicKey);

    /// <summary>Gets <c>auth</c> as unpadded base64url, as <c>PushSubscription.toJSON()</c> gives it.</summary>
    /// <returns>22 characters.</returns>
    public string GetAuthBase64Url() => Base64Url.EncodeToString(_authSecret);

    /// <summary>A P-256 key holding only the user agent's public point; for the key agreement.</summary>
    internal ECDiffieHellman ImportPublicKey() => ImportPublicKey(_publicKey, nameof(P256dh));

    internal static void ValidateAuthSecret(ReadOnlySpan<byte> auth, string parameterName)
    {
        if (auth.Length != AuthSecretSize)
        {
            throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.AuthSecretSize, auth.Length), parameterName);
        }
    }

    // RFC 8291 relies on the peer's point being on the curve (an invalid-curve point would leak bits
    // of the private key). The check is made here (P256.IsOnCurve), not left to the platform, which
    // may refuse such a point at import (OpenSSL, CNG on .NET 10) or only at first use.
    internal static ECDiffieHellman ImportPublicKey(ReadOnlySpan<byte> point, string parameterName)
    {
        if (point.Length != PublicKeySize)
        {
            throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.PublicKeySize, point.Length), parameterName);
        }

        if (point[0] != 0x04)
        {
            throw new ArgumentException(WebPushMessages.PublicKeyNotUncompressed, parameterName);
        }

        if (!P256.IsOnCurve(point.Slice(1, P256.FieldSize), point.Slice(1 + P256.FieldSize, P256.FieldSize)))
        {
            throw new ArgumentException(WebPushMessages.PublicKeyNotOnCurve, parameterName);
        }

        var parameters = new ECParameters
        {
            Curve = ECCurve.NamedCurves.nistP256,
            Q = new ECPoint { X = point.Slice(1, P256.FieldSize).ToArray(), Y = point.Slice(1 + P256.FieldSize, P256.FieldSize).ToArray() },
        };
        ECDiffieHellman? key = null;
        try
        {
            key = ECDiffieHellman.Create(parameters);
            P256.ForceImport(key);
            return key;
        }
        catch (CryptographicException exception)
        {
            key?.Dispose();
            throw new ArgumentException(WebPushMessages.PublicKeyNotOnCurve, parameterName, exception);
        }
    }

    /// <summary>Writes the key's public point, uncompressed: 0x04 || X || Y.</summary>
    internal static void ExportPublicKey(ECDiffieHellman key, Span<byte> destination, string parameterName)
    {
        ECParameters parameters;
        try
        {
            parameters = key.ExportParameters(includePrivateParameters: false);
        }
        catch (CryptographicException exception)
        {
            throw new ArgumentException(WebPushMessages.NotP256, parameterName, exception);
        }

        if (!IsP256(parameters.Curve) || parameters.Q.X is not { Length: 32 } x || parameters.Q.Y is not { Length: 32 } y || !P256.IsOnCurve(x, y))
        {
            throw new ArgumentException(WebPushMessages.NotP256, parameterName);
        }

        destination[0] = 0x04;
        x.CopyTo(destination[1..]);
        y.CopyTo(destination[33..]);
    }

    // Platforms name the curve differently (OpenSSL: prime256v1 or secp256r1; CNG: ECDSA_P256 or
    // ECDH_P256; .NET: nistP256), so the OID decides when there is one.
    private static bool IsP256(ECCurve curve)
    {
        if (!curve.IsNamed)
        {
            return false;
        }

        if (curve.Oid.Value is { } oid)
        {
            return oid == "1.2.840.10045.3.1.7";
        }

        return curve.Oid.FriendlyName is "nistP256" or "ECDSA_P256" or "ECDH_P256" or "secp256r1" or "prime256v1";
    }

    // Exactly what PushSubscription.toJSON() gives (unpadded base64url, RFC 4648 section 5), or that with
    // the padding section 4 would add; nothing else: no whitespace anywhere (Base64Url's decoder skips it),
    // no extra or missing '=', no '+' or '/'. The decoder itself refuses bits set past the last byte.
    internal static byte[] DecodeBase64Url(string value, string parameterName)
    {
        ReadOnlySpan<char> data = value.AsSpan().TrimEnd('=');
        int padding = value.Length - data.Length;
        int tail = data.Length % 4;
        bool valid = tail != 1
            && (padding == 0 || (tail != 0 && padding == 4 - tail))
            && !data.ContainsAnyExcept(Base64UrlAlphabet);
        if (valid)
        {
            try
            {
                return Base64Url.DecodeFromChars(data);
            }
            catch (FormatException exception)
            {
                throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.NotBase64Url, parameterName), parameterName, exception);
            }
        }

        throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.NotBase64Url, parameterName), parameterName);
    }

    private static readonly SearchValues<char> Base64UrlAlphabet = SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");
}
