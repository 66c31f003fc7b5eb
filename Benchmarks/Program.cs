// Entry point: BenchmarkDotNet's switcher with this suite's configuration (BenchmarkConfig.cs),
// so --filter, --job, --list and BenchmarkDotNet's other options work as usual; plus --quick.
//
//   dotnet run -c Release --project Benchmarks -- --filter '*'              the full suite
//   dotnet run -c Release --project Benchmarks -- --quick                   a short subset, ~2 minutes
//   dotnet run -c Release --project Benchmarks -- --clock                   the core clock, for cycles per byte
//   dotnet run -c Release --project Benchmarks -- --pipe-probe              whether AES rounds and carry-less multiplies share pipes
//   dotnet run -c Release --project Benchmarks -- --filter '*Decrypt*' --sizes 64,1350   only those sizes
//   dotnet run -c Release --project Benchmarks -- --decrypt-loop-ab         decryption's two loops, interleaved
//   dotnet run -c Release --project Benchmarks -- --vs-boringssl            against BoringSSL, interleaved
//   dotnet run -c Release --project Benchmarks -- --stream-throughput       the record layer in memory, for
//                                                                           scripts/measure-tool.sh (StreamThroughput.cs)
//   dotnet run -c Release --project Benchmarks -- --guard-split             GuardedAesGcmSiv's time split (bare, guard
//                                                                           alone, both, guarded), minimum over rounds
//   dotnet run -c Release --project Benchmarks -- --profile-loop            one message size in a loop, to run
//                                                                           under perf (ProfileLoop.cs)
//   dotnet run -c Release --project Benchmarks -- --filter '*EncryptBenchmarks.AesGcmSiv_Portable' --job Dry
//                                                                           CI's build-and-run check
//
// It prints which peers and backends this machine has first, and exits non-zero when a benchmark
// failed, so that CI notices. scripts/README.md has the rest (reports, charts).

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Contains("--stream-throughput"))
        {
            return StreamThroughput.Run(args);
        }

        if (args.Contains("--vs-boringssl"))
        {
            return VsBoringSsl.Run(args);
        }

        if (args.Contains("--decrypt-loop-ab"))
        {
            return DecryptLoopAb.Run(args);
        }

        if (args.Contains("--guard-split"))
        {
            return GuardSplitLoop.Run(args);
        }

        if (args.Contains("--profile-loop"))
        {
            return ProfileLoop.Run(args);
        }

        if (args.Contains("--pipe-probe"))
        {
            return PipeProbe.Run();
        }

        if (args.Contains("--clock"))
        {
            ClockRate.Print();
            return 0;
        }

        bool quick = args.Contains("--quick");
        string[] switcherArgs = [.. args.Where(arg => arg != "--quick")];

        // --sizes 64,1350: only the cases whose Size is one of these (cases without a Size stay), so a
        // run of the goal tables' sizes need not run every size of every class.
        int sizesAt = Array.IndexOf(switcherArgs, "--sizes");
        int[]? sizes = null;
        if (sizesAt >= 0 && sizesAt + 1 < switcherArgs.Length)
        {
            sizes = [.. switcherArgs[sizesAt + 1].Split(',').Select(size => int.Parse(size, CultureInfo.InvariantCulture))];
            switcherArgs = [.. switcherArgs.Take(sizesAt), .. switcherArgs.Skip(sizesAt + 2)];
        }

        if (quick && !switcherArgs.Contains("--filter"))
        {
            switcherArgs = [.. switcherArgs, "--filter", .. BenchmarkConfig.QuickClasses.Select(name => $"*.{name}.*")];
        }

        Console.WriteLine($"// AesGcmSiv backends on this machine: {string.Join(", ", Backends.Supported())}; active: {AesGcmSiv.ActiveBackend}");
        Console.WriteLine(Libsodium.Unavailable is { } reason
            ? $"// libsodium rows skipped: {reason}"
            : $"// libsodium {Libsodium.Version} (the libsodium package; Sodium.Core reports {Sodium.SodiumCore.SodiumVersionString()}): AES-256-GCM available (KeySize 32 rows only)");
        Console.WriteLine(BoringSsl.Unavailable is { } missing
            ? $"// BoringSSL rows skipped: {missing}"
            : $"// BoringSSL AES-GCM-SIV: {BoringSsl.Path}");
        Console.WriteLine("// BouncyCastle.Cryptography GcmSivBlockCipher rows included");

        bool jobGiven = switcherArgs.Any(arg => arg is "--job" or "-j" || arg.StartsWith("--job=", StringComparison.Ordinal));
        Summary[] summaries = [.. BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly)
            .Run(switcherArgs, BenchmarkConfig.WithSizes(quick ? BenchmarkConfig.Quick(withJob: !jobGiven) : BenchmarkConfig.Full(withJob: !jobGiven), sizes))];
        if (quick)
        {
            QuickTable.Write(summaries, Console.Out);
        }

        bool failed = summaries.Any(summary => summary.HasCriticalValidationErrors || summary.Reports.Any(report => !report.Success));
        return failed ? 1 : 0;
    }
}

