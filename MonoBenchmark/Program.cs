// AES-GCM-SIV under Mono: the netstandard2.0 build's backend (Portable, its only one) and
// BouncyCastle 2.7.0's GcmSivBlockCipher, encryption and decryption at
// 64 B, 1350 B, 8 KiB and 64 KiB, in one process, in the thread's CPU time on Linux (see Time).
//
//   Benchmarks.exe                      a markdown table of AES-256, microseconds per call (the best of
//                                       5 rounds of about 0.1 s) and ratios to BouncyCastle (lower is better)
//   Benchmarks.exe --out DIR [--sizes 64,1350,8192,65536] [--samples 9] [--sample-ms 60] [--key-bits 256,128]
//                                       the cross-platform report's files, as BenchmarkReport/ writes them:
//                                       DIR/results.csv (AES-256: the median of the samples, with their
//                                       minimum and maximum, in ns), DIR/results-aes128.csv (the same for
//                                       AES-128, when asked for) and DIR/runtime.txt (what the process saw).
//                                       scripts/benchmark-report.sh x64-mono runs it.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using Cryptography;
using Cryptography.Internal;
using Org.BouncyCastle.Crypto.Engines;
using Org.BouncyCastle.Crypto.Modes;
using Org.BouncyCastle.Crypto.Parameters;

namespace Benchmarks;

internal static class Program
{
    private const string Usage = "usage: Benchmarks.exe [--out DIR [--sizes 64,1350,8192,65536] [--samples 9] [--sample-ms 60] [--key-bits 256,128]]";

