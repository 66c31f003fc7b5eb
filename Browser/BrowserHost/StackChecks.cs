// What one message leaves in the interpreter's stack: the browser's counterpart of
// Tests/StackHygieneTests. The browser's .NET interprets IL (the jiterpreter compiles hot traces,
// but they work on the same frames): a method's locals live in frames of the interpreter's own
// stack in WebAssembly memory, and stackalloc memory comes from another allocator, so a burn made
// with stackalloc does not reach the locals a bitsliced round or a POLYVAL step left behind. After
// one encryption or decryption, the memory above the caller's frame, where the library's frames
// just were, is read back and searched for every per-message secret, the same list as the JIT's stack
// tests (Tests/MessageSecrets.cs: H and POLYVAL's key table, the message-encryption key, its round
// keys in FIPS-197 form and in the backend's, POLYVAL's result, the tag's AES input, the keystream of
// every block), whole and as 8-byte words, and the keystream also in the bitsliced ciphers'
// interleaved form (what their final state holds). Any match fails the check.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using Cryptography;
using Tests;

namespace BrowserHost;

public static class StackChecks
{
    private const int MessageBytes = 1000;
    private const int ProbeBytes = 32 * 1024;

    public static void Run(CheckRun run, AesGcmSivBackend[] backends)
    {
        foreach (AesGcmSivBackend backend in backends)
        {
            foreach (int keySize in new[] { 16, 32 })
            {
                foreach (bool decrypt in new[] { false, true })
                {
                    run.Check($"{backend}: AES-{keySize * 8} {(decrypt ? "decryption" : "encryption")} leaves no secret in the interpreter's stack", () => NothingLeft(backend, keySize, decrypt));
                }
            }
        }
    }

    private static void NothingLeft(AesGcmSivBackend backend, int keySize, bool decrypt)
    {
        var random = new Random((keySize * 2) + (decrypt ? 1 : 0));
        byte[] key = BrowserChecks.Bytes(random, keySize), nonce = BrowserChecks.Bytes(random, 12);
        byte[] plaintext = BrowserChecks.Bytes(random, MessageBytes), ciphertext = new byte[MessageBytes], tag = new byte[16], opened = new byte[MessageBytes];
        using var aead = new AesGcmSiv(key, backend);
        aead.Encrypt(nonce, plaintext, ciphertext, tag);
        List<(string Name, byte[] Value)> secrets = Secrets(backend, key, nonce, plaintext, ciphertext);

        // The secrets were worked out by library code at this depth: clear what that left first.
        Clear(0);
        byte[] probe = new byte[ProbeBytes];
        CallThenProbe(aead, decrypt, nonce, plaintext, ciphertext, tag, opened, probe);
        CheckRun.True(opened.AsSpan().SequenceEqual(decrypt ? plaintext : new byte[MessageBytes]), "the call's output");
        string[] found = secrets.Select(s => (s.Name, At: probe.AsSpan().IndexOf(s.Value))).Where(s => s.At >= 0).Select(s => $"{s.Name} at +{s.At}").ToArray();
        CheckRun.True(found.Length == 0, $"{found.Length} of {secrets.Count} secrets found above the caller's frame: {string.Join(", ", found)}");
    }

    private static List<(string Name, byte[] Value)> Secrets(AesGcmSivBackend backend, byte[] key, byte[] nonce, byte[] plaintext, byte[] ciphertext)
    {
        List<(string Name, byte[] Value)> secrets = MessageSecrets.Of(backend, key, nonce, plaintext, ciphertext);

        // The keystream in the interleaved form a bitsliced group's final state holds it in.
        for (int block = 0; block < MessageBytes / 16; block++)
        {
            uint[] words = new uint[4];
            for (int j = 0; j < 4; j++)
            {
                words[j] = BitConverter.ToUInt32(ciphertext, (16 * block) + (4 * j)) ^ BitConverter.ToUInt32(plaintext, (16 * block) + (4 * j));
            }

            (ulong even, ulong odd) = Interleave(words);
            secrets.Add(($"keystream block {block}, interleaved, even", BitConverter.GetBytes(even)));
            secrets.Add(($"keystream block {block}, interleaved, odd", BitConverter.GetBytes(odd)));
        }

        return secrets;
    }

    /// <summary>BearSSL's interleave_in (AesPortable.InterleaveIn), written again here as the test's reference.</summary>
    private static (ulong Even, ulong Odd) Interleave(uint[] w)
    {
        ulong[] x = w.Select(v => (ulong)v).ToArray();
        for (int i = 0; i < 4; i++)
        {
            x[i] = (x[i] | (x[i] << 16)) & 0x0000FFFF0000FFFFUL;
            x[i] = (x[i] | (x[i] << 8)) & 0x00FF00FF00FF00FFUL;
        }

        return (x[0] | (x[2] << 8), x[1] | (x[3] << 8));
    }

    /// <summary>One call, then the probe, from one frame.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CallThenProbe(AesGcmSiv aead, bool decrypt, byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] opened, byte[] probe)
    {
        if (decrypt)
        {
            aead.Decrypt(nonce, ciphertext, tag, opened);
        }
        else
        {
            aead.Encrypt(nonce, plaintext, ciphertext, tag);
        }

        ReadAbove(probe);
    }

    /// <summary>Copies the memory above this frame's local: the interpreter's stack grows upwards, so that is where the call's frames were.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ReadAbove(byte[] probe)
    {
        byte marker = 0;
        ref byte bottom = ref marker;
        for (int i = 0; i < probe.Length; i++)
        {
            probe[i] = Unsafe.Add(ref bottom, i + 1);
        }
    }

    /// <summary>Zeroes the interpreter's stack above the caller: nested frames, each with a 4 KiB local.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Clear(int depth)
    {
        Filler filler = default;
        filler[0] = (ulong)depth;
        if (depth < 10)
        {
            Clear(depth + 1);
        }

        GC.KeepAlive(filler[0]);
    }

    [InlineArray(512)]
    private struct Filler
    {
        private ulong _element0;
    }
}
