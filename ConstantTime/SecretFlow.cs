// ConstantTime --secret-flow: the code-level half of the constant-time check, run under valgrind's
// memcheck by scripts/secret-flow.sh (a Native AOT build of this tool, so that valgrind runs the
// compiled machine code of every backend with no JIT in between).
//
// Memcheck follows, bit by bit, which values derive from memory marked "undefined", and reports every
// conditional jump and every memory address that depends on one. This mode marks the secrets
// undefined (the key before its expansion, the plaintext before encryption) and the public outputs
// defined again once they exist (ciphertext, tag: declassified, as a sender publishes them). Then a
// report means a branch or a table index computed from a secret: a timing leak in the code, whatever
// the CPU. Where the timing test (Program.cs) measures one machine's behaviour, this reads the code's
// structure, on every path the lengths below reach.
//
// One report is expected and allowed: decryption's result. Whether the tag verified is public (the
// caller learns it), so GcmSiv.Decrypt branches on TagComparison's answer; the script accepts that
// one branch, found instruction by instruction in the machine code, and nothing else. A control with a deliberate secret branch and a secret
// table index must be reported, or the run could not have seen a leak either.

using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cryptography;
using Cryptography.Internal;

namespace ConstantTime;

internal static partial class SecretFlow
{
    private static readonly int[] Lengths = [0, 1, 15, 16, 17, 64, 100, 255, 256, 257, 1350, 8209];
    private static readonly int[] AssociatedDataLengths = [0, 20];

    public static int Run()
    {
        if (secretflow_on_valgrind() == 0)
        {
            Console.Error.WriteLine("--secret-flow must run under valgrind (scripts/secret-flow.sh): outside it nothing is checked");
            return 2;
        }

        // Bind the other two imports before any secret exists. Binding searches for the library, and
        // the runtime scans the native strings on the way with vector loads that may read past their
        // end into memory nothing wrote; memcheck reports that too, and the check skips reports made
        // while binding (scripts/secret_flow_check.py), which can therefore hold no secret.
        byte[] unused = new byte[1];
        Public(unused);
        secretflow_secret(ref unused[0], 0);

        Control();
        int calls = 0;
        var names = new List<string>();
        foreach ((string name, Backend backend) in Compositions())
        {
            names.Add(name);
            foreach (int keySize in (ReadOnlySpan<int>)[16, 32])
            {
                foreach (int length in Lengths)
                {
                    foreach (int associatedDataLength in AssociatedDataLengths)
                    {
                        RoundTrip(backend, keySize, length, associatedDataLength);
                        calls += 3;
                    }
                }
            }
        }

        // The public class too, as a caller uses it: the constructor's key expansion and the checks
        // around the backend's call (the backend this CPU, as valgrind presents it, gets).
        foreach (int keySize in (ReadOnlySpan<int>)[16, 32])
        {
            byte[] key = new byte[keySize];
            byte[] plaintext = new byte[1350];
            Random.Shared.NextBytes(key);
            Random.Shared.NextBytes(plaintext);
            Secret(key);
            Secret(plaintext);
            using var aes = new AesGcmSiv(key);
            byte[] nonce = new byte[12];
            byte[] ciphertext = new byte[plaintext.Length];
            byte[] tag = new byte[16];
            aes.Encrypt(nonce, plaintext, ciphertext, tag);
            Public(ciphertext);
            Public(tag);
            aes.Decrypt(nonce, ciphertext, tag, plaintext);
            calls += 2;
        }

        Console.WriteLine($"secret flow: {calls} calls checked, backends {string.Join(", ", names)}");
        return 0;
    }

    // The timing tool's backends, and the hardware compositions built directly (SecretFlow.Hardware.cs).
    private static IEnumerable<(string Name, Backend Backend)> Compositions()
    {
        foreach (Backend backend in Program.BackendsToMeasure())
        {
            yield return (backend.Id.ToString(), backend);
        }

        // None in the Mono build (ConstantTime.Mono), whose library has no hardware backend.
        foreach ((string Name, Backend Backend) composition in HardwareCompositions())
        {
            yield return composition;
        }
    }

    // Encrypts under a secret key and plaintext, then decrypts the result and a copy with a wrong tag.
    private static void RoundTrip(Backend backend, int keySize, int length, int associatedDataLength)
    {
        int rounds = keySize == 16 ? 10 : 14;
        byte[] key = new byte[keySize];
        byte[] plaintext = new byte[length];
        byte[] associatedData = new byte[associatedDataLength];
        byte[] nonce = new byte[12];
        Random.Shared.NextBytes(key);
        Random.Shared.NextBytes(plaintext);
        Random.Shared.NextBytes(associatedData);
        Random.Shared.NextBytes(nonce);
        byte[] ciphertext = new byte[length];
        byte[] tag = new byte[16];
        byte[] opened = new byte[length];
        var schedule = default(AesKeySchedule);

        Secret(key);
        Secret(plaintext);
        backend.ExpandKey(key, ref schedule);
        backend.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
        Public(ciphertext);
        Public(tag);

        bool verified = backend.Decrypt(in schedule, rounds, nonce, ciphertext, tag, opened, associatedData);
        Public(ref Unsafe.As<bool, byte>(ref verified), 1);
        tag[15] ^= 1;
        bool forged = backend.Decrypt(in schedule, rounds, nonce, ciphertext, tag, opened, associatedData);
        Public(ref Unsafe.As<bool, byte>(ref forged), 1);
        if (!verified || forged)
        {
            throw new InvalidOperationException($"{backend.Id}: a round trip failed ({keySize}-byte key, {length} bytes)");
        }
    }

    // Must be reported: a branch on a secret byte and a load at an index computed from one.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Control()
    {
        byte[] secret = new byte[16];
        byte[] table = new byte[256];
        Secret(secret);
        ControlSink = FirstNonZero(secret) + Lookup(table, secret[1]);
    }

    private static int ControlSink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FirstNonZero(byte[] data)
    {
        for (int i = 0; i < data.Length; i++)
        {
            if (data[i] != 0)
            {
                return i;
            }
        }

        return -1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Lookup(byte[] table, byte index) => table[index];

    private static void Secret(byte[] data)
    {
        if (data.Length != 0)
        {
            secretflow_secret(ref data[0], (nuint)data.Length);
        }
    }

    private static void Public(byte[] data)
    {
        if (data.Length != 0)
        {
            Public(ref data[0], data.Length);
        }
    }

    private static void Public(ref byte data, int length) => secretflow_public(ref data, (nuint)length);

    [DllImport("secretflow")]
    private static extern void secretflow_secret(ref byte address, nuint length);

    [DllImport("secretflow")]
    private static extern void secretflow_public(ref byte address, nuint length);

    [DllImport("secretflow")]
    private static extern int secretflow_on_valgrind();
}
