// dudect-style constant-time check of every backend this machine has (see ConstantTime.csproj).
//
// For each backend and case, measurements come in batches: for each measurement a class is drawn at
// random (0 = fixed input, 1 = random input; for the rejection case 0 = tag wrong in its first byte,
// 1 = wrong in its last byte), all inputs of the batch are prepared first (each measurement has its own
// slot in the case's input pools, so the two classes differ only in the bytes), then each call is timed
// alone with Stopwatch.GetTimestamp. A control case with a known early exit checks that the harness can
// see a difference of a few nanoseconds. Welch's t statistic compares the two classes' times: over all
// measurements, and, as dudect does, over the measurements below each of a set of percentiles (taken
// from the first batch), which removes the long tail that interrupts, the GC and other processes add.
// The largest |t| over those tests is reported; dudect's threshold is 4.5 (above it, "the timing
// depends on the class" with overwhelming confidence; below it, no leak was detected at this number
// of measurements, which is evidence, not proof).
//
// Usage: ConstantTime [--measurements N] [--backend Name] [--case Name] [--length bytes] [--fixed zero|random]
//                     [--vary both|key|message|none] [--second random|fixed]
//
// --vary says which secrets the fixed class holds fixed (the others are drawn at random in both
// classes): both (dudect's test), the key only, the message only, or none, an A/A test in which the
// two classes are drawn alike, so that a crossing there is the harness's or the machine's, not the code's.
// --second fixed makes the second class fixed too, at other values (drawn once at random): fixed
// against fixed, which tells a dependence on the values from one on repeating the same input.

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
        if (args is ["--secret-flow"])
        {
            return SecretFlow.Run();
        }

        long measurements = 1_000_000;
        int length = 64;
        string? onlyBackend = null;
        string? onlyCase = null;
        bool fixedRandom = false;
        string vary = "both";
        bool secondFixed = false;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--measurements": measurements = long.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--length": length = int.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--backend": onlyBackend = args[i + 1]; break;
                case "--case": onlyCase = args[i + 1]; break;
                case "--fixed" when args[i + 1] is "zero" or "random": fixedRandom = args[i + 1] == "random"; break;
                case "--vary" when args[i + 1] is "both" or "key" or "message" or "none": vary = args[i + 1]; break;
                case "--second" when args[i + 1] is "random" or "fixed": secondFixed = args[i + 1] == "fixed"; break;
                default: Console.Error.WriteLine($"unknown option {args[i]}"); return 2;
            }
        }

        Console.WriteLine($"# dudect-style timing: {measurements} measurements per case, plaintext {length} bytes, associated data 16 bytes, AES-256 keys");
        Console.WriteLine($"# timer: Stopwatch.GetTimestamp, {Stopwatch.Frequency} ticks/s; runtime {Environment.Version}; {Environment.ProcessorCount} logical CPUs");
        if (secondFixed)
        {
            RandomNumberGenerator.Fill(PooledCase.SecondInput);
            PooledCase.SecondIsFixed = true;
            Console.WriteLine("# second class: fixed too, one other random key and message drawn at the start");
        }

        PooledCase.FixedKey = vary is "both" or "key";
        PooledCase.FixedMessage = vary is "both" or "message";
        if (vary != "both")
        {
            Console.WriteLine(vary == "none"
                ? "# A/A test: both classes draw key and message at random; a crossing is not the code's"
                : $"# the fixed class holds only the {vary} fixed; the other secret is random in both classes");
        }

        Console.WriteLine("| Backend | Case | Measurements | max abs(t) | at crop | t uncropped | median ticks (fixed / random) | verdict |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|");

        if (fixedRandom)
        {
            // The fixed class's key and message drawn once at random instead of all zero: tells a
            // dependence on zero data from one on the same data every call.
            RandomNumberGenerator.Fill(PooledCase.FixedInput);
            Console.WriteLine("# fixed class: one random key and message, drawn at the start");
        }

        GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        bool anyLeak = false;
        if (onlyCase is null or "EarlyExitControl")
        {
            Result r = Measure(new EarlyExitControl(), measurements);
            bool seen = r.MaxT > 4.5;
            anyLeak |= !seen;
            Console.WriteLine($"| (harness) | EarlyExitControl | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(seen ? "seen, as it must be" : "NOT SEEN: this run could not see a leak of its size")} |");
        }

        foreach (Backend backend in BackendsToMeasure())
        {
            if (onlyBackend is not null && backend.Id.ToString() != onlyBackend)
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
                Console.WriteLine($"| {backend.Id} | {c.Name} | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(leak ? "LEAK? above 4.5" : "no leak detected")} |");
            }
        }

        // 1: a case crossed 4.5, or the control did not.
        return anyLeak ? 1 : 0;
    }

    // Every backend this machine runs. Portable (the browser's and the netstandard2.0 build's backend
    // too) is plain C# over 64-bit integers: this tool measures the code .NET's JIT compiles from it;
    // how the browser's interpreter or Mono's JIT times it is not measured.
    internal static IEnumerable<Backend> BackendsToMeasure()
    {
        foreach (AesGcmSivBackend id in Backends.Supported())
        {
            yield return Backends.Get(id);
        }
    }

    // A case owns pools of inputs with one slot per measurement of a batch. Prepare writes a slot's
    // inputs for a class (untimed, for the whole batch before any call is timed); Run(slot) is the timed
    // call. Slot i sits at the same address whatever its class, every slot is written in the same
    // preparation pass, and outputs go to one buffer shared by both classes: the classes differ in the
    // bytes alone. (The tool before this created an instance and fresh arrays per measurement; with
    // those, the AES-NI backend's 1 KiB Encrypt crossed 4.5 at 10^7 measurements in every run, quiet or
    // not, though its AES and carry-less multiply are instructions: the harness, not the code.)
    private abstract class Case(string name)
    {
        public string Name => name;

        public abstract void Prepare(int slot, int cls);

        public abstract void Run(int slot);
    }

    // The inputs every case draws from: per slot a key schedule and a message (plaintext, or
    // ciphertext and tag); the fixed class's values are FixedInput's (all zero, dudect's usual choice,
    // or --fixed random), the random class's fresh from the CSPRNG for every slot.
    private abstract class PooledCase : Case
    {
        protected readonly Backend Backend;
        protected readonly int Length;
        protected readonly AesKeySchedule[] Schedules = new AesKeySchedule[BatchSize];
        protected readonly byte[] Keys = new byte[32 * BatchSize];
        protected readonly byte[] Messages;
        protected readonly byte[] Tags = new byte[16 * BatchSize];
        protected readonly byte[] Output;
        protected readonly byte[] TagOutput = new byte[16];
        // The fixed class's key (32 bytes), then its message: all zero unless --fixed random.
        public static readonly byte[] FixedInput = new byte[32 + (1 << 20)];
        // --second fixed: what the "random" draws copy instead, the same for every slot.
        public static readonly byte[] SecondInput = new byte[32 + (1 << 20)];
        public static bool SecondIsFixed;
        // Which secrets class 0 holds fixed (--vary); the others it draws at random, as class 1 does.
        public static bool FixedKey = true;
        public static bool FixedMessage = true;
        protected static readonly byte[] Nonce = new byte[12];
        protected static readonly byte[] AssociatedData = new byte[16];

        protected PooledCase(string name, Backend backend, int length)
            : base(name)
        {
            Backend = backend;
            Length = length;
            Messages = new byte[length * BatchSize];
            Output = new byte[length];
        }

        protected Span<byte> Key(int slot) => Keys.AsSpan(32 * slot, 32);

        protected Span<byte> Message(int slot) => Messages.AsSpan(Length * slot, Length);

        protected Span<byte> Tag(int slot) => Tags.AsSpan(16 * slot, 16);

        // Writes the slot's key (fixed or random) and expands it into the slot's schedule.
        protected void SetKey(int slot, bool random)
        {
            if (random && !SecondIsFixed)
            {
                RandomNumberGenerator.Fill(Key(slot));
            }
            else
            {
                (random ? SecondInput : FixedInput).AsSpan(0, 32).CopyTo(Key(slot));
            }

            Backend.ExpandKey(Key(slot), ref Schedules[slot]);
        }

        protected void SetMessage(int slot, bool random)
        {
            if (random && !SecondIsFixed)
            {
                RandomNumberGenerator.Fill(Message(slot));
            }
            else
            {
                (random ? SecondInput : FixedInput).AsSpan(32, Length).CopyTo(Message(slot));
            }
        }

        // Turns the slot's plaintext into its ciphertext and tag, in place, under the slot's key.
        protected void Seal(int slot) =>
            Backend.Encrypt(in Schedules[slot], 14, Nonce, Message(slot), Message(slot), Tag(slot), AssociatedData);
    }

    // Secret: the key (its expansion, as the constructor runs it).
    private sealed class KeySetup(Backend backend, int length) : PooledCase("KeySetup", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            if (cls == 0 && FixedKey)
            {
                FixedInput.AsSpan(0, 32).CopyTo(Key(slot));
            }
            else if (SecondIsFixed)
            {
                SecondInput.AsSpan(0, 32).CopyTo(Key(slot));
            }
            else
            {
                RandomNumberGenerator.Fill(Key(slot));
            }
        }

        public override void Run(int slot) => Backend.ExpandKey(Key(slot), ref Schedules[slot]);
    }

    // Secret: key and plaintext. Nonce and associated data are public and the same in both classes.
    private sealed class Encrypt(Backend backend, int length) : PooledCase("Encrypt", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, cls == 1 || !FixedKey);
            SetMessage(slot, cls == 1 || !FixedMessage);
        }

        public override void Run(int slot) =>
            Backend.Encrypt(in Schedules[slot], 14, Nonce, Message(slot), Output, TagOutput, AssociatedData);
    }

    // Secret: key and plaintext, behind a valid ciphertext and tag.
    private sealed class Decrypt(Backend backend, int length) : PooledCase("Decrypt", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, cls == 1 || !FixedKey);
            SetMessage(slot, cls == 1 || !FixedMessage);
            Seal(slot);
        }

        public override void Run(int slot)
        {
            if (!Backend.Decrypt(in Schedules[slot], 14, Nonce, Message(slot), Tag(slot), Output, AssociatedData))
            {
                throw new InvalidOperationException("a valid message was rejected");
            }
        }
    }

    // The rejection path: a random key and plaintext for both classes; the tag is wrong in its first
    // byte (class 0) or its last byte (class 1). An early-exit comparison would tell them apart.
    // TryDecryptReject times the backend's call, which returns false; DecryptReject adds the exception
    // that AesGcmSiv.Decrypt throws then, as a caller sees it (microseconds, with a spread that hides
    // a difference of a few nanoseconds: TryDecryptReject is the sharper test of the comparison).
    private sealed class Reject(Backend backend, int length, bool throws) : PooledCase(throws ? "DecryptReject" : "TryDecryptReject", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, random: true);
            SetMessage(slot, random: true);
            Seal(slot);
            Tag(slot)[cls == 0 ? 0 : 15] ^= 1;
        }

        public override void Run(int slot)
        {
            if (Backend.Decrypt(in Schedules[slot], 14, Nonce, Message(slot), Tag(slot), Output, AssociatedData))
            {
                throw new InvalidOperationException("a tampered tag was accepted");
            }

            if (throws)
            {
                try
                {
                    throw new AuthenticationTagMismatchException();
                }
                catch (AuthenticationTagMismatchException)
                {
                }
            }
        }
    }

    // The harness's own check that it can see a small difference: a byte-by-byte comparison of 16
    // bytes that stops at the first difference, given pairs that differ in their first byte (class 0)
    // or their last (class 1): 15 loop iterations apart, a few nanoseconds. It must cross 4.5; a run in
    // which it does not could not have seen a leak of that size either.
    private sealed class EarlyExitControl() : Case("EarlyExitControl")
    {
        private readonly byte[] _pairs = new byte[32 * BatchSize];

        public override void Prepare(int slot, int cls)
        {
            Span<byte> pair = _pairs.AsSpan(32 * slot, 32);
            RandomNumberGenerator.Fill(pair[..16]);
            pair[..16].CopyTo(pair[16..]);
            pair[16 + (cls == 0 ? 0 : 15)] ^= 1;
        }

        public override void Run(int slot) => FirstDifference(_pairs.AsSpan(32 * slot, 16), _pairs.AsSpan((32 * slot) + 16, 16));

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int FirstDifference(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
        {
            for (int i = 0; i < a.Length; i++)
            {
                if (a[i] != b[i])
                {
                    return i;
                }
            }

            return -1;
        }
    }

    private static IEnumerable<Case> Cases(Backend backend, int length)
    {
        yield return new KeySetup(backend, length);
        yield return new Encrypt(backend, length);
        yield return new Decrypt(backend, length);
        yield return new Reject(backend, length, throws: true);
        yield return new Reject(backend, length, throws: false);
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
        long[] times = new long[BatchSize];

        // Warm-up batch, discarded: first calls, caches, and the thresholds taken from its measurements.
        long done = -BatchSize;
        while (done < measurements)
        {
            const int batch = BatchSize;
            for (int i = 0; i < batch; i++)
            {
                classes[i] = RandomNumberGenerator.GetInt32(2);
                c.Prepare(i, classes[i]);
            }

            for (int i = 0; i < batch; i++)
            {
                times[i] = Time(c, i);
            }

            if (done < 0)
            {
                long[] sorted = times.AsSpan(0, batch).ToArray();
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
        int cropIndex = percentiles.Length;
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
                cropIndex = p;
                crop = p == percentiles.Length ? "none" : $"p{percentiles[p] * 100:F1}";
            }
        }

        long Median(List<long> s)
        {
            s.Sort();
            return s.Count == 0 ? 0 : s[s.Count / 2];
        }

        // Which class is slower where |t| is largest, and by how much: a leak has a sign and a size.
        Console.WriteLine($"# {c.Name}, at crop {crop}: class 0 mean {tests[cropIndex, 0].Mean:F2} ticks ({tests[cropIndex, 0].N} calls), class 1 mean {tests[cropIndex, 1].Mean:F2} ({tests[cropIndex, 1].N})");
        long count = tests[percentiles.Length, 0].N + tests[percentiles.Length, 1].N;
        return new Result(count, maxT, crop, Welch(tests[percentiles.Length, 0], tests[percentiles.Length, 1]), Median(samples[0]), Median(samples[1]));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Time(Case c, int slot)
    {
        long start = Stopwatch.GetTimestamp();
        c.Run(slot);
        return Stopwatch.GetTimestamp() - start;
    }
}
