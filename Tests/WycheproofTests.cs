// Project Wycheproof's AES-GCM-SIV vectors (C2SP/wycheproof testvectors_v1/aes_gcm_siv_test.json,
// Apache-2.0; see Tests/Vectors/README.md) on every backend: valid cases must encrypt to the given
// ciphertext and tag and decrypt back; invalid ones (modified tags, wrapped counters) must be
// rejected with the output wiped.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text.Json;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class WycheproofTests
{
    public sealed record Case(int Id, string Comment, byte[] Key, byte[] Nonce, byte[] Aad, byte[] Message, byte[] Ciphertext, byte[] Tag, bool Valid)
    {
        public override string ToString() => $"tcId {Id} ({Comment})";
    }

    public static IEnumerable<TestCaseData> Cases() =>
        from backend in TestBackends.All
        select new TestCaseData(backend).SetName($"{backend}: Wycheproof aes_gcm_siv_test.json");

    [Test]
    public void TheFileHoldsEveryTest()
    {
        List<Case> cases = Load();
        Assert.That(cases, Has.Count.EqualTo(202));
        Assert.That(cases.Count(c => !c.Valid), Is.EqualTo(66));
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

    private static List<Case> Load()
    {
        using Stream stream = typeof(WycheproofTests).Assembly.GetManifestResourceStream("Vectors.wycheproof-aes-gcm-siv.json")!;
        using JsonDocument document = JsonDocument.Parse(stream);
        var cases = new List<Case>();
        foreach (JsonElement group in document.RootElement.GetProperty("testGroups").EnumerateArray())
        {
            foreach (JsonElement t in group.GetProperty("tests").EnumerateArray())
            {
                byte[] Hex(string name) => Convert.FromHexString(t.GetProperty(name).GetString()!);
                cases.Add(new Case(
                    t.GetProperty("tcId").GetInt32(),
                    t.GetProperty("comment").GetString()!,
                    Hex("key"), Hex("iv"), Hex("aad"), Hex("msg"), Hex("ct"), Hex("tag"),
                    t.GetProperty("result").GetString() == "valid"));
            }
        }

        return cases;
    }
}
