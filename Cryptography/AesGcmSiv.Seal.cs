// Random-nonce helpers: Seal and Open carry the nonce inside the message, as
// nonce (12 bytes) || ciphertext || tag (16 bytes), so callers never handle nonces at all.
//
// Writing into a caller's buffer follows .NET's pattern: int Seal(..., destination) throws when the
// buffer is too short, bool TrySeal(..., destination, out bytesWritten) returns false. The
// associated data comes before the destination and has no default there: with arrays, a call
// Seal(plaintext, buffer) must not be able to bind to an overload that reads the buffer as
// associated data, or the other way round, so the forms differ in their number of arguments.

using System;
using System.Globalization;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography;

public sealed partial class AesGcmSiv
{
    /// <summary>The bytes <see cref="Seal(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> adds to a plaintext: a 12-byte nonce and a 16-byte tag.</summary>
    public const int SealOverhead = NonceSize + TagSize;

    /// <summary>The length of a sealed message for a plaintext of the given length.</summary>
    /// <param name="plaintextLength">The plaintext's length in bytes.</param>
    /// <returns><paramref name="plaintextLength"/> + <see cref="SealOverhead"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plaintextLength"/> is negative, or the result would not fit an <see cref="int"/>.</exception>
    public static int GetSealedLength(int plaintextLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(plaintextLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(plaintextLength, int.MaxValue - SealOverhead);
        return plaintextLength + SealOverhead;
    }

    /// <summary>The length of the plaintext inside a sealed message of the given length.</summary>
    /// <param name="sealedLength">The sealed message's length in bytes.</param>
    /// <returns><paramref name="sealedLength"/> − <see cref="SealOverhead"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="sealedLength"/> is less than <see cref="SealOverhead"/>.</exception>
    public static int GetOpenedLength(int sealedLength)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(sealedLength, SealOverhead);
        return sealedLength - SealOverhead;
    }

