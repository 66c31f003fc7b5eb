// Private state the record layer's tests look at to check what Dispose and failures wipe: one way
// to read a field, and the nonce base every RecordCipher keeps (wiped by its Dispose).

using System;
using System.Reflection;
using Cryptography.Internal;

namespace Tests.ContentEncodingTests;

internal static class Internals
{
    /// <summary>The private field <paramref name="name"/> of <paramref name="owner"/>, declared by
    /// <paramref name="declaredBy"/> (a base class's private field is not found through the subclass).</summary>
    public static T Field<T>(object owner, string name, Type? declaredBy = null) =>
        (T)(declaredBy ?? owner.GetType()).GetField(name, BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(owner)!;

    /// <summary>The nonce base of the cipher in a ContentEncryptor or ContentDecryptor.</summary>
    public static byte[] NonceBase(object encryptorOrDecryptor) =>
        Field<byte[]>(Field<RecordCipher>(encryptorOrDecryptor, "_cipher"), "_nonceBase", typeof(RecordCipher));
}
