// Entry point of the fuzz targets. Under afl-fuzz (scripts/fuzz.sh), SharpFuzz's Fuzzer.Run talks to
// afl-fuzz's fork server and feeds one input after another to the target in this process; a finding
// is an exception that escapes the target, which afl-fuzz records as a crash. Outside afl-fuzz,
// --replay runs saved inputs once each (triage, and CI's check of the seed corpus), and --seeds
// writes a target's seed corpus.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Win32.SafeHandles;
using SharpFuzz;

namespace Fuzz;

public static class Program
{
    private static readonly Dictionary<string, (Action<byte[]> Run, Func<IEnumerable<byte[]>> Seeds)> Targets = new()
    {
        ["decode"] = (input => Finding.ThrowIf(DecoderTarget.Run(input)), DecoderTarget.Seeds),
        ["header"] = (HeaderTarget.Run, HeaderTarget.Seeds),
        ["open"] = (OpenTarget.Run, OpenTarget.Seeds),
        ["keyfile"] = (KeyFileTarget.Run, KeyFileTarget.Seeds),
        ["differential"] = (DifferentialTarget.Run, DifferentialTarget.Seeds),
    };

    // "all": one afl-fuzz run over every target, byte 0 choosing it (byte 0 mod 5, in the order above)
    // and the rest being that target's input; for a machine with fewer cores than targets.
    private static readonly string[] Multiplexed = ["decode", "header", "open", "keyfile", "differential"];
    private static readonly long[] Counts = new long[Multiplexed.Length];
    private static long _unreported;

    private static void RunAll(byte[] input)
    {
        if (input.Length == 0)
        {
            return;
        }

        int index = input[0] % Multiplexed.Length;
        Counts[index]++;
        if (++_unreported == 4096)
        {
            ReportCounts();
        }

        Targets[Multiplexed[index]].Run(input[1..]);
    }

    // With FUZZ_COUNTS set, appends how many inputs each target ran since the last report (a line per
    // 4,096 inputs), so a multiplexed run can say how its executions split; the last < 4,096 of each
    // fuzzing process are not reported.
    private static void ReportCounts()
    {
        _unreported = 0;
        if (Environment.GetEnvironmentVariable("FUZZ_COUNTS") is { Length: > 0 } path)
        {
            File.AppendAllText(path, string.Join(' ', Multiplexed.Select((name, i) => $"{name}={Counts[i]}")) + "\n");
        }

        Array.Clear(Counts);
    }

    private static IEnumerable<byte[]> AllSeeds() =>
        Multiplexed.SelectMany((name, index) => Targets[name].Seeds().Select(seed => (byte[])[(byte)index, .. seed]));

    public static int Main(string[] args)
    {
        Targets.TryAdd("all", (RunAll, AllSeeds));
        if (args.Length == 0 || !Targets.TryGetValue(args[0], out var target))
        {
            Console.Error.WriteLine($"usage: Fuzz <target> [--replay <file or folder>... | --seeds <folder>]; targets: {string.Join(", ", Targets.Keys)}");
            return 2;
        }

        if (args.Length >= 2 && args[1] == "--seeds")
        {
            Directory.CreateDirectory(args[2]);
            int count = 0;
            foreach (byte[] seed in target.Seeds())
            {
                File.WriteAllBytes(Path.Combine(args[2], $"seed-{count++:D3}"), seed);
            }

            Console.WriteLine($"{args[0]}: {count} seeds written to {args[2]}");
            return 0;
        }

        if (args.Length >= 2 && args[1] == "--replay")
        {
            var files = args.Skip(2).SelectMany(path => Directory.Exists(path) ? Directory.GetFiles(path).Order(StringComparer.Ordinal) : (IEnumerable<string>)[path]).ToList();
            int findings = 0;
            foreach (string file in files)
            {
                try
                {
                    target.Run(File.ReadAllBytes(file));
                }
                catch (Exception exception)
                {
                    findings++;
                    Console.WriteLine($"FINDING {file}: {exception}");
                }
            }

            Console.WriteLine($"{args[0]}: {files.Count} inputs replayed, {findings} findings");
            return findings == 0 ? 0 : 1;
        }

        // Persistent mode: one process runs input after input, as afl-fuzz hands them over.
        Fuzzer.Run(stream => target.Run(ReadInput(stream)));
        return 0;
    }

    // afl-fuzz hands each input over as stdin: a file it rewrites in place and rewinds before each run.
    // SharpFuzz 2.3.0 copies stdin once, right after its handshake, and gives that copy to its warm-up
    // call and to the first run; afl-fuzz may not have written the first input yet at that moment, so
    // the first run could see an empty input, touch no instrumented code, and afl-fuzz stopped with "No
    // instrumentation detected" (a CI failure of the header target). Reading the file from offset 0
    // gives each run the input afl-fuzz wrote for it. A pipe (not under afl-fuzz) is read as it comes.
    private static byte[] ReadInput(Stream stream)
    {
        using var stdin = new FileStream(new SafeFileHandle(0, ownsHandle: false), FileAccess.Read, bufferSize: 0);
        using var buffer = new MemoryStream();
        if (stdin.CanSeek)
        {
            stdin.Position = 0;
            stdin.CopyTo(buffer);
        }
        else
        {
            stream.CopyTo(buffer);
        }

        return buffer.ToArray();
    }
}

/// <summary>A check failed: the exception afl-fuzz sees as a crash.</summary>
public sealed class Finding(string message) : Exception(message)
{
    public static void ThrowIf(string? message)
    {
        if (message is not null)
        {
            throw new Finding(message);
        }
    }

    public static void Check(bool condition, string message)
    {
        if (!condition)
        {
            throw new Finding(message);
        }
    }
}
