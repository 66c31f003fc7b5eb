// The netstandard2.0 build's own CryptographicOperations.ZeroMemory (Platform/NetStandard/Polyfills.cs;
// net10.0 uses .NET's): short runs take 8-byte stores, runs of 512 bytes or more are copied from a zero
// array of 4 KiB a chunk at a time. Each length below, around those bounds and 12 KiB (the stack burn's size until it became 16 KiB),
// must zero exactly the span, no byte before or after it. Only in the Mono leg.

using System;
using System.Linq;
using NUnit.Framework;
using Operations = System.Security.Cryptography.CryptographicOperations;

namespace Tests.NetStandard;

[TestFixture]
public class ZeroMemoryTests
{
    [TestCase(0)]
    [TestCase(1)]
    [TestCase(31)]
    [TestCase(33)]
    [TestCase(511)]
    [TestCase(512)]
    [TestCase(513)]
    [TestCase(4095)]
    [TestCase(4096)]
    [TestCase(4097)]
    [TestCase(8193)]
    [TestCase(12 * 1024)]
    [TestCase((12 * 1024) + 7)]
    public void ZeroesExactlyTheSpan(int length)
    {
        const int Guard = 9;
        byte[] buffer = [.. Enumerable.Range(0, length + (2 * Guard)).Select(i => (byte)((i % 251) + 1))];
        Operations.ZeroMemory(buffer.AsSpan(Guard, length));

        Assert.That(buffer.Skip(Guard).Take(length).All(b => b == 0), Is.True, "inside the span");
        for (int i = 0; i < Guard; i++)
        {
            Assert.That(buffer[i], Is.EqualTo((byte)((i % 251) + 1)), $"byte {i} before the span");
            int after = Guard + length + i;
            Assert.That(buffer[after], Is.EqualTo((byte)((after % 251) + 1)), $"byte {i} after the span");
        }
    }
}
