// The bitsliced SIMD backend's own pieces (Aes.Bitsliced.cs), beyond the equivalence with the
// portable backend that EquivalenceTests runs for every backend: its S-box circuit on every input,
// and FIPS-197's known answers, so a failure says whether the circuit, the key schedule or the
// rounds went wrong.

using System;
using System.Runtime.Intrinsics;
using Cryptography;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class BitslicedVectorTests
{
    [SetUp]
    public void RequireBackend()
    {
        if (!Backends.IsSupported(AesGcmSivBackend.BitslicedVector))
        {
            Assert.Ignore("no 128-bit SIMD with a byte shuffle here");
        }
    }

    [Test]
    public void SubBytesIsTheSboxOnEveryByteInEveryPosition()
    {
        // The scalar portable backend's SubWord (checked against RFC 8452 end to end) is the reference.
        for (int b = 0; b < 256; b++)
        {
            byte[] input = new byte[16];
            for (int position = 0; position < 16; position++)
            {
                input[position] = (byte)(b + (position * 17));
            }

            byte[] actual = new byte[16];
            AesBitsliced.SubBytes(Vector128.Create(input)).CopyTo(actual);
            for (int position = 0; position < 16; position++)
            {
                byte expected = (byte)AesPortable.SubWord(input[position]);
                Assert.That(actual[position], Is.EqualTo(expected), $"input {input[position]:x2} at byte {position}");
            }
        }
    }

    // FIPS-197 Appendix C.1 and C.3: one block, then the same block in every place of a group of 8.
    [TestCase("000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a")]
    [TestCase("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "8ea2b7ca516745bfeafc49904b496089")]
    public void Fips197KnownAnswer(string key, string ciphertext)
    {
        byte[] plaintext = Convert.FromHexString("00112233445566778899aabbccddeeff");
        Primitives backend = Primitives.For(AesGcmSivBackend.BitslicedVector);
        Assert.That(Convert.ToHexStringLower(backend.EncryptBlocks(Convert.FromHexString(key), plaintext)), Is.EqualTo(ciphertext));
        for (int blocks = 2; blocks <= 9; blocks++)
        {
            byte[] many = new byte[blocks * 16];
            for (int i = 0; i < blocks; i++)
            {
                plaintext.CopyTo(many, i * 16);
            }

            byte[] encrypted = backend.EncryptBlocks(Convert.FromHexString(key), many);
            for (int i = 0; i < blocks; i++)
            {
                Assert.That(Convert.ToHexStringLower(encrypted.AsSpan(i * 16, 16)), Is.EqualTo(ciphertext), $"block {i} of {blocks}");
            }
        }
    }

    [Test]
    public void ExpandKeyRejectsOtherKeySizes() =>
        Assert.Throws<ArgumentException>(() =>
        {
            AesKeySchedule schedule = default;
            default(AesBitsliced).ExpandKey(new byte[24], ref schedule);
        });

    [TestCase(9)]
    [TestCase(12)]
    public void OtherRoundCountsAreRejected(int rounds)
    {
        AesKeySchedule schedule = default;
        Assert.Throws<ArgumentOutOfRangeException>(() => default(AesBitsliced).EncryptBlocks(in schedule, rounds, new byte[16], new byte[16]));
        Assert.Throws<ArgumentOutOfRangeException>(() => default(AesBitsliced).Ctr32(in schedule, rounds, new byte[16], new byte[16], new byte[16]));
    }

    [Test]
    public void MismatchedLengthsAreRejected()
    {
        AesKeySchedule schedule = default;
        Assert.Throws<ArgumentException>(() => default(AesBitsliced).EncryptBlocks(in schedule, 10, new byte[16], new byte[32]));
        Assert.Throws<ArgumentException>(() => default(AesBitsliced).EncryptBlocks(in schedule, 10, new byte[15], new byte[15]));
        Assert.Throws<ArgumentException>(() => default(AesBitsliced).Ctr32(in schedule, 10, new byte[15], new byte[16], new byte[16]));
        Assert.Throws<ArgumentException>(() => default(AesBitsliced).Ctr32(in schedule, 10, new byte[16], new byte[16], new byte[17]));
    }

    [Test]
    public void TheScheduleIsOrdinaryRoundKeysAndNothingOfALongerKeyStays()
    {
        // FIPS-197 Appendix A.1's last round key; then an AES-256 schedule overwritten by AES-128's.
        AesKeySchedule schedule = default;
        default(AesBitsliced).ExpandKey(new byte[32], ref schedule);
        default(AesBitsliced).ExpandKey(Convert.FromHexString("2b7e151628aed2a6abf7158809cf4f3c"), ref schedule);
        byte[] bytes = System.Runtime.InteropServices.MemoryMarshal.AsBytes((Span<ulong>)schedule).ToArray();
        Assert.That(Convert.ToHexStringLower(bytes.AsSpan(160, 16)), Is.EqualTo("d014f9a8c9ee2589e13f0cc8b6630ca6"));
        Assert.That(default(AesBitsliced).ScheduleBytes(10), Is.EqualTo(176));
        Assert.That(default(AesBitsliced).ScheduleBytes(14), Is.EqualTo(240));
        Assert.That(bytes.AsSpan(176).IndexOfAnyExcept((byte)0), Is.EqualTo(-1));
    }

    /// <summary>
    /// The eight-block path alone (what ARM64 and x64 without AVX2 run) and the backend as chosen
    /// here (sixteen-block passes first with AVX2), each against the portable CTR: every length
    /// 0..300, lengths around the 128- and 256-byte groups, large odd lengths, and counters that
    /// wrap mod 2^32 inside a group.
    /// </summary>
    [TestCase(false, 16)]
    [TestCase(false, 32)]
    [TestCase(true, 16)]
    [TestCase(true, 32)]
    public void CtrMatchesPortableOnBothPaths(bool wide, int keyLength)
    {
        const int seed = 3232;
        var random = new Random(seed);
        Primitives candidate = wide
            ? new Primitives<AesBitslicedVector<AesBitslicedAvx2>, PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>>()
            : new Primitives<AesBitslicedVector<NoWideBitsliced>, PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>>();
        Primitives portable = Primitives.For(AesGcmSivBackend.Portable);
        int[] lengths = [.. System.Linq.Enumerable.Range(0, 301), 383, 384, 385, 511, 512, 513, 4095, 8192, 65_537];
        foreach (int length in lengths)
        {
            byte[] key = new byte[keyLength], counter = new byte[16], input = new byte[length];
            random.NextBytes(key);
            random.NextBytes(counter);
            random.NextBytes(input);
            if (length % 3 == 0)
            {
                // The 32-bit counter wraps a few blocks in: inside the first group of either width.
                counter[0] = (byte)(0xFF - (length % 11));
                counter[1] = counter[2] = counter[3] = 0xFF;
            }

            Assert.That(candidate.Ctr32(key, counter, input), Is.EqualTo(portable.Ctr32(key, counter, input)), $"length {length}, seed {seed}");
        }
    }

    /// <summary>
    /// The software POLYVAL one block at a time (what ARM64 runs) and as chosen here (two chains in
    /// 256-bit halves for four blocks or more with AVX2), against the portable POLYVAL: every block
    /// count 0..40 (odd counts start with one block alone) and a few large ones, whole and in pieces
    /// (as associated data and plaintext come), including pieces too short for the two chains.
    /// </summary>
    [TestCase(false)]
    [TestCase(true)]
    public void PolyvalMatchesPortableOnBothPaths(bool wide)
    {
        const int seed = 3233;
        var random = new Random(seed);
        Primitives candidate = wide
            ? new Primitives<AesBitslicedVector<AesBitslicedAvx2>, PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>>()
            : new Primitives<AesBitslicedVector<NoWideBitsliced>, PolyvalWidening<NativeWideningMultiply, NoWidePolyval>>();
        Primitives portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (int blocks in (int[])[.. System.Linq.Enumerable.Range(0, 41), 511, 512, 4099])
        {
            byte[] h = new byte[16], data = new byte[blocks * 16];
            random.NextBytes(h);
            random.NextBytes(data);
            string expected = Convert.ToHexStringLower(portable.Polyval(h, data));
            foreach (int piece in new[] { int.MaxValue, 48, 64, 80, 144 })
            {
                Assert.That(Convert.ToHexStringLower(candidate.Polyval(h, data, piece)), Is.EqualTo(expected), $"{blocks} blocks in pieces of {piece} bytes, seed {seed}");
            }
        }
    }

    [Test]
    public void PolyvalArgumentsAreChecked()
    {
        // The software POLYVAL checks what the portable one checks (EquivalenceTests checks that one's).
        PolyvalKey key = default;
        Assert.Throws<ArgumentException>(() => default(PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>).Init(new byte[15], 1, ref key));
        default(PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>).Init(new byte[16], 8, ref key);
        Assert.Throws<ArgumentException>(() => default(PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>).Update(in key, new byte[15], new byte[16]));
        Assert.Throws<ArgumentException>(() => default(PolyvalWidening<NativeWideningMultiply, PolyvalWideningAvx2>).Update(in key, new byte[16], new byte[17]));
    }

    /// <summary>
    /// Blocks and CTR on both paths, inside larger buffers: the output equals the portable backend's
    /// and nothing before or after the output span changes (a partial last group must not write its
    /// unused places, nor read past the input). Distinct random blocks, so a group that read the
    /// wrong block would show.
    /// </summary>
    [TestCase(false)]
    [TestCase(true)]
    public void OutputStaysInsideItsSpanAndMatchesPortable(bool wide)
    {
        const int seed = 3234, guard = 256;
        var random = new Random(seed);
        Primitives portable = Primitives.For(AesGcmSivBackend.Portable);
        foreach (int keyLength in new[] { 16, 32 })
        {
            byte[] key = new byte[keyLength], counter = new byte[16];
            random.NextBytes(key);
            random.NextBytes(counter);
            AesKeySchedule schedule = default;
            default(AesBitsliced).ExpandKey(key, ref schedule);
            int rounds = keyLength == 16 ? 10 : 14;
            foreach (int length in new[] { 16, 112, 128, 144, 240, 256, 272, 400, 527, 1000 })
            {
                byte[] input = new byte[guard + length + guard], output = new byte[input.Length];
                random.NextBytes(input);
                random.NextBytes(output);
                byte[] before = (byte[])output.Clone();
                ReadOnlySpan<byte> source = input.AsSpan(guard, length);
                Span<byte> destination = output.AsSpan(guard, length);
                if (wide)
                {
                    default(AesBitslicedVector<AesBitslicedAvx2>).Ctr32(in schedule, rounds, counter, source, destination);
                }
                else
                {
                    default(AesBitslicedVector<NoWideBitsliced>).Ctr32(in schedule, rounds, counter, source, destination);
                }

                string what = $"CTR, AES-{keyLength * 8}, {length} bytes, seed {seed}";
                Assert.That(output.AsSpan(guard, length).ToArray(), Is.EqualTo(portable.Ctr32(key, counter, source.ToArray())), what);
                Assert.That(output.AsSpan(0, guard).SequenceEqual(before.AsSpan(0, guard)) && output.AsSpan(guard + length).SequenceEqual(before.AsSpan(guard + length)), Is.True, what);

                if (length % 16 == 0)
                {
                    random.NextBytes(output);
                    before = (byte[])output.Clone();
                    default(AesBitsliced).EncryptBlocks(in schedule, rounds, source, output.AsSpan(guard, length));
                    what = $"blocks, AES-{keyLength * 8}, {length} bytes, seed {seed}";
                    Assert.That(output.AsSpan(guard, length).ToArray(), Is.EqualTo(portable.EncryptBlocks(key, source.ToArray())), what);
                    Assert.That(output.AsSpan(0, guard).SequenceEqual(before.AsSpan(0, guard)) && output.AsSpan(guard + length).SequenceEqual(before.AsSpan(guard + length)), Is.True, what);
                }
            }
        }
    }

    [Test]
    public void TheBackendsCtrChecksItsArguments()
    {
        AesKeySchedule schedule = default;
        Assert.Throws<ArgumentOutOfRangeException>(() => default(AesBitslicedVector<AesBitslicedAvx2>).Ctr32(in schedule, 12, new byte[16], new byte[16], new byte[16]));
        Assert.Throws<ArgumentException>(() => default(AesBitslicedVector<AesBitslicedAvx2>).Ctr32(in schedule, 10, new byte[12], new byte[16], new byte[16]));
        Assert.Throws<ArgumentException>(() => default(AesBitslicedVector<AesBitslicedAvx2>).Ctr32(in schedule, 10, new byte[16], new byte[300], new byte[299]));
    }
}
