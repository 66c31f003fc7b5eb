// The netstandard2.0 build's own HKDF (Platform/NetStandard/RecordLayerCrypto.cs; net10.0 uses .NET's),
// against RFC 5869 Appendix A's SHA-256 cases: A.1 (salt and info) and A.3 (empty salt and info). Both
// outputs are 42 bytes, so Expand's second block is checked too. Only in the Mono leg.

using System;
using System.Security.Cryptography;
using NUnit.Framework;
using Hkdf = Cryptography.HKDF;

namespace Tests.NetStandard;

[TestFixture]
public class HkdfTests
{
    private static readonly byte[] Ikm = Convert.FromHexString("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");

    [TestCase("000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9",
        "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865", TestName = "RFC 5869 A.1")]
    [TestCase("", "",
        "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8", TestName = "RFC 5869 A.3")]
    public void MatchesRfc5869(string salt, string info, string prk, string okm)
    {
        byte[] actualPrk = new byte[32];
        Hkdf.Extract(HashAlgorithmName.SHA256, Ikm, Convert.FromHexString(salt), actualPrk);
        Assert.That(Convert.ToHexString(actualPrk), Is.EqualTo(prk.ToUpperInvariant()), "PRK");

        byte[] actualOkm = new byte[42];
        Hkdf.Expand(HashAlgorithmName.SHA256, actualPrk, actualOkm, Convert.FromHexString(info));
        Assert.That(Convert.ToHexString(actualOkm), Is.EqualTo(okm.ToUpperInvariant()), "OKM");
    }
}
