// dudect-style constant-time check of every backend this machine has (see ConstantTime.csproj).
//
// For each backend and case, measurements come in batches: for each measurement a class is drawn at
// random (0 = fixed input, 1 = random input; for the rejection case 0 = tag wrong in its first byte,
// 1 = wrong in its last byte), all inputs of the batch are prepared first, then each call is timed
// alone with Stopwatch.GetTimestamp. Welch's t statistic compares the two classes' times: over all
// measurements, and, as dudect does, over the measurements below each of a set of percentiles (taken
// from the first batch), which removes the long tail that interrupts, the GC and other processes add.
// The largest |t| over those tests is reported; dudect's threshold is 4.5 (above it, "the timing
// depends on the class" with overwhelming confidence; below it, no leak was detected at this number
// of measurements, which is evidence, not proof).
//
// Usage: ConstantTime [--measurements N] [--backend Name] [--case Name] [--length bytes]

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.Internal;

namespace ConstantTime;

public static class Program
{
    private const int BatchSize = 10_000;

    public static int Main(string[] args)
    {
        long measurements = 1_000_000;
        int length = 64;
        string? onlyBackend = null;
        string? onlyCase = null;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--measurements": measurements = long.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--length": length = int.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--backend": onlyBackend = args[i + 1]; break;
                case "--case": onlyCase = args[i + 1]; break;
                default: Console.Error.WriteLine($"unknown option {args[i]}"); return 2;
            }
        }

        Console.WriteLine($"# dudect-style timing: {measurements} measurements per case, plaintext {length} bytes, associated data 16 bytes, AES-256 keys");
        Console.WriteLine($"# timer: Stopwatch.GetTimestamp, {Stopwatch.Frequency} ticks/s; runtime {Environment.Version}; {Environment.ProcessorCount} logical CPUs");
        Console.WriteLine("| Backend | Case | Measurements | max abs(t) | at crop | t uncropped | median ticks (fixed / random) | verdict |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|");

        GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        bool anyLeak = false;
        foreach (AesGcmSivBackend backend in Backends.Supported())
        {
            if (onlyBackend is not null && backend.ToString() != onlyBackend)
            {
                continue;
            }

            foreach (Case c in Cases(backend, length))
            {
                if (onlyCase is not null && c.Name != onlyCase)
                {
                    continue;
                }

                Result r = Measure(c, measurements);
                bool leak = r.MaxT > 4.5;
                anyLeak |= leak;
                Console.WriteLine($"| {backend} | {c.Name} | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(leak ? "LEAK? above 4.5" : "no leak detected")} |");
            }
        }

        return anyLeak ? 1 : 0;
    }

    // A case prepares one measurement's inputs for a class (outside the timed region) and returns the
    // call to time.
    private sealed record Case(string Name, Func<int, Action> Prepare);

    private static IEnumerable<Case> Cases(AesGcmSivBackend backend, int length)
    {
        // Fixed-class inputs are fresh copies of the fixed values, so that both classes read memory just
        // written (a shared array would be warm in the cache for one class only: a difference in time
        // that says nothing about the code).
        byte[] fixedKeyValue = new byte[32];
        byte[] fixedPlaintextValue = new byte[length];
        byte[] Key(int cls) => cls == 0 ? (byte[])fixedKeyValue.Clone() : RandomNumberGenerator.GetBytes(32);
        byte[] Plaintext(int cls) => cls == 0 ? (byte[])fixedPlaintextValue.Clone() : RandomNumberGenerator.GetBytes(length);
        byte[] nonce = new byte[12];
        byte[] aad = new byte[16];

        // Secret: the key (the expansion of the key-generating key).
        yield return new Case("KeySetup", cls =>
        {
            byte[] key = Key(cls);
            return () => new AesGcmSiv(key, backend).Dispose();
        });

        // Secret: key and plaintext. Nonce and associated data are public and the same in both classes.
        yield return new Case("Encrypt", cls =>
        {
            var aead = new AesGcmSiv(Key(cls), backend);
            byte[] plaintext = Plaintext(cls);
            byte[] ciphertext = new byte[length];
            byte[] tag = new byte[16];
            return () => aead.Encrypt(nonce, plaintext, ciphertext, tag, aad);
        });

        // Secret: key and plaintext, behind a valid ciphertext and tag.
        yield return new Case("Decrypt", cls =>
        {
            var aead = new AesGcmSiv(Key(cls), backend);
            byte[] plaintext = Plaintext(cls);
            byte[] ciphertext = new byte[length];
            byte[] tag = new byte[16];
            aead.Encrypt(nonce, plaintext, ciphertext, tag, aad);
            byte[] output = new byte[length];
            return () => aead.Decrypt(nonce, ciphertext, tag, output, aad);
        });

        // The rejection path: a random key and plaintext for both classes; the tag is wrong in its first
        // byte (class 0) or its last byte (class 1). An early-exit comparison would tell them apart.
        yield return new Case("DecryptReject", cls =>
        {
            var aead = new AesGcmSiv(RandomNumberGenerator.GetBytes(32), backend);
            byte[] plaintext = RandomNumberGenerator.GetBytes(length);
            byte[] ciphertext = new byte[length];
            byte[] tag = new byte[16];
            aead.Encrypt(nonce, plaintext, ciphertext, tag, aad);
            tag[cls == 0 ? 0 : 15] ^= 1;
            byte[] output = new byte[length];
            return () =>
            {
                try
                {
                    aead.Decrypt(nonce, ciphertext, tag, output, aad);
                    throw new InvalidOperationException("a tampered tag was accepted");
                }
                catch (AuthenticationTagMismatchException)
                {
                }
            };
        });

        // The same rejection without the exception (the internal TryDecrypt that Decrypt throws from):
        // throwing costs microseconds, with a spread that hides a difference of a few nanoseconds, so
        // this is the sharper test of the tag comparison (TagComparison.cs) on each backend.
        yield return new Case("TryDecryptReject", cls =>
        {
            var aead = new AesGcmSiv(RandomNumberGenerator.GetBytes(32), backend);
            byte[] plaintext = RandomNumberGenerator.GetBytes(length);
            byte[] ciphertext = new byte[length];
            byte[] tag = new byte[16];
            aead.Encrypt(nonce, plaintext, ciphertext, tag, aad);
            tag[cls == 0 ? 0 : 15] ^= 1;
            byte[] output = new byte[length];
            return () =>
            {
                if (aead.TryDecrypt(nonce, ciphertext, tag, output, aad))
                {
                    throw new InvalidOperationException("a tampered tag was accepted");
                }
            };
        });
    }

    private readonly record struct Result(long Count, double MaxT, string Crop, double UncroppedT, long Median0, long Median1);

    // Welford's running mean and variance, one per class.
    private struct Moments
    {
        public long N;
        public double Mean;
        public double M2;

        public void Add(double x)
        {
            N++;
            double delta = x - Mean;
            Mean += delta / N;
            M2 += delta * (x - Mean);
        }

        public readonly double Variance => N > 1 ? M2 / (N - 1) : 0;
    }

    private static double Welch(in Moments a, in Moments b)
    {
        if (a.N < 2 || b.N < 2)
        {
            return 0;
        }

        double se = Math.Sqrt(a.Variance / a.N + b.Variance / b.N);
        return se == 0 ? 0 : (a.Mean - b.Mean) / se;
    }

    private static Result Measure(Case c, long measurements)
    {
        // dudect's crop points: 1 - 0.5^(10 (k + 1) / 100) for k = 0..99, from the 6.7th percentile up.
        double[] percentiles = Enumerable.Range(0, 100).Select(k => 1 - Math.Pow(0.5, 10.0 * (k + 1) / 100)).ToArray();
        long[]? thresholds = null;
        var tests = new Moments[percentiles.Length + 1, 2]; // the last: no cropping
        var samples = new List<long>[] { new(), new() };

        int[] classes = new int[BatchSize];
        var calls = new Action[BatchSize];
        long[] times = new long[BatchSize];

        // Warm-up batch, discarded: first calls, caches, and the thresholds taken from its measurements.
        long done = -BatchSize;
        while (done < measurements)
        {
            const int batch = BatchSize;
            for (int i = 0; i < batch; i++)
            {
                classes[i] = RandomNumberGenerator.GetInt32(2);
                calls[i] = c.Prepare(classes[i]);
            }

            for (int i = 0; i < batch; i++)
            {
                times[i] = Time(calls[i]);
            }

            if (done < 0)
            {
                long[] sorted = times[..batch];
                Array.Sort(sorted);
                thresholds = percentiles.Select(p => sorted[(int)(p * (batch - 1))]).ToArray();
                done += batch;
                continue;
            }

            for (int i = 0; i < batch; i++)
            {
                int cls = classes[i];
                long t = times[i];
                tests[percentiles.Length, cls].Add(t);
                for (int p = 0; p < thresholds!.Length; p++)
                {
                    if (t < thresholds[p])
                    {
                        tests[p, cls].Add(t);
                    }
                }

                if (samples[cls].Count < 200_000)
                {
                    samples[cls].Add(t);
                }
            }

            done += batch;
        }

        double maxT = 0;
        string crop = "none";
        for (int p = 0; p <= percentiles.Length; p++)
        {
            // dudect ignores tests with too few measurements to say anything.
            if (tests[p, 0].N + tests[p, 1].N < 10_000)
            {
                continue;
            }

            double t = Math.Abs(Welch(tests[p, 0], tests[p, 1]));
            if (t > maxT)
            {
                maxT = t;
                crop = p == percentiles.Length ? "none" : $"p{percentiles[p] * 100:F1}";
            }
        }

        long Median(List<long> s)
        {
            s.Sort();
            return s.Count == 0 ? 0 : s[s.Count / 2];
        }

        long count = tests[percentiles.Length, 0].N + tests[percentiles.Length, 1].N;
        return new Result(count, maxT, crop, Welch(tests[percentiles.Length, 0], tests[percentiles.Length, 1]), Median(samples[0]), Median(samples[1]));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Time(Action call)
    {
        long start = Stopwatch.GetTimestamp();
        call();
        return Stopwatch.GetTimestamp() - start;
    }
}
