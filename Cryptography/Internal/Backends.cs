// Which instruction sets this process has, and the one decision of which backend runs: made once,
// widest first. Everything after this point is specialised per backend by GcmSiv<TAes, TPolyval>.
//
// A hardware backend is chosen only after a known-answer self-test against the portable backend
// (which the test suite checks against RFC 8452 on every machine). A backend that CI could not
// execute (ARM64 here) therefore falls back to portable rather than produce wrong bytes.

using System;
using System.Globalization;
using System.Security.Cryptography;

namespace Cryptography.Internal;

internal static class Backends
{
    private static readonly AesGcmSivBackend[] Widest =
        [AesGcmSivBackend.AesNiVpclmulqdq, AesGcmSivBackend.AesNiPclmulqdq, AesGcmSivBackend.Arm64, AesGcmSivBackend.Portable];

    /// <summary>The backend new instances use: the widest this machine supports that passes its self-test.</summary>
    public static readonly AesGcmSivBackend Active = Choose();

    /// <summary>Every backend this machine can run, widest first; tests and benchmarks iterate it.</summary>
    public static AesGcmSivBackend[] Supported() => Array.FindAll(Widest, IsSupported);

    public static bool IsSupported(AesGcmSivBackend backend) => backend switch
    {
        AesGcmSivBackend.AesNiVpclmulqdq => AesNi.IsSupported && PolyvalVpclmulqdq.IsSupported,
        AesGcmSivBackend.AesNiPclmulqdq => AesNi.IsSupported && PolyvalPclmulqdq.IsSupported,
        AesGcmSivBackend.Arm64 => AesArm64.IsSupported && PolyvalPmull.IsSupported,
        AesGcmSivBackend.Portable => true,
        _ => false,
    };

    public static void ExpandKey(AesGcmSivBackend backend, ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        switch (backend)
        {
            case AesGcmSivBackend.AesNiVpclmulqdq:
            case AesGcmSivBackend.AesNiPclmulqdq:
                AesNi.ExpandKey(key, ref schedule);
                break;
            case AesGcmSivBackend.Arm64:
                AesArm64.ExpandKey(key, ref schedule);
                break;
            case AesGcmSivBackend.Portable:
                AesPortable.ExpandKey(key, ref schedule);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(backend), string.Format(CultureInfo.InvariantCulture, Messages.UnknownBackend, backend));
        }
    }

    public static void Encrypt(AesGcmSivBackend backend, in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        switch (backend)
        {
            case AesGcmSivBackend.AesNiVpclmulqdq:
                GcmSiv<AesNi, PolyvalVpclmulqdq>.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
                break;
            case AesGcmSivBackend.AesNiPclmulqdq:
                GcmSiv<AesNi, PolyvalPclmulqdq>.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
                break;
            case AesGcmSivBackend.Arm64:
                GcmSiv<AesArm64, PolyvalPmull>.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
                break;
            default:
                GcmSiv<AesPortable, PolyvalPortable>.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
                break;
        }
    }

    public static bool Decrypt(AesGcmSivBackend backend, in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) => backend switch
    {
        AesGcmSivBackend.AesNiVpclmulqdq => GcmSiv<AesNi, PolyvalVpclmulqdq>.Decrypt(in schedule, rounds, nonce, ciphertext, tag, plaintext, associatedData),
        AesGcmSivBackend.AesNiPclmulqdq => GcmSiv<AesNi, PolyvalPclmulqdq>.Decrypt(in schedule, rounds, nonce, ciphertext, tag, plaintext, associatedData),
        AesGcmSivBackend.Arm64 => GcmSiv<AesArm64, PolyvalPmull>.Decrypt(in schedule, rounds, nonce, ciphertext, tag, plaintext, associatedData),
        _ => GcmSiv<AesPortable, PolyvalPortable>.Decrypt(in schedule, rounds, nonce, ciphertext, tag, plaintext, associatedData),
    };

    private static AesGcmSivBackend Choose()
    {
        foreach (AesGcmSivBackend backend in Supported())
        {
            if (backend == AesGcmSivBackend.Portable || PassesSelfTest(backend))
            {
                return backend;
            }
        }

        return AesGcmSivBackend.Portable;
    }

    /// <summary>
    /// Encrypts and decrypts a fixed message with both key sizes on <paramref name="backend"/> and
    /// on the portable backend and compares. 300 bytes of plaintext and 200 of AAD reach every path
    /// of a backend: 8-block CTR batches and single blocks, a partial block, aggregated and
    /// one-block POLYVAL, and the 4- and 6-block key derivation.
    /// </summary>
    internal static bool PassesSelfTest(AesGcmSivBackend backend)
    {
        byte[] key = new byte[32];
        byte[] nonce = new byte[12];
        byte[] plaintext = new byte[300];
        byte[] associatedData = new byte[200];
        FillPattern(key, 1);
        FillPattern(nonce, 2);
        FillPattern(plaintext, 3);
        FillPattern(associatedData, 4);

        byte[] expected = new byte[plaintext.Length + 16];
        byte[] actual = new byte[plaintext.Length + 16];
        byte[] decrypted = new byte[plaintext.Length];
        AesKeySchedule reference = default;
        AesKeySchedule candidate = default;
        foreach (int keyLength in (ReadOnlySpan<int>)[16, 32])
        {
            int rounds = keyLength == 16 ? 10 : 14;
            ExpandKey(AesGcmSivBackend.Portable, key.AsSpan(0, keyLength), ref reference);
            ExpandKey(backend, key.AsSpan(0, keyLength), ref candidate);
            Encrypt(AesGcmSivBackend.Portable, in reference, rounds, nonce, plaintext, expected.AsSpan(0, plaintext.Length), expected.AsSpan(plaintext.Length), associatedData);
            Encrypt(backend, in candidate, rounds, nonce, plaintext, actual.AsSpan(0, plaintext.Length), actual.AsSpan(plaintext.Length), associatedData);
            if (!CryptographicOperations.FixedTimeEquals(expected, actual)
                || !Decrypt(backend, in candidate, rounds, nonce, actual.AsSpan(0, plaintext.Length), actual.AsSpan(plaintext.Length), decrypted, associatedData)
                || !decrypted.AsSpan().SequenceEqual(plaintext))
            {
                return false;
            }
        }

        return true;
    }

    private static void FillPattern(Span<byte> buffer, int seed)
    {
        for (int i = 0; i < buffer.Length; i++)
        {
            buffer[i] = (byte)((i * 31) + (seed * 17) + (i >> 3));
        }
    }
}
