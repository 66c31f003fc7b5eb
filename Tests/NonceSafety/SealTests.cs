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
        int written = aead.Seal(plaintext, default, destination);
        Assert.That(written, Is.EqualTo(plaintext.Length + 28));

        byte[] opened = new byte[100];
        Assert.That(aead.Open(destination.AsSpan(0, written), default, opened), Is.EqualTo(plaintext.Length));
        Assert.That(opened[..plaintext.Length], Is.EqualTo(plaintext));
    }

    // The Try forms return false for a destination one byte short, write nothing and report 0; with
    // room they write what the throwing forms write. Arrays cannot bind the associated data and the
    // destination the wrong way round: the forms differ in their number of arguments.
    [Test]
    public void TrySealAndTryOpenReportAShortDestinationInsteadOfThrowing()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] plaintext = "try forms"u8.ToArray();
        byte[] aad = "aad"u8.ToArray();
        byte[] shortBuffer = new byte[plaintext.Length + AesGcmSiv.SealOverhead - 1];
        Assert.That(aead.TrySeal(plaintext, aad, shortBuffer, out int written), Is.False);
        Assert.That((written, shortBuffer.All(b => b == 0)), Is.EqualTo((0, true)));

        byte[] sealedMessage = new byte[shortBuffer.Length + 1];
        Assert.That(aead.TrySeal(plaintext, aad, sealedMessage, out written), Is.True);
        Assert.That(written, Is.EqualTo(sealedMessage.Length));

        byte[] opened = new byte[plaintext.Length - 1];
        Assert.That(aead.TryOpen(sealedMessage, aad, opened, out int read), Is.False);
        Assert.That((read, opened.All(b => b == 0)), Is.EqualTo((0, true)));
        opened = new byte[plaintext.Length];
        Assert.That(aead.TryOpen(sealedMessage, aad, opened, out read), Is.True);
        Assert.That((read, opened), Is.EqualTo((plaintext.Length, plaintext)));

        sealedMessage[^1] ^= 1;
        Assert.That(() => aead.TryOpen(sealedMessage, aad, opened, out _), Throws.TypeOf<AuthenticationTagMismatchException>(), "a forgery is not a short buffer");
        Assert.That(opened, Is.All.Zero);
    }

    [Test]
    public void InPlaceSealAndOpen()
    {
        using var aead = new AesGcmSiv(new byte[32]);
        byte[] plaintext = RandomNumberGenerator.GetBytes(333);
        byte[] buffer = new byte[333 + 28];
        plaintext.CopyTo(buffer, 12);
        aead.Seal(buffer.AsSpan(12, 333), default, buffer);
        Assert.That(aead.Open(buffer), Is.EqualTo(plaintext));

        aead.Open(buffer, default, buffer.AsSpan(12, 333));
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
            Assert.That(() => aead.Open(sealedMessage, "aad"u8.ToArray(), new byte[0]), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.Seal("xy"u8, default, new byte[29]), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.Seal(buffer.AsSpan(0, 10), default, buffer), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(() => aead.Open(buffer.AsSpan(0, 40), default, buffer.AsSpan(13)), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
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
            Assert.Throws<AuthenticationTagMismatchException>(() => aead.Open(tampered, "aad"u8, destination), $"bit {bit}");
            Assert.That(destination, Is.All.Zero);
        }
    }

    // Issue 50, item 4: a sealed message comes from the network, so a receiver that catches
    // CryptographicException (docs/getting-started.md) must not crash on one shorter than nonce + tag.
    // Too short to hold a nonce and a tag is one more way of not being a message this key sealed.
    [Test]
    public void InputTooShortToBeASealedMessageFailsAsACryptographicException()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] buffer = new byte[100];
        for (int length = 0; length < AesGcmSiv.SealOverhead; length++)
        {
            byte[] input = new byte[length];
            Assert.Multiple(() =>
            {
                Assert.That(() => aead.Open(input), Throws.TypeOf<AuthenticationTagMismatchException>()
                    .With.Message.Contains($"{length} bytes").And.Message.Contains("28"), $"Open, {length} bytes");
                Assert.That(() => aead.Open(input, "aad"u8, buffer), Throws.TypeOf<AuthenticationTagMismatchException>(), $"Open into a buffer, {length} bytes");
                Assert.That(() => aead.TryOpen(input, default, buffer, out _), Throws.TypeOf<AuthenticationTagMismatchException>(), $"TryOpen, {length} bytes");
            });
        }

        // The guide's receiver, as written there.
        bool rejected = false;
        try
        {
            aead.Open(new byte[5]);
        }
        catch (CryptographicException)
        {
            rejected = true;
        }

        Assert.That(rejected, Is.True);
    }

    // Issue 50, item 4: a destination that is too short says how long it must be.
    [Test]
    public void ATooShortDestinationSaysHowManyBytesItNeeds()
    {
        using var aead = new AesGcmSiv(new byte[16]);
        byte[] sealedMessage = aead.Seal("hello"u8);
        Assert.Multiple(() =>
        {
            Assert.That(() => aead.Open(sealedMessage, default, new byte[4]), Throws.ArgumentException
                .With.Property("ParamName").EqualTo("destination").And.Message.Contains("4 bytes").And.Message.Contains("needs 5"));
            Assert.That(() => aead.Seal("hello"u8, default, new byte[32]), Throws.ArgumentException
                .With.Property("ParamName").EqualTo("destination").And.Message.Contains("32 bytes").And.Message.Contains("needs 33"));
        });
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
                aead.Seal(default, default, sealedMessage);
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
            aead.Seal(plaintext, default, destination);
        }

        long[] rounds = Allocations.PerRound(() =>
        {
            for (int i = 0; i < 1000; i++)
            {
                aead.Seal(plaintext, default, destination);
                aead.Open(destination, default, plaintext);
            }
        });
        Assert.That(Allocations.Least(rounds), Is.Zero, Allocations.Describe(rounds, "1000 seals and opens"));
    }
}
