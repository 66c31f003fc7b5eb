// The guards against a caller whose nonce buffer changes during the call (issue 17, finding 2):
// the nonce the history checks must be the nonce the AEAD uses. Another thread alternates the
// buffer's last four bytes between an old nonce O (already used) and ever new values; whenever
// the guard checked a new value but the AEAD then read O, a real repeat of O with a different
// message went through. Each message is checked by decrypting it under O with the bare AEAD.
// Bounded in time (and by the exact window, so that O is always remembered). On a loaded machine
// the two threads share a core only now and then, so the test runs for its whole budget.

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Diagnostics;
using System.Security.Cryptography;
using System.Threading;
using Cryptography;
using NUnit.Framework;

namespace Tests.NonceSafety;

[TestFixture]
public class GuardRaceTests
{
    private static readonly TimeSpan Budget = TimeSpan.FromSeconds(1.5);

    // Refuse everywhere (GuardedAesGcmSiv's default is Observe); a window wider than the test's
    // calls, so O never leaves it; a history of its own.
    private static readonly NonceGuardOptions Options = new()
    {
        Policy = NonceReusePolicy.Refuse,
        WindowSize = 1 << 16,
        ShareHistory = false,
    };

    private static readonly NonceGuardOptions CheckedOptions = new()
    {
        Policy = NonceReusePolicy.Refuse,
        WindowSize = 1 << 16,
        ShareHistory = false,
        CheckDecrypt = true,
    };

    public static IEnumerable<GuardKind> Kinds() => GuardKind.All();

    [TestCaseSource(nameof(Kinds))]
    public void ANonceChangedDuringEncryptNeverLetsARepeatThrough(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        using GuardedAead guard = kind.Create(key, Options);
        byte[] old = RandomNumberGenerator.GetBytes(12);
        BinaryPrimitives.WriteUInt32LittleEndian(old.AsSpan(8), 0);
        byte[] plaintext = new byte[32], ciphertext = new byte[32], tag = new byte[16], opened = new byte[32];
        guard.Encrypt(old, plaintext, ciphertext, tag);

        byte[] shared = (byte[])old.Clone();
        int calls = 0, refused = 0, repeats = 0;
        using IDisposable bare = BareDecryptor(kind, key, out DecryptUnder decryptUnder);
        using (Flip(shared))
        {
            var clock = Stopwatch.StartNew();
            // Each accepted call adds one nonce to the history: stop before O could leave the window.
            for (int i = 1; calls - refused < Options.WindowSize - 1 && clock.Elapsed < Budget; i++)
            {
                BinaryPrimitives.WriteInt32LittleEndian(plaintext, i); // every message different
                calls++;
                try
                {
                    guard.Encrypt(shared, plaintext, ciphertext, tag);
                }
                catch (NonceReuseException)
                {
                    refused++;
                    continue;
                }

                if (decryptUnder(old, ciphertext, tag, opened))
                {
                    repeats++;
                }
            }
        }

        string summary = $"{kind}: {calls} calls, {refused} refused, {repeats} repeats of the old nonce let through";
        TestContext.Out.WriteLine(summary);
        Assert.That(refused, Is.GreaterThan(0), "the race never reached the old nonce: " + summary);
        Assert.That(repeats, Is.Zero, summary);
    }

