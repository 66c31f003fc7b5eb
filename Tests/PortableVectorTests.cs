// The PortableVector AES (Cryptography/Internal/Aes.PortableVector.cs: PortableFlat with CTR over
// whole passes of 32 * Vector<uint>.Count blocks fully bitsliced on System.Numerics.Vector<T>) against
// the portable one, byte for byte: CTR32 around every pass boundary, across the 32-bit counter wrap,
// in place, and AES-GCM-SIV end to end through the public type (which the RFC 8452 vector tests also
// run over every backend, but their messages are shorter than a pass). Runs on net10.0 (Vector<T> of
// 32 bytes with AVX2: 256 blocks per pass) and under Mono (16 bytes: 128 blocks), and, where the JIT
// does not accelerate Vector<T>, on its software fallback. Seeded; seed in messages.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class PortableVectorTests
{
    private const int Seed = 4848;

    private static readonly Primitives Wide = Primitives.For(AesGcmSivBackend.PortableVector);
    private static readonly Primitives Portable = Primitives.For(AesGcmSivBackend.Portable);

    /// <summary>Bytes per pass in this process: 2048 with 16-byte vectors, 4096 with 32-byte ones.</summary>
    private static int PassBytes => 16 * 32 * Vector<uint>.Count;

    /// <summary>Short lengths (all PortableFlat's), then around one, one and three quarter, two and three passes, and a large odd one.</summary>
    public static IEnumerable<int> Lengths()
    {
        int pass = PassBytes;
        IEnumerable<int> around = new[] { pass, (pass * 3 / 4) + pass, 2 * pass, 3 * pass, pass * 3 / 4 }
            .SelectMany(n => new[] { n - 17, n - 16, n - 1, n, n + 1, n + 15, n + 16, n + 17 });
        return new[] { 0, 1, 15, 16, 17, 64, 255, 1350 }.Concat(around).Concat([65_537]).Distinct().OrderBy(n => n);
    }

    [Test]
    public void TheBackendIsTestedWithTheVectorsThisProcessHas()
    {
        TestContext.Out.WriteLine($"Vector<uint>.Count = {Vector<uint>.Count}, IsHardwareAccelerated = {Vector.IsHardwareAccelerated}, supported = {default(AesPortableVector).IsSupported}");
        Assert.That(Lengths().Max(), Is.GreaterThan(3 * PassBytes), "the lengths must reach the bulk path");
    }

    [TestCaseSource(nameof(Lengths))]
    public void Ctr32MatchesPortable(int length)
    {
        var random = new Random(Seed + length);
        foreach (int keyLength in new[] { 16, 32 })
        {
            byte[] key = Bytes(random, keyLength);
            byte[] input = Bytes(random, length);
            byte[] counterBlock = Bytes(random, 16);
            Assert.That(Wide.Ctr32(key, counterBlock, input), Is.EqualTo(Portable.Ctr32(key, counterBlock, input)), $"key {keyLength} bytes, seed {Seed + length}");
        }
    }

    [TestCase(0xFFFFFFFFu)]
    [TestCase(0xFFFFFF80u)]
    [TestCase(0xFFFFFF01u)]
    [TestCase(0x7FFFFFFFu)]
    public void Ctr32WrapsTheCounterAsPortable(uint firstCounter)
    {
        var random = new Random(Seed);
        byte[] key = Bytes(random, 32);
        byte[] input = Bytes(random, (3 * PassBytes) + 100);
        byte[] counterBlock = Bytes(random, 16);
        BitConverter.GetBytes(firstCounter).CopyTo(counterBlock, 0); // little-endian hosts: the RFC's byte order
        Assert.That(Wide.Ctr32(key, counterBlock, input), Is.EqualTo(Portable.Ctr32(key, counterBlock, input)));
    }

    [Test]
    public void Ctr32InPlaceEqualsOutOfPlace()
    {
        var random = new Random(Seed + 1);
        byte[] key = Bytes(random, 32);
        byte[] data = Bytes(random, (2 * PassBytes) + 33);
        byte[] counterBlock = Bytes(random, 16);
        byte[] expected = Portable.Ctr32(key, counterBlock, data);
        AesKeySchedule schedule = default;
        default(AesPortableVector).ExpandKey(key, ref schedule);
        default(AesPortableVector).Ctr32(in schedule, 14, counterBlock, data, data);
        Assert.That(data, Is.EqualTo(expected));
    }

    [TestCase(16)]
    [TestCase(32)]
    public void AesBlocksMatchPortable(int keyLength)
    {
        var random = new Random(Seed + keyLength);
        byte[] key = Bytes(random, keyLength);
        byte[] blocks = Bytes(random, 16 * 11);
        Assert.That(Wide.EncryptBlocks(key, blocks), Is.EqualTo(Portable.EncryptBlocks(key, blocks)));
    }

    [TestCaseSource(nameof(Lengths))]
    public void EncryptAndDecryptMatchPortable(int length)
    {
        if (!default(AesPortableVector).IsSupported)
        {
            Assert.Ignore("Vector<T> is not accelerated here: the backend is not offered (its primitives are tested above)");
        }

        var random = new Random(Seed + (3 * length));
        foreach (int keyLength in new[] { 16, 32 })
        {
            byte[] key = Bytes(random, keyLength), nonce = Bytes(random, 12), plaintext = Bytes(random, length), aad = Bytes(random, length % 37);
            using var wide = new AesGcmSiv(key, AesGcmSivBackend.PortableVector);
            using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
            byte[] ciphertext = new byte[length], tag = new byte[16], expected = new byte[length], expectedTag = new byte[16];
            wide.Encrypt(nonce, plaintext, ciphertext, tag, aad);
            portable.Encrypt(nonce, plaintext, expected, expectedTag, aad);
            Assert.That(ciphertext, Is.EqualTo(expected), $"ciphertext, key {keyLength} bytes");
            Assert.That(tag, Is.EqualTo(expectedTag), $"tag, key {keyLength} bytes");

            byte[] opened = new byte[length];
            wide.Decrypt(nonce, ciphertext, tag, opened, aad);
            Assert.That(opened, Is.EqualTo(plaintext));

            if (length > 0)
            {
                ciphertext[length / 2] ^= 1;
                Assert.That(() => wide.Decrypt(nonce, ciphertext, tag, opened, aad), Throws.InstanceOf<System.Security.Cryptography.CryptographicException>());
                Assert.That(opened.All(b => b == 0), Is.True, "plaintext wiped after a failed tag");
            }
        }
    }

    private static byte[] Bytes(Random random, int count)
    {
        byte[] bytes = new byte[count];
        random.NextBytes(bytes);
        return bytes;
    }
}
