// The fuzzer: instruments a copy of the library (Instrumenter.cs), loads it with a second copy of
// this assembly into a load context of their own, and runs a mutation loop that keeps every input
// reaching a new edge, or a known edge a new number of times (AFL's hit-count buckets), as a seed
// for further mutation. Inputs that make a check in Target.cs fail, or raise anything other than a
// ContentEncodingException, are findings: saved under the output folder and counted.
//
//   dotnet run -c Release --project Fuzz -- [--seconds 60] [--seed N] [--out Fuzz/out] [--uncovered]
//
// It prints executions, executions per second, corpus size, edges seen and the basic blocks of the
// content-encoding types reached out of those instrumented, then exits 1 if there were findings.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;
using System.Security.Cryptography;

namespace Fuzz;

public static class Program
{
    private const int MapSize = 1 << 16;
    private const int MaxInputLength = 4096;
    private const string LibraryName = "Cryptography.AesGcmSiv";

    // The decoding side of the content-encoding layer (header and record parser, one-shot and stream
    // decoders) and what it calls, with their nested (compiler-generated) types. The encrypting stream
    // and the HTTP types are not what the fuzzer drives; the AES and POLYVAL backends are not parsers.
    private static readonly string[] InstrumentedTypes =
    [
        "ContentEncoding", "ContentEncodingHeader", "ContentEncryptor", "ContentDecryptor", "ContentDecryptingStream",
        "ContentCodingInfo", "RecordCipher",
    ];

