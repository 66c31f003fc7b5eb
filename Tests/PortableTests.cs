// The Portable backend's AES (the fixsliced AES in Cryptography/Internal/Aes.Portable.cs) against
// an AES that shares no code with it: the platform's (System.Security.Cryptography.Aes in ECB mode,
// OpenSSL on Linux, for blocks and a CTR32 built from them here) and, for SubWord and the key
// schedule, FIPS-197 written out in this file. Portable is the reference every other backend is
// tied to (EquivalenceTests) and runs the RFC 8452 and Wycheproof vectors (RfcVectorTests,
// WycheproofTests), so this file pins it from outside the library. Seeded; seed in messages.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class PortableTests
{
    private const int Seed = 8452;

    private static readonly Primitives Portable = Primitives.For(AesGcmSivBackend.Portable);

    public static IEnumerable<int> Lengths() => Enumerable.Range(0, 301).Concat([1021, 4099, 8191, 8192, 8193, 65_537]);

    [Test]
    public void PortableRunsTheFixslicedAes()
    {
        Assert.That(Backends.Get(AesGcmSivBackend.Portable), Is.TypeOf<Backend<AesPortable, PolyvalPortable>>());
        Assert.That(Backends.Supported(), Does.Contain(AesGcmSivBackend.Portable));
    }

    [Test]
    public void SubWordIsTheSboxOnEveryByteInEveryPosition()
    {
        for (uint b = 0; b < 256; b++)
        {
            foreach (int shift in new[] { 0, 8, 16, 24 })
            {
                uint word = (b << shift) | (0x5Au << ((shift + 8) % 32));
                uint expected = 0;
                for (int k = 0; k < 32; k += 8)
                {
                    expected |= (uint)FipsKeyExpansion.Sbox((byte)(word >> k)) << k;
                }

                Assert.That(AesPortable.SubWord(word), Is.EqualTo(expected), $"byte {b:x2} at bit {shift}");
            }
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void TheKeyScheduleIsFips197sFixsliced(int keyLength)
    {
        var random = new Random(Seed + 7);
        for (int i = 0; i < 50; i++)
        {
            byte[] key = Bytes(random, keyLength);
            AesKeySchedule actual = default;
            for (int j = 0; j < AesKeySchedule.Length; j++)
            {
                actual[j] = ulong.MaxValue; // what an earlier, longer key left: must be cleared
            }

            default(AesPortable).ExpandKey(key, ref actual);
            Assert.That(actual.AsSpan().ToArray(), Is.EqualTo(FixslicedSchedule(key)), $"key {Convert.ToHexStringLower(key)}");
        }
    }

    // Encryption's fused pass (GcmSiv's tag in the netstandard2.0 build): the key expansion's SubWords
    // ride in the tag block's pass. The same schedule as ExpandKey (over one an earlier, longer key
    // left) and the same block as the platform's AES, in place, for random keys and blocks.
    [TestCase(16)]
    [TestCase(32)]
    public void ExpandingWhileEncryptingTheTagGivesTheScheduleAndTheBlock(int keyLength)
    {
        var random = new Random(Seed + 5 + keyLength);
        for (int i = 0; i < 200; i++)
        {
            byte[] key = Bytes(random, keyLength), block = Bytes(random, 16);
            AesKeySchedule expected = default, actual = default;
            for (int j = 0; j < AesKeySchedule.Length; j++)
            {
                actual[j] = ulong.MaxValue;
            }

            default(AesPortable).ExpandKey(key, ref expected);
            byte[] encrypted = (byte[])block.Clone();
            AesPortable.ExpandKeyEncryptBlock(key, ref actual, encrypted);
            Assert.That(actual.AsSpan().ToArray(), Is.EqualTo(expected.AsSpan().ToArray()), $"schedule, key {Convert.ToHexStringLower(key)}");
            Assert.That(encrypted, Is.EqualTo(EcbEncrypt(key, block)), $"block, key {Convert.ToHexStringLower(key)}");
        }
    }

    // Decryption's fused pass (GcmSiv's AES-256 key derivation in the netstandard2.0 build): blocks 2-5
    // in the first pass, 0-1 in the second with the expansion's SubWords in a free slot. The derived
    // bytes are RFC 8452's (the first half of AES(K, LE32(i) || nonce), from the platform's AES), the
    // schedule ExpandKey's of the derived encryption key, over one an earlier key left; the 48 bytes
    // after the derived keys stay as they were.
    [Test]
    public void DerivingWhileExpandingGivesTheKeysAndTheSchedule()
    {
        var random = new Random(Seed + 7);
        for (int i = 0; i < 200; i++)
        {
            byte[] keyGeneratingKey = Bytes(random, 32), nonce = Bytes(random, 12), guard = Bytes(random, 48);
            AesKeySchedule keySchedule = default, expected = default, actual = default;
            default(AesPortable).ExpandKey(keyGeneratingKey, ref keySchedule);
            for (int j = 0; j < AesKeySchedule.Length; j++)
            {
                actual[j] = ulong.MaxValue;
            }

            byte[] counterBlocks = new byte[96];
            for (int b = 0; b < 6; b++)
            {
                counterBlocks[16 * b] = (byte)b;
                nonce.CopyTo(counterBlocks, (16 * b) + 4);
            }

            byte[] encrypted = EcbEncrypt(keyGeneratingKey, counterBlocks);
            byte[] keys = Enumerable.Range(0, 6).SelectMany(b => encrypted.Skip(16 * b).Take(8)).ToArray();
            default(AesPortable).ExpandKey(keys.AsSpan(16), ref expected);

            byte[] derived = new byte[96];
            guard.CopyTo(derived, 48);
            AesPortable.DeriveKeysExpandKey(in keySchedule, 14, nonce, derived, ref actual);
            string context = $"key {Convert.ToHexStringLower(keyGeneratingKey)}, nonce {Convert.ToHexStringLower(nonce)}";
            Assert.That(derived[..48], Is.EqualTo(keys), $"derived keys, {context}");
            Assert.That(derived[48..], Is.EqualTo(guard), $"past the derived keys, {context}");
            Assert.That(actual.AsSpan().ToArray(), Is.EqualTo(expected.AsSpan().ToArray()), $"schedule, {context}");
        }
    }

    // The tag's single-block pass in the netstandard2.0 build (GcmSiv's ComputeTag): the platform's AES, in place.
    [TestCase(16)]
    [TestCase(32)]
    public void OneBlockInPlaceMatchesThePlatformsAes(int keyLength)
    {
        var random = new Random(Seed + 13 + keyLength);
        for (int i = 0; i < 200; i++)
        {
            byte[] key = Bytes(random, keyLength), block = Bytes(random, 16);
            AesKeySchedule schedule = default;
            default(AesPortable).ExpandKey(key, ref schedule);
            byte[] encrypted = (byte[])block.Clone();
            AesPortable.EncryptBlockInPlace(in schedule, Primitives.Rounds(key), encrypted);
            Assert.That(encrypted, Is.EqualTo(EcbEncrypt(key, block)), $"key {Convert.ToHexStringLower(key)}, block {Convert.ToHexStringLower(block)}");
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void AesBlocksMatchThePlatformsAes(int keyLength)
    {
        var random = new Random(Seed);
        for (int blocks = 0; blocks <= 40; blocks++)
        {
            byte[] key = Bytes(random, keyLength), input = Bytes(random, blocks * 16);
            Assert.That(Portable.EncryptBlocks(key, input), Is.EqualTo(EcbEncrypt(key, input)), $"{blocks} blocks, seed {Seed}");
        }
    }

    // EncryptBlocks runs up to 32 blocks (eight groups) per batch and pads the last group with zero
    // blocks; CTR ends in 8-byte words, then bytes. Into the middle of a buffer of guard bytes: the
    // result matches the platform's AES, and nothing before or after the output changes (in place too).
    [TestCase(16)]
    [TestCase(32)]
    public void AesBlocksAndCtrWriteOnlyTheirOutput(int keyLength)
    {
        var random = new Random(Seed + 11 + keyLength);
        byte[] key = Bytes(random, keyLength), counter = Bytes(random, 16);
        AesKeySchedule schedule = default;
        default(AesPortable).ExpandKey(key, ref schedule);
        int rounds = Primitives.Rounds(key);
        for (int length = 0; length <= 70 * 16; length += length < 100 ? 1 : 13)
        {
            byte[] input = Bytes(random, length), buffer = new byte[length + 64];
            buffer.AsSpan().Fill(0xA5);
            if (length % 16 == 0)
            {
                default(AesPortable).EncryptBlocks(in schedule, rounds, input, buffer.AsSpan(32, length));
                Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(EcbEncrypt(key, input)), $"blocks, length {length}");
                Assert.That(buffer.AsSpan(0, 32).ToArray().Concat(buffer.AsSpan(32 + length).ToArray()).All(b => b == 0xA5), Is.True, $"blocks' guard bytes, length {length}");
                input.CopyTo(buffer, 32);
                default(AesPortable).EncryptBlocks(in schedule, rounds, buffer.AsSpan(32, length), buffer.AsSpan(32, length));
                Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(EcbEncrypt(key, input)), $"blocks in place, length {length}");
            }

            buffer.AsSpan().Fill(0xA5);
            default(AesPortable).Ctr32(in schedule, rounds, counter, input, buffer.AsSpan(32, length));
            Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(Ctr32(key, counter, input)), $"CTR, length {length}");
            Assert.That(buffer.AsSpan(0, 32).ToArray().Concat(buffer.AsSpan(32 + length).ToArray()).All(b => b == 0xA5), Is.True, $"CTR's guard bytes, length {length}");
        }
    }

    // RFC 8452 section 4: the first 32 bits of the counter block are a little-endian counter that
    // wraps mod 2^32; every fourth length starts 16 blocks before the wrap.
    [TestCase(16)]
    [TestCase(32)]
    public void CtrMatchesThePlatformsAes(int keyLength)
    {
        var random = new Random(Seed + keyLength);
        foreach (int length in Lengths())
        {
            byte[] key = Bytes(random, keyLength), counter = Bytes(random, 16), input = Bytes(random, length);
            if (length % 4 == 0)
            {
                counter[0] = 0xF0; counter[1] = 0xFF; counter[2] = 0xFF; counter[3] = 0xFF;
            }

            Assert.That(Portable.Ctr32(key, counter, input), Is.EqualTo(Ctr32(key, counter, input)), $"length {length}, seed {Seed + keyLength}");
        }
    }

    /// <summary>AES (FIPS-197) on whole blocks by the platform: ECB, no padding.</summary>
    private static byte[] EcbEncrypt(byte[] key, byte[] blocks)
    {
        using Aes aes = Aes.Create();
        aes.Key = key;
        aes.Mode = CipherMode.ECB;
        aes.Padding = PaddingMode.None;
        using ICryptoTransform encryptor = aes.CreateEncryptor();
        return encryptor.TransformFinalBlock(blocks, 0, blocks.Length);
    }

    /// <summary>RFC 8452's CTR: keystream blocks AES(counter + i), the counter's first 4 bytes a little-endian 32-bit count.</summary>
    private static byte[] Ctr32(byte[] key, byte[] counterBlock, byte[] input)
    {
        int blocks = (input.Length + 15) / 16;
        byte[] counters = new byte[blocks * 16];
        uint first = BitConverter.ToUInt32(counterBlock, 0);
        for (int i = 0; i < blocks; i++)
        {
            Array.Copy(counterBlock, 0, counters, 16 * i, 16);
            uint count = unchecked(first + (uint)i);
            for (int b = 0; b < 4; b++)
            {
                counters[16 * i + b] = (byte)(count >> (8 * b));
            }
        }

        byte[] keystream = EcbEncrypt(key, counters);
        return [.. input.Select((b, i) => (byte)(b ^ keystream[i]))];
    }

    /// <summary>
    /// The expected schedule: FIPS-197's round keys (section 5.2, FipsKeyExpansion), each bitsliced as the file opening
    /// Aes.Portable.cs describes (plane p, bit 16 * row + 4 * column + lane: bit p of that round
    /// key byte, the same in all four lanes), then, fixsliced, ShiftRows applied (4 - r) mod 4 times
    /// to round key r: row j's 16 bits rotated right by 4 * (j * times mod 4) bits. Zero after the last
    /// round key.
    /// </summary>
    private static ulong[] FixslicedSchedule(byte[] key)
    {
        int rounds = (key.Length / 4) + 6;
        byte[] w = FipsKeyExpansion.RoundKeys(key);
        ulong[] schedule = new ulong[AesKeySchedule.Length];
        for (int r = 0; r <= rounds; r++)
        {
            int times = (4 - r) & 3;
            for (int plane = 0; plane < 8; plane++)
            {
                ulong word = 0;
                for (int row = 0; row < 4; row++)
                {
                    ulong rowBits = 0;
                    for (int column = 0; column < 4; column++)
                    {
                        if (((w[16 * r + 4 * column + row] >> plane) & 1) != 0)
                        {
                            rowBits |= 0xFUL << (4 * column);
                        }
                    }

                    int bits = 4 * ((row * times) & 3);
                    rowBits = ((rowBits >> bits) | (rowBits << (16 - bits))) & 0xFFFF;
                    word |= rowBits << (16 * row);
                }

                schedule[8 * r + plane] = word;
            }
        }

        return schedule;
    }

    private static byte[] Bytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
