// The two content codings this library speaks; ContentCodingInfo holds what differs between them:
//   aes128gcm    RFC 8188 section 2 ("Encrypted Content-Encoding for HTTP"), the IETF standard
//                Web Push uses: AES-128-GCM records.
//   aes256gcmsiv this library's own coding, NOT an IETF standard: the same framing (RFC 8188
//                header, record sequence, padding delimiters) with AEAD_AES_256_GCM_SIV (RFC 8452)
//                records, a 32-byte content-encryption key and its own HKDF labels, so that keys
//                and nonces derived for one coding are never those of the other.

using System;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>An encrypted content coding: how the records of an RFC 8188 body are sealed.</summary>
public enum ContentCoding
{
    /// <summary>
    /// <c>aes128gcm</c>, RFC 8188: AES-128-GCM records, a 16-byte content-encryption key derived with
    /// the info "Content-Encoding: aes128gcm" and a 12-byte nonce base with "Content-Encoding: nonce".
    /// </summary>
    Aes128Gcm = 0,

    /// <summary>
    /// <c>aes256gcmsiv</c>, this library's coding (not an IETF standard): the RFC 8188 framing with
    /// AEAD_AES_256_GCM_SIV (RFC 8452) records, a 32-byte content-encryption key derived with the info
    /// "Content-Encoding: aes256gcmsiv" and a 12-byte nonce base with "Content-Encoding: aes256gcmsiv nonce".
    /// Use it where a repeated salt (and so a repeated key and nonce) must not be catastrophic; only
    /// peers using this library understand it.
    /// </summary>
    Aes256GcmSiv = 1,
}

/// <summary>
/// What differs between the codings, in one table: the HTTP name, the AEAD that seals the records,
/// the content-encryption key's size and the two HKDF labels. Everything else (framing, the 12-byte
/// nonce base, the 16-byte tag, the delimiter and padding) is RFC 8188 for both.
/// </summary>
internal sealed class ContentCodingInfo
{
    // RFC 8188 section 2.2: "Content-Encoding: aes128gcm" || 0x00, and section 2.3:
    // "Content-Encoding: nonce" || 0x00 (HKDF-Expand appends the 0x01). The GCM-SIV coding has labels
    // of its own so that the same IKM and salt never yield the same key or nonce base under both.
    private static readonly ContentCodingInfo[] Table =
    [
        new(ContentCoding.Aes128Gcm, ContentEncryption.Aes128GcmName, RecordAead.AesGcm, 16, "Content-Encoding: aes128gcm\0"u8.ToArray(), "Content-Encoding: nonce\0"u8.ToArray()),
        new(ContentCoding.Aes256GcmSiv, ContentEncryption.Aes256GcmSivName, RecordAead.AesGcmSiv, 32, "Content-Encoding: aes256gcmsiv\0"u8.ToArray(), "Content-Encoding: aes256gcmsiv nonce\0"u8.ToArray()),
    ];

    private readonly byte[] _keyInfo;
    private readonly byte[] _nonceInfo;

    private ContentCodingInfo(ContentCoding coding, string name, RecordAead aead, int keySize, byte[] keyInfo, byte[] nonceInfo)
    {
        Coding = coding;
        Name = name;
        Aead = aead;
        KeySize = keySize;
        _keyInfo = keyInfo;
        _nonceInfo = nonceInfo;
    }

    /// <summary>The AEAD a coding seals its records with.</summary>
    public enum RecordAead
    {
        /// <summary>.NET's <see cref="System.Security.Cryptography.AesGcm"/>.</summary>
        AesGcm,

        /// <summary>This library's <see cref="Cryptography.AesGcmSiv"/>.</summary>
        AesGcmSiv,
    }

    public ContentCoding Coding { get; }

    /// <summary>The HTTP <c>Content-Encoding</c> name.</summary>
    public string Name { get; }

    public RecordAead Aead { get; }

    /// <summary>The content-encryption key's length in bytes.</summary>
    public int KeySize { get; }

    /// <summary>The HKDF info of the content-encryption key, its final 0x00 included.</summary>
    public ReadOnlySpan<byte> KeyInfo => _keyInfo;

    /// <summary>The HKDF info of the nonce base, its final 0x00 included.</summary>
    public ReadOnlySpan<byte> NonceInfo => _nonceInfo;

    /// <summary>The facts of <paramref name="coding"/>; throws for a value outside the enum.</summary>
    public static ContentCodingInfo Of(ContentCoding coding, string parameterName = "coding")
    {
        Validate(coding, parameterName);
        return Table[(int)coding];
    }

    /// <summary>The coding a name stands for (case-insensitive), or null.</summary>
    public static ContentCodingInfo? FindByName(string? name)
    {
        foreach (ContentCodingInfo info in Table)
        {
            if (string.Equals(name, info.Name, StringComparison.OrdinalIgnoreCase))
            {
                return info;
            }
        }

        return null;
    }

    public static void Validate(ContentCoding coding, string parameterName)
    {
        if ((uint)coding >= (uint)Table.Length)
        {
            throw new ArgumentOutOfRangeException(parameterName, coding, ContentEncodingMessages.UnknownCoding);
        }
    }
}
