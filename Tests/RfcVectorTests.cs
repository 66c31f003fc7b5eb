// RFC 8452 Appendix A (POLYVAL) and Appendix C.1, C.2, C.3 on every backend, step by step: a
// failure names the first intermediate value (record keys, POLYVAL, tag, counter) that differs.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class RfcVectorTests
{
    public static IEnumerable<TestCaseData> AeadCases() =>
        from backend in TestBackends.All
        from vector in Vectors.Rfc8452()
        select new TestCaseData(backend, vector).SetName($"{backend}: {vector.Name}");

    public static IEnumerable<TestCaseData> IntermediateCases() =>
        from backend in TestBackends.All
        from vector in Vectors.Rfc8452()
        where vector.RecordAuthenticationKey is not null
        select new TestCaseData(backend, vector).SetName($"{backend}: {vector.Name} intermediate values");

    public static IEnumerable<TestCaseData> PolyvalCases() =>
        from backend in TestBackends.All
        from vector in Vectors.Polyval()
        select new TestCaseData(backend, vector).SetName($"{backend}: POLYVAL {vector.Name}");

    [Test]
    public void VectorFilesAreComplete()
    {
        // RFC 8452 Appendix C.1 and C.2 hold 24 vectors each; C.3 holds 2.
        Assert.That(Vectors.Aead("rfc8452-aes128.json").Count(), Is.EqualTo(24));
        Assert.That(Vectors.Aead("rfc8452-aes256.json").Count(), Is.EqualTo(24));
        Assert.That(Vectors.Aead("rfc8452-counter-wrap.json").Count(), Is.EqualTo(2));
        Assert.That(Vectors.Polyval(), Is.Not.Empty);
    }

    [TestCaseSource(nameof(PolyvalCases))]
    public void Polyval(AesGcmSivBackend backend, PolyvalVector vector)
    {
        Assert.That(Convert.ToHexStringLower(Primitives.For(backend).Polyval(vector.H, vector.Input)), Is.EqualTo(Convert.ToHexStringLower(vector.Result)));
    }

    [TestCaseSource(nameof(IntermediateCases))]
    public void IntermediateValues(AesGcmSivBackend backend, AeadVector vector)
    {
        Primitives primitives = Primitives.For(backend);
        (byte[] authentication, byte[] encryption) = primitives.DeriveKeys(vector.Key, vector.Nonce);

        Assert.Multiple(() =>
        {
            Assert.That(Hex(authentication), Is.EqualTo(Hex(vector.RecordAuthenticationKey)), "record authentication key");
            Assert.That(Hex(encryption), Is.EqualTo(Hex(vector.RecordEncryptionKey)), "record encryption key");
        });

        byte[] polyval = primitives.Polyval(authentication, vector.PolyvalInput!);
        Assert.That(Hex(polyval), Is.EqualTo(Hex(vector.PolyvalResult)), "POLYVAL result");

        for (int i = 0; i < 12; i++)
        {
            polyval[i] ^= vector.Nonce[i];
        }

        polyval[15] &= 0x7f;
        Assert.That(Hex(polyval), Is.EqualTo(Hex(vector.PolyvalResultXorNonceMasked)), "POLYVAL result XOR nonce, masked");

        byte[] tag = primitives.EncryptBlocks(encryption, polyval);
        Assert.That(Hex(tag), Is.EqualTo(Hex(vector.Tag)), "tag");

        byte[] counter = (byte[])tag.Clone();
        counter[15] |= 0x80;
        Assert.That(Hex(counter), Is.EqualTo(Hex(vector.InitialCounter)), "initial counter");
        Assert.That(Hex(primitives.Ctr32(encryption, counter, vector.Plaintext)), Is.EqualTo(Hex(vector.Ciphertext)), "CTR ciphertext");
    }

    [TestCaseSource(nameof(AeadCases))]
    public void EncryptGivesTheRfcResult(AesGcmSivBackend backend, AeadVector vector)
    {
        using var aead = new AesGcmSiv(vector.Key, backend);
        byte[] ciphertext = new byte[vector.Plaintext.Length];
        byte[] tag = new byte[16];
        aead.Encrypt(vector.Nonce, vector.Plaintext, ciphertext, tag, vector.Aad);
        Assert.That(Hex([.. ciphertext, .. tag]), Is.EqualTo(Hex(vector.Result)));
    }

    [TestCaseSource(nameof(AeadCases))]
    public void DecryptRecoversTheRfcPlaintext(AesGcmSivBackend backend, AeadVector vector)
    {
        using var aead = new AesGcmSiv(vector.Key, backend);
        byte[] plaintext = new byte[vector.Plaintext.Length];
        aead.Decrypt(vector.Nonce, vector.Ciphertext, vector.ResultTag, plaintext, vector.Aad);
        Assert.That(Hex(plaintext), Is.EqualTo(Hex(vector.Plaintext)));
    }

    [TestCaseSource(nameof(AeadCases))]
    public void DecryptRejectsTheRfcResultWithAnotherTag(AesGcmSivBackend backend, AeadVector vector)
    {
        using var aead = new AesGcmSiv(vector.Key, backend);
        byte[] tag = vector.ResultTag;
        tag[0] ^= 1;
        byte[] plaintext = new byte[vector.Plaintext.Length];
        plaintext.AsSpan().Fill(0xAA);
        Assert.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(vector.Nonce, vector.Ciphertext, tag, plaintext, vector.Aad));
        Assert.That(plaintext.All(b => b == 0), Is.True, "plaintext buffer must be wiped");
    }

    private static string Hex(byte[]? bytes) => bytes is null ? "(missing)" : Convert.ToHexStringLower(bytes);
}
