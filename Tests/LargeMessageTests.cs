// Messages of Array.MaxLength bytes (2^31 - 57, the largest array .NET allows), issue 17 finding 6:
// the portable CTR loop kept its offset in an int and stepped it by 64, which overflowed past
// 2^31 - 64 and threw ArgumentOutOfRangeException after most of the ciphertext had been written
// (in place: the plaintext was lost). The hardware backends use nuint offsets.
//
// Memory and time, stated because they are large:
//  - ActiveHardwareBackendAtArrayMaxLength: one 2 GiB array, a few seconds on AES-NI. Runs in CI;
//    skipped (inconclusive) where the active backend is the portable one (the
//    DOTNET_EnableHWIntrinsic=0 leg), where it would take minutes.
//  - PortableBackendAtArrayMaxLength: two 2 GiB arrays (4 GiB) and about two minutes of bitsliced
//    AES on this machine: [Explicit], category LargeMemory. Run it with
//      dotnet test Tests -c Release --filter "TestCategory=LargeMemory"

using System;
using System.Diagnostics;
using System.Linq;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
[NonParallelizable]
public class LargeMessageTests
{
    private static readonly byte[] Key = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();
    private static readonly byte[] Nonce = Enumerable.Range(40, 12).Select(i => (byte)i).ToArray();

    [Test]
    [Category("LargeMemory")]
    public void ActiveHardwareBackendAtArrayMaxLength()
    {
        Assume.That(AesGcmSiv.ActiveBackend, Is.Not.EqualTo(AesGcmSivBackend.Portable), "the portable backend takes minutes at this size: see PortableBackendAtArrayMaxLength");
        var clock = Stopwatch.StartNew();
        byte[] message = GC.AllocateUninitializedArray<byte>(Array.MaxLength);
        Fill(message);
        byte[] tag = new byte[16];
        using var aead = new AesGcmSiv(Key);
        aead.Encrypt(Nonce, message, message, tag);
        Assert.That(IsFilled(message, message.Length - 64), Is.False, "the end of the message was encrypted");
        aead.Decrypt(Nonce, message, tag, message);
        Assert.That(IsFilled(message), Is.True, "the round trip gives the message back");
        TestContext.Out.WriteLine($"{AesGcmSiv.ActiveBackend}: encrypt and decrypt of {message.Length} bytes in place, {clock.Elapsed.TotalSeconds:F1} s");
    }

    [Test]
    [Explicit("4 GiB of memory and about two minutes of portable AES")]
    [Category("LargeMemory")]
    public void PortableBackendAtArrayMaxLength()
    {
        var clock = Stopwatch.StartNew();
        byte[] message = GC.AllocateUninitializedArray<byte>(Array.MaxLength);
        Fill(message);
        byte[] tag = new byte[16];
        using (var portable = new AesGcmSiv(Key, AesGcmSivBackend.Portable))
        {
            portable.Encrypt(Nonce, message, message, tag);
        }

        TestContext.Out.WriteLine($"portable encrypt of {message.Length} bytes in place: {clock.Elapsed.TotalSeconds:F1} s");

        // The reference: the same message through another backend (hardware where there is one).
        AesGcmSivBackend reference = TestBackends.Hardware.FirstOrDefault(AesGcmSivBackend.Portable);
        if (reference != AesGcmSivBackend.Portable)
        {
            byte[] expected = GC.AllocateUninitializedArray<byte>(Array.MaxLength);
            Fill(expected);
            byte[] expectedTag = new byte[16];
            using (var hardware = new AesGcmSiv(Key, reference))
            {
                hardware.Encrypt(Nonce, expected, expected, expectedTag);
            }

            Assert.That(tag, Is.EqualTo(expectedTag), $"the tag equals {reference}'s");
            Assert.That(message.AsSpan().SequenceEqual(expected), Is.True, $"the ciphertext equals {reference}'s");
        }

        using (var portable = new AesGcmSiv(Key, AesGcmSivBackend.Portable))
        {
            portable.Decrypt(Nonce, message, tag, message);
        }

        Assert.That(IsFilled(message), Is.True, "the portable round trip gives the message back");
        TestContext.Out.WriteLine($"portable encrypt, {reference} encrypt, portable decrypt: {clock.Elapsed.TotalSeconds:F1} s");
    }

    // A pattern with a period (251) that is prime to every block size, so a misplaced block shows.
    // Offsets are long: an int stepped by 251 would overflow near Array.MaxLength, the bug at hand.
    private static void Fill(byte[] message)
    {
        byte[] period = Enumerable.Range(0, 251).Select(i => (byte)i).ToArray();
        for (long offset = 0; offset < message.Length; offset += period.Length)
        {
            period.AsSpan(0, (int)Math.Min(period.Length, message.Length - offset)).CopyTo(message.AsSpan((int)offset));
        }
    }

    /// <summary>Whether message[from..] holds the pattern.</summary>
    private static bool IsFilled(byte[] message, int from = 0)
    {
        byte[] period = Enumerable.Range(0, 251).Select(i => (byte)i).ToArray();
        for (long offset = from; offset < message.Length; offset += period.Length - (offset % period.Length))
        {
            int phase = (int)(offset % period.Length);
            int count = (int)Math.Min(period.Length - phase, message.Length - offset);
            if (!message.AsSpan((int)offset, count).SequenceEqual(period.AsSpan(phase, count)))
            {
                return false;
            }
        }

        return true;
    }
}
