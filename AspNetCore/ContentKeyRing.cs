// An in-memory IContentKeyRing: each key in a pinned array (never moved by the GC, so no stray copy), wiped when it is
// removed or the ring is disposed. Key ids are not secret: they travel in every body's header.

using System;
using System.Collections.Generic;
using System.Security.Cryptography;
using System.Text;
using Cryptography.ContentEncoding;

namespace Cryptography.AspNetCore;

/// <summary>An <see cref="IContentKeyRing"/> that holds its keys in memory, pinned, and wipes them when they are removed or the
/// ring is disposed.</summary>
/// <remarks>Safe for concurrent use: keys may be added and removed (rotated) while requests are served. A key serves both
/// codings. Disposing the ring (the dependency-injection container does so when it created it) wipes every key; a body that
/// needs a key after that fails with <see cref="ObjectDisposedException"/>.</remarks>
/// <example>
/// <code>
/// var keys = new ContentKeyRing().Add("k1", inputKeyingMaterial);
/// </code>
/// </example>
public sealed class ContentKeyRing : IContentKeyRing, IDisposable
{
    private readonly List<(byte[] KeyId, byte[] Key)> _keys = [];
    private bool _disposed;

    /// <summary>Adds a key.</summary>
    /// <param name="keyId">The key id bodies name it by: at most 255 bytes, possibly empty.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM): 1 to <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes. It is copied.</param>
    /// <returns>This ring, so that keys can be added in one expression.</returns>
    /// <exception cref="ArgumentException">The key id is longer than 255 bytes or already in the ring, or the keying material is
    /// empty or longer than <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.</exception>
    /// <exception cref="ObjectDisposedException">The ring has been disposed.</exception>
    public ContentKeyRing Add(ReadOnlySpan<byte> keyId, ReadOnlySpan<byte> inputKeyingMaterial)
    {
        if (keyId.Length > 255)
        {
            throw new ArgumentException("The key id must be at most 255 bytes.", nameof(keyId));
        }

        if (inputKeyingMaterial.IsEmpty || inputKeyingMaterial.Length > ContentEncryption.MaxKeyingMaterialSize)
        {
            throw new ArgumentException($"The input keying material must be 1 to {ContentEncryption.MaxKeyingMaterialSize} bytes long.", nameof(inputKeyingMaterial));
        }

        byte[] key = GC.AllocateUninitializedArray<byte>(inputKeyingMaterial.Length, pinned: true);
        inputKeyingMaterial.CopyTo(key);
        lock (_keys)
        {
            if (_disposed)
            {
                CryptographicOperations.ZeroMemory(key);
                throw new ObjectDisposedException(nameof(ContentKeyRing));
            }

            if (IndexOf(keyId) >= 0)
            {
                CryptographicOperations.ZeroMemory(key);
                throw new ArgumentException("The ring already has a key with this key id.", nameof(keyId));
            }

            _keys.Add((keyId.ToArray(), key));
        }

        return this;
    }

    /// <summary>Adds a key whose key id is the UTF-8 encoding of <paramref name="keyId"/>.</summary>
    /// <param name="keyId">The key id: at most 255 bytes in UTF-8.</param>
    /// <param name="inputKeyingMaterial">The shared secret (IKM): 1 to <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes. It is copied.</param>
    /// <returns>This ring.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> is <see langword="null"/>.</exception>
    /// <inheritdoc cref="Add(ReadOnlySpan{byte}, ReadOnlySpan{byte})" path="/exception"/>
    public ContentKeyRing Add(string keyId, ReadOnlySpan<byte> inputKeyingMaterial)
    {
        ArgumentNullException.ThrowIfNull(keyId);
        return Add(Encoding.UTF8.GetBytes(keyId), inputKeyingMaterial);
    }

    /// <summary>Removes a key and wipes it: bodies naming its key id are refused from then on.</summary>
    /// <param name="keyId">The key id.</param>
    /// <returns><see langword="true"/> when the ring had the key.</returns>
    /// <exception cref="ObjectDisposedException">The ring has been disposed.</exception>
    public bool Remove(ReadOnlySpan<byte> keyId)
    {
        lock (_keys)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            int index = IndexOf(keyId);
            if (index < 0)
            {
                return false;
            }

            CryptographicOperations.ZeroMemory(_keys[index].Key);
            _keys.RemoveAt(index);
            return true;
        }
    }

    /// <inheritdoc/>
    /// <exception cref="ObjectDisposedException">The ring has been disposed.</exception>
    public bool TryCopyKey(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten)
    {
        lock (_keys)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            int index = IndexOf(keyId);
            if (index < 0)
            {
                bytesWritten = 0;
                return false;
            }

            byte[] key = _keys[index].Key;
            key.CopyTo(destination);
            bytesWritten = key.Length;
            return true;
        }
    }

    /// <summary>Wipes every key. Later calls throw <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose()
    {
        lock (_keys)
        {
            _disposed = true;
            foreach ((_, byte[] key) in _keys)
            {
                CryptographicOperations.ZeroMemory(key);
            }

            _keys.Clear();
        }
    }

    private int IndexOf(ReadOnlySpan<byte> keyId)
    {
        for (int i = 0; i < _keys.Count; i++)
        {
            if (keyId.SequenceEqual(_keys[i].KeyId))
            {
                return i;
            }
        }

        return -1;
    }
}
