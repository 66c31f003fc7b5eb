// FipsKeyExpansion (the tests' FIPS-197 key expansion) against FIPS-197 Appendix A. Apart from
// FipsKeyExpansion.cs so that the browser's checks can link that file without NUnit.

using System;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class FipsKeyExpansionTests
{
    // FIPS-197 Appendix A.1 (AES-128) and A.3 (AES-256): the key and the last round key, w[40..43] and w[56..59].
    [TestCase("2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6")]
    [TestCase("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", "fe4890d1e6188d0b046df344706c631e")]
    public void TheLastRoundKeyIsFips197s(string key, string lastRoundKey)
    {
        byte[] roundKeys = FipsKeyExpansion.RoundKeys(Convert.FromHexString(key));
        Assert.That(roundKeys, Has.Length.EqualTo(16 * ((key.Length / 8) + 7)));
        Assert.That(Convert.ToHexStringLower(roundKeys.AsSpan(roundKeys.Length - 16).ToArray()), Is.EqualTo(lastRoundKey));
    }
}
