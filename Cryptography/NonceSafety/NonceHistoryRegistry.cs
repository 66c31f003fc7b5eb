// Where guards of the same key find each other: a process-wide map from a key fingerprint to the
// shared NonceHistory, reference-counted by the guards that hold it. The fingerprint is
// HMAC-SHA-256 under a random per-process key of (algorithm name || key), truncated to 128 bits,
// so the map never holds the key or anything from which it could be tested offline.

using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Security.Cryptography;
using System.Text;
using System.Threading;

namespace Cryptography.NonceSafety;

internal static class NonceHistoryRegistry
{
    private static readonly byte[] s_fingerprintKey = RandomNumberGenerator.GetBytes(32);
    private static readonly Lock s_lock = new();
    private static readonly Dictionary<(ulong, ulong), Registration> s_histories = [];

    /// <summary>The history a new guard should use: shared by key, or its own.</summary>
    public static NonceHistory Acquire(string algorithm, ReadOnlySpan<byte> key, NonceGuardOptions options)
    {
        (ulong low, ulong high) = Fingerprint(algorithm, key);
        if (!options.ShareHistory)
        {
            return new NonceHistory(options, low, high);
        }

        lock (s_lock)
        {
            if (s_histories.TryGetValue((low, high), out Registration? registration))
            {
                registration.Holders++;
                return registration.History;
            }

            var history = new NonceHistory(options, low, high);
            s_histories.Add((low, high), new Registration(history));
            return history;
        }
    }

    /// <summary>A guard is done with its history; the last holder of a shared one removes it.</summary>
    public static void Release(NonceHistory history)
    {
        lock (s_lock)
        {
            if (s_histories.TryGetValue((history.FingerprintLow, history.FingerprintHigh), out Registration? registration)
                && ReferenceEquals(registration.History, history)
                && --registration.Holders == 0)
            {
                s_histories.Remove((history.FingerprintLow, history.FingerprintHigh));
            }
        }
    }

    /// <summary>How many shared histories exist now; for tests.</summary>
    internal static int Count
    {
        get
        {
            lock (s_lock)
            {
                return s_histories.Count;
            }
        }
    }

    private static (ulong Low, ulong High) Fingerprint(string algorithm, ReadOnlySpan<byte> key)
    {
        int nameLength = Encoding.ASCII.GetByteCount(algorithm);
        // On the stack, not the heap: the garbage collector could leave a copy of a heap array behind.
        Span<byte> input = stackalloc byte[nameLength + 1 + key.Length];
        try
        {
            Encoding.ASCII.GetBytes(algorithm, input);
            input[nameLength] = 0;
            key.CopyTo(input[(nameLength + 1)..]);
            Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
            HMACSHA256.HashData(s_fingerprintKey, input, mac);
            return (BinaryPrimitives.ReadUInt64LittleEndian(mac), BinaryPrimitives.ReadUInt64LittleEndian(mac[8..]));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(input);
        }
    }

    private sealed class Registration(NonceHistory history)
    {
        public NonceHistory History { get; } = history;

        public int Holders { get; set; } = 1;
    }
}
