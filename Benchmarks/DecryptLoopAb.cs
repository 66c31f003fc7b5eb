// Decryption's loops (IDecryptLoop) against each other in one process, interleaved: rounds of
// calls alternate between the two-pass loop and the backend's stitched one (AesNiVpclmulqdq:
// Decrypt.StitchedWide.cs; AesNiPclmulqdq: Decrypt.Stitched.cs), and the median of each one's rounds is
// reported with their ratio. On a shared machine, where BenchmarkDotNet's one-process-per-case means
// see other processes come and go, medians of interleaved rounds compare the two under the same load.
//
//   dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --decrypt-loop-ab [--rounds 41]
//   DOTNET_EnableAVX2=0 dotnet Benchmarks/bin/Release/net10.0/Benchmarks.dll --decrypt-loop-ab

using System;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

internal static class DecryptLoopAb
{
    private delegate bool Decrypt(in AesKeySchedule key, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);

    public static int Run(string[] args)
    {
        string? Value(string name) => args.SkipWhile(arg => arg != name).Skip(1).FirstOrDefault();
        int roundCount = int.Parse(Value("--rounds") ?? "41", CultureInfo.InvariantCulture);
        bool wide = Backends.IsSupported(Cryptography.AesGcmSivBackend.AesNiVpclmulqdq);
        (string Name, Decrypt TwoPass, Decrypt Stitched)[] backends = wide
            ? [("AesNiVpclmulqdq POLYVAL", GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<TwoPassDecrypt<AesVector<AesNi>, PolyvalVpclmulqdq>>, GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<StitchedWideDecrypt<AesNi>>),
               ("AesNiPclmulqdq POLYVAL", GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<TwoPassDecrypt<AesVector<AesNi>, PolyvalClmul<Pclmul>>>, GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>)]
            : [("AesNiPclmulqdq POLYVAL", GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<TwoPassDecrypt<AesVector<AesNi>, PolyvalClmul<Pclmul>>>, GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>)];
        Console.WriteLine($"# median ns per call over {roundCount} interleaved rounds; AVX2 {(System.Runtime.Intrinsics.X86.Avx2.IsSupported ? "on" : "off")}");
        Console.WriteLine("| POLYVAL | key | bytes | two passes | stitched | stitched / two passes |");
        Console.WriteLine("|---|---|---|---|---|---|");
        foreach (var backend in backends)
        {
            foreach (int keySize in new[] { 16, 32 })
            {
                foreach (int size in new[] { 64, 256, 1024, 1350, 8192, 65536, 1048576 })
                {
                    int rounds = keySize == 16 ? 10 : 14;
                    AesKeySchedule key = default;
                    default(AesVector<AesNi>).ExpandKey(RandomNumberGenerator.GetBytes(keySize), ref key);
                    byte[] nonce = new byte[12], tag = new byte[16], plaintext = RandomNumberGenerator.GetBytes(size), ciphertext = new byte[size];
                    GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Encrypt(in key, rounds, nonce, plaintext, ciphertext, tag, default);
                    int calls = Math.Max(20, 8_000_000 / (size + 200));
                    double[] a = new double[roundCount], b = new double[roundCount];
                    Time(backend.TwoPass, in key, rounds, nonce, ciphertext, tag, plaintext, calls);
                    Time(backend.Stitched, in key, rounds, nonce, ciphertext, tag, plaintext, calls);
                    for (int r = 0; r < roundCount; r++)
                    {
                        a[r] = Time(backend.TwoPass, in key, rounds, nonce, ciphertext, tag, plaintext, calls);
                        b[r] = Time(backend.Stitched, in key, rounds, nonce, ciphertext, tag, plaintext, calls);
                    }

                    double ma = Median(a), mb = Median(b);
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {backend.Name} | AES-{keySize * 8} | {size} | {ma:F1} | {mb:F1} | {mb / ma:F3} |"));
                }
            }
        }

        return 0;
    }

    private static double Time(Decrypt decrypt, in AesKeySchedule key, int rounds, byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, int calls)
    {
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < calls; i++)
        {
            if (!decrypt(in key, rounds, nonce, ciphertext, tag, plaintext, default))
            {
                throw new InvalidOperationException("rejected");
            }
        }

        return Stopwatch.GetElapsedTime(start).TotalNanoseconds / calls;
    }

    private static double Median(double[] values)
    {
        double[] sorted = [.. values.Order()];
        return sorted[sorted.Length / 2];
    }
}
