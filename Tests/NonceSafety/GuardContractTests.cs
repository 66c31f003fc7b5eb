// The nonce guards' contract at its edges: argument checks, what a refusal says and counts, the sizes a
// checked decryption takes, and what a refused repeat leaves behind. Written from the mutants of
// Cryptography/NonceSafety/ that the rest of the suite let live (docs/testing.md); a second Stryker
// run kills most of them, and docs/testing.md says why the rest live.

using System;
using System.Buffers;
using System.IO;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class GuardContractTests
{
    public static System.Collections.Generic.IEnumerable<GuardKind> Kinds() => GuardKind.All();

    private static byte[] Nonce(int i)
    {
        byte[] nonce = new byte[12];
        BitConverter.TryWriteBytes(nonce, i);
        return nonce;
    }

    [TestCaseSource(nameof(Kinds))]
    public void TheArrayOverloadsRefuseNullWithTheParameterName(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), null);
        byte[] nonce = Nonce(1), data = new byte[4], tag = new byte[16];
        Assert.Multiple(() =>
        {
            Assert.That(() => guard.Encrypt(null!, data, data, tag), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("nonce"));
            Assert.That(() => guard.Encrypt(nonce, null!, data, tag), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("plaintext"));
            Assert.That(() => guard.Encrypt(nonce, data, null!, tag), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("ciphertext"));
            Assert.That(() => guard.Encrypt(nonce, data, data, null!), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("tag"));
            Assert.That(() => guard.Decrypt(null!, data, tag, data), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("nonce"));
            Assert.That(() => guard.Decrypt(nonce, null!, tag, data), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("ciphertext"));
            Assert.That(() => guard.Decrypt(nonce, data, null!, data), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("tag"));
            Assert.That(() => guard.Decrypt(nonce, data, tag, null!), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("plaintext"));
        });
    }

    /// <summary>A second guard of a key gets the history the first one made, which never sees the second's
    /// options: the guard checks them itself.</summary>
    [TestCaseSource(nameof(Kinds))]
    public void BadOptionsAreRefusedEvenWhenTheKeyAlreadyHasAHistory(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        using var first = kind.Create(key, null);
        int before = NonceHistoryRegistry.Count;
        Assert.That(() => kind.Create(key, new NonceGuardOptions { WindowSize = 0 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("WindowSize"));
        Assert.That(() => kind.Create(key, new NonceGuardOptions { Policy = (NonceReusePolicy)42 }), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("Policy"));
        Assert.That(NonceHistoryRegistry.Count, Is.EqualTo(before));
    }

    [Test]
    public void TheLimitsThemselvesAreAccepted()
    {
        Assert.DoesNotThrow(() => new NonceGuardOptions { WindowSize = NonceGuardOptions.MaxEntries, DistinguishedPointBits = 16, DistinguishedPointCapacity = NonceGuardOptions.MaxEntries }.Validate());
        Assert.DoesNotThrow(() => new NonceGuardOptions { WindowSize = 1, DistinguishedPointBits = 0, DistinguishedPointCapacity = 0 }.Validate());
        Assert.Multiple(() =>
        {
            Assert.That(() => new NonceGuardOptions { WindowSize = NonceGuardOptions.MaxEntries + 1 }.Validate(), Throws.TypeOf<ArgumentOutOfRangeException>().With.Message.Contains($"1 to {NonceGuardOptions.MaxEntries}"));
            Assert.That(() => new NonceGuardOptions { DistinguishedPointBits = 17 }.Validate(), Throws.TypeOf<ArgumentOutOfRangeException>().With.Message.Contains("0 to 16"));
            Assert.That(() => new NonceGuardOptions { DistinguishedPointCapacity = NonceGuardOptions.MaxEntries + 1 }.Validate(), Throws.TypeOf<ArgumentOutOfRangeException>().With.Message.Contains($"{NonceGuardOptions.MaxEntries}"));
            Assert.That(() => new NonceGuardOptions { Policy = (NonceReusePolicy)42 }.Validate(), Throws.TypeOf<ArgumentOutOfRangeException>().With.Message.Contains("policy"));
        });
    }

    [TestCaseSource(nameof(Kinds))]
    public void ARefusalSaysWhichWindowCaughtIt(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, WindowSize = 64 });
        guard.Encrypt(Nonce(1), "one"u8, new byte[3], new byte[16]);
        var refusal = Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(1), "two"u8, new byte[3], new byte[16]))!;
        Assert.That(refusal.LongRange, Is.False);
        string algorithm = kind.Name switch { "AesGcm" => "AES-GCM key", "ChaCha20Poly1305" => "ChaCha20-Poly1305 key", _ => "AES-GCM-SIV key" };
        Assert.That(refusal.Message, Does.Contain("within the last 64 nonces").And.Contain(algorithm));
    }

    /// <summary>RefuseAll refuses without encrypting, so it cannot tell an identical message: every repeat
    /// counts as distinct, as <see cref="GuardedAead.DistinctRepeats"/> says.</summary>
    [TestCaseSource(nameof(Kinds))]
    public void RefuseAllSaysSoAndCountsEveryRepeatAsDistinct(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.RefuseAll });
        guard.Encrypt(Nonce(1), "same"u8, new byte[4], new byte[16]);
        var refusal = Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(1), "same"u8, new byte[4], new byte[16]))!;
        Assert.That(refusal.Message, Does.Contain("refuses every repeat"));
        Assert.That(refusal.LongRange, Is.False);
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((1L, 0L)));
    }

    [TestCaseSource(nameof(Kinds))]
    public void ACheckedDecryptionRefusalSaysItWasReceivedAndCounts(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        using var guard = kind.Create(key, new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, CheckDecrypt = true, WindowSize = 4, DistinguishedPointBits = 0, DistinguishedPointCapacity = 100 });
        byte[] first = new byte[3], firstTag = new byte[16], second = new byte[3], secondTag = new byte[16];
        kind.EncryptUnguarded(key, Nonce(0), "one"u8.ToArray(), first, firstTag);
        kind.EncryptUnguarded(key, Nonce(0), "two"u8.ToArray(), second, secondTag);

        guard.Decrypt(Nonce(0), first, firstTag, new byte[3]);
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((0L, 0L)), "one checked decryption records the nonce once");
        guard.Decrypt(Nonce(0), first, firstTag, new byte[3]);
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((0L, 1L)), "the same message again");

        byte[] plaintext = new byte[3];
        var refusal = Assert.Throws<NonceReuseException>(() => guard.Decrypt(Nonce(0), second, secondTag, plaintext))!;
        Assert.That(refusal.Message, Does.Contain("A received message reuses the nonce"));
        Assert.That(refusal.LongRange, Is.False);
        Assert.That(plaintext, Is.All.Zero);
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((1L, 1L)));

        // Pushed out of the 4-nonce window, the nonce is still a distinguished point.
        for (int i = 1; i < 20; i++)
        {
            guard.Encrypt(Nonce(i), "x"u8, new byte[1], new byte[16]);
        }

        refusal = Assert.Throws<NonceReuseException>(() => guard.Decrypt(Nonce(0), second, secondTag, plaintext))!;
        Assert.That(refusal.LongRange, Is.True);
        Assert.That(refusal.Message, Does.Contain("distinguished point"));
    }

    [TestCaseSource(nameof(Kinds))]
    public void ACheckedDecryptionTakesOnlyTheSizesTheAeadTakes(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { CheckDecrypt = true });
        Assert.That(() => guard.Decrypt(new byte[11], new byte[3], new byte[16], new byte[3]), Throws.ArgumentException.With.Property("ParamName").EqualTo("nonce"));
        Assert.That(() => guard.Decrypt(Nonce(1), new byte[3], new byte[17], new byte[3]), Throws.InstanceOf<ArgumentException>(), "a tag longer than any the AEAD takes");
        Assert.That(() => guard.Decrypt(Nonce(1), new byte[3], new byte[16], new byte[3]), Throws.InstanceOf<AuthenticationTagMismatchException>());
        Assert.That((guard.DistinctRepeats, guard.IdenticalRepeats), Is.EqualTo((0L, 0L)), "nothing that failed was recorded");
    }

    [TestCaseSource(nameof(Kinds))]
    public void ARepeatWithAnOversizedTagIsAnArgumentError(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Refuse });
        guard.Encrypt(Nonce(1), "one"u8, new byte[3], new byte[16]);
        byte[] ciphertext = new byte[3];
        Assert.That(() => guard.Encrypt(Nonce(1), "two"u8, ciphertext, new byte[17]), Throws.InstanceOf<ArgumentException>().And.Not.InstanceOf<NonceReuseException>());
        Assert.That(ciphertext, Is.All.Zero);
    }

    /// <summary>A refused repeat was encrypted into a pooled buffer first: a second message under a used
    /// nonce, the very thing the guard exists to withhold. The buffer goes back to the pool wiped.</summary>
    [TestCaseSource(nameof(Kinds))]
    public void ARefusedRepeatLeavesNoCiphertextInThePool(GuardKind kind)
    {
        using var guard = kind.Create(kind.NewKey(), new NonceGuardOptions { Policy = NonceReusePolicy.Refuse });
        byte[] one = new byte[777], two = new byte[777];
        one.AsSpan().Fill(1);
        two.AsSpan().Fill(2);
        guard.Encrypt(Nonce(1), one, new byte[777], new byte[16]);
        Assert.Throws<NonceReuseException>(() => guard.Encrypt(Nonce(1), two, new byte[777], new byte[16]));

        // The pool hands this thread back the buffer it was just given (its per-thread slot for the size).
        byte[] pooled = ArrayPool<byte>.Shared.Rent(777);
        try
        {
            Assert.That(pooled, Is.All.Zero);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(pooled);
        }
    }

    [Test]
    public void GuardsOfDifferentAeadsNeverShareAHistory()
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        using var gcm = new GuardedAesGcm(key, 16);
        using var chacha = new GuardedChaCha20Poly1305(key);
        using var siv = new GuardedAesGcmSiv(key);
        using var sivAgain = new GuardedAesGcmSiv(key);
        Assert.That(sivAgain.History, Is.SameAs(siv.History));
        Assert.That(gcm.History, Is.Not.SameAs(chacha.History).And.Not.SameAs(siv.History));
        Assert.That(chacha.History, Is.Not.SameAs(siv.History));
    }

    [Test]
    public void DisposingTheGuardDisposesTheAeadItWraps()
    {
        var guard = new GuardedAesGcmSiv(RandomNumberGenerator.GetBytes(32));
        var aead = PrivateState.Aead(guard);
        guard.Dispose();
        Assert.That(() => aead.Encrypt(Nonce(1), new byte[1], new byte[1], new byte[16]), Throws.TypeOf<ObjectDisposedException>());
    }

    [Test]
    public void NonceReuseExceptionHasAMessageOfItsOwn()
    {
        Assert.That(new NonceReuseException().Message, Does.Contain("nonce"));
    }

    // Adapters the guard cannot serve (it reads their sizes from default(TAead), as constants): nonces
    // other than the history's 12 bytes, or tags longer than the 16 bytes the history and the guard's
    // stack copy of a received tag keep. Calling them is never reached.
    private readonly struct TwentyFourByteNonces : IGuardedAead
    {
        public string Name => "XChaCha-like";

        public int NonceSize => 24;

        public int MaxTagSize => 16;

        public bool Concurrent => true;

        public void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag) => throw new InvalidOperationException();

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData) => throw new InvalidOperationException();

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) => throw new InvalidOperationException();
    }

    private readonly struct ThirtyTwoByteTags : IGuardedAead
    {
        public string Name => "long-tagged";

        public int NonceSize => 12;

        public int MaxTagSize => 32;

        public bool Concurrent => true;

        public void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag) => throw new InvalidOperationException();

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData) => throw new InvalidOperationException();

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) => throw new InvalidOperationException();
    }

    [Test]
    public void AnAdapterWithOtherNonceSizesOrLongerTagsIsRefused()
    {
        using var owned = new MemoryStream();
        Assert.Multiple(() =>
        {
            Assert.That(() => GuardedCalls.Create(default(TwentyFourByteNonces), owned), Throws.TypeOf<NotSupportedException>().With.Message.Contains("24-byte nonces"));
            Assert.That(() => GuardedCalls.Create(default(ThirtyTwoByteTags), owned), Throws.TypeOf<NotSupportedException>().With.Message.Contains("up to 32 bytes"));
        });
    }
}
