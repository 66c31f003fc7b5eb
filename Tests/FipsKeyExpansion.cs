// FIPS-197 section 5.2's key expansion, byte by byte, with the S-box from its definition (section
// 5.1.1), nothing taken from the library: the reference PortableTests checks the Portable backend's
// schedule and SubWord against, and, for the stack tests (MessageSecrets), the round keys of a
// message-encryption key as FIPS-197 writes them, which is the form the bitsliced vector backend
// stores and a search for leftovers must know. The same code serves the net10.0 tests and the Mono
// leg (Tests.Mono), whose netstandard2.0 library has no hardware backend. FipsKeyExpansionTests
// checks the result against FIPS-197 Appendix A.

using System;

namespace Tests;

internal static class FipsKeyExpansion
{
    /// <summary>The rounds + 1 round keys of <paramref name="key"/> (16 or 32 bytes), 16 bytes each, round 0 (the key) first.</summary>
    public static byte[] RoundKeys(byte[] key)
    {
        int nk = key.Length / 4, rounds = nk + 6;
        byte[] w = new byte[16 * (rounds + 1)];
        key.CopyTo(w, 0);
        byte rcon = 1;
        for (int i = nk; i < 4 * (rounds + 1); i++)
        {
            byte[] temp = w.AsSpan(4 * (i - 1), 4).ToArray();
            if (i % nk == 0)
            {
                temp = [(byte)(Sbox(temp[1]) ^ rcon), Sbox(temp[2]), Sbox(temp[3]), Sbox(temp[0])]; // RotWord, SubWord, Rcon
                rcon = (byte)((rcon << 1) ^ ((rcon >> 7) * 0x1B));
            }
            else if (nk > 6 && i % nk == 4)
            {
                temp = [Sbox(temp[0]), Sbox(temp[1]), Sbox(temp[2]), Sbox(temp[3])];
            }

            for (int b = 0; b < 4; b++)
            {
                w[(4 * i) + b] = (byte)(w[(4 * (i - nk)) + b] ^ temp[b]);
            }
        }

        return w;
    }

    /// <summary>The AES S-box from its definition (FIPS-197 section 5.1.1): the inverse in GF(2^8), then the affine map.</summary>
    public static byte Sbox(byte x)
    {
        byte inverse = 1;
        for (int i = 0; i < 254; i++)
        {
            inverse = Multiply(inverse, x); // x^254 = x^-1, and 0 for 0
        }

        if (x == 0)
        {
            inverse = 0;
        }

        int s = inverse;
        for (int rotation = 1; rotation <= 4; rotation++)
        {
            s ^= ((inverse << rotation) | (inverse >> (8 - rotation))) & 0xFF;
        }

        return (byte)(s ^ 0x63);
    }

    private static byte Multiply(byte a, byte b)
    {
        int product = 0, x = a;
        for (int bit = 0; bit < 8; bit++)
        {
            if (((b >> bit) & 1) != 0)
            {
                product ^= x;
            }

            x = (x << 1) ^ ((x >> 7) * 0x11B);
        }

        return (byte)product;
    }
}
