// The PortableFlat AES (Cryptography/Internal/Aes.PortableFlat.cs) against the portable one on this
// machine. The backend exists only in the browser (where the browser leg runs every check on it
// through the public type), so here its primitives and the RFC 8452 composition over it are called
// directly: AES blocks, CTR32 (across the 32-bit wrap), the RFC vectors with their intermediate
// values, and encrypt/decrypt end to end with a wrong tag wiping the output. Seeded; seed in messages.

using System;
using System.Reflection;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class PortableFlatTests
{
    private const int Seed = 8452;

    private static readonly Primitives Flat = Primitives.For(AesGcmSivBackend.PortableFlat);
    private static readonly Primitives Portable = Primitives.For(AesGcmSivBackend.Portable);

    public static IEnumerable<int> Lengths() => Enumerable.Range(0, 301).Concat([1021, 4099, 8191, 8192, 8193, 65_537]);

    [Test]
    public void SubWordIsTheSboxOnEveryByteInEveryPosition()
    {
        for (uint b = 0; b < 256; b++)
        {
            foreach (int shift in new[] { 0, 8, 16, 24 })
            {
                uint word = (b << shift) | (0x5Au << ((shift + 8) % 32));
                Assert.That(AesPortableFlat.SubWord(word), Is.EqualTo(AesPortable.SubWord(word)), $"byte {b:x2} at bit {shift}");
            }
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void TheKeyScheduleIsPortablesFixsliced(int keyLength)
    {
        var random = new Random(Seed + 7);
        for (int i = 0; i < 50; i++)
        {
            byte[] key = Bytes(random, keyLength);
            AesKeySchedule expected = default, actual = default;
            for (int j = 0; j < AesKeySchedule.Length; j++)
            {
                actual[j] = ulong.MaxValue; // what an earlier, longer key left: must be cleared
            }

            default(AesPortable).ExpandKey(key, ref expected);
            default(AesPortableFlat).ExpandKey(key, ref actual);

            // Round key r (words 8r..8r+7) is Portable's with ShiftRows applied (4 - r) mod 4 times:
            // row j of every plane rotated right by 4 * (j * times mod 4) bits within its 16 bits.
            for (int j = 0; j < AesKeySchedule.Length; j++)
            {
                int times = (4 - (j / 8)) & 3;
                ulong word = expected[j], shifted = 0;
                for (int row = 0; row < 4; row++)
                {
                    int bits = 4 * ((row * times) & 3);
                    ulong lane = (word >> (16 * row)) & 0xFFFF;
                    shifted |= (((lane >> bits) | (lane << (16 - bits))) & 0xFFFF) << (16 * row);
                }

                expected[j] = shifted;
            }

            Assert.That(actual.AsSpan().ToArray(), Is.EqualTo(expected.AsSpan().ToArray()), $"key {Convert.ToHexStringLower(key)}");
        }
    }

    // The encryption's fused pass (GcmSiv's tag): the key expansion's SubWords ride in the tag block's
    // pass. The same schedule as ExpandKey (over one an earlier, longer key left) and the same block as
    // EncryptBlocks, in place, for random keys and blocks.
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

            default(AesPortableFlat).ExpandKey(key, ref expected);
            byte[] encrypted = (byte[])block.Clone();
            AesPortableFlat.ExpandKeyEncryptBlock(key, ref actual, encrypted);
            Assert.That(actual.AsSpan().ToArray(), Is.EqualTo(expected.AsSpan().ToArray()), $"schedule, key {Convert.ToHexStringLower(key)}");
            Assert.That(encrypted, Is.EqualTo(Portable.EncryptBlocks(key, block)), $"block, key {Convert.ToHexStringLower(key)}");
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void AesBlocksMatchPortable(int keyLength)
    {
        var random = new Random(Seed);
        for (int blocks = 0; blocks <= 20; blocks++)
        {
            byte[] key = Bytes(random, keyLength), input = Bytes(random, blocks * 16);
            Assert.That(Flat.EncryptBlocks(key, input), Is.EqualTo(Portable.EncryptBlocks(key, input)), $"{blocks} blocks, seed {Seed}");
        }
    }

    // EncryptBlocks runs up to 32 blocks (eight groups) per batch and pads the last group with zero
    // blocks; CTR ends in 8-byte words, then bytes. Into the middle of a buffer of guard bytes: the
    // result matches Portable's, and nothing before or after the output changes (in place too).
    [TestCase(16)]
    [TestCase(32)]
    public void AesBlocksAndCtrWriteOnlyTheirOutput(int keyLength)
    {
        var random = new Random(Seed + 11 + keyLength);
        byte[] key = Bytes(random, keyLength), counter = Bytes(random, 16);
        AesKeySchedule schedule = default;
        default(AesPortableFlat).ExpandKey(key, ref schedule);
        int rounds = Primitives.Rounds(key);
        for (int length = 0; length <= 70 * 16; length += length < 100 ? 1 : 13)
        {
            byte[] input = Bytes(random, length), buffer = new byte[length + 64];
            buffer.AsSpan().Fill(0xA5);
            if (length % 16 == 0)
            {
                default(AesPortableFlat).EncryptBlocks(in schedule, rounds, input, buffer.AsSpan(32, length));
                Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(Portable.EncryptBlocks(key, input)), $"blocks, length {length}");
                Assert.That(buffer.AsSpan(0, 32).ToArray().Concat(buffer.AsSpan(32 + length).ToArray()).All(b => b == 0xA5), Is.True, $"blocks' guard bytes, length {length}");
                input.CopyTo(buffer, 32);
                default(AesPortableFlat).EncryptBlocks(in schedule, rounds, buffer.AsSpan(32, length), buffer.AsSpan(32, length));
                Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(Portable.EncryptBlocks(key, input)), $"blocks in place, length {length}");
            }

            buffer.AsSpan().Fill(0xA5);
            default(AesPortableFlat).Ctr32(in schedule, rounds, counter, input, buffer.AsSpan(32, length));
            Assert.That(buffer.AsSpan(32, length).ToArray(), Is.EqualTo(Portable.Ctr32(key, counter, input)), $"CTR, length {length}");
            Assert.That(buffer.AsSpan(0, 32).ToArray().Concat(buffer.AsSpan(32 + length).ToArray()).All(b => b == 0xA5), Is.True, $"CTR's guard bytes, length {length}");
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void CtrMatchesPortable(int keyLength)
    {
        var random = new Random(Seed + keyLength);
        foreach (int length in Lengths())
        {
            byte[] key = Bytes(random, keyLength), counter = Bytes(random, 16), input = Bytes(random, length);
            if (length % 4 == 0)
            {
                counter[0] = 0xF0; counter[1] = 0xFF; counter[2] = 0xFF; counter[3] = 0xFF;
            }

            Assert.That(Flat.Ctr32(key, counter, input), Is.EqualTo(Portable.Ctr32(key, counter, input)), $"length {length}, seed {Seed + keyLength}");
        }
    }

    [TestCaseSource(typeof(Vectors), nameof(Vectors.Rfc8452))]
    public void RfcVector(AeadVector vector)
    {
        byte[] sealedMessage = Seal(vector.Key, vector.Nonce, vector.Plaintext, vector.Aad);
        Assert.That(Convert.ToHexStringLower(sealedMessage), Is.EqualTo(Convert.ToHexStringLower(vector.Result)));
        if (vector.RecordEncryptionKey is not null)
        {
            (byte[] authentication, byte[] encryption) = Flat.DeriveKeys(vector.Key, vector.Nonce);
            Assert.That(authentication, Is.EqualTo(vector.RecordAuthenticationKey), "record authentication key");
            Assert.That(encryption, Is.EqualTo(vector.RecordEncryptionKey), "record encryption key");
        }
    }

    [TestCase(16)]
    [TestCase(32)]
    public void EncryptAndDecryptMatchPortableEndToEnd(int keyLength)
    {
        var random = new Random(Seed * 3 + keyLength);
        foreach (int length in Lengths())
        {
            byte[] key = Bytes(random, keyLength), nonce = Bytes(random, 12), message = Bytes(random, length), aad = Bytes(random, length % 53);
            using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
            byte[] expected = EquivalenceTests.Seal(portable, nonce, message, aad);
            byte[] actual = Seal(key, nonce, message, aad);
            Assert.That(actual, Is.EqualTo(expected), $"length {length}, seed {Seed * 3 + keyLength}");

            AesKeySchedule schedule = default;
            default(AesPortableFlat).ExpandKey(key, ref schedule);
            byte[] opened = new byte[length];
            Assert.That(GcmSiv<AesPortableFlat, PolyvalPortable>.Decrypt<TwoPassDecrypt<AesPortableFlat, PolyvalPortable>>(in schedule, Primitives.Rounds(key), nonce, actual.AsSpan(0, length), actual.AsSpan(length), opened, aad), Is.True);
            Assert.That(opened, Is.EqualTo(message), $"decrypt, length {length}");

            actual[^1] ^= 1;
            opened.AsSpan().Fill(0xAA);
            Assert.That(GcmSiv<AesPortableFlat, PolyvalPortable>.Decrypt<TwoPassDecrypt<AesPortableFlat, PolyvalPortable>>(in schedule, Primitives.Rounds(key), nonce, actual.AsSpan(0, length), actual.AsSpan(length), opened, aad), Is.False, "a changed tag");
            Assert.That(opened.All(b => b == 0), Is.True, "the output is wiped after a wrong tag");
        }
    }

    [Test]
    public void TheBackendExistsOnlyInTheBrowserAndTheNetStandardBuild()
    {
        // Where it is faster than Portable: the browser's interpreter, and Mono's JIT, which runs the
        // library's netstandard2.0 build (docs/platforms.md). Under .NET's JIT Portable stays.
        string framework = typeof(AesGcmSiv).Assembly.GetCustomAttribute<System.Runtime.Versioning.TargetFrameworkAttribute>()!.FrameworkName;
        bool expected = OperatingSystem.IsBrowser() || framework.StartsWith(".NETStandard", StringComparison.Ordinal);
        Assert.That(Backends.IsSupported(AesGcmSivBackend.PortableFlat), Is.EqualTo(expected), framework);
        Assert.That(AesGcmSiv.ActiveBackend == AesGcmSivBackend.PortableFlat, Is.EqualTo(expected), framework);
    }

    private static byte[] Seal(byte[] key, byte[] nonce, byte[] message, byte[] aad)
    {
        AesKeySchedule schedule = default;
        default(AesPortableFlat).ExpandKey(key, ref schedule);
        byte[] output = new byte[message.Length + 16];
        GcmSiv<AesPortableFlat, PolyvalPortable>.Encrypt(in schedule, Primitives.Rounds(key), nonce, message, output.AsSpan(0, message.Length), output.AsSpan(message.Length), aad);
        return output;
    }

    private static byte[] Bytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
