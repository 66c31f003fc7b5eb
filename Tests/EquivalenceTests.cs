// Each hardware backend against the portable one, per primitive (AES blocks, CTR, POLYVAL) and
// end to end, over every length 0..300 (every 16/64/128/256-byte boundary), the lengths around
// decryption's 8 KiB chunks, and large odd lengths up to 1 MiB, plus the VPCLMULQDQ POLYVAL key
// table entry by entry. Inputs come from a seeded generator; the seed is in every failure message.
// Also the portable primitives' own argument checks, the reference every comparison here rests on.

using System;
using System.Collections.Generic;
using System.Linq;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public partial class EquivalenceTests
{
    private const int Seed = 8452;

    private static readonly int[] LargeOddLengths = [1021, 4099, 65_537, 262_147, 1_048_575, 1_048_576];

    // Decryption runs CTR and POLYVAL 8 KiB at a time (GcmSiv.DecryptChunk): one byte short of a
    // chunk, exactly one, one byte more, exactly two, and two with a partial block after them.
    private static readonly int[] ChunkEdgeLengths = [8191, 8192, 8193, 16_384, 16_401];

    public static IEnumerable<TestCaseData> HardwareCases() =>
        from backend in TestBackends.Hardware
        from keyLength in new[] { 16, 32 }
        select new TestCaseData(backend, keyLength).SetName($"{backend} vs Portable, AES-{keyLength * 8}");

    public static IEnumerable<int> ShortLengths() => Enumerable.Range(0, 301);

    [TestCaseSource(nameof(HardwareCases))]
    public void AesBlocksMatchPortable(AesGcmSivBackend backend, int keyLength)
    {
        var random = new Random(Seed);
        Primitives hardware = Primitives.For(backend), portable = Primitives.For(AesGcmSivBackend.Portable);
        for (int blocks = 0; blocks <= 20; blocks++)
        {
            byte[] key = Bytes(random, keyLength), input = Bytes(random, blocks * 16);
            Assert.That(hardware.EncryptBlocks(key, input), Is.EqualTo(portable.EncryptBlocks(key, input)), $"{blocks} blocks, seed {Seed}");
        }
    }

    [TestCaseSource(nameof(HardwareCases))]
    public void CtrMatchesPortable(AesGcmSivBackend backend, int keyLength)
    {
        var random = new Random(Seed);
        Primitives hardware = Primitives.For(backend), portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (int length in ShortLengths().Concat(LargeOddLengths))
        {
            byte[] key = Bytes(random, keyLength), counter = Bytes(random, 16), input = Bytes(random, length);

            // Start near the 32-bit wrap in one case out of four so the wrap happens mid-batch.
            if (length % 4 == 0)
            {
                counter[0] = 0xF0; counter[1] = 0xFF; counter[2] = 0xFF; counter[3] = 0xFF;
            }

            Assert.That(hardware.Ctr32(key, counter, input), Is.EqualTo(portable.Ctr32(key, counter, input)), $"length {length}, seed {Seed}");
        }
    }

    [TestCaseSource(nameof(HardwareCases))]
    public void PolyvalMatchesPortable(AesGcmSivBackend backend, int keyLength)
    {
        _ = keyLength; // POLYVAL has one key size; the case runs twice with different data.
        var random = new Random(Seed + keyLength);
        Primitives hardware = Primitives.For(backend), portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (int blocks in Enumerable.Range(0, 40).Concat([257, 4099, 65_537]))
        {
            byte[] h = Bytes(random, 16), data = Bytes(random, blocks * 16);
            string expected = Convert.ToHexStringLower(portable.Polyval(h, data));
            Assert.That(Convert.ToHexStringLower(hardware.Polyval(h, data)), Is.EqualTo(expected), $"{blocks} blocks, seed {Seed + keyLength}");

            // Fed in pieces (as AAD then plaintext are), with and without precomputed powers.
            Assert.That(Convert.ToHexStringLower(hardware.Polyval(h, data, 48)), Is.EqualTo(expected), $"{blocks} blocks in 48-byte pieces");
            Assert.That(Convert.ToHexStringLower(hardware.Polyval(h, data, 144)), Is.EqualTo(expected), $"{blocks} blocks in 144-byte pieces");
        }
    }

    // The two-part Update, as the last absorb calls it (whole blocks, then a partial block and the
    // length block, or the length block alone), after nothing or after one earlier block: every count
    // of 2..7 blocks takes the short-message POLYVAL (Polyval.Clmul.cs), longer ones the groups.
    [TestCaseSource(nameof(HardwareCases))]
    public void PolyvalInTwoPartsMatchesPortable(AesGcmSivBackend backend, int keyLength)
    {
        var random = new Random(Seed + keyLength);
        Primitives hardware = Primitives.For(backend), portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (int blocks in Enumerable.Range(1, 40).Concat([257, 4099]))
        {
            byte[] h = Bytes(random, 16), data = Bytes(random, blocks * 16);
            string expected = Convert.ToHexStringLower(portable.Polyval(h, data));
            foreach (int head in (int[])[0, 16])
            {
                foreach (int last in (int[])[0, 16, 32])
                {
                    if (head + last <= data.Length)
                    {
                        Assert.That(Convert.ToHexStringLower(hardware.PolyvalInTwoParts(h, data, head, last)), Is.EqualTo(expected), $"{blocks} blocks, {head} then {last}, seed {Seed + keyLength}");
                    }
                }
            }
        }
    }

    // The portable AES checks its own arguments (the public type checks first, so only a caller inside
    // the library could pass these): key and counter-block sizes, the round count, the lengths.
    [Test]
    public void PortableAesRefusesBadArguments()
    {
        var schedule = new AesKeySchedule();
        Assert.That(() => default(AesPortable).ExpandKey(new byte[24], ref schedule), Throws.ArgumentException.With.Property("ParamName").EqualTo("key").And.Message.StartsWith("AES key must be 16 or 32 bytes."));
        default(AesPortable).ExpandKey(new byte[16], ref schedule);
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => default(AesPortable).EncryptBlocks(schedule, 12, new byte[16], new byte[16]))!.ParamName, Is.EqualTo("rounds"));
        Assert.That(() => default(AesPortable).EncryptBlocks(schedule, 10, new byte[16], new byte[32]), Throws.ArgumentException.With.Property("ParamName").EqualTo("output").And.Message.StartsWith("Input and output lengths differ."));
        Assert.That(() => default(AesPortable).EncryptBlocks(schedule, 10, new byte[15], new byte[15]), Throws.ArgumentException.With.Property("ParamName").EqualTo("input").And.Message.StartsWith("Input length must be a multiple of 16."));
        Assert.That(() => default(AesPortable).Ctr32(schedule, 10, new byte[15], new byte[16], new byte[16]), Throws.ArgumentException.With.Property("ParamName").EqualTo("counterBlock").And.Message.StartsWith("Counter block must be 16 bytes."));
        Assert.That(() => default(AesPortable).Ctr32(schedule, 10, new byte[16], new byte[16], new byte[17]), Throws.ArgumentException.With.Property("ParamName").EqualTo("output").And.Message.StartsWith("Input and output lengths differ."));
    }

    // PolyvalPortable goes four blocks at a time (H^2..H^4, one reduction per four) once Init was told of
    // AggregateBlocks blocks or more; fewer go one at a time. Both must give the same value for any
    // length and any split into updates, independently of the hardware backends above.
    [Test]
    public void PortablePolyvalFourAtATimeMatchesOneAtATime()
    {
        var random = new Random(Seed + 31);
        byte[] h = Bytes(random, 16);
        for (int blocks = 0; blocks <= 41; blocks++)
        {
            byte[] data = Bytes(random, blocks * 16);
            PolyvalKey single = default, aggregated = default;
            default(PolyvalPortable).Init(h, 1, ref single);
            default(PolyvalPortable).Init(h, PolyvalPortable.AggregateBlocks, ref aggregated);
            byte[] expected = new byte[16];
            default(PolyvalPortable).Update(in single, expected, data);
            foreach (int piece in new[] { 16, 48, 80, data.Length })
            {
                byte[] actual = new byte[16];
                for (int offset = 0; offset < data.Length; offset += piece)
                {
                    default(PolyvalPortable).Update(in aggregated, actual, data.AsSpan(offset, Math.Min(piece, data.Length - offset)));
                }

                Assert.That(actual, Is.EqualTo(expected), $"{blocks} blocks in {piece}-byte pieces");
            }
        }
    }

    // The same for the portable POLYVAL: the key and accumulator sizes and the input length.
    [Test]
    public void PortablePolyvalRefusesBadArguments()
    {
        var key = new PolyvalKey();
        Assert.That(() => default(PolyvalPortable).Init(new byte[15], 1, ref key), Throws.ArgumentException.With.Property("ParamName").EqualTo("h").And.Message.StartsWith("POLYVAL key must be 16 bytes."));
        default(PolyvalPortable).Init(new byte[16], 1, ref key);
        Assert.That(() => default(PolyvalPortable).Update(key, new byte[15], new byte[16]), Throws.ArgumentException.With.Property("ParamName").EqualTo("accumulator").And.Message.StartsWith("Accumulator must be 16 bytes."));
        Assert.That(() => default(PolyvalPortable).Update(key, new byte[16], new byte[17]), Throws.ArgumentException.With.Property("ParamName").EqualTo("blocks").And.Message.StartsWith("Input length must be a multiple of 16."));
    }

    [TestCaseSource(nameof(HardwareCases))]
    public void EndToEndMatchesPortable(AesGcmSivBackend backend, int keyLength)
    {
        var random = new Random(Seed);
        byte[] key = Bytes(random, keyLength);
        using var hardware = new AesGcmSiv(key, backend);
        using var portable = new AesGcmSiv(key, AesGcmSivBackend.Portable);
        int[] aadLengths = [0, 1, 15, 16, 17, 127, 128, 129, 300];
        foreach (int length in ShortLengths().Concat(ChunkEdgeLengths).Concat(LargeOddLengths))
        {
            byte[] nonce = Bytes(random, 12), plaintext = Bytes(random, length), aad = Bytes(random, aadLengths[length % aadLengths.Length]);
            byte[] expected = Seal(portable, nonce, plaintext, aad);
            byte[] actual = Seal(hardware, nonce, plaintext, aad);
            Assert.That(actual, Is.EqualTo(expected), $"encrypt, length {length}, aad {aad.Length}, seed {Seed}");

            byte[] decrypted = new byte[length];
            hardware.Decrypt(nonce, actual.AsSpan(0, length), actual.AsSpan(length), decrypted, aad);
            Assert.That(decrypted, Is.EqualTo(plaintext), $"decrypt, length {length}, aad {aad.Length}, seed {Seed}");
            Array.Clear(decrypted);
            portable.Decrypt(nonce, actual.AsSpan(0, length), actual.AsSpan(length), decrypted, aad);
            Assert.That(decrypted, Is.EqualTo(plaintext), $"portable decrypt, length {length}, aad {aad.Length}, seed {Seed}");
        }
    }

    /// <summary>
    /// Decryption moves the counter block on between its chunks. Its first four bytes are a
    /// little-endian counter that wraps mod 2^32 and must not carry into the other twelve (RFC 8452
    /// section 4); a tag that starts the counter this close to the wrap comes once in 2^19 messages,
    /// so the step is checked on its own, against the CTR of the whole run in one call.
    /// </summary>
    [Test]
    public void DecryptionChunksContinueTheCounterAcrossItsWrap()
    {
        byte[] counterBlock = [0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5, 6, 7, 0x88];
        byte[] moved = (byte[])counterBlock.Clone();
        GcmSiv<AesPortable, PolyvalPortable>.AdvanceCounter(moved, 0x20);
        Assert.That(Convert.ToHexStringLower(moved), Is.EqualTo("10000000ffffffff0102030405060788"));

        var random = new Random(Seed);
        byte[] key = Bytes(random, 16), input = Bytes(random, 64 * 16);
        Primitives primitives = Primitives.For(AesGcmSivBackend.Portable);
        byte[] whole = primitives.Ctr32(key, counterBlock, input);
        moved = (byte[])counterBlock.Clone();
        GcmSiv<AesPortable, PolyvalPortable>.AdvanceCounter(moved, 0x20);
        byte[] secondHalf = primitives.Ctr32(key, moved, input[(32 * 16)..]);
        Assert.That(secondHalf, Is.EqualTo(whole[(32 * 16)..]));
    }

    internal static byte[] Seal(AesGcmSiv aead, byte[] nonce, byte[] plaintext, byte[] aad)
    {
        byte[] output = new byte[plaintext.Length + 16];
        aead.Encrypt(nonce, plaintext, output.AsSpan(0, plaintext.Length), output.AsSpan(plaintext.Length), aad);
        return output;
    }

    internal static byte[] Bytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
