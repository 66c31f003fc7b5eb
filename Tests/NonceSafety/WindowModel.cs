// The model the window tests hold NonceHistory's exact window to: a queue of the last `window`
// nonces recorded as new (HistoryWindowTests, HistoryProbeTests).

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using Cryptography.NonceSafety;
using NUnit.Framework;

namespace Tests.NonceSafety;

internal sealed class WindowModel(int window)
{
    private readonly Queue<ulong> _kept = new();

    /// <summary>
    /// Checks what a lookup answered for <paramref name="nonce"/> against the model: seen if it is one
    /// of the last <c>window</c> nonces recorded, new (and now recorded) if not. Returns whether it
    /// was a repeat.
    /// </summary>
    public bool Check(NonceLookup found, ulong nonce, int step)
    {
        if (_kept.Contains(nonce))
        {
            Assert.That(found, Is.EqualTo(NonceLookup.Seen), $"step {step}: one of the newest {window} nonces was lost");
            return true;
        }

        Assert.That(found, Is.EqualTo(NonceLookup.New), $"step {step}: a nonce out of the ring was found");
        _kept.Enqueue(nonce);
        if (_kept.Count > window)
        {
            _kept.Dequeue();
        }

        return false;
    }

    /// <summary>64 random bits (Random.NextInt64 is .NET 6+; these tests also run on the netstandard2.0 build under Mono).</summary>
    public static ulong Next64(Random random)
    {
        byte[] bytes = new byte[8];
        random.NextBytes(bytes);
        return BinaryPrimitives.ReadUInt64LittleEndian(bytes);
    }
}
