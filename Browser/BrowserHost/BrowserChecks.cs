// The library's vector and property checks, run inside the browser (WebAssembly) where NUnit does
// not run: RFC 8452 Appendix A and C (with intermediate values), Project Wycheproof, every backend
// this runtime has against the portable one (per primitive and end to end; the browser has Portable
// alone, so none), every backend against BouncyCastle's GcmSivBlockCipher (an implementation that
// shares no code with this library: the browser's cross-check), tamper (output wiped), Seal/Open. The vector files and loaders are Tests/' own (linked, see BrowserHost.csproj); each
// check mirrors a test in Tests/ (named in its comment). The record layer's checks are in
// RecordLayerChecks.cs, what a call leaves in the interpreter's stack in StackChecks.cs.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.Internal;
using Org.BouncyCastle.Crypto;
using Org.BouncyCastle.Crypto.Modes;
using Org.BouncyCastle.Crypto.Parameters;
using Tests;

namespace BrowserHost;

/// <summary>Counts passes and failures; a failure keeps its name and message.</summary>
public sealed class CheckRun
{
    private readonly List<string> _failures = [];

    public int Passed { get; private set; }

    public int Failed => _failures.Count;

    public IReadOnlyList<string> Failures => _failures;

    public void Check(string name, Action body)
    {
        try
        {
            body();
            Passed++;
        }
#pragma warning disable CA1031 // Any exception is this check's failure; the run goes on.
        catch (Exception e)
#pragma warning restore CA1031
        {
            _failures.Add($"{name}: {e.GetType().Name}: {e.Message}");
        }
    }

    public static void Equal(byte[] expected, byte[] actual, string what)
    {
        if (!expected.AsSpan().SequenceEqual(actual))
        {
            throw new InvalidOperationException($"{what}: expected {Convert.ToHexStringLower(expected)}, got {Convert.ToHexStringLower(actual)}");
        }
    }

    public static void True(bool condition, string what)
    {
        if (!condition)
        {
            throw new InvalidOperationException(what);
        }
    }

    public static void Throws<TException>(Action action, string what)
        where TException : Exception
    {
        try
        {
            action();
        }
        catch (TException)
        {
            return;
        }
        catch (Exception e)
        {
            throw new InvalidOperationException($"{what}: expected {typeof(TException).Name}, got {e.GetType().Name}: {e.Message}");
        }

        throw new InvalidOperationException($"{what}: expected {typeof(TException).Name}, nothing was thrown");
    }
}

public static class BrowserChecks
{
    /// <summary>Runs every group, yielding to the browser between groups so the page stays alive.</summary>
    public static async Task RunAsync(CheckRun run, Action<string> log)
    {
        AesGcmSivBackend[] backends = TestBackends.All;
        log($"backends: {string.Join(", ", backends)}; active: {AesGcmSiv.ActiveBackend}");

        (string Name, Action<CheckRun, AesGcmSivBackend[]> Body)[] groups =
        [
            ("platform", Platform),
            ("RFC 8452 vectors", Rfc8452),
            ("Wycheproof", WycheproofCases),
            ("equivalence with portable", Equivalence),
            ("against BouncyCastle", AgainstBouncyCastle),
            ("tamper", Tamper),
            ("Seal/Open", SealOpen),
            ("interpreter stack", StackChecks.Run),
            ("record layer aes256gcmsiv", (r, _) => RecordLayerChecks.Run(r)),
        ];

        foreach ((string name, Action<CheckRun, AesGcmSivBackend[]> body) in groups)
        {
            int passedBefore = run.Passed, failedBefore = run.Failed;
            long start = System.Diagnostics.Stopwatch.GetTimestamp();
            body(run, backends);
            TimeSpan elapsed = System.Diagnostics.Stopwatch.GetElapsedTime(start);
            log($"{name}: {run.Passed - passedBefore} passed, {run.Failed - failedBefore} failed ({elapsed.TotalSeconds:F1} s)");
            await Task.Delay(1).ConfigureAwait(true);
        }
    }

