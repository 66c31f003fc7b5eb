// Every single-bit change of nonce, associated data, ciphertext or tag must be rejected, and the
// plaintext buffer wiped, on every backend, for message lengths around the block boundaries.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class TamperTests
{
    private const int Seed = 1188;

    public static IEnumerable<TestCaseData> Cases() =>
        from backend in TestBackends.All
        from length in new[] { 0, 1, 15, 16, 17, 128, 129, 1000 }
        select new TestCaseData(backend, length).SetName($"{backend}: every bit flip rejected, {length}-byte message");

    [TestCaseSource(nameof(Cases))]
    public void EverySingleBitFlipIsRejectedAndTheOutputWiped(AesGcmSivBackend backend, int length)
    {
        var random = new Random(Seed + length);
        byte[] key = EquivalenceTests.Bytes(random, length % 2 == 0 ? 16 : 32);
        byte[] nonce = EquivalenceTests.Bytes(random, 12);
        byte[] aad = EquivalenceTests.Bytes(random, 21);
        byte[] plaintext = EquivalenceTests.Bytes(random, length);
        using var aead = new AesGcmSiv(key, backend);
        byte[] sealedMessage = EquivalenceTests.Seal(aead, nonce, plaintext, aad);
        byte[] ciphertext = sealedMessage[..length];
        byte[] tag = sealedMessage[length..];
        byte[] output = new byte[length];

        int rejected = 0;
        void ExpectRejected(string what, int bit)
        {
            output.AsSpan().Fill(0x5A);
            Assert.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(nonce, ciphertext, tag, output, aad), $"{what} bit {bit} flipped, seed {Seed + length}");
            Assert.That(output.All(b => b == 0), Is.True, $"output not wiped after {what} bit {bit} flipped");
            rejected++;
        }

        foreach ((string name, byte[] buffer) in new[] { ("nonce", nonce), ("associated data", aad), ("ciphertext", ciphertext), ("tag", tag) })
        {
            for (int bit = 0; bit < buffer.Length * 8; bit++)
            {
                buffer[bit / 8] ^= (byte)(1 << (bit % 8));
                ExpectRejected(name, bit);
                buffer[bit / 8] ^= (byte)(1 << (bit % 8));
            }
        }

        // The untouched message still opens, so every rejection above was the flip's doing.
        aead.Decrypt(nonce, ciphertext, tag, output, aad);
        Assert.That(output, Is.EqualTo(plaintext));
        Assert.That(rejected, Is.EqualTo((12 + 21 + length + 16) * 8));
    }
}
