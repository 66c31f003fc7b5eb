// The two content codings this library speaks, and ContentCodingInfo: what differs between them.

using System;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>An encrypted content coding: how the records of an RFC 8188 body are sealed.</summary>
public enum ContentCoding
{
    /// <summary>
    /// <c>aes128gcm</c>, RFC 8188 (the IETF standard, which Web Push uses): AES-128-GCM records, a 16-byte content-encryption
    /// key derived with the info "Content-Encoding: aes128gcm" and a 12-byte nonce base with "Content-Encoding: nonce".
    /// </summary>
    Aes128Gcm = 0,

    /// <summary>
    /// <c>aes256gcmsiv</c>, this library's coding (not an IETF standard): the RFC 8188 framing with AEAD_AES_256_GCM_SIV
    /// (RFC 8452) records, a 32-byte content-encryption key derived with the info "Content-Encoding: aes256gcmsiv" and a
    /// 12-byte nonce base with "Content-Encoding: aes256gcmsiv nonce". Use it where a repeated salt (and so a repeated key
    /// and nonce) must not be catastrophic; only peers using this library understand it.
    /// </summary>
    Aes256GcmSiv = 1,
}

/// <summary>
/// What differs between the codings, in one table: the HTTP name, the AEAD that seals the records, the content-encryption
/// key's size and the HKDF infos of the key and of the nonce base (each with its final 0x00). Everything else (framing, the
/// 12-byte nonce base, the 16-byte tag, the delimiter and padding) is RFC 8188 for both.
/// </summary>
internal sealed record ContentCodingInfo(ContentCoding Coding, string Name, ContentCodingInfo.RecordAead Aead, int KeySize, ReadOnlyMemory<byte> KeyInfo, ReadOnlyMemory<byte> NonceInfo)
{
    // RFC 8188 section 2.2: "Content-Encoding: aes128gcm" || 0x00, and section 2.3:
    // "Content-Encoding: nonce" || 0x00 (HKDF-Expand appends the 0x01). The GCM-SIV coding has labels
    // of its own so that the same IKM and salt never yield the same key or nonce base under both.
    private static readonly ContentCodingInfo[] Table =
    [
        new(ContentCoding.Aes128Gcm, ContentEncryption.Aes128GcmName, RecordAead.AesGcm, 16, "Content-Encoding: aes128gcm\0"u8.ToArray(), "Content-Encoding: nonce\0"u8.ToArray()),
        new(ContentCoding.Aes256GcmSiv, ContentEncryption.Aes256GcmSivName, RecordAead.AesGcmSiv, 32, "Content-Encoding: aes256gcmsiv\0"u8.ToArray(), "Content-Encoding: aes256gcmsiv nonce\0"u8.ToArray()),
    ];

    /// <summary>The AEAD a coding seals its records with: .NET's <see cref="System.Security.Cryptography.AesGcm"/>
    /// or this library's <see cref="Cryptography.AesGcmSiv"/>.</summary>
    public enum RecordAead
    {
        AesGcm,
        AesGcmSiv,
    }

    /// <summary>The facts of <paramref name="coding"/>; throws for a value outside the enum.</summary>
    public static ContentCodingInfo Of(ContentCoding coding, string parameterName = "coding") =>
        (uint)coding < (uint)Table.Length
            ? Table[(int)coding]
            : throw new ArgumentOutOfRangeException(parameterName, coding, ContentEncodingMessages.UnknownCoding);

    /// <summary>The coding a name stands for (case-insensitive), or null.</summary>
    public static ContentCodingInfo? FindByName(string? name) =>
        Array.Find(Table, info => string.Equals(name, info.Name, StringComparison.OrdinalIgnoreCase));
}
