// The stack below a PortableVector message (Cryptography/Internal/Aes.PortableVector.cs), as
// StackHygieneTests checks every backend, on a message long enough for its bulk CTR. net10.0 only, as
// StackHygieneTests (reading below the stack pointer crashes Mono 6.8: Tests.Mono leaves these out).

using System;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class PortableVectorStackTests
{
    /// <summary>
    /// StackHygieneTests' check on a message long enough for the bulk path (its 1000-byte messages
    /// never reach it), with a probe deep enough for it: the bulk CTR's frame holds some 36 KiB of
    /// buffers (64 KiB with 32-byte vectors), and the rounds run below them. Searched for: the
    /// message-encryption key, H, POLYVAL's result, the tag input and every keystream block.
    /// </summary>
    [TestCase(16, false)]
    [TestCase(32, false)]
    [TestCase(32, true)]
    public void TheBulkPathLeavesNoPerMessageSecretOnTheStack(int keySize, bool decrypt)
    {
        if (!default(AesPortableVector).IsSupported)
        {
            Assert.Ignore("Vector<T> is not accelerated here: the backend is not offered");
        }

        const int ProbeBytes = 112 * 1024;
        byte[] key = System.Security.Cryptography.RandomNumberGenerator.GetBytes(keySize), nonce = System.Security.Cryptography.RandomNumberGenerator.GetBytes(12);
        int length = (2 * 16 * 32 * System.Numerics.Vector<uint>.Count) + 100; // two passes and a tail
        byte[] plaintext = System.Security.Cryptography.RandomNumberGenerator.GetBytes(length), ciphertext = new byte[length], tag = new byte[16], opened = new byte[length];
        byte[] probe = new byte[ProbeBytes];
        using MessageCall aead = MessageCall.For(AesGcmSivBackend.PortableVector, key);
        for (int i = 0; i < 3; i++)
        {
            aead.Encrypt(new byte[12], plaintext, ciphertext, tag);
            aead.Decrypt(new byte[12], ciphertext, tag, opened);
        }

        aead.Encrypt(nonce, plaintext, ciphertext, tag);
        List<(string Name, byte[] Value)> secrets = MessageSecrets.Of(AesGcmSivBackend.PortableVector, key, nonce, plaintext, ciphertext);
        var attempts = new List<string>();
        for (int attempt = 0; attempt < 3; attempt++) // as StackHygieneTests: a signal frame can land in one probe, not in all
        {
            BurnDeep(ProbeBytes + 4096);
            StackHygieneTests.CallThenProbe(aead, decrypt, nonce, plaintext, ciphertext, tag, opened, probe);
            List<string> found = MessageSecrets.FoundIn(probe, secrets);
            TestContext.Out.WriteLine($"AES-{keySize * 8}, {length} bytes, {(decrypt ? "decrypt" : "encrypt")}: {found.Count} of {secrets.Count} secrets on the stack{(found.Count == 0 ? "" : ": " + string.Join(", ", found.Take(5)))}");
            if (found.Count == 0)
            {
                return;
            }

            attempts.Add(string.Join(", ", found.Take(5)));
        }

        Assert.Fail($"a secret was on the stack after every call: {string.Join("; ", attempts)}");
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void BurnDeep(int bytes)
    {
        Span<byte> scratch = stackalloc byte[bytes]; // zeroed: no SkipLocalsInit here
        GC.KeepAlive(scratch.Length);
    }
}
