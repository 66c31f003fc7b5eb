// Message Encryption for Web Push (RFC 8291) on top of the RFC 8188 record layer.
//
// Section 3.1: a fresh P-256 key pair per message on the application server; ECDH with the user
//   agent's subscription key gives ecdh_secret.
// Section 3.3: PRK_key = HKDF-Extract(salt = auth_secret, IKM = ecdh_secret)
//              key_info = "WebPush: info" || 0x00 || ua_public || as_public
//              IKM = HKDF-Expand(PRK_key, key_info, 32)
// Section 3.4: that IKM goes into RFC 8188's aes128gcm with a random 16-byte salt; the header's
//   keyid is as_public (65 bytes, uncompressed).
// Section 4:   one record; rs 4096 here, as the RFC's example; the body is at most 4096 bytes, so
//   plaintext + padding is at most 3993 bytes; the receiver accepts only the 0x02 delimiter.

using System;
using System.Globalization;
using System.Security.Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;

namespace Cryptography.WebPush;

/// <summary>
/// Web Push message encryption (RFC 8291): encrypts a push message for a subscription
/// (<see cref="WebPushSubscriptionKeys"/>) as an application server does, and decrypts one as the
/// user agent does (for tests, and for relays that hold a subscription's private key).
/// </summary>
/// <remarks>
/// <para>The body is an RFC 8188 <c>aes128gcm</c> body (see <see cref="ContentEncryption"/>) with one
/// record of record size 4096, whose key id is the application server's ephemeral public key. Every
/// call to <see cref="Encrypt(ReadOnlySpan{byte}, WebPushSubscriptionKeys, int)"/> makes a fresh
/// ephemeral key pair and a fresh salt.</para>
/// <para>Send the body with <see cref="WebPushContent"/>, which adds the headers a push service needs.</para>
/// <para>The ECDH shared secret and every key derived from it are wiped before a call returns.</para>
/// </remarks>
[System.Runtime.Versioning.UnsupportedOSPlatform("browser")] // aes128gcm (AesGcm) and ECDH throw PlatformNotSupportedException in the browser
public static class WebPushEncryption
{
    /// <summary>The largest push message body: 4096 bytes (RFC 8030 section 7.2: push services need not accept more).</summary>
    public const int MaxBodySize = 4096;

    /// <summary>The record size written into the header: 4096, as in RFC 8291's example.</summary>
    public const int RecordSize = 4096;

    // RFC 8291 section 4: Web Push is aes128gcm with 4096-byte records.
    private static readonly ContentEncodingOptions Aes128Gcm = new() { Coding = ContentCoding.Aes128Gcm, RecordSize = RecordSize };

    /// <summary>The length of the header of a push message body: salt (16), record size (4), key id length (1)
    /// and the 65-byte key id: 86 bytes.</summary>
    public const int HeaderSize = ContentEncodingHeader.FixedLength + WebPushSubscriptionKeys.PublicKeySize;

    /// <summary>The most content (plus padding) a push message carries: 4096 - 86 (header) - 1 (delimiter) - 16 (tag) = 3993 bytes.</summary>
    public const int MaxPlaintextLength = MaxBodySize - HeaderSize - 1 - ContentEncryption.TagSize;

    private const int SecretSize = 32;

    /// <summary>Gets the length of the body that encrypting <paramref name="plaintextLength"/> bytes with
    /// <paramref name="paddingLength"/> bytes of padding produces: 86 + content + 1 + padding + 16.</summary>
    /// <param name="plaintextLength">The message's length.</param>
    /// <param name="paddingLength">The padding's length.</param>
    /// <returns>The body's length.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A length is negative.</exception>
    /// <exception cref="ArgumentException">Content and padding together exceed <see cref="MaxPlaintextLength"/>.</exception>
    public static int GetEncryptedLength(int plaintextLength, int paddingLength = 0) =>
        CheckedEncryptedLength(plaintextLength, paddingLength, nameof(plaintextLength));

