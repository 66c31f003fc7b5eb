// TagComparison (Cryptography/Internal/TagComparison.cs): the one place GCM-SIV tags are compared.
// Its timing is checked by ConstantTime's DecryptReject case and its code by the JIT disassembly in
// docs/backends.md; these tests check that it answers right: equal tags are equal, and a difference
// in any one bit of either 8-byte half is seen, as are differences in several places at once.

using System;
using System.Security.Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class TagComparisonTests
{
    [Test]
    public void EqualTagsAreEqual()
    {
        for (int i = 0; i < 100; i++)
        {
            byte[] tag = RandomNumberGenerator.GetBytes(16);
            Assert.That(TagComparison.Equal(tag, (byte[])tag.Clone()), Is.True, Convert.ToHexStringLower(tag));
        }

        Assert.That(TagComparison.Equal(new byte[16], new byte[16]), Is.True);
    }

    [Test]
    public void EveryBitCounts()
    {
        byte[] tag = RandomNumberGenerator.GetBytes(16);
        for (int bit = 0; bit < 128; bit++)
        {
            byte[] other = (byte[])tag.Clone();
            other[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.That(TagComparison.Equal(tag, other), Is.False, $"bit {bit}");
            Assert.That(TagComparison.Equal(other, tag), Is.False, $"bit {bit}, operands swapped");
        }
    }

    [Test]
    public void DifferencesInBothHalvesDoNotCancel()
    {
        // The halves' differences are ORed, not XORed: the same difference in both halves is still one.
        byte[] tag = RandomNumberGenerator.GetBytes(16);
        byte[] other = (byte[])tag.Clone();
        other[0] ^= 0x80;
        other[8] ^= 0x80;
        Assert.That(TagComparison.Equal(tag, other), Is.False);
        other = (byte[])tag.Clone();
        for (int i = 0; i < 16; i++)
        {
            other[i] ^= 0xFF;
        }

        Assert.That(TagComparison.Equal(tag, other), Is.False);
    }

    [TestCase(15, 16)]
    [TestCase(16, 17)]
    [TestCase(0, 0)]
    public void OnlySixteenByteTags(int computed, int received) =>
        Assert.That(() => TagComparison.Equal(new byte[computed], new byte[received]), Throws.ArgumentException.With.Message.Contains("16 bytes"));
}
