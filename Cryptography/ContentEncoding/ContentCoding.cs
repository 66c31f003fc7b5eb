// The two content codings this library speaks, with their HTTP names and HKDF labels:
//   aes128gcm    RFC 8188 section 2 ("Encrypted Content-Encoding for HTTP"), the IETF standard
//                Web Push uses: AES-128-GCM records.
//   aes256gcmsiv this library's own coding, NOT an IETF standard: the same framing (RFC 8188
//                header, record sequence, padding delimiters) with AEAD_AES_256_GCM_SIV (RFC 8452)
//                records, a 32-byte content-encryption key and its own HKDF labels, so that keys
//                and nonces derived for one coding are never those of the other.

using System;
using Cryptography.Internal;

namespace Cryptography;

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

/// <summary>Per-coding constants: key size, HKDF labels, HTTP name.</summary>
internal static class ContentCodingInfo
{
    public static int KeySize(ContentCoding coding) => coding == ContentCoding.Aes128Gcm ? 16 : 32;

    // RFC 8188 section 2.2: "Content-Encoding: aes128gcm" || 0x00 (HKDF-Expand appends the 0x01).
    public static ReadOnlySpan<byte> KeyInfo(ContentCoding coding) => coding == ContentCoding.Aes128Gcm
        ? "Content-Encoding: aes128gcm\0"u8
        : "Content-Encoding: aes256gcmsiv\0"u8;

    // RFC 8188 section 2.3: "Content-Encoding: nonce" || 0x00. The GCM-SIV coding has a label of its
    // own so that the same IKM and salt never yield the same nonce base under both codings.
    public static ReadOnlySpan<byte> NonceInfo(ContentCoding coding) => coding == ContentCoding.Aes128Gcm
        ? "Content-Encoding: nonce\0"u8
        : "Content-Encoding: aes256gcmsiv nonce\0"u8;

    public static void Validate(ContentCoding coding, string parameterName)
    {
        if (coding is not (ContentCoding.Aes128Gcm or ContentCoding.Aes256GcmSiv))
        {
            throw new ArgumentOutOfRangeException(parameterName, coding, ContentEncodingMessages.UnknownCoding);
        }
    }
}