/// <summary>The quick mode's closing table: one line per case, ratio to AesGcm at the same size and key.</summary>
internal static class QuickTable
{
    public static void Write(IEnumerable<Summary> summaries, TextWriter output)
    {
        var rows = summaries
            .SelectMany(summary => summary.Reports)
            .Where(report => report.ResultStatistics is not null)
            .Select(report => new
            {
                Operation = report.BenchmarkCase.Descriptor.Type.Name.Replace("Benchmarks", string.Empty, StringComparison.Ordinal),
                Implementation = report.BenchmarkCase.Descriptor.WorkloadMethod.Name,
                IsBaseline = report.BenchmarkCase.Descriptor.Baseline,
                KeyBits = (Requirements.Parameter(report.BenchmarkCase, "KeySize") ?? 0) * 8,
                Size = Requirements.Parameter(report.BenchmarkCase, "Size") ?? 0,
                Nanoseconds = report.ResultStatistics!.Mean,
            })
            .OrderBy(row => row.Operation, StringComparer.Ordinal)
            .ThenBy(row => row.KeyBits)
            .ThenBy(row => row.Size)
            .ThenBy(row => row.IsBaseline ? 0 : 1)
            .ThenBy(row => row.Implementation, StringComparer.Ordinal)
            .ToList();
        var baselines = rows.Where(row => row.IsBaseline).ToDictionary(row => (row.Operation, row.KeyBits, row.Size), row => row.Nanoseconds);

        output.WriteLine();
        output.WriteLine("Quick results (short job: a sanity check, not numbers to publish)");
        output.WriteLine("ratio = time / AesGcm's time at the same size and key size; below 1 is faster than AesGcm");
        output.WriteLine();
        string header = string.Format(CultureInfo.InvariantCulture, "{0,-13}{1,5}{2,9}  {3,-28}{4,12}{5,9}{6,8}", "operation", "key", "bytes", "implementation", "ns/op", "GB/s", "ratio");
        output.WriteLine(header);
        output.WriteLine(new string('-', header.Length));
        foreach (var row in rows)
        {
            string ratio = baselines.TryGetValue((row.Operation, row.KeyBits, row.Size), out double baseline)
                ? (row.Nanoseconds / baseline).ToString("F2", CultureInfo.InvariantCulture)
                : "NA";
            output.WriteLine(string.Format(
                CultureInfo.InvariantCulture,
                "{0,-13}{1,5}{2,9}  {3,-28}{4,12:F1}{5,9:F3}{6,8}",
                row.Operation,
                row.KeyBits,
                row.Size,
                row.Implementation,
                row.Nanoseconds,
                row.Size / row.Nanoseconds,
                ratio));
        }
    }
}
