// The record layer's options in one type, instead of the same optional parameters repeated across every
// constructor and one-shot method. Each value is checked when it is set, so a bad option fails where it is
// written, not at the first body.

using System;
using Cryptography.Internal;

namespace Cryptography.ContentEncoding;

/// <summary>How bodies are encoded and decoded: the coding, the record size and key id an encoder writes, the largest record
/// size a decoder accepts, and how many threads a stream may use.</summary>
/// <remarks>
/// <para>The defaults (<see cref="Default"/>) fit this library: <see cref="ContentCoding.Aes256GcmSiv"/>, because a repeated
/// salt (a broken random generator, a cloned virtual machine) then repeats keys and nonces without losing confidentiality
/// beyond equal records, where <see cref="ContentCoding.Aes128Gcm"/> loses it entirely (set <see cref="Coding"/> to it to talk
/// to RFC 8188 peers); 64 KiB records; no key id; a 16 MiB limit on the record size a decoder accepts; one thread, so a
/// stream starts no work of its own.</para>
/// <para>An instance is immutable once created and may be shared.</para>
/// </remarks>
public sealed class ContentEncodingOptions
{
    /// <summary>Gets the options used where none are given.</summary>
    public static ContentEncodingOptions Default { get; } = new();

    /// <summary>Gets the coding bodies are sealed with: <see cref="ContentCoding.Aes256GcmSiv"/> by default.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined coding.</exception>
    public ContentCoding Coding { get; init => field = ContentCodingInfo.Of(value, nameof(value)).Coding; } = ContentCoding.Aes256GcmSiv;

    /// <summary>Gets the record size an encoder writes, from <see cref="ContentEncryption.MinRecordSize"/>
    /// to <see cref="ContentEncryption.MaxRecordSize"/>: <see cref="ContentEncryption.DefaultRecordSize"/> (64 KiB) by default.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is out of range.</exception>
    public int RecordSize { get; init => field = ContentEncryption.ValidateRecordSize(value, nameof(value)); } = ContentEncryption.DefaultRecordSize;

    /// <summary>Gets the key id an encoder puts in the header, so the receiver can pick the key: at most
    /// 255 bytes, empty by default. The value is copied.</summary>
    /// <exception cref="ArgumentException">The value is longer than 255 bytes.</exception>
    public ReadOnlyMemory<byte> KeyId
    {
        get;
        init => field = value.Length <= 255 ? value.ToArray() : throw new ArgumentException(ContentEncodingMessages.KeyIdTooLong, nameof(value));
    }

    /// <summary>Gets the largest record size a decoder accepts, and so the largest buffer a decoding stream
    /// may grow to: <see cref="ContentEncryption.MaxRecordSize"/> (16 MiB) by default. Lower it where bodies come from strangers.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is below 18 or above <see cref="ContentEncryption.MaxRecordSize"/>.</exception>
    public int MaxRecordSize { get; init => field = ContentEncryption.ValidateRecordSize(value, nameof(value)); } = ContentEncryption.MaxRecordSize;

    /// <summary>Gets how many threads a stream may seal or open records on in a body larger than about
    /// 1 MiB; a background task then also writes or reads while the caller works. The default, 1, starts
    /// no background work (as CryptoStream and GZipStream start none). Above 1 is for a caller with cores
    /// to spare for one large body, such as a file tool.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxDegreeOfParallelism { get; init => field = RecordBatch.Validate(value, nameof(value)); } = 1;

    internal static ContentEncodingOptions Or(ContentEncodingOptions? options) => options ?? Default;
}