    public static int Main(string[] args)
    {
        double seconds = double.Parse(Option(args, "--seconds") ?? "60", CultureInfo.InvariantCulture);
        int seed = int.Parse(Option(args, "--seed") ?? RandomNumberGenerator.GetInt32(int.MaxValue).ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
        string output = Path.GetFullPath(Option(args, "--out") ?? Path.Combine("Fuzz", "out"));
        Directory.CreateDirectory(Path.Combine(output, "findings"));
        Directory.CreateDirectory(Path.Combine(output, "corpus"));

        string instrumentedFolder = Path.Combine(Path.GetTempPath(), "aesgcmsiv-fuzz-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Directory.CreateDirectory(instrumentedFolder);
        string instrumented = Path.Combine(instrumentedFolder, LibraryName + ".dll");
        var ranges = Instrumenter.Instrument(Path.Combine(AppContext.BaseDirectory, LibraryName + ".dll"), instrumented, type =>
        {
            TypeDefinitionName(type, out string ns, out string name);
            return ns.StartsWith("Cryptography", StringComparison.Ordinal) && InstrumentedTypes.Contains(name);
        });

        int probes = ranges.Max(range => range.End);
        var context = new FuzzLoadContext(instrumented);
        Assembly library = context.LoadFromAssemblyName(new AssemblyName(LibraryName));
        Assembly harness = context.LoadFromAssemblyPath(typeof(Program).Assembly.Location);
        Type coverage = library.GetType(Instrumenter.CoverageTypeName, throwOnError: true)!;
        byte[] map = new byte[MapSize];
        byte[] blocks = new byte[probes];
        var idRandom = new Random(12345);
        coverage.GetField("Map")!.SetValue(null, map);
        coverage.GetField("Blocks")!.SetValue(null, blocks);
        coverage.GetField("Ids")!.SetValue(null, Enumerable.Range(0, probes).Select(_ => idRandom.Next(MapSize)).ToArray());
        FieldInfo previous = coverage.GetField("Previous")!;
        Type target = harness.GetType("Fuzz.Target", throwOnError: true)!;
        var run = target.GetMethod("Run")!.CreateDelegate<Func<byte[], string?>>();
        var corpus = (List<byte[]>)target.GetMethod("Seeds")!.Invoke(null, null)!;
        Console.WriteLine($"instrumented {probes} basic blocks of the content-encoding types; seed {seed}; {seconds} s; output {output}");

        var random = new Random(seed);
        byte[] virgin = new byte[MapSize];
        var findings = new Dictionary<string, int>();
        long executions = 0;
        var clock = Stopwatch.StartNew();
        TimeSpan nextReport = TimeSpan.FromSeconds(10);

        // The seeds run first, so that their coverage counts as known.
        var queue = new Queue<byte[]>(corpus);
        corpus.Clear();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            byte[] input = queue.Count > 0 ? queue.Dequeue() : Mutator.Mutate(corpus[random.Next(corpus.Count)], corpus, random, MaxInputLength);
            Array.Clear(map);
            previous.SetValue(null, 0);
            string? finding;
            try
            {
                finding = run(input);
            }
            catch (Exception exception)
            {
                finding = exception.GetType().FullName + ": " + exception.Message + " at " + exception.StackTrace?.Split('\n').FirstOrDefault()?.Trim();
            }

            executions++;
            if (finding is not null)
            {
                string name = "finding-" + Convert.ToHexString(SHA256.HashData(input))[..16];
                File.WriteAllBytes(Path.Combine(output, "findings", name + ".bin"), input);
                File.WriteAllText(Path.Combine(output, "findings", name + ".txt"), finding + Environment.NewLine);
                findings[finding] = findings.GetValueOrDefault(finding) + 1;
                if (findings[finding] == 1)
                {
                    Console.WriteLine($"FINDING ({name}): {finding}");
                }
            }

            if (NewCoverage(map, virgin))
            {
                corpus.Add(input);
            }

            if (clock.Elapsed >= nextReport)
            {
                Report(clock.Elapsed, executions, corpus.Count, virgin, blocks, findings.Count, final: false);
                nextReport += TimeSpan.FromSeconds(10);
            }
        }

        Report(clock.Elapsed, executions, corpus.Count, virgin, blocks, findings.Count, final: true);
        foreach (var type in ranges.GroupBy(range => range.Type))
        {
            int total = type.Sum(range => range.End - range.First);
            int reached = type.Sum(range => blocks.AsSpan(range.First, range.End - range.First).Count((byte)1));
            Console.WriteLine($"  {type.Key,-26} blocks reached {reached,4} / {total,4}");
        }

        if (args.Contains("--uncovered"))
        {
            foreach (var method in ranges)
            {
                int missed = blocks.AsSpan(method.First, method.End - method.First).Count((byte)0);
                if (missed > 0)
                {
                    Console.WriteLine($"    not reached: {missed,3} of {method.End - method.First,3} blocks in {method.Method}");
                }
            }
        }
        for (int i = 0; i < corpus.Count; i++)
        {
            File.WriteAllBytes(Path.Combine(output, "corpus", i.ToString("D5", CultureInfo.InvariantCulture) + ".bin"), corpus[i]);
        }

        Directory.Delete(instrumentedFolder, recursive: true);
        return findings.Count == 0 ? 0 : 1;
    }

    private static void TypeDefinitionName(Mono.Cecil.TypeDefinition type, out string ns, out string name)
    {
        while (type.DeclaringType is not null)
        {
            type = type.DeclaringType;
        }

        ns = type.Namespace;
        name = type.Name;
    }

    private static string? Option(string[] args, string name)
    {
        int at = Array.IndexOf(args, name);
        return at >= 0 && at + 1 < args.Length ? args[at + 1] : null;
    }

    // AFL's rule: an input is interesting if some edge's hit count falls in a bucket
    // (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+) not seen for that edge before.
    private static bool NewCoverage(byte[] map, byte[] virgin)
    {
        bool found = false;
        for (int i = 0; i < map.Length; i++)
        {
            byte count = map[i];
            if (count == 0)
            {
                continue;
            }

            byte bucket = count switch
            {
                1 => 1,
                2 => 2,
                3 => 4,
                < 8 => 8,
                < 16 => 16,
                < 32 => 32,
                < 128 => 64,
                _ => 128,
            };
            if ((virgin[i] & bucket) == 0)
            {
                virgin[i] |= bucket;
                found = true;
            }
        }

        return found;
    }

    private static void Report(TimeSpan elapsed, long executions, int corpus, byte[] virgin, byte[] blocks, int findings, bool final)
    {
        int edges = virgin.Count(b => b != 0);
        int reached = blocks.Count(b => b != 0);
        Console.WriteLine(string.Format(
            CultureInfo.InvariantCulture,
            "{0}{1,7:F1} s  {2,10} execs  {3,8:F0}/s  corpus {4,5}  edges {5,5}  blocks {6}/{7} ({8:F1}%)  findings {9}",
            final ? "done " : string.Empty,
            elapsed.TotalSeconds,
            executions,
            executions / elapsed.TotalSeconds,
            corpus,
            edges,
            reached,
            blocks.Length,
            100.0 * reached / blocks.Length,
            findings));
    }

    /// <summary>Loads the instrumented library, and this assembly again so that its Target binds to it; everything else comes from the default context.</summary>
    private sealed class FuzzLoadContext(string instrumentedLibrary) : AssemblyLoadContext("fuzz")
    {
        protected override Assembly? Load(AssemblyName assemblyName) =>
            assemblyName.Name == LibraryName ? LoadFromAssemblyPath(instrumentedLibrary) : null;
    }
}

/// <summary>AFL-style havoc: a stack of random edits, and splices with other corpus entries.</summary>
internal static class Mutator
{
    private static readonly byte[] InterestingBytes = [0, 1, 2, 3, 0x10, 0x11, 0x12, 0x7f, 0x80, 0xfe, 0xff];
    private static readonly uint[] InterestingWords = [0, 1, 17, 18, 19, 25, 40, 4096, 65536, 0x1000000, 0x1000001, 0x7fffffff, 0x80000000, 0xffffffff];