    // Tests/ApiTests' IsSupported and the DESIGN's Platforms: in the browser this library is the AEAD.
    private static void Platform(CheckRun run, AesGcmSivBackend[] backends)
    {
        run.Check("AesGcmSiv.IsSupported", () => CheckRun.True(AesGcmSiv.IsSupported, "IsSupported is false"));
        run.Check("the active backend is one this runtime supports", () => CheckRun.True(backends.Contains(AesGcmSiv.ActiveBackend), $"{AesGcmSiv.ActiveBackend} is not in the supported list"));
        run.Check("portable is always supported", () => CheckRun.True(backends.Contains(AesGcmSivBackend.Portable), "no portable backend"));
    }

    // Tests/RfcVectorTests: Appendix A (POLYVAL), C.1-C.3 encrypt, decrypt, wrong tag, intermediate values.
    private static void Rfc8452(CheckRun run, AesGcmSivBackend[] backends)
    {
        List<AeadVector> vectors = Vectors.Rfc8452().ToList();
        List<PolyvalVector> polyvalVectors = Vectors.Polyval().ToList();
        run.Check("vector files are complete", () =>
        {
            CheckRun.True(Vectors.Aead("rfc8452-aes128.json").Count() == 24, "C.1 must hold 24 vectors");
            CheckRun.True(Vectors.Aead("rfc8452-aes256.json").Count() == 24, "C.2 must hold 24 vectors");
            CheckRun.True(Vectors.Aead("rfc8452-counter-wrap.json").Count() == 2, "C.3 must hold 2 vectors");
            CheckRun.True(polyvalVectors.Count > 0, "no POLYVAL vectors");
        });

        foreach (AesGcmSivBackend backend in backends)
        {
            Primitives primitives = Primitives.For(backend);
            foreach (PolyvalVector vector in polyvalVectors)
            {
                run.Check($"{backend}: POLYVAL {vector.Name}", () => CheckRun.Equal(vector.Result, primitives.Polyval(vector.H, vector.Input), "POLYVAL"));
            }

            foreach (AeadVector vector in vectors)
            {
                run.Check($"{backend}: {vector.Name} encrypt", () =>
                {
                    using var aead = new AesGcmSiv(vector.Key, backend);
                    byte[] ciphertext = new byte[vector.Plaintext.Length];
                    byte[] tag = new byte[16];
                    aead.Encrypt(vector.Nonce, vector.Plaintext, ciphertext, tag, vector.Aad);
                    CheckRun.Equal(vector.Result, [.. ciphertext, .. tag], "result");
                });
                run.Check($"{backend}: {vector.Name} decrypt", () =>
                {
                    using var aead = new AesGcmSiv(vector.Key, backend);
                    byte[] plaintext = new byte[vector.Plaintext.Length];
                    aead.Decrypt(vector.Nonce, vector.Ciphertext, vector.ResultTag, plaintext, vector.Aad);
                    CheckRun.Equal(vector.Plaintext, plaintext, "plaintext");
                });
                run.Check($"{backend}: {vector.Name} another tag is rejected and the output wiped", () =>
                {
                    using var aead = new AesGcmSiv(vector.Key, backend);
                    byte[] tag = vector.ResultTag;
                    tag[0] ^= 1;
                    byte[] plaintext = new byte[vector.Plaintext.Length];
                    plaintext.AsSpan().Fill(0xAA);
                    CheckRun.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(vector.Nonce, vector.Ciphertext, tag, plaintext, vector.Aad), "decrypt");
                    CheckRun.True(plaintext.All(b => b == 0), "plaintext buffer not wiped");
                });
                if (vector.RecordAuthenticationKey is not null)
                {
                    run.Check($"{backend}: {vector.Name} intermediate values", () => Intermediate(primitives, vector));
                }
            }
        }
    }

    private static void Intermediate(Primitives primitives, AeadVector vector)
    {
        (byte[] authentication, byte[] encryption) = primitives.DeriveKeys(vector.Key, vector.Nonce);
        CheckRun.Equal(vector.RecordAuthenticationKey!, authentication, "record authentication key");
        CheckRun.Equal(vector.RecordEncryptionKey!, encryption, "record encryption key");
        byte[] polyval = primitives.Polyval(authentication, vector.PolyvalInput!);
        CheckRun.Equal(vector.PolyvalResult!, polyval, "POLYVAL result");
        for (int i = 0; i < 12; i++)
        {
            polyval[i] ^= vector.Nonce[i];
        }

        polyval[15] &= 0x7f;
        CheckRun.Equal(vector.PolyvalResultXorNonceMasked!, polyval, "POLYVAL result XOR nonce, masked");
        byte[] tag = primitives.EncryptBlocks(encryption, polyval);
        CheckRun.Equal(vector.Tag!, tag, "tag");
        byte[] counter = (byte[])tag.Clone();
        counter[15] |= 0x80;
        CheckRun.Equal(vector.InitialCounter!, counter, "initial counter");
        CheckRun.Equal(vector.Ciphertext, primitives.Ctr32(encryption, counter, vector.Plaintext), "CTR ciphertext");
    }

    // Tests/WycheproofTests: valid cases encrypt to the given result and decrypt back; invalid ones are rejected, output wiped.
    private static void WycheproofCases(CheckRun run, AesGcmSivBackend[] backends)
    {
        List<Wycheproof.Case> cases = Wycheproof.Load();
        run.Check("Wycheproof: the file holds every test", () =>
        {
            CheckRun.True(cases.Count == Wycheproof.CaseCount, $"{cases.Count} cases, expected {Wycheproof.CaseCount}");
            CheckRun.True(cases.Count(c => !c.Valid) == Wycheproof.InvalidCount, "wrong number of invalid cases");
        });
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (Wycheproof.Case c in cases)
            {
                run.Check($"{backend}: Wycheproof {c}", () =>
                {
                    using var aead = new AesGcmSiv(c.Key, backend);
                    byte[] output = new byte[c.Message.Length];
                    if (c.Valid)
                    {
                        byte[] tag = new byte[16];
                        aead.Encrypt(c.Nonce, c.Message, output, tag, c.Aad);
                        CheckRun.Equal(c.Ciphertext, output, "ciphertext");
                        CheckRun.Equal(c.Tag, tag, "tag");
                        aead.Decrypt(c.Nonce, c.Ciphertext, c.Tag, output, c.Aad);
                        CheckRun.Equal(c.Message, output, "decrypt");
                    }
                    else
                    {
                        output.AsSpan().Fill(0xEE);
                        CheckRun.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(c.Nonce, c.Ciphertext, c.Tag, output, c.Aad), "decrypt");
                        CheckRun.True(output.All(b => b == 0), "output not wiped");
                    }
                });
            }
        }
    }

    /// <summary>Lengths 0..300 cover every 16/64/128/256 boundary; a few large odd ones follow.</summary>
    internal static IEnumerable<int> EquivalenceLengths() => Enumerable.Range(0, 301).Concat([511, 1023, 1350, 4097, 8191, 65537]);

    // Tests/EquivalenceTests: each other backend against the portable one, per primitive and end to end.
    // Seeded; the seed is in every failure's name.
    private static void Equivalence(CheckRun run, AesGcmSivBackend[] backends)
    {
        const int Seed = 8452;
        Primitives portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (AesGcmSivBackend backend in backends.Where(b => b != AesGcmSivBackend.Portable))
        {
            Primitives other = Primitives.For(backend);
            foreach (int keySize in new[] { 16, 32 })
            {
                var random = new Random(Seed + keySize);
                byte[] key = Bytes(random, keySize);
                byte[] nonce = Bytes(random, 12);
                using var reference = new AesGcmSiv(key, AesGcmSivBackend.Portable);
                using var aead = new AesGcmSiv(key, backend);
                foreach (int length in EquivalenceLengths())
                {
                    byte[] message = Bytes(random, length);
                    byte[] aad = Bytes(random, length % 67);
                    int blocks = length / 16 * 16;
                    string name = $"{backend} vs Portable, AES-{keySize * 8}, length {length} (seed {Seed + keySize})";
                    run.Check($"{name}: AES blocks, CTR32, POLYVAL", () =>
                    {
                        byte[] counter = Bytes(random, 16);
                        CheckRun.Equal(portable.EncryptBlocks(key, message[..blocks]), other.EncryptBlocks(key, message[..blocks]), "AES blocks");
                        CheckRun.Equal(portable.Ctr32(key, counter, message), other.Ctr32(key, counter, message), "CTR32");
                        CheckRun.Equal(portable.Polyval(key[..16], message[..blocks]), other.Polyval(key[..16], message[..blocks]), "POLYVAL");
                    });
                    run.Check($"{name}: end to end", () =>
                    {
                        byte[] expected = Seal(reference, nonce, message, aad);
                        byte[] actual = Seal(aead, nonce, message, aad);
                        CheckRun.Equal(expected, actual, "ciphertext and tag");
                        byte[] opened = new byte[length];
                        aead.Decrypt(nonce, actual.AsSpan(0, length), actual.AsSpan(length), opened, aad);
                        CheckRun.Equal(message, opened, "decrypt");
                    });
                }
            }

            run.Check($"{backend} vs Portable: key derivation", () =>
            {
                var random = new Random(Seed);
                for (int i = 0; i < 16; i++)
                {
                    byte[] key = Bytes(random, i % 2 == 0 ? 16 : 32);
                    byte[] nonce = Bytes(random, 12);
                    (byte[] a, byte[] e) = portable.DeriveKeys(key, nonce);
                    (byte[] a2, byte[] e2) = other.DeriveKeys(key, nonce);
                    CheckRun.Equal(a, a2, "record authentication key");
                    CheckRun.Equal(e, e2, "record encryption key");
                }
            });
        }
    }

    // Each backend end to end against BouncyCastle's GcmSivBlockCipher (RFC 8452 too, written apart
    // from this library), over the equivalence lengths with AAD, both key sizes; then this library
    // opens what BouncyCastle sealed. In the browser, where Portable is the only backend, this is
    // what ties it to another implementation there (Tests/PortableTests does it against the
    // platform's AES under the JIT). Seeded; the seed is in every failure's name.
    private static void AgainstBouncyCastle(CheckRun run, AesGcmSivBackend[] backends)
    {
        const int Seed = 8188;
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (int keySize in new[] { 16, 32 })
            {
                var random = new Random(Seed + keySize);
                byte[] key = Bytes(random, keySize);
                using var aead = new AesGcmSiv(key, backend);
                var bouncy = new GcmSivBlockCipher(AesUtilities.CreateEngine());
                foreach (int length in EquivalenceLengths())
                {
                    byte[] nonce = Bytes(random, 12), message = Bytes(random, length), aad = Bytes(random, length % 67);
                    run.Check($"{backend} vs BouncyCastle, AES-{keySize * 8}, length {length} (seed {Seed + keySize})", () =>
                    {
                        var parameters = new AeadParameters(new KeyParameter(key), 128, nonce, aad);
                        bouncy.Init(true, parameters);
                        byte[] expected = new byte[length + 16];
                        bouncy.DoFinal(expected, bouncy.ProcessBytes(message, 0, length, expected, 0));
                        CheckRun.Equal(expected, Seal(aead, nonce, message, aad), "ciphertext and tag");
                        byte[] opened = new byte[length];
                        aead.Decrypt(nonce, expected.AsSpan(0, length), expected.AsSpan(length), opened, aad);
                        CheckRun.Equal(message, opened, "decrypt what BouncyCastle sealed");
                    });
                }
            }
        }
    }

    // Tests/TamperTests: any single-bit change of nonce, aad, ciphertext or tag is rejected and the output wiped.
    private static void Tamper(CheckRun run, AesGcmSivBackend[] backends)
    {
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (int length in new[] { 0, 1, 16, 33, 100 })
            {
                var random = new Random(length);
                byte[] key = Bytes(random, 32), nonce = Bytes(random, 12), aad = Bytes(random, 7), message = Bytes(random, length);
                using var aead = new AesGcmSiv(key, backend);
                byte[] sealedMessage = Seal(aead, nonce, message, aad);
                foreach (string part in new[] { "nonce", "aad", "ciphertext", "tag" })
                {
                    run.Check($"{backend}: length {length}, every bit of the {part} flipped is rejected, output wiped", () =>
                    {
                        byte[] n = (byte[])nonce.Clone(), a = (byte[])aad.Clone(), s = (byte[])sealedMessage.Clone();
                        (byte[] target, int from, int to) = part switch
                        {
                            "nonce" => (n, 0, n.Length),
                            "aad" => (a, 0, a.Length),
                            "ciphertext" => (s, 0, length),
                            _ => (s, length, s.Length),
                        };
                        for (int bit = from * 8; bit < to * 8; bit++)
                        {
                            target[bit / 8] ^= (byte)(1 << (bit % 8));
                            byte[] output = new byte[length];
                            output.AsSpan().Fill(0x5A);
                            CheckRun.Throws<AuthenticationTagMismatchException>(() => aead.Decrypt(n, s.AsSpan(0, length), s.AsSpan(length), output, a), $"bit {bit}");
                            CheckRun.True(output.All(b => b == 0), $"bit {bit}: output not wiped");
                            target[bit / 8] ^= (byte)(1 << (bit % 8));
                        }
                    });
                }
            }
        }
    }

    // Tests/ApiTests' Seal/Open: the nonce-prefixed format round-trips; a changed byte throws; the length helpers agree.
    private static void SealOpen(CheckRun run, AesGcmSivBackend[] backends)
    {
        foreach (int keySize in new[] { 16, 32 })
        {
            foreach (int length in new[] { 0, 1, 64, 1350, 8192 })
            {
                run.Check($"Seal/Open AES-{keySize * 8}, {length} bytes", () =>
                {
                    var random = new Random(length + keySize);
                    byte[] key = Bytes(random, keySize), message = Bytes(random, length), aad = Bytes(random, 5);
                    using var aead = new AesGcmSiv(key);
                    byte[] sealedMessage = aead.Seal(message, aad);
                    CheckRun.True(sealedMessage.Length == AesGcmSiv.GetSealedLength(length), "sealed length");
                    CheckRun.True(AesGcmSiv.GetOpenedLength(sealedMessage.Length) == length, "opened length");
                    CheckRun.Equal(message, aead.Open(sealedMessage, aad), "opened");
                    byte[] other = aead.Seal(message, aad);
                    CheckRun.True(!other.AsSpan(0, 12).SequenceEqual(sealedMessage.AsSpan(0, 12)), "two seals used the same random nonce");
                    sealedMessage[^1] ^= 0x80;
                    CheckRun.Throws<AuthenticationTagMismatchException>(() => aead.Open(sealedMessage, aad), "a changed tag");
                    byte[] destination = new byte[length];
                    destination.AsSpan().Fill(0x77);
                    CheckRun.Throws<AuthenticationTagMismatchException>(() => aead.Open(sealedMessage, aad, destination), "Open into a buffer with a changed tag");
                    CheckRun.True(destination.All(b => b == 0), "Open's destination not wiped");
                });
            }
        }

        foreach (AesGcmSivBackend backend in backends)
        {
            run.Check($"{backend}: in place equals out of place", () =>
            {
                var random = new Random(1);
                byte[] key = Bytes(random, 32), nonce = Bytes(random, 12), message = Bytes(random, 1000);
                using var aead = new AesGcmSiv(key, backend);
                byte[] expected = Seal(aead, nonce, message, []);
                byte[] buffer = (byte[])message.Clone();
                byte[] tag = new byte[16];
                aead.Encrypt(nonce, buffer, buffer, tag);
                CheckRun.Equal(expected, [.. buffer, .. tag], "in place");
                aead.Decrypt(nonce, buffer, tag, buffer);
                CheckRun.Equal(message, buffer, "in place decrypt");
            });
        }
    }

    internal static byte[] Seal(AesGcmSiv aead, byte[] nonce, byte[] message, byte[] aad)
    {
        byte[] output = new byte[message.Length + 16];
        aead.Encrypt(nonce, message, output.AsSpan(0, message.Length), output.AsSpan(message.Length), aad);
        return output;
    }

    internal static byte[] Bytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
