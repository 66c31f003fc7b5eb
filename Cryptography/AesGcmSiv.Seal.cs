// Random-nonce helpers: Seal and Open carry the nonce inside the message, as
// nonce (12 bytes) || ciphertext || tag (16 bytes), so callers never handle nonces at all.
//
// The forms that write into a caller's buffer are named SealInto/OpenInto rather than being
// Seal/Open overloads: with arrays, Seal(plaintext, buffer) would bind to
// Seal(plaintext, associatedData) (C# prefers the ReadOnlySpan conversion), silently treating
// the buffer as associated data.

using System;
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
        SealInto(plaintext, sealedMessage, associatedData);
        return sealedMessage;
    }

    /// <summary>Encrypts with a fresh random nonce, writing nonce || ciphertext || tag into <paramref name="destination"/>.</summary>
    /// <param name="plaintext">The content to encrypt. It may lie exactly at <paramref name="destination"/>[12..] (in place) but must not overlap it otherwise.</param>
    /// <param name="destination">Receives the sealed message; at least <see cref="GetSealedLength"/>(<paramref name="plaintext"/>.Length) bytes.</param>
    /// <param name="associatedData">Data authenticated but not encrypted.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too short, or overlaps <paramref name="plaintext"/> other than in place.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int SealInto(ReadOnlySpan<byte> plaintext, Span<byte> destination, ReadOnlySpan<byte> associatedData = default)
    {
        int length = GetSealedLength(plaintext.Length);
        if (destination.Length < length)
        {
            throw new ArgumentException(Messages.DestinationTooShort, nameof(destination));
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
        return length;
    }

    /// <summary>Verifies and decrypts a message made by <see cref="Seal(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>.</summary>
    /// <param name="sealedMessage">nonce || ciphertext || tag.</param>
    /// <param name="associatedData">The associated data it was sealed with.</param>
    /// <returns>A new array with the plaintext.</returns>
    /// <exception cref="ArgumentException"><paramref name="sealedMessage"/> is shorter than <see cref="SealOverhead"/>.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The message, associated data or key is wrong.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public byte[] Open(ReadOnlySpan<byte> sealedMessage, ReadOnlySpan<byte> associatedData = default)
    {
        if (sealedMessage.Length < SealOverhead)
        {
            throw new ArgumentException(Messages.SealedMessageTooShort, nameof(sealedMessage));
        }

        byte[] plaintext = new byte[sealedMessage.Length - SealOverhead];
        OpenInto(sealedMessage, plaintext, associatedData);
        return plaintext;
    }

    /// <summary>Verifies and decrypts a sealed message into <paramref name="destination"/>.</summary>
    /// <param name="sealedMessage">nonce || ciphertext || tag.</param>
    /// <param name="destination">Receives the plaintext; at least <see cref="GetOpenedLength"/>(<paramref name="sealedMessage"/>.Length) bytes.
    /// It may lie exactly at <paramref name="sealedMessage"/>[12..] (in place). On failure the plaintext part is zeroed.</param>
    /// <param name="associatedData">The associated data it was sealed with.</param>
    /// <returns>The number of plaintext bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="sealedMessage"/> is shorter than <see cref="SealOverhead"/>, <paramref name="destination"/> is too short, or they overlap other than in place.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The message, associated data or key is wrong.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed.</exception>
    public int OpenInto(ReadOnlySpan<byte> sealedMessage, Span<byte> destination, ReadOnlySpan<byte> associatedData = default)
    {
        if (sealedMessage.Length < SealOverhead)
        {
            throw new ArgumentException(Messages.SealedMessageTooShort, nameof(sealedMessage));
        }

        int length = sealedMessage.Length - SealOverhead;
        if (destination.Length < length)
        {
            throw new ArgumentException(Messages.DestinationTooShort, nameof(destination));
        }

        destination = destination[..length];
        ReadOnlySpan<byte> ciphertext = sealedMessage[NonceSize..^TagSize];
        if (ciphertext.Overlaps(destination, out int offset) && offset != 0)
        {
            throw new ArgumentException(Messages.OverlappingBuffers, nameof(destination));
        }

        // Decrypt copies nonce and tag before it writes, so a destination over them is safe.
        Decrypt(sealedMessage[..NonceSize], ciphertext, sealedMessage[^TagSize..], destination, associatedData);
        return length;
    }
}
