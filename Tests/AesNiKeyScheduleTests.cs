// The AES-NI key expansion (Aes.AesNi.cs) since issue 49 builds SubWord from AESENCLAST instead of
// AESKEYGENASSIST. Its round keys are checked word for word against FIPS-197 Appendix A.1 and A.3
// (the whole schedules) and against the AESKEYGENASSIST form it replaced, over random keys; the
// end-to-end and per-primitive comparisons with the portable backend (EquivalenceTests,
// RfcVectorTests) run it too.

using System;
using System.Runtime.InteropServices;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

[TestFixture]
public class AesNiKeyScheduleTests
{
    private const int Seed = 49;

    // FIPS-197 Appendix A.1: key 2b7e1516 28aed2a6 abf71588 09cf4f3c, words w0..w43.
    private const string Aes128Schedule =
        "2b7e151628aed2a6abf7158809cf4f3c" + "a0fafe1788542cb123a339392a6c7605" + "f2c295f27a96b9435935807a7359f67f" +
        "3d80477d4716fe3e1e237e446d7a883b" + "ef44a541a8525b7fb671253bdb0bad00" + "d4d1c6f87c839d87caf2b8bc11f915bc" +
        "6d88a37a110b3efddbf98641ca0093fd" + "4e54f70e5f5fc9f384a64fb24ea6dc4f" + "ead27321b58dbad2312bf5607f8d292f" +
        "ac7766f319fadc2128d12941575c006e" + "d014f9a8c9ee2589e13f0cc8b6630ca6";

    // FIPS-197 Appendix A.3: key 603deb10 15ca71be 2b73aef0 857d7781 1f352c07 3b6108d7 2d9810a3 0914dff4, w0..w59.
    private const string Aes256Schedule =
        "603deb1015ca71be2b73aef0857d7781" + "1f352c073b6108d72d9810a30914dff4" + "9ba354118e6925afa51a8b5f2067fcde" +
        "a8b09c1a93d194cdbe49846eb75d5b9a" + "d59aecb85bf3c917fee94248de8ebe96" + "b5a9328a2678a647983122292f6c79b3" +
        "812c81addadf48ba24360af2fab8b464" + "98c5bfc9bebd198e268c3ba709e04214" + "68007bacb2df331696e939e46c518d80" +
        "c814e20476a9fb8a5025c02d59c58239" + "de1369676ccc5a71fa2563959674ee15" + "5886ca5d2e2f31d77e0af1fa27cf73c3" +
        "749c47ab18501ddae2757e4f7401905a" + "cafaaae3e4d59b349adf6acebd10190d" + "fe4890d1e6188d0b046df344706c631e";

    [TestCase(Aes128Schedule)]
    [TestCase(Aes256Schedule)]
    public void ExpandKeyGivesFips197Schedule(string expected)
    {
        if (!AesNi.IsSupported)
        {
            Assert.Ignore("No AES-NI on this machine.");
        }

        int keyLength = expected.Length == 176 * 2 ? 16 : 32;
        byte[] key = Convert.FromHexString(expected[..(keyLength * 2)]);
        AesKeySchedule schedule = default;
        AesNi.ExpandKey(key, ref schedule);
        Assert.That(Convert.ToHexStringLower(Bytes(ref schedule)[..(expected.Length / 2)]), Is.EqualTo(expected));
    }

    [TestCase(16)]
    [TestCase(32)]
    public void ExpandKeyMatchesTheKeygenAssistForm(int keyLength)
    {
        if (!AesNi.IsSupported)
        {
            Assert.Ignore("No AES-NI on this machine.");
        }

        var random = new Random(Seed);
        byte[] key = new byte[keyLength];
        for (int i = 0; i < 2000; i++)
        {
            random.NextBytes(key);
            // Keys whose words substitute to every S-box entry and to the Rcon carries: all zeros, all ones.
            if (i < 2)
            {
                key.AsSpan().Fill(i == 0 ? (byte)0 : (byte)0xFF);
            }

            AesKeySchedule expected = default, actual = default;
            AesNi.ExpandKeyWithKeygenAssist(key, ref expected);
            AesNi.ExpandKey(key, ref actual);
            Assert.That(Bytes(ref actual), Is.EqualTo(Bytes(ref expected)), $"key {Convert.ToHexStringLower(key)} (key {i}, seed {Seed})");
        }
    }

    private static byte[] Bytes(ref AesKeySchedule schedule) => MemoryMarshal.AsBytes((Span<ulong>)schedule).ToArray();
}