    /// <summary>
    /// Encrypts with a fresh random nonce and returns nonce || ciphertext || tag. See the "Nonce
    /// safety" docs page for how many messages one key may seal.
    /// </summary>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="associatedData">Data authenticated but not encrypted; <see cref="Open(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> needs the same.</param>
    /// <returns>A new array of <see cref="GetSealedLength"/>(<paramref name="plaintext"/>.Length) bytes.</returns>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public byte[] Seal(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        byte[] sealedMessage = new byte[GetSealedLength(plaintext.Length)];
        TrySeal(plaintext, associatedData, sealedMessage, out _);
        return sealedMessage;
    }

    /// <summary>Encrypts with a fresh random nonce, writing nonce || ciphertext || tag into <paramref name="destination"/>.</summary>
    /// <param name="plaintext">The content to encrypt. It may lie exactly at <paramref name="destination"/>[12..] (in place) but must not overlap it otherwise.</param>
    /// <param name="associatedData">Data authenticated but not encrypted (may be empty).</param>
    /// <param name="destination">Receives the sealed message; at least <see cref="GetSealedLength"/>(<paramref name="plaintext"/>.Length) bytes.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too short (the message says how long it must be), or overlaps <paramref name="plaintext"/> other than in place.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int Seal(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> associatedData, Span<byte> destination) =>
        TrySeal(plaintext, associatedData, destination, out int written) ? written : throw DestinationTooShort(destination.Length, GetSealedLength(plaintext.Length));

    /// <summary>Encrypts with a fresh random nonce into <paramref name="destination"/>, unless it is too short.</summary>
    /// <param name="plaintext">The content to encrypt. It may lie exactly at <paramref name="destination"/>[12..] (in place) but must not overlap it otherwise.</param>
    /// <param name="associatedData">Data authenticated but not encrypted (may be empty).</param>
    /// <param name="destination">Receives nonce || ciphertext || tag.</param>
    /// <param name="bytesWritten">The sealed message's length, or 0 when <paramref name="destination"/> is shorter than <see cref="GetSealedLength"/>(<paramref name="plaintext"/>.Length).</param>
    /// <returns><see langword="false"/> when <paramref name="destination"/> is too short (nothing is written).</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> overlaps <paramref name="plaintext"/> other than in place.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public bool TrySeal(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> associatedData, Span<byte> destination, out int bytesWritten)
    {
        int length = GetSealedLength(plaintext.Length);
        bytesWritten = 0;
        if (destination.Length < length)
        {
            return false;
        }

        destination = destination[..length];
        // Overlaps reports destination's offset from plaintext: -12 when plaintext sits exactly at destination[12..].
        if (plaintext.Overlaps(destination, out int offset) && offset != -NonceSize)
        {
            throw new ArgumentException(Messages.OverlappingBuffers, nameof(destination));
        }

        Span<byte> nonce = stackalloc byte[NonceSize];
        RandomNonce.Fill(nonce);
        Encrypt(nonce, plaintext, destination[NonceSize..^TagSize], destination[^TagSize..], associatedData);
        nonce.CopyTo(destination); // after encrypting: an in-place plaintext starts right behind it
        bytesWritten = length;
        return true;
    }

    /// <summary>Verifies and decrypts a message made by <see cref="Seal(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>.</summary>
    /// <param name="sealedMessage">nonce || ciphertext || tag.</param>
    /// <param name="associatedData">The associated data it was sealed with.</param>
    /// <returns>A new array with the plaintext.</returns>
    /// <exception cref="AuthenticationTagMismatchException">The message, associated data or key is wrong, or <paramref name="sealedMessage"/>
    /// is shorter than <see cref="SealOverhead"/> (too short to be a sealed message).</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public byte[] Open(ReadOnlySpan<byte> sealedMessage, ReadOnlySpan<byte> associatedData = default)
    {
        if (sealedMessage.Length < SealOverhead)
        {
            throw NotASealedMessage(sealedMessage.Length);
        }

        byte[] plaintext = new byte[sealedMessage.Length - SealOverhead];
        TryOpen(sealedMessage, associatedData, plaintext, out _);
        return plaintext;
    }

    /// <summary>Verifies and decrypts a sealed message into <paramref name="destination"/>.</summary>
    /// <param name="sealedMessage">nonce || ciphertext || tag.</param>
    /// <param name="associatedData">The associated data it was sealed with (may be empty).</param>
    /// <param name="destination">Receives the plaintext; at least <see cref="GetOpenedLength"/>(<paramref name="sealedMessage"/>.Length) bytes.
    /// It may lie exactly at <paramref name="sealedMessage"/>[12..] (in place). On failure the plaintext part is zeroed.</param>
    /// <returns>The number of plaintext bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too short (the message says how long it must be), or they overlap other than in place.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The message, associated data or key is wrong, or <paramref name="sealedMessage"/>
    /// is shorter than <see cref="SealOverhead"/> (too short to be a sealed message).</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int Open(ReadOnlySpan<byte> sealedMessage, ReadOnlySpan<byte> associatedData, Span<byte> destination) =>
        TryOpen(sealedMessage, associatedData, destination, out int written) ? written : throw DestinationTooShort(destination.Length, sealedMessage.Length - SealOverhead);

    /// <summary>Verifies and decrypts a sealed message into <paramref name="destination"/>, unless it is too short.</summary>
    /// <param name="sealedMessage">nonce || ciphertext || tag.</param>
    /// <param name="associatedData">The associated data it was sealed with (may be empty).</param>
    /// <param name="destination">Receives the plaintext. It may lie exactly at <paramref name="sealedMessage"/>[12..] (in place). On failure the plaintext part is zeroed.</param>
    /// <param name="bytesWritten">The plaintext's length, or 0 when <paramref name="destination"/> is shorter than <see cref="GetOpenedLength"/>(<paramref name="sealedMessage"/>.Length).</param>
    /// <returns><see langword="false"/> when <paramref name="destination"/> is too short (nothing is decrypted). A message that does not verify throws.</returns>
    /// <exception cref="ArgumentException">The buffers overlap other than in place.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The message, associated data or key is wrong, or <paramref name="sealedMessage"/>
    /// is shorter than <see cref="SealOverhead"/> (too short to be a sealed message).</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public bool TryOpen(ReadOnlySpan<byte> sealedMessage, ReadOnlySpan<byte> associatedData, Span<byte> destination, out int bytesWritten)
    {
        if (sealedMessage.Length < SealOverhead)
        {
            throw NotASealedMessage(sealedMessage.Length);
        }

        int length = sealedMessage.Length - SealOverhead;
        bytesWritten = 0;
        if (destination.Length < length)
        {
            return false;
        }

        destination = destination[..length];
        ReadOnlySpan<byte> ciphertext = sealedMessage[NonceSize..^TagSize];
        if (ciphertext.Overlaps(destination, out int offset) && offset != 0)
        {
            throw new ArgumentException(Messages.OverlappingBuffers, nameof(destination));
        }

        // Decrypt copies nonce and tag before it writes, so a destination over them is safe.
        Decrypt(sealedMessage[..NonceSize], ciphertext, sealedMessage[^TagSize..], destination, associatedData);
        bytesWritten = length;
        return true;
    }

    // A sealed message arrives from outside: one too short to hold a nonce and a tag is one more
    // message this key did not seal, so it fails as a forged or damaged one does, with the exception
    // a receiver already catches (a CryptographicException, as docs/getting-started.md promises), not
    // as a caller's mistake. Its length is public, so saying "too short" tells an attacker nothing.
    private static AuthenticationTagMismatchException NotASealedMessage(int length) =>
        new(string.Format(CultureInfo.InvariantCulture, Messages.SealedMessageTooShort, length));

    private static ArgumentException DestinationTooShort(int length, int needed) =>
        new(string.Format(CultureInfo.InvariantCulture, Messages.DestinationTooShort, length, needed), "destination");
}
