// Project Wycheproof's AES-GCM-SIV vectors (C2SP/wycheproof testvectors_v1/aes_gcm_siv_test.json,
// Apache-2.0; see Tests/Vectors/README.md) on every backend: valid cases must encrypt to the given
// ciphertext and tag and decrypt back; invalid ones (modified tags, wrapped counters) must be
// rejected with the output wiped.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using NUnit.Framework;
using Case = Tests.Wycheproof.Case;

namespace Tests;

[TestFixture]
public class WycheproofTests
{
    public static IEnumerable<TestCaseData> Cases() =>
        from backend in TestBackends.All
        select new TestCaseData(backend).SetName($"{backend}: Wycheproof aes_gcm_siv_test.json");

    [Test]
    public void TheFileHoldsEveryTest()
    {
        List<Case> cases = Load();
        Assert.That(cases, Has.Count.EqualTo(Wycheproof.CaseCount));
        Assert.That(cases.Count(c => !c.Valid), Is.EqualTo(Wycheproof.InvalidCount));
    }

    [TestCaseSource(nameof(Cases))]
    public void EveryCaseBehavesAsExpected(AesGcmSivBackend backend)
    {
        int checkedCases = 0;
        foreach (Case c in Load())
        {
            using var aead = new AesGcmSiv(c.Key, backend);
            byte[] output = new byte[c.Message.Length];
            if (c.Valid)
            {
                byte[] tag = new byte[16];
                aead.Encrypt(c.Nonce, c.Message, output, tag, c.Aad);
                Assert.That(output, Is.EqualTo(c.Ciphertext), $"{c}: ciphertext");
                Assert.That(tag, Is.EqualTo(c.Tag), $"{c}: tag");
                aead.Decrypt(c.Nonce, c.Ciphertext, c.Tag, output, c.Aad);
                Assert.That(output, Is.EqualTo(c.Message), $"{c}: decrypt");
            }
            else
            {
                output.AsSpan().Fill(0xEE);
                Assert.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(c.Nonce, c.Ciphertext, c.Tag, output, c.Aad), c.ToString());
                Assert.That(output.All(b => b == 0), Is.True, $"{c}: output not wiped");
            }

            checkedCases++;
        }

        Assert.That(checkedCases, Is.EqualTo(202));
    }

    private static List<Case> Load() => Wycheproof.Load();
}
