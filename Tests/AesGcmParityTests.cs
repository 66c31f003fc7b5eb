// Drop-in parity with System.Security.Cryptography.AesGcm (issue 18): the (key, tagSizeInBytes)
// constructors, TagSizeInBytes, and the very exception AesGcm throws for a tag size it does not take,
// checked against AesGcm itself rather than against a copy of its message.

using System;
using System.Security.Cryptography;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class AesGcmParityTests
{
    private static readonly byte[] Key = RandomNumberGenerator.GetBytes(16);

    [Test]
    public void CodeWrittenForAesGcmCompilesAndRunsWithTheTypeNameChanged()
    {
        byte[] nonce = new byte[12], plaintext = "migrate me"u8.ToArray(), aad = "header"u8.ToArray();
        byte[] ciphertext = new byte[plaintext.Length], tag = new byte[16], opened = new byte[plaintext.Length];

        // The body below is what `new AesGcm(key, 16)` code looks like; only the type name differs.
        using (var aead = new AesGcmSiv(Key, 16))
        {
            int? tagSize = aead.TagSizeInBytes;
            aead.Encrypt(nonce, plaintext, ciphertext, tag, aad);
            aead.Decrypt(nonce, ciphertext, tag, opened, aad);
            Assert.That(tagSize, Is.EqualTo(16));
        }

        Assert.That(opened, Is.EqualTo(plaintext));
        using var keyOnly = new AesGcmSiv(Key);
        byte[] again = new byte[plaintext.Length];
        keyOnly.Decrypt(nonce, ciphertext, tag, again, aad);
        Assert.That(again, Is.EqualTo(plaintext), "the tag size constructor must not change the algorithm");
    }

    [Test]
    public void TagSizeInBytesIsSixteenWhicheverConstructorIsUsed()
    {
        using var a = new AesGcmSiv(Key);
        using var b = new AesGcmSiv(Key, 16);
        using var c = new AesGcmSiv(new ReadOnlySpan<byte>(Key), 16);
        using var d = new GuardedAesGcmSiv(Key, 16);
        using var e = new GuardedAesGcmSiv(new ReadOnlySpan<byte>(Key), 16);
        using var f = new GuardedAesGcmSiv(Key);
        Assert.That(new[] { a.TagSizeInBytes, b.TagSizeInBytes, c.TagSizeInBytes, d.TagSizeInBytes, e.TagSizeInBytes, f.TagSizeInBytes }, Is.All.EqualTo(16));
    }

    [TestCase(0)]
    [TestCase(-1)]
    [TestCase(4)]
    [TestCase(8)]
    [TestCase(15)]
    [TestCase(17)]
    [TestCase(32)]
    [TestCase(int.MaxValue)]
    public void AnUnsupportedTagSizeThrowsWhatAesGcmThrows(int tagSizeInBytes)
    {
        // AesGcm takes 12..16, so its exception for 17 is the one to copy; for 12..15 it has none.
        var expected = Assert.Throws<ArgumentException>(() => new AesGcm(Key, 17).Dispose())!;

        foreach (Action create in new Action[]
        {
            () => new AesGcmSiv(Key, tagSizeInBytes).Dispose(),
            () => new AesGcmSiv(new ReadOnlySpan<byte>(Key), tagSizeInBytes).Dispose(),
            () => new GuardedAesGcmSiv(Key, tagSizeInBytes).Dispose(),
            () => new GuardedAesGcmSiv(new ReadOnlySpan<byte>(Key), tagSizeInBytes).Dispose(),
        })
        {
            var actual = Assert.Throws<ArgumentException>(() => create())!;
            Assert.Multiple(() =>
            {
                Assert.That(actual.GetType(), Is.EqualTo(expected.GetType()));
                Assert.That(actual.ParamName, Is.EqualTo(expected.ParamName).And.EqualTo("tagSizeInBytes"));
                Assert.That(actual.Message, Is.EqualTo(expected.Message));
            });
        }
    }

    [Test]
    public void AKeyOfTheWrongSizeIsReportedBeforeTheTagSizeAsAesGcmDoes()
    {
        byte[] badKey = new byte[5];
        Assert.Throws<CryptographicException>(() => new AesGcm(badKey, 17).Dispose());
        Assert.Throws<CryptographicException>(() => new AesGcmSiv(badKey, 17).Dispose());
        Assert.Throws<CryptographicException>(() => new AesGcmSiv(new ReadOnlySpan<byte>(badKey), 17).Dispose());
        Assert.Throws<CryptographicException>(() => new AesGcmSiv(badKey, 16).Dispose());
    }

    [Test]
    public void ANullKeyThrowsArgumentNullExceptionNamingKeyAsAesGcmDoes()
    {
        var expected = Assert.Throws<ArgumentNullException>(() => new AesGcm((byte[])null!, 16).Dispose())!;
        var actual = Assert.Throws<ArgumentNullException>(() => new AesGcmSiv((byte[])null!, 16).Dispose())!;
        var guarded = Assert.Throws<ArgumentNullException>(() => new GuardedAesGcmSiv((byte[])null!, 16).Dispose())!;
        Assert.That(new[] { actual.ParamName, guarded.ParamName }, Is.All.EqualTo(expected.ParamName));
    }
}
