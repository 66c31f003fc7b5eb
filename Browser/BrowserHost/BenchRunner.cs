// The browser benchmark (BenchmarkDotNet does not run in WebAssembly): a Stopwatch harness.
// Every (implementation, key size, message size, operation) cell is calibrated once to a batch of
// at least TargetMilliseconds, then all cells run once per round, round after round (interleaved,
// so a slow spell of this shared machine touches every cell alike), and each cell reports the
// median over rounds of its time per call. Peers: BouncyCastle's GcmSivBlockCipher in this same
// app, and in JavaScript (wwwroot/js/bench.js, timed there a batch at a time) @noble/ciphers'
// gcmsiv and WebCrypto AES-GCM. scripts/browser-benchmark.sh runs it and writes the report.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Text.Json;
using System.Threading.Tasks;
using Cryptography;
using Microsoft.JSInterop;
using Org.BouncyCastle.Crypto;
using Org.BouncyCastle.Crypto.Modes;
using Org.BouncyCastle.Crypto.Parameters;

namespace BrowserHost;

public sealed class BenchCell
{
    public required string Implementation { get; init; }
    public required int KeyBits { get; init; }
    public required int Size { get; init; }
    public required string Operation { get; init; }
    public int Iterations { get; set; }
    public List<double> Samples { get; } = [];
    public double MedianNs { get; set; }
}

public sealed class BenchRunner(IJSObjectReference js, Action<string> log)
{
    public const double TargetMilliseconds = 25;

    public static readonly int[] Sizes = [64, 1350, 8192, 65536];

    /// <summary>The .NET implementations: this library through its public type (the backend it chooses here), and BouncyCastle.</summary>
    public static readonly string[] DotNet = ["AesGcmSiv", "BouncyCastle"];

    public static readonly string[] JavaScript = ["noble", "webcrypto"];

    public async Task<string> RunAsync(int rounds, string[] implementations, bool profile = false)
    {
        var cells = (from size in Sizes
                     from keyBits in new[] { 128, 256 }
                     from op in new[] { "encrypt", "decrypt" }
                     from implementation in implementations
                     select new BenchCell { Implementation = implementation, KeyBits = keyBits, Size = size, Operation = op }).ToList();

        var operations = new Dictionary<BenchCell, Func<int, Task<double>>>();
        foreach (BenchCell cell in cells)
        {
            operations[cell] = Create(cell);
            double once = await operations[cell](1).ConfigureAwait(true);
            int iterations = 1;
            // The browser's clock is coarse (performance.now() is rounded to 0.1 ms without cross-origin
            // isolation): double the batch until it takes over a millisecond, then scale it to the target.
            while (once < TargetMilliseconds && iterations < 1 << 20)
            {
                iterations = once < 1 ? iterations * 2 : (int)Math.Min(1 << 20, Math.Ceiling(iterations * TargetMilliseconds * 1.1 / once));
                once = await operations[cell](iterations).ConfigureAwait(true);
            }

            cell.Iterations = iterations;
        }

        log($"bench calibrated {cells.Count} cells");
        for (int round = 1; round <= rounds; round++)
        {
            foreach (BenchCell cell in cells)
            {
                double milliseconds = await operations[cell](cell.Iterations).ConfigureAwait(true);
                cell.Samples.Add(milliseconds * 1e6 / cell.Iterations);
                await Task.Delay(1).ConfigureAwait(true);
            }

            log($"bench round {round}/{rounds} done");
        }

        foreach (BenchCell cell in cells)
        {
            double[] sorted = [.. cell.Samples.Order()];
            cell.MedianNs = sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
        }

        var report = new Dictionary<string, object>
        {
            ["profile"] = profile ? await ProfileRunner.RunAsync(rounds, log).ConfigureAwait(true) : new List<Dictionary<string, object>>(),
            ["runtime"] = RuntimeInformation.FrameworkDescription,
            ["os"] = RuntimeInformation.OSDescription,
            ["architecture"] = RuntimeInformation.ProcessArchitecture.ToString(),
            ["vector128Accelerated"] = Vector128.IsHardwareAccelerated,
            ["packedSimd"] = System.Runtime.Intrinsics.Wasm.PackedSimd.IsSupported,
            ["activeBackend"] = AesGcmSiv.ActiveBackend.ToString(),
            ["bouncyCastle"] = typeof(GcmSivBlockCipher).Assembly.GetName().Version?.ToString() ?? "unknown",
            ["rounds"] = rounds,
            ["targetMilliseconds"] = TargetMilliseconds,
            ["cells"] = cells.Select(c => new Dictionary<string, object>
            {
                ["implementation"] = c.Implementation,
                ["keyBits"] = c.KeyBits,
                ["size"] = c.Size,
                ["operation"] = c.Operation,
                ["iterations"] = c.Iterations,
                ["medianNs"] = Math.Round(c.MedianNs, 1),
                ["samplesNs"] = c.Samples.Select(s => Math.Round(s, 1)).ToArray(),
            }).ToArray(),
        };
        return JsonSerializer.Serialize(report);
    }

    private Func<int, Task<double>> Create(BenchCell cell)
    {
        if (JavaScript.Contains(cell.Implementation))
        {
            return iterations => js.InvokeAsync<double>("run", cell.Implementation, cell.KeyBits / 8, cell.Size, cell.Operation, iterations).AsTask();
        }

        var random = new Random(cell.Size + cell.KeyBits);
        byte[] key = BrowserChecks.Bytes(random, cell.KeyBits / 8), nonce = BrowserChecks.Bytes(random, 12), message = BrowserChecks.Bytes(random, cell.Size);
        byte[] output = new byte[cell.Size], tag = new byte[16];
        bool encrypt = cell.Operation == "encrypt";
        Action call;
        if (cell.Implementation == "BouncyCastle")
        {
            var cipher = new GcmSivBlockCipher(AesUtilities.CreateEngine());
            var keyParameter = new KeyParameter(key);
            byte[] sealedMessage = new byte[cell.Size + 16];
            cipher.Init(true, new ParametersWithIV(keyParameter, nonce));
            cipher.DoFinal(sealedMessage, cipher.ProcessBytes(message, 0, message.Length, sealedMessage, 0));
            byte[] opened = new byte[cell.Size];
            call = encrypt
                ? () =>
                {
                    cipher.Init(true, new ParametersWithIV(keyParameter, nonce));
                    cipher.DoFinal(sealedMessage, cipher.ProcessBytes(message, 0, message.Length, sealedMessage, 0));
                }
                : () =>
                {
                    cipher.Init(false, new ParametersWithIV(keyParameter, nonce));
                    cipher.DoFinal(opened, cipher.ProcessBytes(sealedMessage, 0, sealedMessage.Length, opened, 0));
                };
        }
        else
        {
            AesGcmSiv aead = cell.Implementation == "AesGcmSiv"
                ? new AesGcmSiv(key)
                : new AesGcmSiv(key, Enum.Parse<AesGcmSivBackend>(cell.Implementation["AesGcmSiv/".Length..]));
            aead.Encrypt(nonce, message, output, tag);
            byte[] ciphertext = (byte[])output.Clone(), sealedTag = (byte[])tag.Clone();
            call = encrypt
                ? () => aead.Encrypt(nonce, message, output, tag)
                : () => aead.Decrypt(nonce, ciphertext, sealedTag, output);
        }

        return iterations =>
        {
            long start = Stopwatch.GetTimestamp();
            for (int i = 0; i < iterations; i++)
            {
                call();
            }

            return Task.FromResult(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
        };
    }

    internal static string Format(double value) => value.ToString("N0", CultureInfo.InvariantCulture);
}
