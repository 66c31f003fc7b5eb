// Every test runs against every backend this machine has, in-process. Primitives exposes each
// backend's building blocks (AES blocks, CTR, POLYVAL, key derivation) so tests can pin down
// which step is wrong, and hardware backends can be compared with the portable one per primitive.

using System;
using System.Linq;
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
    public static Primitives For(AesGcmSivBackend backend) => backend switch
    {
        AesGcmSivBackend.AesNiVpclmulqdq => new Primitives<AesVector<AesNi>, PolyvalVpclmulqdq>(),
        AesGcmSivBackend.AesNiPclmulqdq => new Primitives<AesVector<AesNi>, PolyvalClmul<Pclmul>>(),
        AesGcmSivBackend.Arm64 => new Primitives<AesVector<AesArm64>, PolyvalClmul<Pmull>>(),
        AesGcmSivBackend.PortableFlat => new Primitives<AesPortableFlat, PolyvalPortable>(),
        _ => new Primitives<AesPortable, PolyvalPortable>(),
    };

    public static int Rounds(byte[] key) => key.Length == 16 ? 10 : 14;

    public abstract byte[] EncryptBlocks(byte[] key, byte[] blocks);

    public abstract byte[] Ctr32(byte[] key, byte[] counterBlock, byte[] input);

    /// <summary>POLYVAL(H, data) from a zero accumulator; data is whole blocks, fed in pieces of <paramref name="piece"/> bytes.</summary>
    public abstract byte[] Polyval(byte[] h, byte[] data, int piece = int.MaxValue);

    /// <summary>The RFC's record-authentication key and record-encryption key for (key, nonce).</summary>
    public abstract (byte[] Authentication, byte[] Encryption) DeriveKeys(byte[] key, byte[] nonce);
}

internal sealed class Primitives<TAes, TPolyval> : Primitives
    where TAes : IAes
    where TPolyval : IPolyval
{
    public override byte[] EncryptBlocks(byte[] key, byte[] blocks)
    {
        AesKeySchedule schedule = default;
        TAes.ExpandKey(key, ref schedule);
        byte[] output = new byte[blocks.Length];
        TAes.EncryptBlocks(in schedule, Rounds(key), blocks, output);
        return output;
    }

    public override byte[] Ctr32(byte[] key, byte[] counterBlock, byte[] input)
    {
        AesKeySchedule schedule = default;
        TAes.ExpandKey(key, ref schedule);
        byte[] output = new byte[input.Length];
        TAes.Ctr32(in schedule, Rounds(key), counterBlock, input, output);
        return output;
    }

    public override byte[] Polyval(byte[] h, byte[] data, int piece = int.MaxValue)
    {
        PolyvalKey key = default;
        TPolyval.Init(h, Math.Min(data.Length, piece) / 16, ref key);
        byte[] accumulator = new byte[16];
        for (int offset = 0; offset < data.Length; offset += piece)
        {
            TPolyval.Update(in key, accumulator, data.AsSpan(offset, Math.Min(piece, data.Length - offset)));
        }

        return accumulator;
    }

    public override (byte[] Authentication, byte[] Encryption) DeriveKeys(byte[] key, byte[] nonce)
    {
        AesKeySchedule schedule = default;
        TAes.ExpandKey(key, ref schedule);
        byte[] derived = new byte[96];
        int encryptionKeyLength = GcmSiv<TAes, TPolyval>.DeriveKeyMaterial(in schedule, Rounds(key), nonce, derived);
        return (derived[..16], derived[16..(16 + encryptionKeyLength)]);
    }
}
