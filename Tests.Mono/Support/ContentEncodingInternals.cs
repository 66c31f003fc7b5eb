// Tests/ContentEncoding/Support/Internals.cs for .NET Framework: [UnsafeAccessor] needs .NET 8, so
// the same accessors read the fields by reflection, failing (MissingFieldException) when a field is
// renamed, as the original does. They return a ref to a copy: the tests read through them.

using System;
using System.Collections.Concurrent;
using System.Reflection;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;

namespace Tests.ContentEncodingTests;

internal static class Internals
{
    public static byte[] NonceBase(ContentEncryptor encryptor) => NonceBase(Cipher(encryptor));

    public static byte[] NonceBase(ContentDecryptor decryptor) => NonceBase(Cipher(decryptor));

    public static ref byte[] NonceBase(RecordCipher cipher) => ref Field<byte[]>(cipher, typeof(RecordCipher), "_nonceBase");

    public static ref RecordCipher Cipher(ContentEncryptor encryptor) => ref Field<RecordCipher>(encryptor, typeof(ContentEncryptor), "_cipher");

    public static ref RecordCipher Cipher(ContentDecryptor decryptor) => ref Field<RecordCipher>(decryptor, typeof(ContentDecryptor), "_cipher");

    public static ref byte[] Key(RecordCipher.AesGcmRecordCipher cipher) => ref Field<byte[]>(cipher, typeof(RecordCipher.AesGcmRecordCipher), "_key");

    public static ref ContentEncryptor Encryptor(ContentEncryptingStream stream) => ref Field<ContentEncryptor>(stream, typeof(ContentEncryptingStream), "_encryptor");

    public static ref ContentDecryptor? Decryptor(ContentDecryptingStream stream) => ref Field<ContentDecryptor?>(stream, typeof(ContentDecryptingStream), "_decryptor");

    public static ref byte[]? Record(ContentEncryptingStream stream) => ref Field<byte[]?>(stream, typeof(ContentEncryptingStream), "_buffer");

    public static byte[]? Record(ContentDecryptingStream stream) => Batch(stream)?.Buffer;

    public static ref ContentDecryptingStream.Batch? Batch(ContentDecryptingStream stream) => ref Field<ContentDecryptingStream.Batch?>(stream, typeof(ContentDecryptingStream), "_batch");

    public static ref byte[]? Spare(ContentEncryptingStream stream) => ref Field<byte[]?>(stream, typeof(ContentEncryptingStream), "_spare");

    public static ref ContentDecryptingStream.Batch? Spare(ContentDecryptingStream stream) => ref Field<ContentDecryptingStream.Batch?>(stream, typeof(ContentDecryptingStream), "_spare");

    public static ref byte[]? InputKeyingMaterial(ContentDecryptingStream stream) => ref Field<byte[]?>(stream, typeof(ContentDecryptingStream), "_inputKeyingMaterial");

    public static ref byte[] InputKeyingMaterial(EncryptedHttpContent content) => ref Field<byte[]>(content, typeof(EncryptedHttpContent), "_inputKeyingMaterial");

    public static ConcurrentQueue<byte[]>[] PinnedBufferPools => PinnedBuffers.PoolsForTests;

    private static ref T Field<T>(object instance, Type type, string name)
    {
        FieldInfo field = type.GetField(name, BindingFlags.Instance | BindingFlags.NonPublic)
            ?? throw new MissingFieldException(type.Name, name);
        T[] holder = [(T)field.GetValue(instance)!];
        return ref holder[0];
    }
}
