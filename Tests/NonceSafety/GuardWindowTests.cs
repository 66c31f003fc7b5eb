// Failed calls and the exact window (issue 17, "also check"): a call that fails on its arguments
// produced no message, so it must not take a place in the window; otherwise a run of failing
// calls pushes real nonces out early and a repeat of one goes through.

using System;
using System.Collections.Generic;
using Cryptography;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class GuardWindowTests
{
    public static IEnumerable<GuardKind> Kinds() => GuardKind.All();

    private static byte[] Nonce(int i)
    {
        byte[] nonce = new byte[12];
        BitConverter.TryWriteBytes(nonce.AsSpan(4), i);
        return nonce;
    }

    [TestCaseSource(nameof(Kinds))]
    public void FailedCallsDoNotShrinkTheExactWindow(GuardKind kind)
    {
        var options = new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, WindowSize = 16, DistinguishedPointCapacity = 0, ShareHistory = false };
        using GuardedAead guard = kind.Create(kind.NewKey(), options);
        guard.Encrypt(Nonce(0), "first message"u8, new byte[13], new byte[16]);

        // Far more failing calls, on fresh nonces, than the window holds.
        int failed = 0;
        byte[] buffer = new byte[64];
        for (int i = 1; i <= 200; i++)
        {
            try
            {
                switch (i % 3)
                {
                    case 0: // a tag size the AEAD does not take
                        guard.Encrypt(Nonce(i), new byte[10], new byte[10], new byte[15]);
                        break;
                    case 1 when kind.Name == "AesGcmSiv": // plaintext and ciphertext overlap partially
                        guard.Encrypt(Nonce(i), buffer.AsSpan(0, 32), buffer.AsSpan(8, 32), new byte[16]);
                        break;
                    case 2 when kind.Name == "AesGcmSiv": // the tag overlaps the ciphertext
                        guard.Encrypt(Nonce(i), new byte[32], buffer.AsSpan(0, 32), buffer.AsSpan(16, 16));
                        break;
                    default:
                        guard.Encrypt(Nonce(i), new byte[10], new byte[10], new byte[17]);
                        break;
                }
            }
            catch (ArgumentException)
            {
                failed++;
            }
        }

        (int exact, _) = guard.History.Count;
        TestContext.Out.WriteLine($"{kind}: {failed} failed calls; the window now holds {exact} nonces");
        Assert.That(failed, Is.EqualTo(200));
        Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(0), "other message"u8, new byte[13], new byte[16]), "a repeat within the window went through after failed calls");
    }
}
