// The nonce guards (GuardedAesGcm, GuardedChaCha20Poly1305, GuardedAesGcmSiv) through their
// public API: refusal before any output, identical re-encryption, the policies, the decrypt
// check, shared histories, concurrency, allocations.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class GuardTests
{
    private static readonly NonceGuardOptions Refuse = new() { Policy = NonceReusePolicy.Refuse };

    public static IEnumerable<GuardKind> Kinds() => GuardKind.All();

    private static byte[] Nonce(int i)
    {
        byte[] nonce = new byte[12];
        BitConverter.TryWriteBytes(nonce.AsSpan(4), i);
        return nonce;
    }

    [TestCaseSource(nameof(Kinds))]
    public void FreshNoncesEncryptLikeTheBareAead(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        using var guard = kind.Create(key, null);
        byte[] plaintext = RandomNumberGenerator.GetBytes(100);
        for (int i = 0; i < 50; i++)
        {
            byte[] ciphertext = new byte[100], tag = new byte[16], expected = new byte[100], expectedTag = new byte[16], decrypted = new byte[100];
            guard.Encrypt(Nonce(i), plaintext, ciphertext, tag);
            kind.EncryptUnguarded(key, Nonce(i), plaintext, expected, expectedTag);
            Assert.That((ciphertext, tag), Is.EqualTo((expected, expectedTag)));
            guard.Decrypt(Nonce(i), ciphertext, tag, decrypted);
            Assert.That(decrypted, Is.EqualTo(plaintext));
        }

        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((0L, 0L)));
    }

    [TestCaseSource(nameof(Kinds))]
    public void ARepeatWithADifferentMessageIsRefusedBeforeAnyOutput(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), Refuse);
        byte[] nonce = Nonce(7);
        guard.Encrypt(nonce, "first message"u8, new byte[13], new byte[16]);

        foreach ((byte[] plaintext, byte[] aad) in new[] { ("other message"u8.ToArray(), Array.Empty<byte>()), ("first message"u8.ToArray(), new byte[] { 1 }), (new byte[5000], Array.Empty<byte>()) })
        {
            byte[] ciphertext = Enumerable.Repeat((byte)0xA5, plaintext.Length).ToArray();
            byte[] tag = Enumerable.Repeat((byte)0x5A, 16).ToArray();
            var refusal = Assert.Throws<NonceReuseException>(() => guard.Encrypt(nonce, plaintext, ciphertext, tag, aad));
            Assert.That(refusal!.Message, Does.Contain(Convert.ToHexString(nonce)).And.Contain("Nothing was written"));
            Assert.That(refusal.LongRange, Is.False);
            Assert.That(ciphertext, Is.All.EqualTo((byte)0xA5), "ciphertext buffer touched");
            Assert.That(tag, Is.All.EqualTo((byte)0x5A), "tag buffer touched");
        }

        Assert.That(guard.DistinctRepeats, Is.EqualTo(3));
        Assert.That(new NonceReuseException(), Is.InstanceOf<CryptographicException>());
    }

    [TestCaseSource(nameof(Kinds))]
    public void IdenticalReEncryptionIsAllowedAndGivesTheSameOutput(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), Refuse);
        byte[] nonce = Nonce(1), plaintext = RandomNumberGenerator.GetBytes(300), aad = [1, 2, 3];
        byte[] first = new byte[300], firstTag = new byte[16], second = new byte[300], secondTag = new byte[16];
        guard.Encrypt(nonce, plaintext, first, firstTag, aad);
        guard.Encrypt(nonce, plaintext, second, secondTag, aad);
        Assert.That((second, secondTag), Is.EqualTo((first, firstTag)));
        Assert.That((guard.IdenticalRepeats, guard.DistinctRepeats), Is.EqualTo((1L, 0L)));

        // In place too: the plaintext buffer becomes the same ciphertext.
        byte[] inPlace = (byte[])plaintext.Clone();
        guard.Encrypt(nonce, inPlace, inPlace, secondTag, aad);
        Assert.That(inPlace, Is.EqualTo(first));
    }

    [TestCaseSource(nameof(Kinds))]
    public void RefuseAllRefusesEvenIdenticalReEncryption(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.RefuseAll });
        guard.Encrypt(Nonce(1), "same"u8, new byte[4], new byte[16]);
        byte[] ciphertext = new byte[4];
        Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(1), "same"u8, ciphertext, new byte[16]));
        Assert.That(ciphertext, Is.All.Zero);
    }

    [TestCaseSource(nameof(Kinds))]
    public void ObserveLetsRepeatsThroughAndCountsThem(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Observe });
        guard.Encrypt(Nonce(1), "one"u8, new byte[3], new byte[16]);
        guard.Encrypt(Nonce(1), "two"u8, new byte[3], new byte[16]);
        guard.Encrypt(Nonce(1), "one"u8, new byte[3], new byte[16]);
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((1L, 1L)));
    }

    [TestCaseSource(nameof(Kinds))]
    public void TheDefaultPolicyIsTheDocumentedOne(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), null);
        guard.Encrypt(Nonce(1), "one"u8, new byte[3], new byte[16]);
        if (kind.DefaultPolicy == NonceReusePolicy.Observe)
        {
            Assert.DoesNotThrow(() => guard.Encrypt(Nonce(1), "two"u8, new byte[3], new byte[16]));
            Assert.That(guard.DistinctRepeats, Is.EqualTo(1));
        }
        else
        {
            Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(1), "two"u8, new byte[3], new byte[16]));
        }
    }

    [TestCaseSource(nameof(Kinds))]
    public void AFailedCallDoesNotUseUpItsNonce(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), Refuse);
        Assert.Throws<ArgumentException>(() => guard.Encrypt(Nonce(3), new byte[10], new byte[9], new byte[16]));
        Assert.Throws<ArgumentException>(() => guard.Encrypt(Nonce(3), new byte[10], new byte[10], new byte[11]));
        Assert.Throws<ArgumentException>(() => guard.Encrypt(new byte[11], new byte[10], new byte[10], new byte[16]));
        Assert.DoesNotThrow(() => guard.Encrypt(Nonce(3), new byte[10], new byte[10], new byte[16]));
        Assert.That(guard.History.Count.Exact, Is.EqualTo(1));

        // A repeat with bad arguments is an argument error, not a refusal, and writes nothing.
        byte[] longer = Enumerable.Repeat((byte)7, 11).ToArray();
        Assert.That(() => guard.Encrypt(Nonce(3), new byte[10], longer, new byte[16]), Throws.ArgumentException.With.Property("ParamName").EqualTo("ciphertext"));
        Assert.That(() => guard.Encrypt(new byte[13], new byte[10], new byte[10], new byte[16]), Throws.ArgumentException.With.Property("ParamName").EqualTo("nonce"));
        Assert.That(longer, Is.All.EqualTo((byte)7));
    }

    [TestCaseSource(nameof(Kinds))]
    public void TheDecryptCheckCatchesAPeerThatRepeatsNonces(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        byte[] nonce = Nonce(9);
        byte[] c1 = new byte[5], t1 = new byte[16], c2 = new byte[5], t2 = new byte[16];
        kind.EncryptUnguarded(key, nonce, "hello"u8.ToArray(), c1, t1); // a peer that repeats a nonce
        kind.EncryptUnguarded(key, nonce, "world"u8.ToArray(), c2, t2);

        using (var unchecked_ = kind.Create(key, Refuse))
        {
            byte[] plaintext = new byte[5];
            unchecked_.Decrypt(nonce, c1, t1, plaintext);
            unchecked_.Decrypt(nonce, c2, t2, plaintext); // off by default
            Assert.That(plaintext, Is.EqualTo("world"u8.ToArray()));
        }

        using (var guard = kind.Create(key, new NonceGuardOptions { CheckDecrypt = true, Policy = NonceReusePolicy.Refuse }))
        {
            byte[] plaintext = new byte[5];
            guard.Decrypt(nonce, c1, t1, plaintext);
            guard.Decrypt(nonce, c1, t1, plaintext); // a replay of the same message is not a nonce repeat
            Assert.Throws<NonceReuseException>(() => guard.Decrypt(nonce, c2, t2, plaintext));
            Assert.That(plaintext, Is.All.Zero, "plaintext of the refused message released");

            // A forgery is rejected by the tag and leaves no trace in the history.
            byte[] forged = (byte[])t1.Clone();
            forged[0] ^= 1;
            int before = guard.History.Count.Exact;
            Assert.Throws<AuthenticationTagMismatchException>(() => guard.Decrypt(Nonce(10), c1, forged, plaintext));
            Assert.That(guard.History.Count.Exact, Is.EqualTo(before));
        }
    }

    [TestCaseSource(nameof(Kinds))]
    public void GuardsOfTheSameKeyShareOneHistory(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        int before = NonceHistoryRegistry.Count;
        using (var first = kind.Create(key, Refuse))
        using (var second = kind.Create(key, Refuse))
        using (var otherKey = kind.Create(kind.NewKey(), Refuse))
        using (var isolated = kind.Create(key, new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, ShareHistory = false }))
        {
            Assert.That(second.History, Is.SameAs(first.History));
            Assert.That(NonceHistoryRegistry.Count, Is.EqualTo(before + 2));
            first.Encrypt(Nonce(5), "a"u8, new byte[1], new byte[16]);
            Assert.Throws<NonceReuseException>(() => second.Encrypt(Nonce(5), "b"u8, new byte[1], new byte[16]));
            Assert.DoesNotThrow(() => otherKey.Encrypt(Nonce(5), "b"u8, new byte[1], new byte[16]));
            Assert.DoesNotThrow(() => isolated.Encrypt(Nonce(5), "b"u8, new byte[1], new byte[16]));
        }

        Assert.That(NonceHistoryRegistry.Count, Is.EqualTo(before), "the last guard's Dispose drops the shared history");
    }

    [TestCaseSource(nameof(Kinds))]
    public void ARepeatBeyondTheWindowIsCaughtAsADistinguishedPoint(GuardKind kind)
    {
        // Every nonce is distinguished (bits 0), the exact window holds 4.
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, WindowSize = 4, DistinguishedPointBits = 0, DistinguishedPointCapacity = 100 });
        for (int i = 0; i < 50; i++)
        {
            guard.Encrypt(Nonce(i), "x"u8, new byte[1], new byte[16]);
        }

        var refusal = Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(0), "y"u8, new byte[1], new byte[16]));
        Assert.That(refusal!.LongRange, Is.True);
        Assert.That(refusal.Message, Does.Contain("distinguished point"));
        Assert.DoesNotThrow(() => guard.Encrypt(Nonce(0), "x"u8, new byte[1], new byte[16]), "identical, long range");
    }

    [TestCaseSource(nameof(Kinds))]
    public void TheSteadyStateDoesNotAllocate(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, CheckDecrypt = true, WindowSize = 64, DistinguishedPointBits = 2, DistinguishedPointCapacity = 64 });
        byte[] nonce = new byte[12], plaintext = new byte[64], ciphertext = new byte[64], tag = new byte[16], decrypted = new byte[64];
        void Run(int from, int count)
        {
            for (int i = from; i < from + count; i++)
            {
                BitConverter.TryWriteBytes(nonce, i);
                guard.Encrypt(nonce, plaintext, ciphertext, tag);
                guard.Decrypt(nonce, ciphertext, tag, decrypted);
                guard.Encrypt(nonce, plaintext, ciphertext, tag); // identical re-encryption
            }
        }

        Run(0, 2000); // warm up: fill both rings, JIT, rent the pool's buffer
        int next = 2000;
        long[] rounds = Allocations.PerRound(() => { Run(next, 2000); next += 2000; });
        Assert.That(Allocations.Least(rounds), Is.Zero, Allocations.Describe(rounds, "2000 times encrypt, decrypt, re-encrypt"));
    }

    [TestCaseSource(nameof(Kinds))]
    public void ConcurrentCallsOnOneNonceLetExactlyOneMessageThrough(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), Refuse);
        const int Nonces = 2000, Threads = 4;
        int[] winners = new int[Nonces];
        int refusals = 0;
        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, thread =>
        {
            byte[] plaintext = [(byte)thread], ciphertext = new byte[1], tag = new byte[16];
            for (int i = 0; i < Nonces; i++)
            {
                try
                {
                    guard.Encrypt(Nonce(i), plaintext, ciphertext, tag);
                    Interlocked.Increment(ref winners[i]);
                }
                catch (NonceReuseException)
                {
                    Interlocked.Increment(ref refusals);
                }
            }
        });
        Assert.That(winners, Is.All.EqualTo(1));
        Assert.That(refusals, Is.EqualTo(Nonces * (Threads - 1)));
    }

    [TestCaseSource(nameof(Kinds))]
    public void ConcurrentIdenticalMessagesAllGoThroughWithTheSameOutput(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), Refuse);
        const int Nonces = 1000, Threads = 4;
        byte[][,] outputs = new byte[Threads][,];
        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, thread =>
        {
            var mine = new byte[Nonces, 32];
            for (int i = 0; i < Nonces; i++)
            {
                byte[] ciphertext = new byte[16], tag = new byte[16];
                guard.Encrypt(Nonce(i), BitConverter.GetBytes((long)i).Concat(new byte[8]).ToArray(), ciphertext, tag);
                for (int b = 0; b < 16; b++)
                {
                    mine[i, b] = ciphertext[b];
                    mine[i, 16 + b] = tag[b];
                }
            }

            outputs[thread] = mine;
        });
        for (int thread = 1; thread < Threads; thread++)
        {
            Assert.That(outputs[thread], Is.EqualTo(outputs[0]));
        }

        Assert.That(guard.IdenticalRepeats, Is.EqualTo(Nonces * (Threads - 1)));
    }

    [TestCaseSource(nameof(Kinds))]
    public void DisposeEndsTheGuard(GuardKind kind)
    {
        var guard = kind.Create(kind.NewKey(), null);
        guard.Dispose();
        guard.Dispose();
        Assert.Throws<ObjectDisposedException>(() => guard.Encrypt(Nonce(1), new byte[1], new byte[1], new byte[16]));
        Assert.Throws<ObjectDisposedException>(() => guard.Decrypt(Nonce(1), new byte[1], new byte[16], new byte[1]));
    }

    [Test]
    public void BadOptionsAreRejectedWithTheirName()
    {
        byte[] key = new byte[16];
        Assert.Multiple(() =>
        {
            Assert.That(() => new GuardedAesGcm(key, 16, new NonceGuardOptions { WindowSize = 0 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("WindowSize"));
            Assert.That(() => new GuardedAesGcm(key, 16, new NonceGuardOptions { DistinguishedPointBits = 17 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("DistinguishedPointBits"));
            Assert.That(() => new GuardedAesGcmSiv(key, new NonceGuardOptions { DistinguishedPointCapacity = -1 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("DistinguishedPointCapacity"));
            Assert.That(() => new GuardedChaCha20Poly1305(new byte[32], new NonceGuardOptions { Policy = (NonceReusePolicy)9 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("Policy"));
            Assert.That(() => new GuardedAesGcm(new byte[15], 16), Throws.InstanceOf<CryptographicException>());
            Assert.That(() => new GuardedAesGcmSiv(new byte[24]), Throws.InstanceOf<CryptographicException>());
            Assert.That(() => new GuardedChaCha20Poly1305((byte[])null!), Throws.ArgumentNullException);
        });
    }

    [Test]
    public void TheGuardsMirrorTheStaticsOfWhatTheyWrap()
    {
        Assert.Multiple(() =>
        {
            Assert.That(GuardedAesGcm.IsSupported, Is.EqualTo(AesGcm.IsSupported));
            Assert.That(GuardedAesGcm.TagByteSizes.MinSize, Is.EqualTo(AesGcm.TagByteSizes.MinSize));
            Assert.That(GuardedAesGcm.NonceByteSizes.MaxSize, Is.EqualTo(12));
            Assert.That(GuardedChaCha20Poly1305.IsSupported, Is.EqualTo(ChaCha20Poly1305.IsSupported));
            Assert.That(GuardedAesGcmSiv.KeyByteSizes.MaxSize, Is.EqualTo(32));
        });
        using var guard = new GuardedAesGcm(new byte[16], 12);
        Assert.That(guard.TagSizeInBytes, Is.EqualTo(12));
    }

    /// <summary>A guard with truncated AES-GCM tags: identical re-encryption is let through with the same
    /// output, a different message under the same nonce is refused, and the decrypt check sees a repeat.</summary>
    [Test]
    public void TruncatedGcmTagsAreTrackedAtTheirLength()
    {
        byte[] key = RandomNumberGenerator.GetBytes(16);
        using var guard = new GuardedAesGcm(key, 12, new NonceGuardOptions { CheckDecrypt = true, Policy = NonceReusePolicy.Refuse });
        byte[] nonce = Nonce(7), plaintext = RandomNumberGenerator.GetBytes(100);
        byte[] first = new byte[100], firstTag = new byte[12], second = new byte[100], secondTag = new byte[12];
        guard.Encrypt(nonce, plaintext, first, firstTag);
        guard.Encrypt(nonce, plaintext, second, secondTag);
        Assert.That((second, secondTag), Is.EqualTo((first, firstTag)));
        byte[] changed = (byte[])plaintext.Clone();
        changed[99] ^= 1;
        Assert.That(() => guard.Encrypt(nonce, changed, second, secondTag), Throws.InstanceOf<NonceReuseException>());
        Assert.That((guard.IdenticalRepeats, guard.DistinctRepeats), Is.EqualTo((1L, 1L)));

        // A peer's message under a nonce this key already used for another message.
        using var bare = new AesGcm(key, 12);
        byte[] other = new byte[100], otherTag = new byte[12], opened = new byte[100];
        bare.Encrypt(nonce, changed, other, otherTag);
        Assert.That(() => guard.Decrypt(nonce, other, otherTag, opened), Throws.InstanceOf<NonceReuseException>());
        guard.Decrypt(nonce, first, firstTag, opened);
        Assert.That(opened, Is.EqualTo(plaintext), "the message the nonce was used for still opens");
    }
}
