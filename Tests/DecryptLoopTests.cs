// The decryption loops (IDecryptLoop: Decrypt.TwoPass.cs, Decrypt.Stitched.cs,
// Decrypt.StitchedWide.cs) against the portable backend's CTR and POLYVAL, per primitive: each
// loop's Run from a chosen counter block (so that the 2^32 wrap of the counter falls inside a
// stitched step or the end, which a tag would start that close to once in 2^19 messages), a chosen
// accumulator and length block, over lengths 0..300, around every 128-byte group and 8 KiB chunk,
// and large odd lengths, out of place and in place; a loop that finishes the message must have
// absorbed the padded plaintext and the length block. And the whole GcmSiv.Decrypt with each
// stitched loop (AesNiPclmulqdq's, the same over the wide key table, AesNiVpclmulqdq's) against
// what the portable backend sealed, with a tampered copy rejected and its output wiped.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.Intrinsics;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class DecryptLoopTests
{
    private const int Seed = 33;

    private static readonly int[] Lengths =
        [.. Enumerable.Range(0, 301), 383, 384, 385, 1023, 1024, 1350, 2047, 4113, 8191, 8192, 8193, 16_401, 65_537, 262_159];

    private delegate int Loop(in AesKeySchedule schedule, int rounds, Span<byte> counterBlock, in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext, Vector128<byte> lengthBlock, out bool finished);

    private delegate bool Decrypt(in AesKeySchedule keyGeneratingKey, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);

    private sealed record LoopCase(string Name, Func<bool> IsSupported, Loop Run, PolyvalInit Init);

    private delegate void PolyvalInit(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key);

    private static IEnumerable<LoopCase> AllLoops() =>
    [
        new("Stitched over VPCLMULQDQ POLYVAL, end in registers", () => Backends.IsSupported(AesGcmSivBackend.AesNiVpclmulqdq), default(StitchedWideDecrypt<AesNi>).Run, default(PolyvalVpclmulqdq).Init),
        new("Stitched over PCLMULQDQ POLYVAL", () => Backends.IsSupported(AesGcmSivBackend.AesNiPclmulqdq), default(StitchedDecrypt<AesNi, Pclmul>).Run, default(PolyvalClmul<Pclmul>).Init),
        new("Stitched over VPCLMULQDQ POLYVAL's key table", () => Backends.IsSupported(AesGcmSivBackend.AesNiVpclmulqdq), default(StitchedDecrypt<AesNi, Pclmul>).Run, default(PolyvalVpclmulqdq).Init),
        new("Two passes, AES-NI and PCLMULQDQ", () => Backends.IsSupported(AesGcmSivBackend.AesNiPclmulqdq), default(TwoPassDecrypt<AesVector<AesNi>, PolyvalClmul<Pclmul>>).Run, default(PolyvalClmul<Pclmul>).Init),
        new("Two passes, portable", () => true, default(TwoPassDecrypt<AesPortable, PolyvalPortable>).Run, default(PolyvalPortable).Init),
    ];

    public static IEnumerable<TestCaseData> Loops() =>
        from loop in AllLoops()
        from keyLength in new[] { 16, 32 }
        from inPlace in new[] { false, true }
        select new TestCaseData(loop.Name, keyLength, inPlace).SetName($"{loop.Name}, AES-{keyLength * 8}{(inPlace ? ", in place" : "")}");

    [TestCaseSource(nameof(Loops))]
    public void LoopMatchesPortableCtrAndPolyval(string name, int keyLength, bool inPlace)
    {
        LoopCase loop = AllLoops().Single(l => l.Name == name);
        if (!loop.IsSupported())
        {
            Assert.Ignore($"{name}: not supported on this machine");
        }

        var random = new Random(Seed + keyLength);
        Primitives portable = Primitives.For(AesGcmSivBackend.Portable);
        int rounds = keyLength == 16 ? 10 : 14;
        foreach (int length in Lengths)
        {
            byte[] key = EquivalenceTests.Bytes(random, keyLength), h = EquivalenceTests.Bytes(random, 16);
            byte[] ciphertext = EquivalenceTests.Bytes(random, length), accumulator = EquivalenceTests.Bytes(random, 16);
            byte[] counterBlock = EquivalenceTests.Bytes(random, 16);

            // The counter wraps 2^32 a few blocks in, inside the first stitched step or the next.
            BitConverter.TryWriteBytes(counterBlock.AsSpan(0, 4), uint.MaxValue - (uint)(length % 23));
            string what = $"{name}, AES-{keyLength * 8}, {length} bytes{(inPlace ? ", in place" : "")}, seed {Seed + keyLength}";

            AesKeySchedule schedule = default;
            (loop.Name.Contains("portable", StringComparison.Ordinal) ? (ExpandKey)default(AesPortable).ExpandKey : default(AesVector<AesNi>).ExpandKey)(key, ref schedule);
            PolyvalKey polyvalKey = default;
            loop.Init(h, length / 16, ref polyvalKey);
            byte[] plaintext = inPlace ? ciphertext : new byte[length];
            byte[] original = (byte[])ciphertext.Clone();
            byte[] counter = (byte[])counterBlock.Clone(), acc = (byte[])accumulator.Clone();
            byte[] lengthBlock = EquivalenceTests.Bytes(random, 16);
            int done = loop.Run(in schedule, rounds, counter, in polyvalKey, acc, ciphertext, plaintext, Vector128.Create(lengthBlock), out bool finished);

            // A loop stops at a block boundary short of the end, or finishes the message: all of it
            // decrypted, and its plaintext, zero-padded, and the length block absorbed.
            Assert.That(finished ? done == length : done % 16 == 0 && done <= length, Is.True, $"{done} bytes done, finished {finished}, {what}");
            byte[] expectedPlaintext = portable.Ctr32(key, counterBlock, original[..done]);
            Assert.That(Convert.ToHexStringLower(plaintext.AsSpan(0, done)), Is.EqualTo(Convert.ToHexStringLower(expectedPlaintext)), $"plaintext, {what}");
            byte[] absorbed = finished ? [.. expectedPlaintext, .. new byte[(16 - (done % 16)) % 16], .. lengthBlock] : expectedPlaintext;
            Assert.That(Convert.ToHexStringLower(acc), Is.EqualTo(Convert.ToHexStringLower(PortablePolyval(h, accumulator, absorbed))), $"accumulator, {what}");
            byte[] expectedCounter = (byte[])counterBlock.Clone();
            GcmSiv<AesPortable, PolyvalPortable>.AdvanceCounter(expectedCounter, (uint)((done + 15) / 16));
            Assert.That(Convert.ToHexStringLower(counter), Is.EqualTo(Convert.ToHexStringLower(expectedCounter)), $"counter, {what}");
            if (!inPlace)
            {
                Assert.That(plaintext.AsSpan(done).ToArray(), Is.All.Zero, $"nothing written past the prefix, {what}");
                Assert.That(ciphertext, Is.EqualTo(original), $"ciphertext untouched, {what}");
            }
        }
    }

    private static readonly (string Name, AesGcmSivBackend Needs, Decrypt Decrypt)[] StitchedDecrypts =
    [
        ("stitched over PCLMULQDQ POLYVAL", AesGcmSivBackend.AesNiPclmulqdq, GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>),
        ("stitched 128-bit over VPCLMULQDQ POLYVAL", AesGcmSivBackend.AesNiVpclmulqdq, GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>),
        ("stitched over VPCLMULQDQ POLYVAL, end in registers", AesGcmSivBackend.AesNiVpclmulqdq, GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<StitchedWideDecrypt<AesNi>>),
    ];

    public static IEnumerable<TestCaseData> StitchedEndToEnd() =>
        from keyLength in new[] { 16, 32 }
        from loop in StitchedDecrypts
        select new TestCaseData(keyLength, loop.Name).SetName($"GcmSiv.Decrypt {loop.Name} vs portable, AES-{keyLength * 8}");

    [TestCaseSource(nameof(StitchedEndToEnd))]
    public void StitchedDecryptionOpensWhatPortableSealed(int keyLength, string name)
    {
        (_, AesGcmSivBackend needs, Decrypt decrypt) = StitchedDecrypts.Single(loop => loop.Name == name);
        if (!Backends.IsSupported(needs))
        {
            Assert.Ignore("not supported on this machine");
        }

        var random = new Random(Seed * keyLength);
        int[] aadLengths = [0, 1, 16, 127, 128, 129, 300, 4096];
        foreach (int length in Lengths)
        {
            byte[] key = EquivalenceTests.Bytes(random, keyLength), nonce = EquivalenceTests.Bytes(random, 12);
            byte[] plaintext = EquivalenceTests.Bytes(random, length), aad = EquivalenceTests.Bytes(random, aadLengths[length % aadLengths.Length]);
            using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
            byte[] sealedMessage = EquivalenceTests.Seal(portable, nonce, plaintext, aad);
            AesKeySchedule schedule = default;
            default(AesVector<AesNi>).ExpandKey(key, ref schedule);
            int rounds = keyLength == 16 ? 10 : 14;
            string what = $"{length} bytes, {aad.Length} bytes of AAD, seed {Seed * keyLength}";

            byte[] opened = new byte[length];
            Assert.That(decrypt(in schedule, rounds, nonce, sealedMessage.AsSpan(0, length), sealedMessage.AsSpan(length), opened, aad), Is.True, what);
            Assert.That(opened, Is.EqualTo(plaintext), what);

            // In place, and a flipped ciphertext bit rejected with the output wiped.
            byte[] inPlace = sealedMessage[..length];
            Assert.That(decrypt(in schedule, rounds, nonce, inPlace, sealedMessage.AsSpan(length), inPlace, aad), Is.True, $"in place, {what}");
            Assert.That(inPlace, Is.EqualTo(plaintext), $"in place, {what}");
            if (length > 0)
            {
                byte[] tampered = sealedMessage[..length];
                tampered[random.Next(length)] ^= 0x01;
                Assert.That(decrypt(in schedule, rounds, nonce, tampered, sealedMessage.AsSpan(length), opened, aad), Is.False, $"tampered, {what}");
                Assert.That(opened, Is.All.Zero, $"tampered, {what}");
            }
        }
    }

    private delegate void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule);

    private static byte[] PortablePolyval(byte[] h, byte[] accumulator, byte[] blocks)
    {
        PolyvalKey key = default;
        default(PolyvalPortable).Init(h, blocks.Length / 16, ref key);
        byte[] acc = (byte[])accumulator.Clone();
        default(PolyvalPortable).Update(in key, acc, blocks);
        return acc;
    }
}
