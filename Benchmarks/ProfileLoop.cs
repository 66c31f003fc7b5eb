// One operation on one message size in a loop, for a sampling profiler: where a message's time goes,
// method by method, which BenchmarkDotNet's per-case means cannot show. Not a BenchmarkDotNet
// benchmark; the figure it prints (ns per call) is only a check that the loop ran as expected.
//
//   DOTNET_PerfMapEnabled=3 DOTNET_EnableWriteXorExecute=0 perf record -F 4999 -o /tmp/loop.data -- \
//     dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --profile-loop [--size 64] [--key-size 16] \
//     [--decrypt] [--seconds 8] [--guarded]
//
// --guarded encrypts through a GuardedAesGcmSiv (default options) with a fresh counter nonce per
// call, as GuardBenchmarks does: where the guard's own time goes.
//   perf report -i /tmp/loop.data --no-children --sort symbol
//
// DOTNET_PerfMapEnabled=3 makes the runtime write /tmp/perf-<pid>.map, which names the JIT's code for
// perf; with W^X on, perf sees that code only through an anonymous double mapping and cannot name it.
// The machine has no hardware counters (a virtual machine), so perf samples the software clock.

using System;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using Cryptography;

namespace Benchmarks;

internal static class ProfileLoop
{
    public static int Run(string[] args)
    {
        string? Value(string name) => args.SkipWhile(arg => arg != name).Skip(1).FirstOrDefault();
        int size = int.Parse(Value("--size") ?? "64", CultureInfo.InvariantCulture);
        int keySize = int.Parse(Value("--key-size") ?? "16", CultureInfo.InvariantCulture);
        double seconds = double.Parse(Value("--seconds") ?? "8", CultureInfo.InvariantCulture);
        bool decrypt = args.Contains("--decrypt");
        bool guarded = args.Contains("--guarded");
        if (guarded)
        {
            return RunGuarded(size, keySize, seconds);
        }

        byte[] nonce = new byte[12], plaintext = new byte[size], ciphertext = new byte[size], tag = new byte[16];
        using var aead = new AesGcmSiv(new byte[keySize]);
        aead.Encrypt(nonce, plaintext, ciphertext, tag);

        long calls = 0;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            for (int i = 0; i < 10_000; i++)
            {
                if (decrypt)
                {
                    aead.Decrypt(nonce, ciphertext, tag, plaintext);
                }
                else
                {
                    aead.Encrypt(nonce, plaintext, ciphertext, tag);
                }
            }

            calls += 10_000;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{(decrypt ? "decrypt" : "encrypt")} {size} B, AES-{keySize * 8}, {AesGcmSiv.ActiveBackend}: {clock.Elapsed.TotalNanoseconds / calls:F1} ns per call over {calls} calls"));
        return 0;
    }

    private static int RunGuarded(int size, int keySize, double seconds)
    {
        byte[] nonce = new byte[12], plaintext = new byte[size], ciphertext = new byte[size], tag = new byte[16];
        using var aead = new GuardedAesGcmSiv(new byte[keySize]);
        ulong counter = 0;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            for (int i = 0; i < 10_000; i++)
            {
                System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(nonce, ++counter);
                aead.Encrypt(nonce, plaintext, ciphertext, tag);
            }
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"guarded encrypt {size} B, AES-{keySize * 8}, {AesGcmSiv.ActiveBackend}: {clock.Elapsed.TotalNanoseconds / counter:F1} ns per call over {counter} calls"));
        return 0;
    }
}
