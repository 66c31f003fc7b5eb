// The two configurations of the suite, both with MemoryDiagnoser, a GB/s column, the GitHub
// markdown exporter and a CSV exporter whose numbers carry no units (times in ns, sizes in bytes,
// for scripts/plot_benchmarks.py), and the filter that skips cases this machine cannot run.
//
// Full: every benchmark, one process per case, LaunchCount 1, WarmupCount 3, IterationCount 10,
//       IterationTime 250 ms: about 6 s per case, so the ~290 cases this 2-core machine runs take
//       about 30 minutes; the default job's 15-100 iterations of 500 ms would take hours.
// Quick: AES-128 and AES-256 encrypt and decrypt at 64, 1350 and 8192 bytes for AesGcm, the
//       active AesGcmSiv backend and the portable one: 36 cases, WarmupCount 2, IterationCount 5,
//       IterationTime 100 ms, under 2 minutes: a sanity check, not numbers to publish. Still one
//       process per case: in process, the first cases ran before the JIT had tiered the library
//       up and came out several times too slow.
//
// Both jobs are marked as BenchmarkDotNet's default job, so --iterationCount, --warmupCount and the
// like apply on top of them. BenchmarkDotNet ignores --job when the config has a default job, so
// Program builds the config without one when --job is given: --job Dry then runs the Dry job alone.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cryptography;
using Perfolizer.Horology;
using Perfolizer.Metrology;

namespace Benchmarks;

internal static class BenchmarkConfig
{
    public static readonly int[] QuickSizes = [64, 1350, 8192];

    /// <summary>The benchmark classes the quick mode runs (its default --filter).</summary>
    public static readonly string[] QuickClasses = [nameof(EncryptBenchmarks), nameof(DecryptBenchmarks)];

    public static IConfig Full(bool withJob = true) => Common(withJob ? FullJob : null);

    public static IConfig Quick(bool withJob = true) => Common(withJob ? QuickJob : null)
        .AddFilter(new SimpleFilter(IsQuickCase));

    /// <summary>The config, keeping only cases whose Size is in <paramref name="sizes"/> (all when null).</summary>
    public static IConfig WithSizes(IConfig config, int[]? sizes) => sizes is null
        ? config
        : ManualConfig.Create(config).AddFilter(new SimpleFilter(benchmark =>
            Requirements.Parameter(benchmark, "Size") is not { } size || sizes.Contains(size)));

    private static Job FullJob =>
        Job.Default
            .WithId("Full")
            .WithLaunchCount(1)
            .WithWarmupCount(3)
            .WithIterationCount(10)
            .WithIterationTime(TimeInterval.FromMilliseconds(250))
            .AsDefault();

    private static Job QuickJob =>
        Job.Default
            .WithId("Quick")
            .WithLaunchCount(1)
            .WithWarmupCount(2)
            .WithIterationCount(5)
            .WithIterationTime(TimeInterval.FromMilliseconds(100))
            .AsDefault();

    private static ManualConfig Common(Job? job)
    {
        ManualConfig config = ManualConfig.CreateEmpty();
        if (job is not null)
        {
            config.AddJob(job);
        }

        // BenchmarkDotNet builds a project per run; its default limit of 2 minutes is too short on a
        // busy 2-core machine.
        return config
            .WithBuildTimeout(TimeSpan.FromMinutes(10))
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(new ThroughputColumn(), new RatioToBoringSslColumn())
            .AddLogger(ConsoleLogger.Default)
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddAnalyser(DefaultConfig.Instance.GetAnalysers().ToArray())
            .AddValidator(DefaultConfig.Instance.GetValidators().ToArray())
            .AddExporter(
                MarkdownExporter.GitHub,
                new CsvExporter(
                    CsvSeparator.Comma,
                    new SummaryStyle(CultureInfo.InvariantCulture, printUnitsInHeader: true, SizeUnit.B, TimeUnit.Nanosecond, printUnitsInContent: false)))
            .AddFilter(new SimpleFilter(Requirements.IsRunnable));
    }

    private static bool IsQuickCase(BenchmarkCase benchmarkCase)
    {
        string method = benchmarkCase.Descriptor.WorkloadMethod.Name;
        HashSet<string> methods = ["AesGcm", "AesGcmSiv_" + AesGcmSiv.ActiveBackend, "AesGcmSiv_" + AesGcmSivBackend.Portable];
        return QuickClasses.Contains(benchmarkCase.Descriptor.Type.Name)
            && methods.Contains(method)
            && Requirements.Parameter(benchmarkCase, "Size") is int size
            && QuickSizes.Contains(size);
    }
}

/// <summary>Throughput in GB/s (10^9 bytes per second): the Size parameter over the mean time.</summary>
internal sealed class ThroughputColumn : IColumn
{
    public string Id => nameof(ThroughputColumn);

    public string ColumnName => "GB/s";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Throughput: Size bytes over the mean time, in 10^9 bytes per second";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        double? meanNanoseconds = summary[benchmarkCase]?.ResultStatistics?.Mean;
        return Requirements.Parameter(benchmarkCase, "Size") is int size && meanNanoseconds > 0
            ? (size / meanNanoseconds.Value).ToString("F3", CultureInfo.InvariantCulture)
            : "NA";
    }

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
}

/// <summary>
/// The row's mean time over BoringSSL's AES-GCM-SIV mean time in the same class at the same Size and
/// KeySize, from the same run: below 1 is faster than BoringSSL's assembly. NA where BoringSSL has no row.
/// </summary>
internal sealed class RatioToBoringSslColumn : IColumn
{
    public string Id => nameof(RatioToBoringSslColumn);

    public string ColumnName => "vs BoringSSL";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 1;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Mean time over BoringSSL AES-GCM-SIV's mean time at the same Size and KeySize, same run";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        double? mean = summary[benchmarkCase]?.ResultStatistics?.Mean;
        BenchmarkCase? boring = summary.BenchmarksCases.FirstOrDefault(other =>
            other.Descriptor.Type == benchmarkCase.Descriptor.Type
            && other.Descriptor.WorkloadMethod.Name == nameof(EncryptBenchmarks.BoringSsl)
            && Requirements.Parameter(other, "Size") == Requirements.Parameter(benchmarkCase, "Size")
            && Requirements.Parameter(other, "KeySize") == Requirements.Parameter(benchmarkCase, "KeySize"));
        double? boringMean = boring is null ? null : summary[boring]?.ResultStatistics?.Mean;
        return mean > 0 && boringMean > 0
            ? (mean.Value / boringMean.Value).ToString("F2", CultureInfo.InvariantCulture)
            : "NA";
    }

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
}
