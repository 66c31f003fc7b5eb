// This library against BoringSSL's AES-GCM-SIV in one process, interleaved: for each operation, size
// and key size, rounds of calls alternate between each AesGcmSiv backend this process can run and
// BoringSSL, and each cell is the median of the per-round ratios (this library's time per call over
// BoringSSL's in the same pair of rounds). BenchmarkDotNet runs each case in its own process, one
// after the other, so when other processes load the machine its ratios mix two different loads;
// here both sides of a ratio ran within milliseconds of each other. The goal tables in
// docs/benchmarks.md come from BenchmarkDotNet; this is the cross-check named there.
//
//   dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --vs-boringssl [--rounds 31] [--sizes 64,1350]
//   DOTNET_EnableAVX2=0 dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --vs-boringssl   (AesNiPclmulqdq alone)

using System;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

internal static class VsBoringSsl
{
    public static int Run(string[] args)
    {
        if (BoringSsl.Unavailable is { } missing)
        {
            Console.Error.WriteLine($"BoringSSL is not available: {missing} (scripts/benchmark-peers.sh installs it)");
            return 1;
        }

        string? Value(string name) => args.SkipWhile(arg => arg != name).Skip(1).FirstOrDefault();
        int roundCount = int.Parse(Value("--rounds") ?? "31", CultureInfo.InvariantCulture);
        int[] sizes = [.. (Value("--sizes") ?? "64,1024,1350,8192,65536,1048576").Split(',').Select(size => int.Parse(size, CultureInfo.InvariantCulture))];
        AesGcmSivBackend[] backends = [.. Backends.Supported().Where(backend => backend is AesGcmSivBackend.AesNiVpclmulqdq or AesGcmSivBackend.AesNiPclmulqdq)];
        // Every call path run well past tiered compilation first: otherwise the first cell measures
        // this library's public methods (not marked for full optimisation) before they tier up.
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (int keySize in new[] { 16, 32 })
            {
                using var warm = new AesGcmSivPeer(RandomNumberGenerator.GetBytes(keySize), backend);
                warm.Prepare(new byte[1350]);
                for (int i = 0; i < 20_000; i++)
                {
                    warm.Encrypt();
                    warm.Decrypt();
                }
            }
        }

        System.Threading.Thread.Sleep(500);
        Console.WriteLine($"# time / BoringSSL's time, median over {roundCount} interleaved pairs of rounds; AVX2 {(System.Runtime.Intrinsics.X86.Avx2.IsSupported ? "on" : "off")}; {Environment.ProcessorCount} CPUs");
        Console.WriteLine("| backend | operation | key | bytes | ratio | this library ns | BoringSSL ns |");
        Console.WriteLine("|---|---|---|---|---|---|---|");
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (bool decrypt in new[] { false, true })
            {
                foreach (int keySize in new[] { 16, 32 })
                {
                    foreach (int size in sizes)
                    {
                        byte[] key = RandomNumberGenerator.GetBytes(keySize), input = RandomNumberGenerator.GetBytes(size);
                        using var ours = new AesGcmSivPeer(key, backend);
                        using var theirs = new BoringSslPeer(key);
                        ours.Prepare(input);
                        theirs.Prepare(input);
                        Action a = decrypt ? ours.Decrypt : ours.Encrypt, b = decrypt ? theirs.Decrypt : theirs.Encrypt;
                        int calls = Math.Max(10, 4_000_000 / (size + 300));
                        Time(a, calls);
                        Time(b, calls);
                        double[] ratios = new double[roundCount], ns = new double[roundCount], boring = new double[roundCount];
                        for (int r = 0; r < roundCount; r++)
                        {
                            ns[r] = Time(a, calls);
                            boring[r] = Time(b, calls);
                            ratios[r] = ns[r] / boring[r];
                        }

                        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                            $"| {backend} | {(decrypt ? "decrypt" : "encrypt")} | AES-{keySize * 8} | {size} | {Median(ratios):F2} | {Median(ns):F1} | {Median(boring):F1} |"));
                    }
                }
            }
        }

        return 0;
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)] // no OSR in the timed loop
    private static double Time(Action call, int calls)
    {
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < calls; i++)
        {
            call();
        }

        return Stopwatch.GetElapsedTime(start).TotalNanoseconds / calls;
    }

    private static double Median(double[] values)
    {
        double[] sorted = [.. values.Order()];
        return sorted[sorted.Length / 2];
    }
}