    [TestCaseSource(nameof(Kinds))]
    public void ANonceChangedDuringACheckedDecryptNeverLetsARepeatThrough(GuardKind kind)
    {
        byte[] key = kind.NewKey();
        using GuardedAead guard = kind.Create(key, CheckedOptions);
        byte[] old = RandomNumberGenerator.GetBytes(12);
        BinaryPrimitives.WriteUInt32LittleEndian(old.AsSpan(8), 0);

        // Two different messages under O: the guard records the first; the second is a repeat.
        byte[] first = new byte[32], firstTag = new byte[16], second = new byte[32], secondTag = new byte[16], opened = new byte[32];
        kind.EncryptUnguarded(key, old, new byte[32], first, firstTag);
        kind.EncryptUnguarded(key, old, [.. new byte[31], 1], second, secondTag);
        guard.Decrypt(old, first, firstTag, opened);

        byte[] shared = (byte[])old.Clone();
        int calls = 0, refused = 0, rejected = 0, repeats = 0;
        using (Flip(shared))
        {
            var clock = Stopwatch.StartNew();
            while (clock.Elapsed < Budget)
            {
                calls++;
                try
                {
                    guard.Decrypt(shared, second, secondTag, opened);
                    repeats++; // authentic under O (the only nonce it verifies under), and not refused
                }
                catch (NonceReuseException)
                {
                    refused++;
                }
                catch (AuthenticationTagMismatchException)
                {
                    rejected++; // the AEAD read a new value: not this message's nonce
                }
            }
        }

        string summary = $"{kind}: {calls} calls, {refused} refused, {rejected} rejected as forgeries, {repeats} repeats of the old nonce let through";
        TestContext.Out.WriteLine(summary);
        Assert.That(refused, Is.GreaterThan(0), "the race never reached the old nonce: " + summary);
        Assert.That(repeats, Is.Zero, summary);
    }

    /// <summary>Alternates bytes 8..11 of <paramref name="nonce"/> between 0 (O) and a new value each time, until disposed.</summary>
    private static IDisposable Flip(byte[] nonce)
    {
        var stop = new CancellationTokenSource();
        using var running = new ManualResetEventSlim();
        var flipper = new Thread(() =>
        {
            running.Set();
            // Each value stays for a varying short while (0 to 15 spins), so that some flips land
            // between the guard's look at the buffer and the AEAD's, whatever that gap is.
            uint random = 12345;
            for (uint k = 1; !stop.IsCancellationRequested; k++)
            {
                for (int j = 0; j < 64; j++)
                {
                    random = (random * 1664525) + 1013904223;
                    Volatile.Write(ref Unsafe32(nonce), k++);
                    Thread.SpinWait((int)(random >> 28));
                    Volatile.Write(ref Unsafe32(nonce), 0u);
                    Thread.SpinWait((int)(random >> 24) & 15);
                }
            }
        })
        { IsBackground = true };
        flipper.Start();
        running.Wait();
        return new Stopper(stop, flipper);
    }

    private static ref uint Unsafe32(byte[] nonce) => ref System.Runtime.CompilerServices.Unsafe.As<byte, uint>(ref nonce[8]);

    private sealed class Stopper(CancellationTokenSource stop, Thread flipper) : IDisposable
    {
        public void Dispose()
        {
            stop.Cancel();
            flipper.Join();
            stop.Dispose();
        }
    }

    private delegate bool DecryptUnder(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext);

    /// <summary>The bare AEAD of <paramref name="kind"/>: whether a message authenticates under a nonce.</summary>
    private static IDisposable BareDecryptor(GuardKind kind, byte[] key, out DecryptUnder decrypt)
    {
        switch (kind.Name)
        {
            case "AesGcm":
                var gcm = new AesGcm(key, 16);
                decrypt = (nonce, ciphertext, tag, plaintext) => Authentic(() => gcm.Decrypt(nonce, ciphertext, tag, plaintext));
                return gcm;
            case "ChaCha20Poly1305":
                var chacha = new ChaCha20Poly1305(key);
                decrypt = (nonce, ciphertext, tag, plaintext) => Authentic(() => chacha.Decrypt(nonce, ciphertext, tag, plaintext));
                return chacha;
            default:
                var siv = new AesGcmSiv(key);
                decrypt = (nonce, ciphertext, tag, plaintext) => Authentic(() => siv.Decrypt(nonce, ciphertext, tag, plaintext));
                return siv;
        }
    }

    private static bool Authentic(Action decrypt)
    {
        try
        {
            decrypt();
            return true;
        }
        catch (AuthenticationTagMismatchException)
        {
            return false;
        }
    }
}
