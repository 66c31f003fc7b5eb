// Every per-message secret of one AES-GCM-SIV message, as the stack tests (StackHygieneTests,
// MessageWipeTests) search for them after a call (issue 47, item 1): the message-authentication key
// H and the POLYVAL key table the backend builds from it, the message-encryption key, its FIPS-197
// round keys and the schedule in the backend's own form, POLYVAL's result S_s, the tag's AES input
// (S_s XOR nonce, bit 127 cleared: with one known plaintext it gives H) and the keystream of every
// whole block. Each 16-byte value is searched for whole and as its two 8-byte halves, since a
// scalar backend keeps and spills 64-bit words. A value with fewer than 6 distinct bytes in 8 (a
// zero entry, a count) is no secret and would match anywhere on a stack, so it is left out.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cryptography;
using Cryptography.Internal;

namespace Tests;

internal static class MessageSecrets
{
    /// <summary>
    /// The secrets of the message <paramref name="plaintext"/> under (<paramref name="key"/>,
    /// <paramref name="nonce"/>) without associated data, as <paramref name="backend"/> computes it;
    /// <paramref name="ciphertext"/> is its encryption (for the keystream).
    /// </summary>
    public static List<(string Name, byte[] Value)> Of(AesGcmSivBackend backend, byte[] key, byte[] nonce, byte[] plaintext, byte[] ciphertext)
    {
        Primitives primitives = Primitives.For(backend);
        (byte[] authentication, byte[] encryption) = primitives.DeriveKeys(key, nonce);
        var secrets = new List<(string Name, byte[] Value)>
        {
            ("H", authentication),
            ("message-encryption key", encryption[..16]),
        };
        if (encryption.Length == 32)
        {
            secrets.Add(("message-encryption key (second half)", encryption[16..]));
        }

        int rounds = Primitives.Rounds(encryption);
        byte[] roundKeys = FipsRoundKeys(encryption);
        for (int i = 1; i <= rounds; i++)
        {
            secrets.Add(($"round key {i}", roundKeys[(i * 16)..((i + 1) * 16)]));
        }

        // POLYVAL's key table and the schedule as this backend lays them out (powers of H, Karatsuba
        // halves, bitsliced round keys).
        secrets.AddRange(primitives.MessageState(authentication, encryption, plaintext.Length / 16));

        // S_s = POLYVAL(H, plaintext padded to whole blocks, length block); no AAD.
        byte[] blocks = new byte[((plaintext.Length + 15) & ~15) + 16];
        plaintext.CopyTo(blocks, 0);
        BitConverter.TryWriteBytes(blocks.AsSpan(blocks.Length - 8), (ulong)plaintext.Length * 8);
        byte[] polyval = primitives.Polyval(authentication, blocks);
        secrets.Add(("POLYVAL result S_s", polyval));
        byte[] tagInput = (byte[])polyval.Clone();
        for (int i = 0; i < 12; i++)
        {
            tagInput[i] ^= nonce[i];
        }

        tagInput[15] &= 0x7f;
        secrets.Add(("tag input (S_s xor nonce, bit 127 cleared)", tagInput));

        for (int block = 0; block < plaintext.Length / 16; block++)
        {
            byte[] keystream = new byte[16];
            for (int i = 0; i < 16; i++)
            {
                keystream[i] = (byte)(plaintext[(16 * block) + i] ^ ciphertext[(16 * block) + i]);
            }

            secrets.Add(($"keystream block {block}", keystream));
        }

        return [.. secrets.Where(s => s.Value.Distinct().Count() >= 8)
            .SelectMany(s => new[] { s, (s.Name + " bytes 0..7", s.Value[..8]), (s.Name + " bytes 8..15", s.Value[8..]) })
            .Where(s => s.Item2.Distinct().Count() >= 6)];
    }

    /// <summary>The names of the secrets found in <paramref name="probe"/>, each with where.</summary>
    public static List<string> FoundIn(byte[] probe, IEnumerable<(string Name, byte[] Value)> secrets) =>
        [.. secrets.Select(s => (s.Name, At: probe.AsSpan().IndexOf(s.Value))).Where(s => s.At >= 0).Select(s => $"{s.Name} at {probe.Length - s.At} bytes below")];

    /// <summary>
    /// The FIPS-197 round keys of <paramref name="key"/>, rounds + 1 of 16 bytes: the bitsliced
    /// vector backend stores them in this form (FipsKeyExpansion: the same on every target).
    /// </summary>
    private static byte[] FipsRoundKeys(byte[] key) => FipsKeyExpansion.RoundKeys(key);
}

/// <summary>One backend's encryption and decryption, called the way the stack tests need.</summary>
internal abstract class MessageCall : IDisposable
{
    /// <summary>Every backend this process can run.</summary>
    public static AesGcmSivBackend[] Backends => TestBackends.All;

    public static MessageCall For(AesGcmSivBackend backend, byte[] key) => new Public(new AesGcmSiv(key, backend));

    public abstract void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag);

    public abstract void Decrypt(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext);

    public abstract void Dispose();

    private sealed class Public(AesGcmSiv aead) : MessageCall
    {
        public override void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag) => aead.Encrypt(nonce, plaintext, ciphertext, tag);

        public override void Decrypt(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext) => aead.Decrypt(nonce, ciphertext, tag, plaintext);

        public override void Dispose() => aead.Dispose();
    }
}