    public static byte[] Mutate(byte[] parent, List<byte[]> corpus, Random random, int maxLength)
    {
        var data = new List<byte>(parent);
        int edits = 1 << random.Next(0, 5);
        for (int e = 0; e < edits; e++)
        {
            int at = data.Count == 0 ? 0 : random.Next(data.Count);
            switch (random.Next(10))
            {
                case 0 when data.Count > 0:
                    data[at] ^= (byte)(1 << random.Next(8));
                    break;
                case 1 when data.Count > 0:
                    data[at] = (byte)random.Next(256);
                    break;
                case 2 when data.Count > 0:
                    data[at] = InterestingBytes[random.Next(InterestingBytes.Length)];
                    break;
                case 3 when data.Count >= 4:
                    uint word = InterestingWords[random.Next(InterestingWords.Length)];
                    at = Math.Min(at, data.Count - 4);
                    for (int i = 0; i < 4; i++)
                    {
                        data[at + i] = (byte)(word >> (24 - 8 * i));
                    }

                    break;
                case 4 when data.Count > 1:
                    data.RemoveRange(at, Math.Min(data.Count - at, 1 + random.Next(Math.Min(64, data.Count))));
                    break;
                case 5:
                    int length = 1 + random.Next(32);
                    byte[] block = new byte[length];
                    if (random.Next(2) == 0)
                    {
                        random.NextBytes(block);
                    }

                    data.InsertRange(at, block);
                    break;
                case 6 when data.Count > 0:
                    int start = random.Next(data.Count);
                    data.InsertRange(at, data.GetRange(start, Math.Min(data.Count - start, 1 + random.Next(64))));
                    break;
                case 7:
                    byte[] other = corpus[random.Next(corpus.Count)];
                    if (other.Length > 0)
                    {
                        int from = random.Next(other.Length);
                        int count = Math.Min(other.Length - from, 1 + random.Next(128));
                        data.InsertRange(at, other.AsSpan(from, count).ToArray());
                    }

                    break;
                case 8 when data.Count > 1:
                    data.RemoveRange(at, data.Count - at);
                    break;
                case 9 when data.Count > 0:
                    data[at] = (byte)(data[at] + random.Next(-8, 9));
                    break;
            }
        }

        if (data.Count > maxLength)
        {
            data.RemoveRange(maxLength, data.Count - maxLength);
        }

        return [.. data];
    }
}
