// The benchmark report's runner: encrypt and decrypt of AES-256 messages at a few sizes by this
// library (its active backend) and by the peers the BenchmarkDotNet suite has (Peers.cs), timed
// with a Stopwatch so that the same program runs under the JIT and as a Native AOT file.
//
//   BenchmarkReport --out DIR [--sizes 64,1350,8192,65536] [--samples 9] [--sample-ms 60]
//
// For each case it calibrates a batch to about --sample-ms, warms up for 4 batches, then times
// --samples batches and keeps the median time per call. It writes DIR/results.csv (one row per
// case) and DIR/runtime.txt (what the process saw: runtime, JIT or AOT, backend, peers' versions).
// Short by design, for a shared machine: compare ratios within one run, not absolute times.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Benchmarks;
using Cryptography;

namespace BenchmarkReport;

public static class Program
{
    public static int Main(string[] args)
    {
        string? outDir = null;
        int[] sizes = [64, 1350, 8192, 65536];
        int samples = 9;
        double sampleMs = 60;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--out": outDir = args[++i]; break;
                case "--sizes": sizes = [.. args[++i].Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture))]; break;
                case "--samples": samples = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                case "--sample-ms": sampleMs = double.Parse(args[++i], CultureInfo.InvariantCulture); break;
                default:
                    Console.Error.WriteLine($"unknown argument {args[i]}; usage: BenchmarkReport --out DIR [--sizes 64,1350] [--samples 9] [--sample-ms 60]");
                    return 2;
            }
        }

        if (outDir is null)
        {
            Console.Error.WriteLine("usage: BenchmarkReport --out DIR [--sizes 64,1350] [--samples 9] [--sample-ms 60]");
            return 2;
        }

        Directory.CreateDirectory(outDir);
        bool aot = !RuntimeFeature.IsDynamicCodeSupported;
        string backend = AesGcmSiv.ActiveBackend.ToString();
        var info = new List<string>
        {
            $"runtime: {RuntimeInformation.FrameworkDescription} ({(aot ? "Native AOT" : "JIT")})",
            $"os: {RuntimeInformation.OSDescription} ({RuntimeInformation.OSArchitecture})",
            $"processors: {Environment.ProcessorCount}",
            $"aesgcmsiv_backend: {backend}",
            "aesgcm: System.Security.Cryptography.AesGcm (the OS crypto library: OpenSSL on Linux)",
            Libsodium.Unavailable is { } noSodium ? $"libsodium: skipped ({noSodium})" : $"libsodium: {Libsodium.Version} (AES-256-GCM)",
            BoringSsl.Unavailable is { } noBoring ? $"boringssl: skipped ({noBoring})" : $"boringssl: {BoringSsl.Path} (AES-GCM-SIV)",
            $"bouncycastle: BouncyCastle.Cryptography {typeof(Org.BouncyCastle.Crypto.Modes.GcmSivBlockCipher).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]} (GcmSivBlockCipher)",
        };
        foreach (string line in info)
        {
            Console.WriteLine("// " + line);
        }

        File.WriteAllLines(Path.Combine(outDir, "runtime.txt"), info);

        byte[] key = RandomNumberGenerator.GetBytes(32);
        var peers = new List<(string Name, Func<AeadPeer> Create)>
        {
            ($"AesGcmSiv ({backend})", () => new AesGcmSivPeer(key, AesGcmSiv.ActiveBackend)),
            ("AesGcm", () => new AesGcmPeer(key)),
        };
        if (BoringSsl.Unavailable is null)
        {
            peers.Add(("BoringSSL", () => new BoringSslPeer(key)));
        }

        if (Libsodium.Unavailable is null)
        {
            peers.Add(("libsodium", () => new LibsodiumPeer(key)));
        }

        peers.Add(("BouncyCastle", () => new BouncyCastlePeer(key)));

        using var csv = new StreamWriter(Path.Combine(outDir, "results.csv"));
        csv.WriteLine("operation,size,implementation,ns_per_op,gb_per_s,min_ns,max_ns");
        foreach (string operation in new[] { "Encrypt", "Decrypt" })
        {
            foreach (int size in sizes)
            {
                byte[] input = RandomNumberGenerator.GetBytes(size);
                foreach (var (name, create) in peers)
                {
                    using AeadPeer peer = create();
                    peer.Prepare(input);
                    Action call = operation == "Encrypt" ? peer.Encrypt : peer.Decrypt;
                    (double median, double min, double max) = Measure(call, samples, sampleMs);
                    string line = string.Format(CultureInfo.InvariantCulture, "{0},{1},{2},{3:F1},{4:F3},{5:F1},{6:F1}", operation, size, name, median, size / median, min, max);
                    csv.WriteLine(line);
                    Console.WriteLine(line);
                }
            }
        }

        return 0;
    }

    private static (double Median, double Min, double Max) Measure(Action call, int samples, double sampleMs)
    {
        // Calibrate: double the batch until it takes sampleMs (this also warms the code up).
        long batch = 1;
        while (true)
        {
            double ms = Time(call, batch);
            if (ms >= sampleMs || batch >= 1L << 30)
            {
                break;
            }

            batch *= ms < sampleMs / 8 ? 8 : 2;
        }

        for (int i = 0; i < 4; i++)
        {
            _ = Time(call, batch);
        }

        double[] perCall = new double[samples];
        for (int i = 0; i < samples; i++)
        {
            perCall[i] = Time(call, batch) * 1e6 / batch;
        }

        Array.Sort(perCall);
        return (perCall[samples / 2], perCall[0], perCall[^1]);
    }

    private static double Time(Action call, long count)
    {
        long start = Stopwatch.GetTimestamp();
        for (long i = 0; i < count; i++)
        {
            call();
        }

        return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }
}
