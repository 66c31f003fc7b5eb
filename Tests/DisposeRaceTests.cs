// Dispose racing calls in flight (issue 17, finding 1): a call that began before Dispose must
// finish with the real key or throw ObjectDisposedException (AesGcmSiv since issue 49: its check
// after the computation, Internal/KeyLifetime.cs), and one that begins after it must throw
// ObjectDisposedException; no call may return output computed with a key schedule that Dispose has
// zeroed (or is zeroing). Checked
// on AesGcmSiv (every backend), every nonce guard (under Refuse and Observe) and the AES-GCM-SIV record cipher.
//
// Each race: a worker thread calls the instance in a tight loop, checking every result against
// the answer computed beforehand; as soon as it has completed one call, this thread disposes
// the instance. The worker stops at its first ObjectDisposedException. Any other outcome (wrong
// ciphertext or tag, an authentication failure of a genuine message) is a call that ran on a
// wiped key. Each test stops after a time budget; on the old code about one race in twenty went
// wrong, so a few thousand races fail it reliably.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Security.Cryptography;
using System.Threading;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class DisposeRaceTests
{
    // Races run for Budget, or longer until MinRaces have happened (a loaded or emulated machine,
    // such as CI's qemu legs, gets fewer per second), but never past HardLimit.
    private static readonly TimeSpan Budget = TimeSpan.FromSeconds(1.5);
    private static readonly TimeSpan HardLimit = TimeSpan.FromSeconds(60);
    private const int MinRaces = 51;
    private const int MaxRaces = 4000;

    public static IEnumerable<AesGcmSivBackend> Backends() => TestBackends.All;

    [TestCaseSource(nameof(Backends))]
    public void DisposeRacingEncryptAndDecryptNeverUsesAWipedKey(AesGcmSivBackend backend)
    {
        byte[] key = RandomNumberGenerator.GetBytes(32), nonce = RandomNumberGenerator.GetBytes(12);
        byte[] plaintext = RandomNumberGenerator.GetBytes(16);
        byte[] expectedCiphertext = new byte[16], expectedTag = new byte[16];
        using (var reference = new AesGcmSiv(key, backend))
        {
            reference.Encrypt(nonce, plaintext, expectedCiphertext, expectedTag);
        }

        RaceResult result = Race(
            () => new AesGcmSiv(key, backend),
            () =>
            {
                byte[] ciphertext = new byte[16], tag = new byte[16], opened = new byte[16];
                return (aead, call) =>
                {
                    if ((call & 1) == 0)
                    {
                        aead.Encrypt(nonce, plaintext, ciphertext, tag);
                        return ciphertext.AsSpan().SequenceEqual(expectedCiphertext) && tag.AsSpan().SequenceEqual(expectedTag);
                    }

                    aead.Decrypt(nonce, expectedCiphertext, expectedTag, opened);
                    return opened.AsSpan().SequenceEqual(plaintext);
                };
            },
            aead => PrivateState.KeyGeneratingKeySchedule(aead));

        result.AssertClean($"AesGcmSiv/{backend}");
    }

    // Issue 49: the guards no longer count calls in flight. GuardedAesGcm and GuardedChaCha20Poly1305
    // check their disposed flag under the history lock every call holds, and Dispose disposes their
    // AEAD under that lock; GuardedAesGcmSiv relies on AesGcmSiv's check after the call. Every kind,
    // under Refuse (an identical repeat goes through the private buffer and is copied out) and
    // Observe (encrypt, then record), each call checked against the answer computed beforehand.
    public static IEnumerable<TestCaseData> GuardKindsAndPolicies() =>
        from kind in Tests.NonceSafety.GuardKind.All()
        from policy in new[] { NonceReusePolicy.Refuse, NonceReusePolicy.Observe }
        select new TestCaseData(kind, policy);

    [TestCaseSource(nameof(GuardKindsAndPolicies))]
    public void DisposeRacingAnyGuardNeverReturnsOutputOfADisposedAead(Tests.NonceSafety.GuardKind kind, NonceReusePolicy policy)
    {
        byte[] key = kind.NewKey(), nonce = RandomNumberGenerator.GetBytes(12);
        byte[] plaintext = RandomNumberGenerator.GetBytes(16);
        byte[] expectedCiphertext = new byte[16], expectedTag = new byte[16];
        kind.EncryptUnguarded(key, nonce, plaintext, expectedCiphertext, expectedTag);

        var options = new NonceGuardOptions { Policy = policy, ShareHistory = false };
        RaceResult result = Race(
            () => kind.Create(key, options),
            () =>
            {
                byte[] ciphertext = new byte[16], tag = new byte[16], opened = new byte[16];
                return (guard, call) =>
                {
                    if ((call & 1) == 0)
                    {
                        guard.Encrypt(nonce, plaintext, ciphertext, tag);
                        return ciphertext.AsSpan().SequenceEqual(expectedCiphertext) && tag.AsSpan().SequenceEqual(expectedTag);
                    }

                    guard.Decrypt(nonce, expectedCiphertext, expectedTag, opened);
                    return opened.AsSpan().SequenceEqual(plaintext);
                };
            },
            schedule: null);

        result.AssertClean($"Guarded{kind}, {policy}");
    }

    [Test]
    public void DisposeRacingAnAesGcmSivRecordCipherNeverUsesAWipedKey()
    {
        byte[] keyingMaterial = RandomNumberGenerator.GetBytes(32), salt = RandomNumberGenerator.GetBytes(16);
        byte[] plaintext = RandomNumberGenerator.GetBytes(16);
        byte[] expectedCiphertext = new byte[16], expectedTag = new byte[16];
        using (RecordCipher reference = RecordCipher.Create(ContentCoding.Aes256GcmSiv, keyingMaterial, salt))
        {
            reference.Seal(3, plaintext, expectedCiphertext, expectedTag);
        }

        RaceResult result = Race(
            () => RecordCipher.Create(ContentCoding.Aes256GcmSiv, keyingMaterial, salt),
            () =>
            {
                byte[] ciphertext = new byte[16], tag = new byte[16], opened = new byte[16];
                return (cipher, call) =>
                {
                    if ((call & 1) == 0)
                    {
                        cipher.Seal(3, plaintext, ciphertext, tag);
                        return ciphertext.AsSpan().SequenceEqual(expectedCiphertext) && tag.AsSpan().SequenceEqual(expectedTag);
                    }

                    return cipher.TryOpen(3, expectedCiphertext, expectedTag, opened) && opened.AsSpan().SequenceEqual(plaintext);
                };
            },
            schedule: null);

        result.AssertClean("AES-GCM-SIV record cipher");
    }

    // Issue 31, defect 1: an AES-GCM batch gives each worker thread its own AesGcm made from a kept
    // copy of the key. Made while Dispose was wiping that copy, a worker's AesGcm sealed records under
    // an all-zero key and nonce base, and EncryptRecords returned them as if nothing had happened
    // (79 of 64,544 calls before the fix). Every call that returns must have sealed every record
    // under the real key: each record is opened with an independent cipher at its sequence number.
    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DisposeRacingAParallelRecordBatchNeverSealsUnderAWipedKey(ContentCoding coding)
    {
        const int RecordSize = 64, Records = 16, Threads = 4;
        byte[] keyingMaterial = RandomNumberGenerator.GetBytes(32), salt = RandomNumberGenerator.GetBytes(16);
        int maxData = RecordSize - 17;
        byte[] data = RandomNumberGenerator.GetBytes(maxData * Records);
        using RecordCipher reference = RecordCipher.Create(coding, keyingMaterial, salt);

        RaceResult result = Race(
            () => new ContentEncryptor(keyingMaterial, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }, salt: salt),
            () =>
            {
                byte[] records = new byte[RecordSize * Records], opened = new byte[maxData + 1];
                return (encryptor, call) =>
                {
                    long first = encryptor.RecordCount;
                    encryptor.EncryptRecords(data, records, Threads);
                    for (int i = 0; i < Records; i++)
                    {
                        ReadOnlySpan<byte> record = records.AsSpan(i * RecordSize, RecordSize);
                        if (!reference.TryOpen(first + i, record[..(maxData + 1)], record[(maxData + 1)..], opened)
                            || !opened.AsSpan(0, maxData).SequenceEqual(data.AsSpan(i * maxData, maxData)))
                        {
                            return false;
                        }
                    }

                    return true;
                };
            },
            schedule: null);

        result.AssertClean($"ContentEncryptor.EncryptRecords ({coding}, {Threads} threads)");
    }

    // Issue 47, item 3: EncryptedHttpContent.Dispose zeroed the keying material without waiting for a
    // serialization that had passed its disposed check, which then derived the body's keys from a zeroed
    // (or half-zeroed) IKM. Built-in inner contents throw ObjectDisposedException once disposed, and the
    // body is aborted; an inner content that keeps serving after Dispose gets it onto the wire, sealed
    // under keys anyone can derive. Every serialization that returns must open under the real IKM.
    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DisposeRacingEncryptedHttpContentNeverSealsUnderAWipedKey(ContentCoding coding)
    {
        byte[] keyingMaterial = RandomNumberGenerator.GetBytes(16);
        byte[] zeros = new byte[keyingMaterial.Length];
        byte[] inner = RandomNumberGenerator.GetBytes(100);
        var options = new ContentEncodingOptions { Coding = coding, RecordSize = 4096 };

        RaceResult result = Race(
            () => new EncryptedHttpContent(new ServingAfterDisposeContent(inner), keyingMaterial, options),
            () => (content, call) =>
            {
                var body = new System.IO.MemoryStream();
                try
                {
                    content.CopyTo(body, null, CancellationToken.None);
                }
                catch (System.Net.Http.HttpRequestException exception) when (exception.InnerException is ObjectDisposedException disposed)
                {
                    throw disposed;   // HttpContent.CopyTo wraps it; the race's end, as for the other types
                }

                try
                {
                    return ContentEncryption.Decrypt(body.ToArray(), keyingMaterial, options).AsSpan().SequenceEqual(inner);
                }
                catch (ContentEncodingException)
                {
                    bool zeroKey = TryOpens(body.ToArray(), zeros, options);
                    throw new CryptographicException(zeroKey ? "the body opens under an all-zero key" : "the body opens under neither the key nor an all-zero one");
                }
            },
            schedule: null);

        result.AssertClean($"EncryptedHttpContent serialization ({coding})");
    }

    // The rule holds for the record layer's other keyed types too: ContentEncryptor and ContentDecryptor
    // one record at a time, under both codings (their RecordCipher wipes its nonce base only after its
    // AEAD refuses new calls: AesGcmSiv's CallCounter, AesGcm's SafeHandle).
    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DisposeRacingAContentEncryptorOrDecryptorNeverUsesAWipedKey(ContentCoding coding)
    {
        const int RecordSize = 64;
        byte[] keyingMaterial = RandomNumberGenerator.GetBytes(32), salt = RandomNumberGenerator.GetBytes(16);
        byte[] data = RandomNumberGenerator.GetBytes(RecordSize - 17);
        var options = new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize };
        using RecordCipher reference = RecordCipher.Create(coding, keyingMaterial, salt);

        RaceResult sealing = Race(
            () => new ContentEncryptor(keyingMaterial, options, salt),
            () =>
            {
                byte[] record = new byte[RecordSize], opened = new byte[RecordSize - 16];
                return (encryptor, call) =>
                {
                    long index = encryptor.RecordCount;
                    encryptor.EncryptRecord(data, record, isLastRecord: false);
                    return reference.TryOpen(index, record.AsSpan(0, RecordSize - 16), record.AsSpan(RecordSize - 16), opened) && opened.AsSpan(0, data.Length).SequenceEqual(data);
                };
            },
            schedule: null);
        sealing.AssertClean($"ContentEncryptor.EncryptRecord ({coding})");

        // Each call opens the decryptor's next record, sealed just before by the reference cipher.
        byte[] plaintext = [.. data, 1];
        RaceResult opening = Race(
            () => new ContentDecryptor(new ContentEncodingHeader(salt, RecordSize, default), keyingMaterial, options),
            () =>
            {
                byte[] record = new byte[RecordSize], opened = new byte[RecordSize - 16];
                return (decryptor, call) =>
                {
                    reference.Seal(decryptor.RecordCount, plaintext, record.AsSpan(0, RecordSize - 16), record.AsSpan(RecordSize - 16));
                    int length = decryptor.DecryptRecord(record, opened, out _);
                    return opened.AsSpan(0, length).SequenceEqual(data);
                };
            },
            schedule: null);
        opening.AssertClean($"ContentDecryptor.DecryptRecord ({coding})");
    }

    private static bool TryOpens(byte[] body, byte[] keyingMaterial, ContentEncodingOptions options)
    {
        try
        {
            ContentEncryption.Decrypt(body, keyingMaterial, options);
            return true;
        }
        catch (ContentEncodingException)
        {
            return false;
        }
    }

    // An inner content that keeps serving after Dispose (it does not call HttpContent's Dispose, whose
    // flag makes the built-in contents throw ObjectDisposedException): what reaches the wire is whatever
    // the encrypting content sealed.
    private sealed class ServingAfterDisposeContent(byte[] bytes) : HttpContentBase
    {
        protected override System.Threading.Tasks.Task SerializeToStreamAsync(System.IO.Stream stream, System.Net.TransportContext? context) =>
            stream.WriteAsync(bytes, 0, bytes.Length);

        protected override void SerializeToStream(System.IO.Stream stream, System.Net.TransportContext? context, CancellationToken cancellationToken) =>
            stream.Write(bytes);

        protected override bool TryComputeLength(out long length)
        {
            length = bytes.Length;
            return true;
        }

        protected override void Dispose(bool disposing)
        {
        }
    }

    private sealed class RaceResult
    {
        public int Races;
        public int Calls;
        public int Wrong;
        public int Unwiped;
        public string? FirstWrong;

        public void AssertClean(string what)
        {
            string summary = $"{what}: {Races} races, {Calls} calls, {Wrong} computed with a wiped key{(FirstWrong is null ? "" : $" (first: {FirstWrong})")}, {Unwiped} schedules left unwiped";
            TestContext.Out.WriteLine(summary);
            Assert.That(Races, Is.GreaterThanOrEqualTo(MinRaces), summary);
            Assert.That(Wrong, Is.Zero, summary);
            Assert.That(Unwiped, Is.Zero, summary);
        }
    }

    /// <summary>
    /// Races Dispose against a worker calling <paramref name="makeCall"/>'s delegate until it throws
    /// ObjectDisposedException; the delegate returns whether the call's output was right.
    /// </summary>
    private static RaceResult Race<T>(Func<T> create, Func<Func<T, int, bool>> makeCall, Func<T, ulong[]>? schedule)
        where T : class, IDisposable
    {
        var result = new RaceResult();
        Func<T, int, bool> call = makeCall();
        var clock = Stopwatch.StartNew();
        while ((clock.Elapsed < Budget || result.Races < MinRaces) && clock.Elapsed < HardLimit && result.Races < MaxRaces)
        {
            T instance = create();
            ulong[]? words = schedule?.Invoke(instance);
            int completed = 0;
            var worker = new Thread(() =>
            {
                for (int i = 0; ; i++)
                {
                    bool right;
                    try
                    {
                        right = call(instance, i);
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }
                    catch (Exception e) when (e is CryptographicException or NonceReuseException)
                    {
                        right = false;
                        Interlocked.CompareExchange(ref result.FirstWrong, $"{e.GetType().Name}: {e.Message}", null);
                    }

                    if (!right)
                    {
                        Interlocked.CompareExchange(ref result.FirstWrong, i % 2 == 0 ? "wrong ciphertext or tag" : "wrong plaintext", null);
                        Interlocked.Increment(ref result.Wrong);
                    }

                    Interlocked.Increment(ref result.Calls);
                    Volatile.Write(ref completed, 1);
                }
            });
            worker.Start();
            while (Volatile.Read(ref completed) == 0)
            {
                Thread.SpinWait(1);
            }

            instance.Dispose();
            worker.Join();
            if (words is not null && words.Any(w => w != 0))
            {
                result.Unwiped++;
            }

            result.Races++;
        }

        return result;
    }
}
