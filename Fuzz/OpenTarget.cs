// The "open" target: AesGcmSiv.Open into an array and into a buffer, the nonce-carrying form (nonce || ciphertext || tag).
// Byte 0: bit 0 picks a 16- or 32-byte key; bit 1 the mode.
//   raw mode:    the rest is a sealed message, opened as it is (afl-fuzz cannot forge a tag, so this
//                checks the refusals: length, tag, and that nothing is handed out).
//   sealed mode: byte 1 is the associated data's length, bytes 2-3 a tamper word, then the associated
//                data, then the plaintext. The harness seals it; when byte 0's bit 2 is set it flips
//                one bit (chosen by the tamper word) of the sealed message, bit 3 truncates it, bit 4
//                flips one bit of the associated data. An untouched message must open to the plaintext,
//                through Open, Open into a buffer and Open into a buffer in place; a touched one must be refused.
// Checks on every refusal: the exception is the documented one (AuthenticationTagMismatchException, below
// 28 bytes too: issue 50, item 4; never ArgumentException), the same from every form, and the destination is zeroed.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;

namespace Fuzz;

public static class OpenTarget
{
    private static readonly byte[] Key128 = Enumerable.Range(0, 16).Select(i => (byte)(0x30 + i)).ToArray();
    private static readonly byte[] Key256 = Enumerable.Range(0, 32).Select(i => (byte)(0x50 + i)).ToArray();
    private static readonly AesGcmSiv Aead128 = new(Key128);
    private static readonly AesGcmSiv Aead256 = new(Key256);

    public static void Run(byte[] input)
    {
        if (input.Length == 0)
        {
            return;
        }

        AesGcmSiv aead = (input[0] & 1) == 0 ? Aead128 : Aead256;
        if ((input[0] & 2) == 0)
        {
            CheckRefusedOrOpened(aead, input[1..], [], expected: null);
            return;
        }

        ReadOnlySpan<byte> rest = input.AsSpan(1);
        int aadLength = rest.Length > 0 ? rest[0] : 0;
        int tamper = rest.Length > 2 ? rest[1] | (rest[2] << 8) : 0;
        rest = rest[Math.Min(3, rest.Length)..];
        byte[] aad = rest[..Math.Min(aadLength, rest.Length)].ToArray();
        byte[] plaintext = rest[aad.Length..].ToArray();

        byte[] sealedMessage = aead.Seal(plaintext, aad);
        Finding.Check(sealedMessage.Length == plaintext.Length + AesGcmSiv.SealOverhead, "Seal returned the wrong length");
        bool touched = false;
        if ((input[0] & 4) != 0)
        {
            int bit = tamper % (sealedMessage.Length * 8);
            sealedMessage[bit / 8] ^= (byte)(1 << (bit % 8));
            touched = true;
        }

        if ((input[0] & 8) != 0)
        {
            sealedMessage = sealedMessage[..(sealedMessage.Length - 1 - (tamper % sealedMessage.Length))];
            touched = true;
        }

        if ((input[0] & 16) != 0 && aad.Length > 0)
        {
            int bit = (tamper >> 3) % (aad.Length * 8);
            aad[bit / 8] ^= (byte)(1 << (bit % 8));
            touched = true;
        }

        CheckRefusedOrOpened(aead, sealedMessage, aad, touched ? null : plaintext);
        if (touched)
        {
            // A touched message must not open: any success is a forgery.
            try
            {
                aead.Open(sealedMessage, aad);
                throw new Finding("a tampered sealed message opened");
            }
            catch (AuthenticationTagMismatchException)
            {
            }
        }
    }

    // Opens through every form. expected null: any outcome, as long as the forms agree and a refusal is
    // clean; otherwise the message must open to expected.
    private static void CheckRefusedOrOpened(AesGcmSiv aead, byte[] sealedMessage, byte[] aad, byte[]? expected)
    {
        Type? refusal = null;
        byte[]? opened = null;
        try
        {
            opened = aead.Open(sealedMessage, aad);
        }
        catch (Exception exception) when (exception is ArgumentException or AuthenticationTagMismatchException)
        {
            refusal = exception.GetType();
        }

        bool tooShort = sealedMessage.Length < AesGcmSiv.SealOverhead;
        Finding.Check(refusal != typeof(ArgumentException), $"Open of {sealedMessage.Length} bytes threw ArgumentException: untrusted input fails as a CryptographicException");
        Finding.Check(!tooShort || refusal == typeof(AuthenticationTagMismatchException), $"Open of {sealedMessage.Length} bytes did not throw AuthenticationTagMismatchException");
        if (expected is not null)
        {
            Finding.Check(opened is not null && opened.AsSpan().SequenceEqual(expected), "an untouched sealed message did not open to its plaintext");
        }

        // Open into a buffer a separate destination, with room to spare (which must stay untouched).
        byte[] destination = new byte[Math.Max(0, sealedMessage.Length - AesGcmSiv.SealOverhead) + 7];
        destination.AsSpan().Fill(0xEE);
        Type? intoRefusal = null;
        try
        {
            int length = aead.Open(sealedMessage, aad, destination);
            Finding.Check(opened is not null && length == opened.Length && destination.AsSpan(0, length).SequenceEqual(opened), "Open into a buffer disagrees with Open");
        }
        catch (Exception exception) when (exception is ArgumentException or AuthenticationTagMismatchException)
        {
            intoRefusal = exception.GetType();
        }

        Finding.Check(intoRefusal == refusal, $"Open refused with {refusal?.Name ?? "nothing"}, Open into a buffer with {intoRefusal?.Name ?? "nothing"}");
        int plaintextLength = Math.Max(0, sealedMessage.Length - AesGcmSiv.SealOverhead);
        if (refusal == typeof(AuthenticationTagMismatchException))
        {
            Finding.Check(destination.AsSpan(0, plaintextLength).IndexOfAnyExcept((byte)0) < 0, "a refused Open into a buffer left data in its destination");
        }

        Finding.Check(destination.AsSpan(plaintextLength).IndexOfAnyExcept((byte)0xEE) < 0, "Open into a buffer wrote past the plaintext's length");

        // In place: the plaintext lands where the ciphertext was (destination = message[12..]).
        if (!tooShort)
        {
            byte[] inPlace = (byte[])sealedMessage.Clone();
            Type? inPlaceRefusal = null;
            try
            {
                int length = aead.Open(inPlace, aad, inPlace.AsSpan(AesGcmSiv.NonceByteSizes.MinSize));
                Finding.Check(opened is not null && inPlace.AsSpan(AesGcmSiv.NonceByteSizes.MinSize, length).SequenceEqual(opened), "Open into a buffer in place disagrees with Open");
            }
            catch (AuthenticationTagMismatchException exception)
            {
                inPlaceRefusal = exception.GetType();
                Finding.Check(inPlace.AsSpan(AesGcmSiv.NonceByteSizes.MinSize, plaintextLength).IndexOfAnyExcept((byte)0) < 0, "a refused Open into a buffer in place left data behind");
            }

            Finding.Check(inPlaceRefusal == refusal, "Open into a buffer in place and Open disagree");
        }
    }

    public static IEnumerable<byte[]> Seeds()
    {
        foreach (byte mode in new byte[] { 2, 3, 2 | 4, 3 | 8, 2 | 16 })
        {
            yield return [mode, 5, 0x34, 0x12, .. "aad!!"u8, .. "a plaintext of some forty bytes, or so.."u8];
            yield return [mode, 0, 0, 0];
        }

        yield return [0, .. new byte[28]];
        yield return [1, .. new byte[60]];
        yield return [0, .. new byte[27]];
    }
}
