// Where a message's time goes in the browser: each step of RFC 8452's composition timed on its own
// (as Benchmarks' MessageCostBenchmarks does under the JIT), for the Portable backend (its fixsliced
// AES, AesPortable, and the portable POLYVAL). Run by scripts/browser-benchmark.sh (profile=1). The fixed cost per message is key derivation,
// the message-encryption key's expansion, POLYVAL's set-up and the tag block; the cost per byte is
// CTR and POLYVAL. Interleaved rounds, medians, as BenchRunner.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.Internal;

namespace BrowserHost;

public static class ProfileRunner
{
    public static async Task<List<Dictionary<string, object>>> RunAsync(int rounds, Action<string> log)
    {
        var steps = new List<(string Name, int KeyBits, int Bytes, Action Body)>();
        foreach (int keyBits in new[] { 128, 256 })
        {
            var random = new Random(keyBits);
            byte[] key = BrowserChecks.Bytes(random, keyBits / 8), nonce = BrowserChecks.Bytes(random, 12);
            int rounds0 = keyBits == 128 ? 10 : 14;
            var schedule = new AesKeySchedule();
            default(AesPortable).ExpandKey(key, ref schedule);
            byte[] derived = new byte[96], block = new byte[16], counter = BrowserChecks.Bytes(random, 16);
            var expanded = new AesKeySchedule();
            steps.Add(("AES key expansion, Portable", keyBits, 0, () => default(AesPortable).ExpandKey(key, ref expanded)));
            steps.Add(("key derivation, Portable", keyBits, 0, () => GcmSiv<AesPortable, PolyvalPortable>.DeriveKeyMaterial(in schedule, rounds0, nonce, derived)));
            steps.Add(("one AES block (the tag), Portable", keyBits, 16, () => default(AesPortable).EncryptBlocks(in schedule, rounds0, block, block)));
            foreach (int size in new[] { 64, 8192 })
            {
                byte[] data = BrowserChecks.Bytes(random, size);
                steps.Add(("CTR32, Portable", keyBits, size, () => default(AesPortable).Ctr32(in schedule, rounds0, counter, data, data)));
                // Not disposed here: the step runs after this loop. The page's lifetime ends it.
                var aead = new AesGcmSiv(key, AesGcmSivBackend.Portable);
                byte[] output = new byte[size], tag = new byte[16];
                steps.Add(("whole Encrypt, Portable", keyBits, size, () => aead.Encrypt(nonce, data, output, tag)));
                if (keyBits == 128)
                {
                    var polyvalKey = new PolyvalKey();
                    byte[] accumulator = new byte[16];
                    steps.Add(("POLYVAL Init + Update (portable)", 0, size, () =>
                    {
                        default(PolyvalPortable).Init(key.AsSpan(0, 16), size / 16, ref polyvalKey);
                        default(PolyvalPortable).Update(in polyvalKey, accumulator, data);
                    }));
                }
            }
        }

        var iterations = new int[steps.Count];
        var samples = steps.Select(_ => new List<double>()).ToArray();
        for (int i = 0; i < steps.Count; i++)
        {
            int n = 1;
            double ms = Time(steps[i].Body, n);
            while (ms < 20 && n < 1 << 20)
            {
                n = ms < 1 ? n * 2 : (int)Math.Ceiling(n * 22 / ms);
                ms = Time(steps[i].Body, n);
            }

            iterations[i] = n;
            await Task.Delay(1).ConfigureAwait(true);
        }

        for (int round = 1; round <= rounds; round++)
        {
            for (int i = 0; i < steps.Count; i++)
            {
                samples[i].Add(Time(steps[i].Body, iterations[i]) * 1e6 / iterations[i]);
                await Task.Delay(1).ConfigureAwait(true);
            }

            log($"bench profile round {round}/{rounds} done");
        }

        return steps.Select((s, i) =>
        {
            double[] sorted = [.. samples[i].Order()];
            return new Dictionary<string, object>
            {
                ["step"] = s.Name,
                ["keyBits"] = s.KeyBits,
                ["bytes"] = s.Bytes,
                ["medianNs"] = Math.Round(sorted[sorted.Length / 2], 1),
            };
        }).ToList();
    }

    private static double Time(Action body, int iterations)
    {
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < iterations; i++)
        {
            body();
        }

        return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }
}
