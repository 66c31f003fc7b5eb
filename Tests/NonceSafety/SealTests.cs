// AesGcmSiv.Seal / Open: random-nonce messages laid out as nonce || ciphertext || tag.

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Threading.Tasks;
using Cryptography;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class SealTests
{
    public static IEnumerable<AesGcmSivBackend> Backends() => TestBackends.All;

    [TestCaseSource(nameof(Backends))]
    public void SealedMessagesOpenAndMatchTheDetachedCall(AesGcmSivBackend backend)
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        using var aead = new AesGcmSiv(key, backend);
        foreach (int length in new[] { 0, 1, 15, 16, 17, 100, 1000 })
        {
            byte[] plaintext = RandomNumberGenerator.GetBytes(length), aad = RandomNumberGenerator.GetBytes(length % 7);
            byte[] sealedMessage = aead.Seal(plaintext, aad);
            Assert.That(sealedMessage, Has.Length.EqualTo(AesGcmSiv.GetSealedLength(length)).And.Length.EqualTo(length + AesGcmSiv.SealOverhead));

            byte[] ciphertext = new byte[length], tag = new byte[16];
            aead.Encrypt(sealedMessage.AsSpan(0, 12), plaintext, ciphertext, tag, aad);
            Assert.That(sealedMessage[12..^16], Is.EqualTo(ciphertext));
            Assert.That(sealedMessage[^16..], Is.EqualTo(tag));
            Assert.That(aead.Open(sealedMessage, aad), Is.EqualTo(plaintext));
            Assert.That(AesGcmSiv.GetOpenedLength(sealedMessage.Length), Is.EqualTo(length));
        }
    }

    [Test]
    public void SpanOverloadsWriteIntoTheCallersBuffer()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] plaintext = "span overloads"u8.ToArray();
        byte[] destination = new byte[100];
        int written = aead.SealInto(plaintext, destination);
        Assert.That(written, Is.EqualTo(plaintext.Length + 28));

        byte[] opened = new byte[100];
        Assert.That(aead.OpenInto(destination.AsSpan(0, written), opened), Is.EqualTo(plaintext.Length));
        Assert.That(opened[..plaintext.Length], Is.EqualTo(plaintext));
    }

    [Test]
    public void InPlaceSealAndOpen()
    {
        using var aead = new AesGcmSiv(new byte[32]);
        byte[] plaintext = RandomNumberGenerator.GetBytes(333);
        byte[] buffer = new byte[333 + 28];
        plaintext.CopyTo(buffer, 12);
        aead.SealInto(buffer.AsSpan(12, 333), buffer);
        Assert.That(aead.Open(buffer), Is.EqualTo(plaintext));

        aead.OpenInto(buffer, buffer.AsSpan(12, 333));
        Assert.That(buffer.AsSpan(12, 333).ToArray(), Is.EqualTo(plaintext));
    }

    [Test]
    public void BadInputIsRejected()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] sealedMessage = aead.Seal("x"u8, "aad"u8);
        byte[] buffer = new byte[100];
        Assert.Multiple(() =>
        {
            Assert.That(() => aead.Open(new byte[27]), Throws.ArgumentException.With.Property("ParamName").EqualTo("sealedMessage"));
            Assert.That(() => aead.OpenInto(new byte[27], buffer), Throws.ArgumentException.With.Property("ParamName").EqualTo("sealedMessage"));
            Assert.That(() => aead.OpenInto(sealedMessage, new byte[0], "aad"u8.ToArray()), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.SealInto("xy"u8, new byte[29]), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.SealInto(buffer.AsSpan(0, 10), buffer), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.OpenInto(buffer.AsSpan(0, 40), buffer.AsSpan(13)), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.Open(sealedMessage), Throws.TypeOf<AuthenticationTagMismatchException>(), "associated data missing");
            Assert.That(() => AesGcmSiv.GetSealedLength(-1), Throws.TypeOf<ArgumentOutOfRangeException>());
            Assert.That(() => AesGcmSiv.GetSealedLength(int.MaxValue - 27), Throws.TypeOf<ArgumentOutOfRangeException>());
            Assert.That(() => AesGcmSiv.GetOpenedLength(27), Throws.TypeOf<ArgumentOutOfRangeException>());
        });

        for (int bit = 0; bit < sealedMessage.Length * 8; bit++)
        {
            byte[] tampered = (byte[])sealedMessage.Clone();
            tampered[bit / 8] ^= (byte)(1 << (bit % 8));
            byte[] destination = Enumerable.Repeat((byte)0xEE, 1).ToArray();
            Assert.Throws<AuthenticationTagMismatchException>(() => aead.OpenInto(tampered, destination, "aad"u8), $"bit {bit}");
            Assert.That(destination, Is.All.Zero);
        }
    }

    [Test]
    public void NoncesDoNotRepeatAcrossThreads()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        var seen = new ConcurrentDictionary<string, bool>();
        Parallel.For(0, 4, _ =>
        {
            Span<byte> sealedMessage = stackalloc byte[28];
            for (int i = 0; i < 25_000; i++)
            {
                aead.SealInto(default, sealedMessage);
                Assert.That(seen.TryAdd(Convert.ToHexString(sealedMessage[..12]), true), Is.True);
            }
        });
        Assert.That(seen, Has.Count.EqualTo(100_000));
    }

    [Test]
    public void SealingDoesNotAllocateInTheSpanForm()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] plaintext = new byte[64], destination = new byte[92];
        for (int i = 0; i < 200; i++)
        {
            aead.SealInto(plaintext, destination);
        }

        long[] rounds = Allocations.PerRound(() =>
        {
            for (int i = 0; i < 1000; i++)
            {
                aead.SealInto(plaintext, destination);
                aead.OpenInto(destination, plaintext);
            }
        });
        Assert.That(Allocations.Least(rounds), Is.Zero, Allocations.Describe(rounds, "1000 seals and opens"));
    }
}
