// Every test runs against every backend this machine has, in-process. Primitives exposes each
// backend's building blocks (AES blocks, CTR, POLYVAL, key derivation) so tests can pin down
// which step is wrong, and hardware backends can be compared with the portable one per primitive.

using System;
using System.Linq;
using System.Runtime.InteropServices;
using Cryptography;
using Cryptography.Internal;

namespace Tests;

public static class TestBackends
{
    /// <summary>Every backend this machine supports, widest first.</summary>
    public static AesGcmSivBackend[] All => Backends.Supported();

    /// <summary>Every hardware backend this machine supports (compared against portable).</summary>
    public static AesGcmSivBackend[] Hardware => Backends.Supported().Where(b => b != AesGcmSivBackend.Portable).ToArray();
}

internal abstract class Primitives
{
    // The hardware backends' primitives are in HardwarePrimitives.cs (net10.0); the .NET Framework
    // test build (Tests.Mono) has only the software backends.
    public static Primitives For(AesGcmSivBackend backend) => HardwarePrimitives.For(backend) ?? backend switch
    {
        _ => new Primitives<AesPortable, PolyvalPortable>(),
    };

    public static int Rounds(byte[] key) => key.Length == 16 ? 10 : 14;

    public abstract byte[] EncryptBlocks(byte[] key, byte[] blocks);

    public abstract byte[] Ctr32(byte[] key, byte[] counterBlock, byte[] input);

    /// <summary>POLYVAL(H, data) from a zero accumulator; data is whole blocks, fed in pieces of <paramref name="piece"/> bytes.</summary>
    public abstract byte[] Polyval(byte[] h, byte[] data, int piece = int.MaxValue);

    /// <summary>
    /// POLYVAL(H, data) as GcmSiv's last absorb calls it: the first <paramref name="head"/> bytes by
    /// one Update, then the rest but the last <paramref name="last"/> bytes and those last bytes by
    /// the two-part Update, with the key prepared for the blocks before the last ones.
    /// </summary>
    public abstract byte[] PolyvalInTwoParts(byte[] h, byte[] data, int head, int last);

    /// <summary>The RFC's record-authentication key and record-encryption key for (key, nonce).</summary>
    public abstract (byte[] Authentication, byte[] Encryption) DeriveKeys(byte[] key, byte[] nonce);

    /// <summary>
    /// What a message of <paramref name="blockCount"/> POLYVAL blocks stores in its per-message state,
    /// as this backend lays it out: every 16-byte entry of the POLYVAL key table that Init writes
    /// (H, the powers of H it computes, their Karatsuba halves) and of the expanded message-encryption
    /// key, each named by its offset. What the per-message wipe must cover.
    /// </summary>
    public abstract (string Name, byte[] Value)[] MessageState(byte[] authenticationKey, byte[] encryptionKey, int blockCount);
}

internal sealed class Primitives<TAes, TPolyval> : Primitives
    where TAes : struct, IAes
    where TPolyval : struct, IPolyval
{
    public override byte[] EncryptBlocks(byte[] key, byte[] blocks)
    {
        AesKeySchedule schedule = default;
        default(TAes).ExpandKey(key, ref schedule);
        byte[] output = new byte[blocks.Length];
        default(TAes).EncryptBlocks(in schedule, Rounds(key), blocks, output);
        return output;
    }

    public override byte[] Ctr32(byte[] key, byte[] counterBlock, byte[] input)
    {
        AesKeySchedule schedule = default;
        default(TAes).ExpandKey(key, ref schedule);
        byte[] output = new byte[input.Length];
        default(TAes).Ctr32(in schedule, Rounds(key), counterBlock, input, output);
        return output;
    }

    public override byte[] Polyval(byte[] h, byte[] data, int piece = int.MaxValue)
    {
        PolyvalKey key = default;
        default(TPolyval).Init(h, Math.Min(data.Length, piece) / 16, ref key);
        byte[] accumulator = new byte[16];
        for (int offset = 0; offset < data.Length; offset += piece)
        {
            default(TPolyval).Update(in key, accumulator, data.AsSpan(offset, Math.Min(piece, data.Length - offset)));
        }

        return accumulator;
    }

    public override byte[] PolyvalInTwoParts(byte[] h, byte[] data, int head, int last)
    {
        PolyvalKey key = default;
        default(TPolyval).Init(h, (data.Length - last) / 16, ref key);
        byte[] accumulator = new byte[16];
        default(TPolyval).Update(in key, accumulator, data.AsSpan(0, head));
        default(TPolyval).Update(in key, accumulator, data.AsSpan(head, data.Length - head - last), data.AsSpan(data.Length - last));
        return accumulator;
    }

    public override (byte[] Authentication, byte[] Encryption) DeriveKeys(byte[] key, byte[] nonce)
    {
        AesKeySchedule schedule = default;
        default(TAes).ExpandKey(key, ref schedule);
        byte[] derived = new byte[96];
        int encryptionKeyLength = GcmSiv<TAes, TPolyval>.DeriveKeyMaterial(in schedule, Rounds(key), nonce, derived);
        return (derived[..16], derived[16..(16 + encryptionKeyLength)]);
    }

    public override (string Name, byte[] Value)[] MessageState(byte[] authenticationKey, byte[] encryptionKey, int blockCount)
    {
        PolyvalKey polyvalKey = default;
        default(TPolyval).Init(authenticationKey, blockCount, ref polyvalKey);
        AesKeySchedule schedule = default;
        default(TAes).ExpandKey(encryptionKey, ref schedule);
        byte[] table = MemoryMarshal.AsBytes(polyvalKey.AsSpan()).ToArray();
        byte[] roundKeys = MemoryMarshal.AsBytes(schedule.AsSpan())[..default(TAes).ScheduleBytes(Rounds(encryptionKey))].ToArray();
        return [.. Entries("POLYVAL key table", table), .. Entries("message-encryption key schedule", roundKeys)];
    }

    // The 16-byte entries that look like key material: a zero entry or a small count (how many powers
    // were computed) is no secret, and would match anywhere on a stack.
    private static (string Name, byte[] Value)[] Entries(string what, byte[] bytes) =>
        Enumerable.Range(0, bytes.Length / 16)
            .Select(i => ($"{what} bytes {i * 16}..{(i * 16) + 15}", bytes[(i * 16)..((i + 1) * 16)]))
            .Where(entry => entry.Item2.Distinct().Count() >= 8)
            .ToArray();
}