    private static int CheckedEncryptedLength(int plaintextLength, int paddingLength, string plaintextName)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(plaintextLength);
        ArgumentOutOfRangeException.ThrowIfNegative(paddingLength);
        if ((long)plaintextLength + paddingLength > MaxPlaintextLength)
        {
            throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.PlaintextTooLong, plaintextLength, paddingLength, MaxPlaintextLength), plaintextName);
        }

        return HeaderSize + plaintextLength + 1 + paddingLength + ContentEncryption.TagSize;
    }

    /// <summary>Encrypts a push message for a subscription, with a fresh ephemeral key pair and salt.</summary>
    /// <param name="plaintext">The message: at most <see cref="MaxPlaintextLength"/> bytes less the padding.</param>
    /// <param name="subscription">The subscription's keys.</param>
    /// <param name="paddingLength">Zero bytes to add after the message so that its length does not show;
    /// the message and padding together must fit <see cref="MaxPlaintextLength"/>.</param>
    /// <returns>The body to send: <see cref="GetEncryptedLength"/> bytes.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="subscription"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="paddingLength"/> is negative.</exception>
    /// <exception cref="ArgumentException">The message and padding exceed <see cref="MaxPlaintextLength"/>.</exception>
    public static byte[] Encrypt(ReadOnlySpan<byte> plaintext, WebPushSubscriptionKeys subscription, int paddingLength = 0)
    {
        ArgumentNullException.ThrowIfNull(subscription);
        int length = CheckedEncryptedLength(plaintext.Length, paddingLength, nameof(plaintext));
        using var ephemeralKey = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] body = new byte[length];
        Encrypt(plaintext, subscription, paddingLength, ephemeralKey, salt: default, body);
        return body;
    }

    /// <summary>Encrypts a push message for a subscription given as the base64url strings a browser hands out.</summary>
    /// <param name="plaintext">The message: at most <see cref="MaxPlaintextLength"/> bytes less the padding.</param>
    /// <param name="p256dh">The subscription's <c>p256dh</c> key, base64url.</param>
    /// <param name="auth">The subscription's <c>auth</c> secret, base64url.</param>
    /// <param name="paddingLength">Zero bytes to add after the message.</param>
    /// <returns>The body to send.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="p256dh"/> or <paramref name="auth"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="paddingLength"/> is negative.</exception>
    /// <exception cref="ArgumentException">A key is malformed (see <see cref="WebPushSubscriptionKeys.FromBase64Url"/>),
    /// or the message and padding exceed <see cref="MaxPlaintextLength"/>.</exception>
    public static byte[] Encrypt(ReadOnlySpan<byte> plaintext, string p256dh, string auth, int paddingLength = 0) =>
        Encrypt(plaintext, WebPushSubscriptionKeys.FromBase64Url(p256dh, auth), paddingLength);

    /// <summary>Decrypts a push message as the user agent does, with the subscription's private key and auth secret.</summary>
    /// <param name="body">The push message body: at most <see cref="MaxBodySize"/> bytes.</param>
    /// <param name="userAgentKey">The subscription's P-256 key pair (with its private key).</param>
    /// <param name="authSecret">The subscription's 16-byte auth secret.</param>
    /// <returns>The message.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="userAgentKey"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="userAgentKey"/> is not a P-256 key with its private part,
    /// or <paramref name="authSecret"/> is not 16 bytes.</exception>
    /// <exception cref="ContentEncodingException">The body is longer than <see cref="MaxBodySize"/>.</exception>
    /// <exception cref="ContentEncodingHeaderException">The header is short, its key id is not 65 bytes or not a
    /// point on P-256, or the body holds more than one record.</exception>
    /// <exception cref="ContentEncodingCorruptedException">The record does not verify (the body was modified, or
    /// the private key or auth secret is not the one it was encrypted for) or its padding is invalid.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The body has no record, or its record is not marked as the last one.</exception>
    public static byte[] Decrypt(ReadOnlySpan<byte> body, ECDiffieHellman userAgentKey, ReadOnlySpan<byte> authSecret)
    {
        byte[] buffer = new byte[GetMaxDecryptedLength(body.Length)];
        int length = Decrypt(body, buffer, userAgentKey, authSecret);
        byte[] content = buffer.AsSpan(0, length).ToArray();
        CryptographicOperations.ZeroMemory(buffer);
        return content;
    }

    /// <summary>Gets how large a destination <see cref="Decrypt(ReadOnlySpan{byte}, Span{byte}, ECDiffieHellman, ReadOnlySpan{byte})"/>
    /// needs for a body of <paramref name="bodyLength"/> bytes: the body less its 86-byte header and 16-byte tag (0 for shorter bodies).</summary>
    /// <param name="bodyLength">The body's length.</param>
    /// <returns>The destination length needed.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="bodyLength"/> is negative.</exception>
    public static int GetMaxDecryptedLength(int bodyLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bodyLength);
        return Math.Max(0, bodyLength - HeaderSize - ContentEncryption.TagSize);
    }

    /// <summary>Decrypts a push message into a buffer, as the user agent does.</summary>
    /// <param name="body">The push message body: at most <see cref="MaxBodySize"/> bytes.</param>
    /// <param name="destination">Receives the message: at least <see cref="GetMaxDecryptedLength"/> bytes; must not
    /// overlap <paramref name="body"/>. On any failure it is zeroed: unverified content is never released.</param>
    /// <param name="userAgentKey">The subscription's P-256 key pair (with its private key).</param>
    /// <param name="authSecret">The subscription's 16-byte auth secret.</param>
    /// <returns>The message's length.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="userAgentKey"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="userAgentKey"/> is not a P-256 key with its private part,
    /// <paramref name="authSecret"/> is not 16 bytes, or <paramref name="destination"/> is too short or overlaps <paramref name="body"/>.</exception>
    /// <exception cref="ContentEncodingException">The body is longer than <see cref="MaxBodySize"/>.</exception>
    /// <exception cref="ContentEncodingHeaderException">The header is short, its key id is not 65 bytes or not a
    /// point on P-256, or the body holds more than one record.</exception>
    /// <exception cref="ContentEncodingCorruptedException">The record does not verify (the body was modified, or
    /// the private key or auth secret is not the one it was encrypted for) or its padding is invalid.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The body has no record, or its record is not marked as the last one.</exception>
    public static int Decrypt(ReadOnlySpan<byte> body, Span<byte> destination, ECDiffieHellman userAgentKey, ReadOnlySpan<byte> authSecret)
    {
        try
        {
            return DecryptCore(body, destination, userAgentKey, authSecret);
        }
        catch
        {
            CryptographicOperations.ZeroMemory(destination);
            throw;
        }
    }

    private static int DecryptCore(ReadOnlySpan<byte> body, Span<byte> destination, ECDiffieHellman userAgentKey, ReadOnlySpan<byte> authSecret)
    {
        ArgumentNullException.ThrowIfNull(userAgentKey);
        WebPushSubscriptionKeys.ValidateAuthSecret(authSecret, nameof(authSecret));
        Span<byte> userAgentPublicKey = stackalloc byte[WebPushSubscriptionKeys.PublicKeySize];
        WebPushSubscriptionKeys.ExportPublicKey(userAgentKey, userAgentPublicKey, nameof(userAgentKey));

        if (body.Length > MaxBodySize)
        {
            throw new ContentEncodingException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.BodyTooLong, body.Length));
        }

        int needed = GetMaxDecryptedLength(body.Length);
        if (destination.Length < needed)
        {
            throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, ContentEncodingMessages.DestinationTooShort, needed), nameof(destination));
        }

        if (body.Overlaps(destination))
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }

        ContentEncodingHeader header = ContentEncodingHeader.Parse(body);
        ReadOnlySpan<byte> applicationServerPublicKey = header.KeyId.Span;
        if (applicationServerPublicKey.Length != WebPushSubscriptionKeys.PublicKeySize)
        {
            throw new ContentEncodingHeaderException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.KeyIdSize, applicationServerPublicKey.Length));
        }

        ReadOnlySpan<byte> record = body[header.Length..];
        if (record.IsEmpty)
        {
            throw new ContentEncodingTruncatedException(ContentEncodingMessages.NoRecords);
        }

        if (record.Length > header.RecordSize)
        {
            throw new ContentEncodingHeaderException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.MoreThanOneRecord, record.Length, header.RecordSize));
        }

        ECDiffieHellman applicationServerKey;
        try
        {
            applicationServerKey = WebPushSubscriptionKeys.ImportPublicKey(applicationServerPublicKey, "keyId");
        }
        catch (ArgumentException exception)
        {
            throw new ContentEncodingHeaderException(WebPushMessages.KeyIdNotOnCurve, exception);
        }

        Span<byte> inputKeyingMaterial = stackalloc byte[SecretSize];
        byte[]? ecdhSecret = null;
        try
        {
            using (applicationServerKey)
            {
                ecdhSecret = AgreeOrThrow(userAgentKey, applicationServerKey, nameof(userAgentKey));
            }

            DeriveInputKeyingMaterial(ecdhSecret, authSecret, userAgentPublicKey, applicationServerPublicKey, inputKeyingMaterial);
            using var decryptor = new ContentDecryptor(header, inputKeyingMaterial, Aes128Gcm);
            try
            {
                int length = decryptor.DecryptRecord(record, destination, out _);
                decryptor.Complete();
                return length;
            }
            catch (ContentEncodingCorruptedException exception)
            {
                throw new ContentEncodingCorruptedException(string.Format(CultureInfo.InvariantCulture, WebPushMessages.NotOpened, exception.Message), exception.RecordIndex ?? 0, exception);
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(ecdhSecret);
            CryptographicOperations.ZeroMemory(inputKeyingMaterial);
        }
    }

    /// <summary>Decrypts a push message as the user agent does, with the subscription's raw private key
    /// (the 32-byte scalar, as Web Push libraries store it) and auth secret.</summary>
    /// <param name="body">The push message body: at most <see cref="MaxBodySize"/> bytes.</param>
    /// <param name="userAgentPrivateKey">The subscription's 32-byte P-256 private key.</param>
    /// <param name="authSecret">The subscription's 16-byte auth secret.</param>
    /// <returns>The message.</returns>
    /// <exception cref="ArgumentException"><paramref name="userAgentPrivateKey"/> is not a valid 32-byte P-256
    /// private key, or <paramref name="authSecret"/> is not 16 bytes.</exception>
    /// <exception cref="ContentEncodingException">The body is longer than <see cref="MaxBodySize"/>.</exception>
    /// <exception cref="ContentEncodingHeaderException">The header is short, its key id is not 65 bytes or not a
    /// point on P-256, or the body holds more than one record.</exception>
    /// <exception cref="ContentEncodingCorruptedException">The record does not verify or its padding is invalid.</exception>
    /// <exception cref="ContentEncodingTruncatedException">The record is not marked as the last one.</exception>
    public static byte[] Decrypt(ReadOnlySpan<byte> body, ReadOnlySpan<byte> userAgentPrivateKey, ReadOnlySpan<byte> authSecret)
    {
        using ECDiffieHellman key = ImportPrivateKey(userAgentPrivateKey, nameof(userAgentPrivateKey));
        return Decrypt(body, key, authSecret);
    }

    /// <summary>Imports a raw 32-byte P-256 private key (its public point is computed).</summary>
    /// <param name="privateKey">The scalar d, big-endian, 32 bytes.</param>
    /// <returns>The key pair.</returns>
    /// <exception cref="ArgumentException"><paramref name="privateKey"/> is not 32 bytes, or not a valid P-256 scalar (d in [1, n-1],
    /// n the group order). The key is checked, and its public point computed, here: the same input gives the same
    /// exception on every runtime (.NET 11 no longer checks inside <c>ECParameters</c> import).</exception>
    public static ECDiffieHellman ImportPrivateKey(ReadOnlySpan<byte> privateKey) => ImportPrivateKey(privateKey, nameof(privateKey));

    /// <summary>The whole encryption with the ephemeral key and salt given: for RFC 8291's example, whose
    /// values are fixed. Never call it with a key or salt that has been used before.</summary>
    internal static int Encrypt(ReadOnlySpan<byte> plaintext, WebPushSubscriptionKeys subscription, int paddingLength, ECDiffieHellman applicationServerKey, ReadOnlySpan<byte> salt, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(subscription);
        int length = CheckedEncryptedLength(plaintext.Length, paddingLength, nameof(plaintext));
        if (destination.Length < length)
        {
            throw new ArgumentException(string.Format(CultureInfo.InvariantCulture, ContentEncodingMessages.DestinationTooShort, length), nameof(destination));
        }

        if (plaintext.Overlaps(destination))
        {
            throw new ArgumentException(ContentEncodingMessages.OverlappingRecord, nameof(destination));
        }

        Span<byte> applicationServerPublicKey = stackalloc byte[WebPushSubscriptionKeys.PublicKeySize];
        WebPushSubscriptionKeys.ExportPublicKey(applicationServerKey, applicationServerPublicKey, nameof(applicationServerKey));

        Span<byte> inputKeyingMaterial = stackalloc byte[SecretSize];
        byte[]? ecdhSecret = null;
        try
        {
            using (ECDiffieHellman userAgentKey = subscription.ImportPublicKey())
            {
                ecdhSecret = AgreeOrThrow(applicationServerKey, userAgentKey, nameof(applicationServerKey));
            }

            DeriveInputKeyingMaterial(ecdhSecret, subscription.Auth.Span, subscription.P256dh.Span, applicationServerPublicKey, inputKeyingMaterial);
            using var encryptor = new ContentEncryptor(inputKeyingMaterial, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = RecordSize, KeyId = applicationServerPublicKey.ToArray() }, salt);
            int written = encryptor.Header.WriteTo(destination);
            written += encryptor.EncryptRecord(plaintext, destination[written..], isLastRecord: true, paddingLength);
            return written;
        }
        catch
        {
            // Nothing is expected to throw once the arguments are checked, but the plaintext may have
            // been copied into the destination before sealing: leave none of it behind.
            CryptographicOperations.ZeroMemory(destination[..length]);
            throw;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(ecdhSecret);
            CryptographicOperations.ZeroMemory(inputKeyingMaterial);
        }
    }

    /// <summary>RFC 8291 section 3.3 in one call: ecdh_secret and auth_secret to the 32-byte IKM of RFC 8188.</summary>
    internal static void DeriveInputKeyingMaterial(ReadOnlySpan<byte> ecdhSecret, ReadOnlySpan<byte> authSecret, ReadOnlySpan<byte> userAgentPublicKey, ReadOnlySpan<byte> applicationServerPublicKey, Span<byte> inputKeyingMaterial)
    {
        Span<byte> authenticationKey = stackalloc byte[SecretSize];
        Span<byte> keyInfo = stackalloc byte[KeyInfoLength];
        try
        {
            ExtractAuthenticationKey(ecdhSecret, authSecret, authenticationKey);
            WriteKeyInfo(userAgentPublicKey, applicationServerPublicKey, keyInfo);
            HKDF.Expand(HashAlgorithmName.SHA256, authenticationKey, inputKeyingMaterial[..SecretSize], keyInfo);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(authenticationKey);
        }
    }

    /// <summary>The length of key_info: "WebPush: info" (13), 0x00, ua_public (65), as_public (65).</summary>
    internal const int KeyInfoLength = 14 + 2 * WebPushSubscriptionKeys.PublicKeySize;

    /// <summary>PRK_key = HKDF-Extract(salt = auth_secret, IKM = ecdh_secret) (RFC 8291 section 3.3).</summary>
    internal static void ExtractAuthenticationKey(ReadOnlySpan<byte> ecdhSecret, ReadOnlySpan<byte> authSecret, Span<byte> authenticationKey) =>
        HKDF.Extract(HashAlgorithmName.SHA256, ecdhSecret, authSecret, authenticationKey[..SecretSize]);

    /// <summary>key_info = "WebPush: info" || 0x00 || ua_public || as_public (RFC 8291 section 3.3).</summary>
    internal static void WriteKeyInfo(ReadOnlySpan<byte> userAgentPublicKey, ReadOnlySpan<byte> applicationServerPublicKey, Span<byte> keyInfo)
    {
        ReadOnlySpan<byte> label = "WebPush: info\0"u8;
        label.CopyTo(keyInfo);
        userAgentPublicKey.CopyTo(keyInfo[label.Length..]);
        applicationServerPublicKey.CopyTo(keyInfo[(label.Length + WebPushSubscriptionKeys.PublicKeySize)..]);
    }

    private static byte[] AgreeOrThrow(ECDiffieHellman privateKey, ECDiffieHellman publicKey, string parameterName)
    {
        try
        {
            using ECDiffieHellmanPublicKey otherParty = publicKey.PublicKey;
            return privateKey.DeriveRawSecretAgreement(otherParty);
        }
        catch (CryptographicException exception)
        {
            // Most often a key without its private part.
            throw new ArgumentException(WebPushMessages.PrivateKeyInvalid, parameterName, exception);
        }
    }

    private static ECDiffieHellman ImportPrivateKey(ReadOnlySpan<byte> privateKey, string parameterName) =>
        P256.ImportPrivateKey(privateKey, parameterName, ECDiffieHellman.Create);
}
