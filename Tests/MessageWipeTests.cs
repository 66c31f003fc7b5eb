// The per-message wipe (GcmSiv.Wipe) is sized to what the message touched: the POLYVAL key table
// from the first entry Init wrote for this message's length (1, 8 or 16 powers of H), and the round
// keys of this key size only. A wipe sized that way must still be complete. After one encryption or
// decryption, the stack below the caller (where GcmSiv's frame and its MessageState just were) is
// read back and searched for every 16-byte entry that message's computation stored: each power of
// H and its Karatsuba half, and each round key of the message-encryption key. Lengths are chosen so
// that each size of table is built (under 8 blocks: H only; 8 to 15: 8 powers; 16 and up: 16), for
// both key sizes, on every backend. StackHygieneTests checks H, the derived keys and the round keys
// at one length; this adds the table's powers and the lengths that size the wipe differently.
// Shrinking the wipe by one entry at either end makes it fail (checked by hand when it was written).
// Since issue 47 (item 1) both search for every per-message secret (MessageSecrets), POLYVAL's
// result, the tag's AES input and the keystream included.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using Cryptography;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class MessageWipeTests
{
    public static IEnumerable<TestCaseData> Cases() =>
        from backend in MessageCall.Backends
        from keySize in new[] { 16, 32 }
        from length in new[] { 64, 200, 1000 }
        from decrypt in new[] { false, true }
        select new TestCaseData(backend, keySize, length, decrypt);

    [TestCaseSource(nameof(Cases))]
    public void NothingTheMessageComputedIsLeftOnTheStack(AesGcmSivBackend backend, int keySize, int length, bool decrypt)
    {
        byte[] key = RandomNumberGenerator.GetBytes(keySize), nonce = RandomNumberGenerator.GetBytes(12);
        byte[] plaintext = RandomNumberGenerator.GetBytes(length), ciphertext = new byte[length], tag = new byte[16], opened = new byte[length];
        byte[] probe = new byte[StackHygieneTests.ProbeBytes];
        using MessageCall aead = MessageCall.For(backend, key);
        for (int i = 0; i < 3; i++)
        {
            aead.Encrypt(new byte[12], plaintext, ciphertext, tag);
            aead.Decrypt(new byte[12], ciphertext, tag, opened);
        }

        aead.Encrypt(nonce, plaintext, ciphertext, tag);
        List<(string Name, byte[] Value)> secrets = MessageSecrets.Of(backend, key, nonce, plaintext, ciphertext);
        Assert.That(secrets, Is.Not.Empty);

        // As in StackHygieneTests: a leak from the library shows in every attempt; a signal frame
        // that saved the vector registers (the runtime suspending this thread) can show in one.
        var attempts = new List<string>();
        for (int attempt = 0; attempt < 3; attempt++)
        {
            StackHygieneTests.Burn();
            StackHygieneTests.CallThenProbe(aead, decrypt, nonce, plaintext, ciphertext, tag, opened, probe);
            List<string> found = MessageSecrets.FoundIn(probe, secrets);
            if (found.Count == 0)
            {
                TestContext.Out.WriteLine($"{secrets.Count} per-message secrets searched for, none found");
                return;
            }

            attempts.Add(string.Join(", ", found));
        }

        Assert.Fail($"per-message state was on the stack after every call: {string.Join("; ", attempts)}");
    }
}