    private static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "kernels") { return Kernels.Run(); }
        string? outDir = null;
        int[] sizes = [64, 1350, 8192, 65536], keyBits = [256];
        int samples = 5;
        double sampleMs = 100;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--out": outDir = args[++i]; samples = 9; sampleMs = 60; break;
                case "--sizes": sizes = Numbers(args[++i]); break;
                case "--samples": samples = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                case "--sample-ms": sampleMs = double.Parse(args[++i], CultureInfo.InvariantCulture); break;
                case "--key-bits": keyBits = Numbers(args[++i]); break;
                default:
                    Console.Error.WriteLine($"unknown argument {args[i]}; {Usage}");
                    return 2;
            }
        }

        string runtime = Type.GetType("Mono.Runtime") is { } mono
            ? "Mono " + mono.GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)?.Invoke(null, null)
            : RuntimeInformation.FrameworkDescription;
        string bouncyCastle = typeof(GcmSivBlockCipher).Assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
            .Cast<System.Reflection.AssemblyInformationalVersionAttribute>().FirstOrDefault()?.InformationalVersion?.Split('+')[0] ?? "?";
        Console.WriteLine($"// runtime: {runtime}");
        Console.WriteLine($"// clock: {(ThreadCpuTime ? "thread CPU time" : "wall clock")}");
        Console.WriteLine($"// os: {RuntimeInformation.OSDescription}, {RuntimeInformation.ProcessArchitecture}; Vector.IsHardwareAccelerated = {System.Numerics.Vector.IsHardwareAccelerated}");
        Console.WriteLine($"// library: {typeof(AesGcmSiv).Assembly.GetName().Version}, ActiveBackend = {AesGcmSiv.ActiveBackend}; BouncyCastle {bouncyCastle}");
        if (outDir is null)
        {
            Console.WriteLine("| Size | Operation | Portable (µs) | BouncyCastle (µs) | Portable / BC |");
            Console.WriteLine("| ---: | --- | ---: | ---: | ---: |");
        }
        else
        {
            Directory.CreateDirectory(outDir);
            File.WriteAllLines(Path.Combine(outDir, "runtime.txt"),
            [
                $"runtime: {runtime} (JIT)",
                $"os: {RuntimeInformation.OSDescription} ({RuntimeInformation.ProcessArchitecture}); Vector.IsHardwareAccelerated: {System.Numerics.Vector.IsHardwareAccelerated}",
                $"processors: {Environment.ProcessorCount}",
                $"library: Cryptography.AesGcmSiv {typeof(AesGcmSiv).Assembly.GetName().Version}, netstandard2.0 build",
                $"aesgcmsiv_backend: {AesGcmSiv.ActiveBackend}",
                $"bouncycastle: BouncyCastle.Cryptography {bouncyCastle} (GcmSivBlockCipher)",
                $"peers: BouncyCastle.Cryptography {bouncyCastle} (GcmSivBlockCipher, same process)",
                $"clock: {(ThreadCpuTime ? "the thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID))" : "wall clock (Stopwatch)")}",
            ]);
        }

        foreach (int bits in keyBits)
        {
            byte[] key = Enumerable.Range(1, bits / 8).Select(i => (byte)i).ToArray();
            var rows = new List<string> { "operation,size,implementation,ns_per_op,gb_per_s,min_ns,max_ns" };
            foreach (int size in sizes)
            {
                if (!Measure(key, size, samples, sampleMs, outDir is null ? null : rows))
                {
                    return 1;
                }
            }

            if (outDir is not null)
            {
                File.WriteAllLines(Path.Combine(outDir, bits == 256 ? "results.csv" : $"results-aes{bits}.csv"), rows);
            }
        }

        return 0;
    }

    private static int[] Numbers(string list) => [.. list.Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture))];

    /// <summary>Times one size, encryption then decryption, of each implementation: a table row each (rows null),
    /// or a CSV row per implementation and operation.</summary>
    private static bool Measure(byte[] key, int size, int samples, double sampleMs, List<string>? rows)
    {
        byte[] nonce = new byte[12];
        byte[] plaintext = new byte[size], ciphertext = new byte[size], tag = new byte[16], opened = new byte[size];
        new Random(size).NextBytes(plaintext);
        using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
        var bouncy = new GcmSivBlockCipher(new AesEngine());
        byte[] bouncySealed = new byte[size + 16], bouncyOpened = new byte[size];
        void BouncyEncrypt()
        {
            bouncy.Init(true, new AeadParameters(new KeyParameter(key), 128, nonce));
            int written = bouncy.ProcessBytes(plaintext, 0, size, bouncySealed, 0);
            bouncy.DoFinal(bouncySealed, written);
        }

        BouncyEncrypt();
        byte[] toOpen = (byte[])bouncySealed.Clone();
        void BouncyDecrypt()
        {
            bouncy.Init(false, new AeadParameters(new KeyParameter(key), 128, nonce));
            int written = bouncy.ProcessBytes(toOpen, 0, size + 16, bouncyOpened, 0);
            bouncy.DoFinal(bouncyOpened, written);
        }

        portable.Encrypt(nonce, plaintext, ciphertext, tag);
        if (!toOpen.Take(size).SequenceEqual(ciphertext) || !toOpen.Skip(size).SequenceEqual(tag))
        {
            Console.Error.WriteLine("BouncyCastle and this library disagree");
            return false;
        }

        foreach ((string operation, Action ours, Action peer) in new (string, Action, Action)[]
        {
            ("Encrypt", () => portable.Encrypt(nonce, plaintext, ciphertext, tag), BouncyEncrypt),
            ("Decrypt", () => portable.Decrypt(nonce, ciphertext, tag, opened), BouncyDecrypt),
        })
        {
            double[] portableTimes = Time(ours, samples, sampleMs), bouncyTimes = Time(peer, samples, sampleMs);
            if (rows is null)
            {
                double p = portableTimes.Min(), b = bouncyTimes.Min();
                Console.WriteLine($"| {size} | {operation.ToLowerInvariant()} | {p:F1} | {b:F1} | {p / b:F2} |");
                continue;
            }

            foreach ((string name, double[] times) in new[] { ("AesGcmSiv (Portable)", portableTimes), ("BouncyCastle", bouncyTimes) })
            {
                double median = Median(times) * 1000;
                rows.Add(FormattableString.Invariant(
                    $"{operation},{size},{name},{median:F1},{size / median:F3},{times.Min() * 1000:F1},{times.Max() * 1000:F1}"));
            }
        }

        return true;
    }

    private static double Median(double[] values)
    {
        double[] sorted = [.. values.OrderBy(v => v)];
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }

    /// <summary>
    /// Microseconds per call in each of <paramref name="samples"/> rounds of about <paramref name="sampleMs"/>
    /// each, after a warm-up as long. Timed in the thread's CPU time where the OS has it (Linux:
    /// clock_gettime(CLOCK_THREAD_CPUTIME_ID)), so that on a shared, loaded machine the time this thread
    /// waits for a core is not counted; elsewhere wall-clock time (Stopwatch).
    /// </summary>
    private static double[] Time(Action call, int samples, double sampleMs)
    {
        double start = Now();
        int calls = 0;
        while (Now() - start < sampleMs * 1000 || calls < 3)
        {
            call();
            calls++;
        }

        double[] times = new double[samples];
        for (int round = 0; round < samples; round++)
        {
            double roundStart = Now();
            for (int i = 0; i < calls; i++)
            {
                call();
            }

            times[round] = (Now() - roundStart) / calls;
        }

        return times;
    }

    private static readonly bool ThreadCpuTime = RuntimeInformation.IsOSPlatform(OSPlatform.Linux);
    private static readonly Stopwatch Wall = Stopwatch.StartNew();

    /// <summary>The clock <see cref="Time"/> reads, in microseconds.</summary>
    private static double Now()
    {
        if (ThreadCpuTime && clock_gettime(ClockThreadCpuTimeId, out Timespec now) == 0)
        {
            return (now.Seconds * 1e6) + (now.Nanoseconds / 1e3);
        }

        return Wall.Elapsed.TotalMilliseconds * 1000;
    }

    private const int ClockThreadCpuTimeId = 3; // Linux's CLOCK_THREAD_CPUTIME_ID

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [DllImport("libc", SetLastError = false)]
    private static extern int clock_gettime(int clock, out Timespec time);
}
