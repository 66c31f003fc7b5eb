// Key providers for the tests: the library's provider writes the key into a buffer the library
// owns and wipes (ContentKeyProvider), so a test's fixed key is copied there.

using System;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Tests.ContentEncodingTests;

internal static class KeyProviders
{
    /// <summary>A provider that knows no key id.</summary>
    public static readonly ContentKeyProvider None = (ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten) =>
    {
        bytesWritten = 0;
        return false;
    };

    /// <summary>A provider that gives <paramref name="key"/> for every key id.</summary>
    public static ContentKeyProvider Always(byte[] key) =>
        (ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten) => Write(key, destination, out bytesWritten);

    /// <summary>Writes <paramref name="key"/>, if there is one, as a provider does.</summary>
    public static bool Write(byte[]? key, Span<byte> destination, out int bytesWritten)
    {
        bytesWritten = key?.Length ?? 0;
        key?.CopyTo(destination);
        return key is not null;
    }
}
