// The "differential" target: every backend this machine has (Backends.Supported(): on x64 with
// VPCLMULQDQ, AesNiVpclmulqdq, AesNiPclmulqdq, BitslicedVector and Portable; on ARM64, Arm64,
// BitslicedVector and Portable) must give the same bytes and the same accept/reject for the same
// input: hardware and SIMD software against the constant-time portable code. The seeds of 1 KiB and
// 4 KiB reach BitslicedVector's wide paths (16-block CTR passes from 256 bytes, two POLYVAL chains
// from four blocks).
// Byte 0: bit 0 picks a 16- or 32-byte key; bit 1 the mode; bits 2-3 what to tamper with.
//   seal mode: key, nonce (12), an associated-data length byte, associated data, plaintext, all from
//              the input (zero-filled when it runs out). Every backend encrypts; ciphertexts and tags
//              must agree, and every backend must decrypt every backend's output. Then, per bits 2-3,
//              one bit of the ciphertext, tag, nonce or associated data is flipped (position from byte 1
//              and the length) and every backend must refuse it and zero its output.
//   raw mode:  key, nonce (12), tag (16), associated-data length byte, associated data, ciphertext, all
//              from the input; every backend decrypts and they must agree (accept and output, or refuse
//              with a zeroed output).

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.Internal;

namespace Fuzz;

public static class DifferentialTarget
{
    private static readonly AesGcmSivBackend[] Supported = Backends.Supported();

    public static void Run(byte[] input)
    {
        if (input.Length < 2)
        {
            return;
        }

        int keyLength = (input[0] & 1) == 0 ? 16 : 32;
        bool raw = (input[0] & 2) != 0;
        int tamperTarget = (input[0] >> 2) & 3;
        int tamperPosition = input[1];
        var reader = new Reader(input.AsSpan(2));
        byte[] key = reader.Take(keyLength);
        byte[] nonce = reader.Take(12);
        byte[] tag = raw ? reader.Take(16) : new byte[16];
        byte[] aad = reader.Take(reader.Byte());
        byte[] text = reader.Rest();

        AesGcmSiv[] aeads = Supported.Select(backend => new AesGcmSiv(key, backend)).ToArray();
        try
        {
            if (raw)
            {
                DecryptEverywhere(aeads, nonce, text, tag, aad, expected: null, mustRefuse: false);
                return;
            }

            byte[]? ciphertext = null;
            for (int i = 0; i < aeads.Length; i++)
            {
                byte[] c = new byte[text.Length];
                byte[] t = new byte[16];
                aeads[i].Encrypt(nonce, text, c, t, aad);
                if (ciphertext is null)
                {
                    ciphertext = c;
                    tag = t;
                }
                else
                {
                    Finding.Check(c.AsSpan().SequenceEqual(ciphertext) && t.AsSpan().SequenceEqual(tag), $"{Supported[i]} encrypts differently from {Supported[0]} ({text.Length} bytes, aad {aad.Length}, key {keyLength})");
                }
            }

            DecryptEverywhere(aeads, nonce, ciphertext!, tag, aad, expected: text, mustRefuse: false);

            byte[] field = tamperTarget switch
            {
                0 => ciphertext!,
                1 => tag,
                2 => nonce,
                _ => aad,
            };
            if (field.Length == 0)
            {
                return;
            }

            int bit = (tamperPosition * 8 + (tamperPosition >> 5)) % (field.Length * 8);
            field[bit / 8] ^= (byte)(1 << (bit % 8));
            DecryptEverywhere(aeads, nonce, ciphertext!, tag, aad, expected: null, mustRefuse: true);
        }
        finally
        {
            foreach (AesGcmSiv aead in aeads)
            {
                aead.Dispose();
            }
        }
    }

    private static void DecryptEverywhere(AesGcmSiv[] aeads, byte[] nonce, byte[] ciphertext, byte[] tag, byte[] aad, byte[]? expected, bool mustRefuse)
    {
        bool? firstAccepted = null;
        byte[]? firstPlaintext = null;
        for (int i = 0; i < aeads.Length; i++)
        {
            byte[] plaintext = new byte[ciphertext.Length];
            plaintext.AsSpan().Fill(0xA5);
            bool accepted;
            try
            {
                aeads[i].Decrypt(nonce, ciphertext, tag, plaintext, aad);
                accepted = true;
            }
            catch (AuthenticationTagMismatchException)
            {
                accepted = false;
                Finding.Check(plaintext.AsSpan().IndexOfAnyExcept((byte)0) < 0, $"{Supported[i]} refused but left data in the output");
            }

            Finding.Check(!mustRefuse || !accepted, $"{Supported[i]} accepted a tampered message");
            Finding.Check(expected is null || (accepted && plaintext.AsSpan().SequenceEqual(expected)), $"{Supported[i]} did not decrypt a message to its plaintext ({ciphertext.Length} bytes, aad {aad.Length})");
            if (firstAccepted is null)
            {
                firstAccepted = accepted;
                firstPlaintext = plaintext;
            }
            else
            {
                Finding.Check(accepted == firstAccepted, $"{Supported[i]} {(accepted ? "accepted" : "refused")}, {Supported[0]} did not");
                Finding.Check(plaintext.AsSpan().SequenceEqual(firstPlaintext), $"{Supported[i]} and {Supported[0]} decrypt to different bytes");
            }
        }
    }

    private ref struct Reader(ReadOnlySpan<byte> input)
    {
        private ReadOnlySpan<byte> _rest = input;

        public int Byte() => Take(1)[0];

        public byte[] Take(int count)
        {
            byte[] taken = new byte[count];
            int available = Math.Min(count, _rest.Length);
            _rest[..available].CopyTo(taken);
            _rest = _rest[available..];
            return taken;
        }

        public byte[] Rest()
        {
            byte[] rest = _rest.ToArray();
            _rest = default;
            return rest;
        }
    }

    public static IEnumerable<byte[]> Seeds()
    {
        var random = new Random(16);
        foreach (int length in new[] { 0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300, 1000 })
        {
            byte mode = (byte)(length % 2 | ((length % 4) << 2));
            byte[] seed = new byte[2 + 32 + 12 + 1 + 7 + length];
            random.NextBytes(seed);
            seed[0] = mode;
            seed[2 + 32 + 12] = 7;
            yield return seed;
        }

        byte[] rawSeed = new byte[2 + 16 + 12 + 16 + 1 + 40];
        random.NextBytes(rawSeed);
        rawSeed[0] = 2;
        rawSeed[2 + 16 + 12 + 16] = 0;
        yield return rawSeed;
    }
}
