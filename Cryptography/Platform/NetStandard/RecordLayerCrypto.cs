// What the record layer (ContentEncoding/, Internal/RecordCipher.cs) takes from System.Security.Cryptography
// and .NET 7 that .NET Standard 2.0 lacks, under the same names, so those files compile unchanged:
// HKDF (RFC 5869) over HMAC-SHA-256, an AesGcm that refuses to be made, and the few Int128 operations
// of one length computation.

using System;
using System.Security.Cryptography;

namespace Cryptography
{
    /// <summary>RFC 5869 HKDF with HMAC-SHA-256, the one hash the record layer uses (RFC 8188 section 2.2).</summary>
    internal static class HKDF
    {
        private const int HashLength = 32;

        /// <summary>RFC 5869 section 2.2: PRK = HMAC-Hash(salt, IKM).</summary>
        public static void Extract(HashAlgorithmName hashAlgorithmName, ReadOnlySpan<byte> ikm, ReadOnlySpan<byte> salt, Span<byte> prk)
        {
            CheckHash(hashAlgorithmName);
            if (prk.Length != HashLength)
            {
                throw new ArgumentException("The pseudorandom key must be 32 bytes.", nameof(prk));
            }

            // An empty salt is HashLength zeros (RFC 5869 section 2.2), which HMAC pads to the same key.
            byte[] key = salt.ToArray();
            byte[] input = ikm.ToArray();
            try
            {
                using HMACSHA256 hmac = new(key);
                byte[] result = hmac.ComputeHash(input);
                result.CopyTo(prk);
                CryptographicOperations.ZeroMemory(result);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(key);
                CryptographicOperations.ZeroMemory(input);
            }
        }

        /// <summary>RFC 5869 section 2.3: T(i) = HMAC-Hash(PRK, T(i-1) | info | i), output = T(1) | T(2) | ...</summary>
        public static void Expand(HashAlgorithmName hashAlgorithmName, ReadOnlySpan<byte> prk, Span<byte> output, ReadOnlySpan<byte> info)
        {
            CheckHash(hashAlgorithmName);
            if (output.Length > 255 * HashLength)
            {
                throw new ArgumentException("HKDF-Expand gives at most 255 * 32 bytes.", nameof(output));
            }

            byte[] key = prk.ToArray();
            // T(i-1) | info | i; T(0) is empty.
            byte[] block = new byte[HashLength + info.Length + 1];
            byte[]? previous = null;
            try
            {
                using HMACSHA256 hmac = new(key);
                int done = 0;
                for (byte counter = 1; done < output.Length; counter++)
                {
                    int start = previous is null ? HashLength : 0;
                    previous?.CopyTo(block, 0);
                    info.CopyTo(block.AsSpan(HashLength));
                    block[block.Length - 1] = counter;
                    if (previous is not null)
                    {
                        CryptographicOperations.ZeroMemory(previous);
                    }

                    previous = hmac.ComputeHash(block, start, block.Length - start);
                    int take = Math.Min(HashLength, output.Length - done);
                    previous.AsSpan(0, take).CopyTo(output.Slice(done));
                    done += take;
                }
            }
            finally
            {
                CryptographicOperations.ZeroMemory(key);
                CryptographicOperations.ZeroMemory(block);
                if (previous is not null)
                {
                    CryptographicOperations.ZeroMemory(previous);
                }
            }
        }

        private static void CheckHash(HashAlgorithmName hashAlgorithmName)
        {
            if (hashAlgorithmName != HashAlgorithmName.SHA256)
            {
                throw new CryptographicException("This HKDF supports SHA-256 only.");
            }
        }
    }

    /// <summary>Stands in for .NET's AesGcm, which .NET Standard 2.0 does not have (and which throws
    /// PlatformNotSupportedException on Mono): the aes128gcm coding cannot run in this build, and says what to use.</summary>
    internal sealed class AesGcm : IDisposable
    {
        internal const string NotSupported =
            "The aes128gcm content coding needs AES-GCM, which the netstandard2.0 build does not have (.NET Framework has no AesGcm, Mono's throws). Use aes256gcmsiv (ContentCoding.Aes256GcmSiv) instead.";

        public AesGcm(ReadOnlySpan<byte> key, int tagSizeInBytes) => throw new PlatformNotSupportedException(NotSupported);

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag) =>
            throw new PlatformNotSupportedException(NotSupported);

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext) =>
            throw new PlatformNotSupportedException(NotSupported);

        public void Dispose()
        {
        }
    }

    /// <summary>The Int128 operations of ContentEncryption.TryGetEncryptedLength: sums and products of a few
    /// longs and ints, whose results stay far below decimal's 96-bit range, so decimal holds them exactly.</summary>
    internal readonly struct Int128
    {
        private readonly decimal _value;

        private Int128(decimal value) => _value = value;

        public static implicit operator Int128(long value) => new(value);

        public static explicit operator long(Int128 value) => (long)value._value;

        public static Int128 operator +(Int128 left, Int128 right) => new(left._value + right._value);

        public static Int128 operator *(Int128 left, Int128 right) => new(left._value * right._value);

        public static bool operator <=(Int128 left, Int128 right) => left._value <= right._value;

        public static bool operator >=(Int128 left, Int128 right) => left._value >= right._value;
    }
}
