// AES-256-GCM-SIV under Mono: the netstandard2.0 build's two software backends (PortableFlat, the one
// chosen there, and Portable) and BouncyCastle 2.7.0's GcmSivBlockCipher, encryption and decryption at
// 64 B, 1350 B, 8 KiB and 64 KiB, in one process. Prints a markdown table of microseconds per call
// and ratios to BouncyCastle (lower is better), in the thread's CPU time on Linux (see Time).

using System;
using System.Diagnostics;
using System.Linq;
using System.Runtime.InteropServices;
using Cryptography;
using Cryptography.Internal;
using Org.BouncyCastle.Crypto.Engines;
using Org.BouncyCastle.Crypto.Modes;
using Org.BouncyCastle.Crypto.Parameters;

namespace Benchmarks;

internal static class Program
{
    private static int Main()
    {
        Console.WriteLine($"// runtime: {(Type.GetType("Mono.Runtime") is { } mono ? "Mono " + mono.GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)?.Invoke(null, null) : RuntimeInformation.FrameworkDescription)}");
        Console.WriteLine($"// clock: {(ThreadCpuTime ? "thread CPU time" : "wall clock")}");
        Console.WriteLine($"// os: {RuntimeInformation.OSDescription}, {RuntimeInformation.ProcessArchitecture}; Vector.IsHardwareAccelerated = {System.Numerics.Vector.IsHardwareAccelerated}");
        Console.WriteLine($"// library: {typeof(AesGcmSiv).Assembly.GetName().Version}, ActiveBackend = {AesGcmSiv.ActiveBackend}; BouncyCastle {typeof(GcmSivBlockCipher).Assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false).Cast<System.Reflection.AssemblyInformationalVersionAttribute>().FirstOrDefault()?.InformationalVersion}");
        Console.WriteLine("| Size | Operation | PortableFlat (µs) | Portable (µs) | BouncyCastle (µs) | PortableFlat / BC | Portable / BC |");
        Console.WriteLine("| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
        byte[] key = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();
        byte[] nonce = new byte[12];
        foreach (int size in new[] { 64, 1350, 8192, 65536 })
        {
            byte[] plaintext = new byte[size], ciphertext = new byte[size], tag = new byte[16], opened = new byte[size];
            new Random(size).NextBytes(plaintext);
            using var flat = new AesGcmSiv(key, AesGcmSivBackend.PortableFlat);
            using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
            var bouncy = new GcmSivBlockCipher(new AesEngine());
            byte[] bouncySealed = new byte[size + 16], bouncyOpened = new byte[size];
            void BouncyEncrypt()
            {
                bouncy.Init(true, new AeadParameters(new KeyParameter(key), 128, nonce));
                int written = bouncy.ProcessBytes(plaintext, 0, size, bouncySealed, 0);
                bouncy.DoFinal(bouncySealed, written);
            }

            BouncyEncrypt();
            byte[] toOpen = (byte[])bouncySealed.Clone();
            void BouncyDecrypt()
            {
                bouncy.Init(false, new AeadParameters(new KeyParameter(key), 128, nonce));
                int written = bouncy.ProcessBytes(toOpen, 0, size + 16, bouncyOpened, 0);
                bouncy.DoFinal(bouncyOpened, written);
            }

            flat.Encrypt(nonce, plaintext, ciphertext, tag);
            if (!toOpen.Take(size).SequenceEqual(ciphertext) || !toOpen.Skip(size).SequenceEqual(tag))
            {
                Console.Error.WriteLine("BouncyCastle and this library disagree");
                return 1;
            }

            Row(size, "encrypt", Time(() => flat.Encrypt(nonce, plaintext, ciphertext, tag)), Time(() => portable.Encrypt(nonce, plaintext, ciphertext, tag)), Time(BouncyEncrypt));
            Row(size, "decrypt", Time(() => flat.Decrypt(nonce, ciphertext, tag, opened)), Time(() => portable.Decrypt(nonce, ciphertext, tag, opened)), Time(BouncyDecrypt));
        }

        return 0;
    }

    private static void Row(int size, string operation, double flat, double portable, double bouncy) =>
        Console.WriteLine($"| {size} | {operation} | {flat:F1} | {portable:F1} | {bouncy:F1} | {flat / bouncy:F2} | {portable / bouncy:F2} |");

    /// <summary>
    /// Microseconds per call: the best of 5 rounds of about 0.1 s each, after a warm-up. Timed in the
    /// thread's CPU time where the OS has it (Linux: clock_gettime(CLOCK_THREAD_CPUTIME_ID)), so that
    /// on a shared, loaded machine the time this thread waits for a core is not counted; elsewhere
    /// wall-clock time (Stopwatch).
    /// </summary>
    private static double Time(Action call)
    {
        double start = Now();
        int calls = 0;
        while (Now() - start < 100_000 || calls < 3)
        {
            call();
            calls++;
        }

        double best = double.MaxValue;
        for (int round = 0; round < 5; round++)
        {
            double roundStart = Now();
            for (int i = 0; i < calls; i++)
            {
                call();
            }

            best = Math.Min(best, (Now() - roundStart) / calls);
        }

        return best;
    }

    private static readonly bool ThreadCpuTime = RuntimeInformation.IsOSPlatform(OSPlatform.Linux);
    private static readonly Stopwatch Wall = Stopwatch.StartNew();

    /// <summary>The clock <see cref="Time"/> reads, in microseconds.</summary>
    private static double Now()
    {
        if (ThreadCpuTime && clock_gettime(ClockThreadCpuTimeId, out Timespec now) == 0)
        {
            return (now.Seconds * 1e6) + (now.Nanoseconds / 1e3);
        }

        return Wall.Elapsed.TotalMilliseconds * 1000;
    }

    private const int ClockThreadCpuTimeId = 3; // Linux's CLOCK_THREAD_CPUTIME_ID

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [DllImport("libc", SetLastError = false)]
    private static extern int clock_gettime(int clock, out Timespec time);
}
