// Where the middleware gets its keys: resolved from dependency injection by key id, as ASP.NET Core's Data
// Protection resolves its keys from a key ring. The signature is ContentKeyProvider's, so a ring's method is a
// provider and the key goes straight into the library's buffer, which it wipes once the body's keys are derived.

using System;
using Cryptography.ContentEncoding;

namespace Cryptography.AspNetCore;

/// <summary>The keys the encrypted-content middleware decrypts request bodies and encrypts responses with, by key id.</summary>
/// <remarks>
/// <para>Register one as a singleton (<see cref="ContentKeyRing"/> keeps keys in memory; an implementation of your own can read
/// them from a vault). The middleware calls <see cref="TryCopyKey"/> once per encrypted body, from any thread, so an
/// implementation must be safe for concurrent use.</para>
/// </remarks>
public interface IContentKeyRing
{
    /// <summary>Writes the input keying material for <paramref name="keyId"/> into <paramref name="destination"/>, a buffer the
    /// library owns and wipes as soon as it has derived the body's keys (see <see cref="ContentKeyProvider"/>).</summary>
    /// <param name="keyId">The key id: a request body's header's, or the one responses are encrypted under
    /// (<see cref="ContentEncodingOptions.KeyId"/> of <see cref="EncryptedContentOptions.Responses"/>). Possibly empty.</param>
    /// <param name="coding">The coding of the body.</param>
    /// <param name="destination">Receives the keying material: room for <see cref="ContentEncryption.MaxKeyingMaterialSize"/> bytes.</param>
    /// <param name="bytesWritten">The keying material's length (at least 1).</param>
    /// <returns><see langword="true"/> when the key id is known; <see langword="false"/> when it is not (the request is answered
    /// 400 Bad Request).</returns>
    bool TryCopyKey(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten);
}
