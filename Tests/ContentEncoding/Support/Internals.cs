// Private state the record layer's tests look at to check what Dispose and failures wipe, read through
// [UnsafeAccessor]: checked by the runtime against the field's declared type, so a renamed or retyped
// field fails loudly (MissingFieldException) instead of a reflection lookup returning null.

using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;

namespace Tests.ContentEncodingTests;

internal static class Internals
{
    /// <summary>The nonce base of the cipher in a ContentEncryptor.</summary>
    public static byte[] NonceBase(ContentEncryptor encryptor) => NonceBase(Cipher(encryptor));

    /// <summary>The nonce base of the cipher in a ContentDecryptor.</summary>
    public static byte[] NonceBase(ContentDecryptor decryptor) => NonceBase(Cipher(decryptor));

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_nonceBase")]
    public static extern ref byte[] NonceBase(RecordCipher cipher);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_cipher")]
    public static extern ref RecordCipher Cipher(ContentEncryptor encryptor);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_cipher")]
    public static extern ref RecordCipher Cipher(ContentDecryptor decryptor);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_key")]
    public static extern ref byte[] Key(RecordCipher.AesGcmRecordCipher cipher);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_encryptor")]
    public static extern ref ContentEncryptor Encryptor(ContentEncryptingStream stream);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_decryptor")]
    public static extern ref ContentDecryptor? Decryptor(ContentDecryptingStream stream);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_buffer")]
    public static extern ref byte[]? Record(ContentEncryptingStream stream);

    /// <summary>The decrypting stream's record buffer (its current batch's).</summary>
    public static byte[]? Record(ContentDecryptingStream stream) => Batch(stream)?.Buffer;

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_batch")]
    public static extern ref ContentDecryptingStream.Batch? Batch(ContentDecryptingStream stream);

    /// <summary>The second buffer, which only the parallel path has (a background task writes from it).</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_spare")]
    public static extern ref byte[]? Spare(ContentEncryptingStream stream);

    /// <summary>The second batch, which only the parallel path has (a background task reads into it).</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_spare")]
    public static extern ref ContentDecryptingStream.Batch? Spare(ContentDecryptingStream stream);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_inputKeyingMaterial")]
    public static extern ref byte[]? InputKeyingMaterial(ContentDecryptingStream stream);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_inputKeyingMaterial")]
    public static extern ref byte[] InputKeyingMaterial(EncryptedHttpContent content);

    /// <summary>PinnedBuffers' pools, one per size class (a static field: read through the class's own member).</summary>
    public static ConcurrentQueue<byte[]>[] PinnedBufferPools => PinnedBuffers.PoolsForTests;
}
