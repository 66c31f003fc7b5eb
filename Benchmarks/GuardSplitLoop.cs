// A diagnostic for issue 49, not a BenchmarkDotNet benchmark: where GuardedAesGcmSiv's time goes
// beside the AEAD's, on a machine too loaded for BenchmarkDotNet's means. Each variant runs a block
// of calls in turn, round after round, and the minimum per-call time over the rounds is printed:
// the minimum filters out the time other processes take the core away.
//
//   dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --guard-split [--size 1350] [--rounds 300] [--calls 2000] [--parts]
//
// The "no distinguished" and "64 distinguished" rows show what the long-range table's size costs a
// call (issue 49, fourth pass). A row starts with the caches the row before it left: "guarded
// (Observe)" follows the guard alone's own 1 MiB history, which pushes the guarded history out of
// L2, so "guarded (Observe) again", the same call after the 64-nonce row, is the one to compare with
// the rows around it (issue 49, fifth pass: 4-6 ns less at 64 B). --parts takes the guard alone apart instead: the loop's own cost (a
// nonce written and read), the hash, a lone lock cmpxchg, one after a burst of stores, and
// NonceHistory.Observe called directly with the default history and with a 64-nonce window.

using System;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using System.Threading;
using Cryptography;
using Cryptography.NonceSafety;

namespace Benchmarks;

internal static class GuardSplitLoop
{
    private static int _flag;

    public static int Run(string[] args)
    {
        string? Value(string name) => args.SkipWhile(arg => arg != name).Skip(1).FirstOrDefault();
        int size = int.Parse(Value("--size") ?? "1350", CultureInfo.InvariantCulture);
        int rounds = int.Parse(Value("--rounds") ?? "300", CultureInfo.InvariantCulture);
        byte[] key = RandomNumberGenerator.GetBytes(32);
        byte[] nonce = new byte[12], plaintext = RandomNumberGenerator.GetBytes(size), ciphertext = new byte[size], tag = new byte[16];
        object owner = new();
        var lifetime = default(Cryptography.Internal.KeyLifetime);
        var history = new NonceHistory(NonceGuardOptions.Default);
        using var bare = new AesGcmSiv(key);
        using var guarded = new GuardedAesGcmSiv(key);
        using var refusing = new GuardedAesGcmSiv(key, new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, ShareHistory = false });
        using var small = new GuardedAesGcmSiv(key, new NonceGuardOptions { WindowSize = 64, DistinguishedPointCapacity = 0, ShareHistory = false });
        using var noPoints = new GuardedAesGcmSiv(key, new NonceGuardOptions { DistinguishedPointCapacity = 0, ShareHistory = false });
        using var fewPoints = new GuardedAesGcmSiv(key, new NonceGuardOptions { DistinguishedPointCapacity = 64, ShareHistory = false });
        ulong counter = 0;

        (string Name, Action Call)[] variants =
        [
            ("bare", () => bare.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("bare, then a lock cmpxchg", () =>
            {
                bare.Encrypt(Next(), plaintext, ciphertext, tag);
                Interlocked.CompareExchange(ref _flag, 0, 0);
            }),
            ("guard alone (no AEAD)", () =>
            {
                NonceGuard.ReadNonce(Next(), out ulong low, out uint high);
                NonceGuard.Encrypt(default(GuardCostBenchmarks.NullAead<GuardCostBenchmarks.Parallel>), ref lifetime, owner, history, NonceReusePolicy.Observe, low, high, plaintext, ciphertext, tag, default);
            }),
            ("guard alone, then bare", () =>
            {
                byte[] n = Next();
                NonceGuard.ReadNonce(n, out ulong low, out uint high);
                NonceGuard.Encrypt(default(GuardCostBenchmarks.NullAead<GuardCostBenchmarks.Parallel>), ref lifetime, owner, history, NonceReusePolicy.Observe, low, high, plaintext, ciphertext, tag, default);
                bare.Encrypt(n, plaintext, ciphertext, tag);
            }),
            ("guarded (Observe)", () => guarded.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("guarded (Refuse)", () => refusing.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("guarded, 64-nonce window", () => small.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("guarded (Observe) again", () => guarded.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("guarded, no distinguished", () => noPoints.Encrypt(Next(), plaintext, ciphertext, tag)),
            ("guarded, 64 distinguished", () => fewPoints.Encrypt(Next(), plaintext, ciphertext, tag)),
        ];
        if (args.Contains("--parts"))
        {
            // The guard alone, taken apart (issue 49, fourth pass; see the file header).
            var direct = new NonceHistory(NonceGuardOptions.Default);
            var tiny = new NonceHistory(new NonceGuardOptions { WindowSize = 64, DistinguishedPointCapacity = 0 });
            byte[] scratch = new byte[512];
            ulong sink = 0;
            variants =
            [
                ("nonce only", () => sink += BinaryPrimitives.ReadUInt64LittleEndian(Next())),
                ("hash", () => sink += direct.Hash(BinaryPrimitives.ReadUInt64LittleEndian(Next()), 0)),
                ("a lock cmpxchg", () => { Next(); Interlocked.CompareExchange(ref _flag, 0, 0); }),
                ("512 B of stores", () => { Next(); scratch.AsSpan().Clear(); }),
                ("512 B of stores, cmpxchg", () => { Next(); scratch.AsSpan().Clear(); Interlocked.CompareExchange(ref _flag, 0, 0); }),
                ("Observe", () => direct.Observe(BinaryPrimitives.ReadUInt64LittleEndian(Next()), 0, tag, out _)),
                ("Observe, 64 window", () => tiny.Observe(BinaryPrimitives.ReadUInt64LittleEndian(Next()), 0, tag, out _)),
                ("512 B of stores, Observe", () => { scratch.AsSpan().Clear(); direct.Observe(BinaryPrimitives.ReadUInt64LittleEndian(Next()), 0, tag, out _); }),
                ("guard alone (no AEAD)", () =>
                {
                    NonceGuard.ReadNonce(Next(), out ulong low, out uint high);
                    NonceGuard.Encrypt(default(GuardCostBenchmarks.NullAead<GuardCostBenchmarks.Parallel>), ref lifetime, owner, history, NonceReusePolicy.Observe, low, high, plaintext, ciphertext, tag, default);
                }),
                ("bare", () => bare.Encrypt(Next(), plaintext, ciphertext, tag)),
                ("guarded (Observe)", () => guarded.Encrypt(Next(), plaintext, ciphertext, tag)),
            ];
            GC.KeepAlive(sink);
        }

        int calls = int.Parse(Value("--calls") ?? "2000", CultureInfo.InvariantCulture);
        double[] best = [.. variants.Select(_ => double.MaxValue)];
        for (int round = 0; round < rounds; round++)
        {
            for (int v = 0; v < variants.Length; v++)
            {
                Action call = variants[v].Call;
                long start = Stopwatch.GetTimestamp();
                for (int i = 0; i < calls; i++)
                {
                    call();
                }

                double ns = Stopwatch.GetElapsedTime(start).TotalNanoseconds / calls;
                best[v] = Math.Min(best[v], ns);
            }
        }

        Console.WriteLine($"{size} B, AES-256, {AesGcmSiv.ActiveBackend}, minimum of {rounds} rounds of {calls} calls (a delegate call each):");
        for (int v = 0; v < variants.Length; v++)
        {
            Console.WriteLine($"  {variants[v].Name,-28} {best[v],8:F1} ns  {best[v] / best[0]:F3}");
        }

        return 0;

        byte[] Next()
        {
            BinaryPrimitives.WriteUInt64LittleEndian(nonce, ++counter);
            return nonce;
        }
    }
}
