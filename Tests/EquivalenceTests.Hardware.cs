// The part of EquivalenceTests that names a hardware backend's types: net10.0 only (the .NET
// Framework test build, Tests.Mono, has no System.Runtime.Intrinsics backends).

using System;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests;

public partial class EquivalenceTests
{
    /// <summary>
    /// The VPCLMULQDQ backend makes its POLYVAL key table two powers at a time; the 128-bit body makes
    /// the same table one power at a time. Entry by entry they must agree, for each count of powers,
    /// so that a wrong pair is named here rather than found through a wrong tag.
    /// </summary>
    [TestCase(1)]
    [TestCase(8)]
    [TestCase(16)]
    public void VpclmulqdqKeyTableMatchesTheOneAtATimeTable(int blockCount)
    {
        Assume.That(default(PolyvalVpclmulqdq).IsSupported, "VPCLMULQDQ is not available here");
        var random = new Random(Seed + blockCount);
        byte[] h = Bytes(random, 16);
        PolyvalKey wide = default, narrow = default;
        default(PolyvalVpclmulqdq).Init(h, blockCount, ref wide);
        default(PolyvalClmul<Pclmul>).Init(h, blockCount, ref narrow);
        int start = PolyvalKeyLayout.UnusedPrefixBytes(blockCount);
        Assert.That(start, Is.EqualTo(default(PolyvalVpclmulqdq).UnusedKeyPrefixBytes(blockCount)));
        byte[] wideBytes = System.Runtime.InteropServices.MemoryMarshal.AsBytes(wide.AsSpan()).ToArray();
        byte[] narrowBytes = System.Runtime.InteropServices.MemoryMarshal.AsBytes(narrow.AsSpan()).ToArray();
        for (int entry = start / 16; entry < wideBytes.Length / 16; entry++)
        {
            Assert.That(Convert.ToHexStringLower(wideBytes.AsSpan(entry * 16, 16)), Is.EqualTo(Convert.ToHexStringLower(narrowBytes.AsSpan(entry * 16, 16))), $"entry {entry}, {blockCount} blocks");
        }

        // Nothing before the first entry in use is written (GcmSiv's wipe starts there).
        Assert.That(wideBytes.AsSpan(0, start).IndexOfAnyExcept((byte)0), Is.EqualTo(-1));
    }
}
