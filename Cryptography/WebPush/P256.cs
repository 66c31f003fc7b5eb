// The checks on P-256 keys that Web Push (RFC 8291) and VAPID (RFC 8292) import, made here rather
// than left to the platform: SEC 1 v2 section 3.2.2 (a private scalar d is in [1, n-1]) and
// section 3.2.2.1 / NIST SP 800-56A rev. 3 section 5.6.2.3.4 (a public point is not the identity,
// its coordinates are in [0, p-1], and it satisfies y^2 = x^3 - 3x + b mod p).
//
// .NET 10 on OpenSSL refused a bad scalar or point inside ECDsa.Create(ECParameters) and
// ECDiffieHellman.Create(ECParameters); .NET 11 defers that work to the key's first use, where the
// error named the wrong parameter. These checks make the answer the same on every runtime, and
// ForceImport makes whatever work the platform still defers happen while the caller is importing.

using System;
using System.Numerics;
using System.Security.Cryptography;
using Cryptography.WebPush;

namespace Cryptography.Internal;

internal static class P256
{
    /// <summary>The length of a scalar or a coordinate: 32 bytes.</summary>
    public const int FieldSize = 32;

    // n, the order of the base point G (FIPS 186-5 / SP 800-186 section 3.2.1.3), big-endian.
    private static ReadOnlySpan<byte> Order =>
    [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ];

    // p = 2^256 - 2^224 + 2^192 + 2^96 - 1 and b, from the same section. Public values only meet these.
    private static readonly BigInteger Prime = BigInteger.Parse("0FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF", System.Globalization.NumberStyles.HexNumber);
    private static readonly BigInteger B = BigInteger.Parse("05AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B", System.Globalization.NumberStyles.HexNumber);

    /// <summary>Whether <paramref name="scalar"/> (32 bytes, big-endian) is in [1, n-1]. The scalar is a
    /// secret, so no branch and no index depends on its bytes: the comparison with n is a subtraction
    /// whose final borrow says d &lt; n, and zero is an OR over every byte.</summary>
    public static bool IsValidPrivateScalar(ReadOnlySpan<byte> scalar)
    {
        if (scalar.Length != FieldSize)
        {
            return false;
        }

        ReadOnlySpan<byte> order = Order;
        int borrow = 0;
        int any = 0;
        for (int i = FieldSize - 1; i >= 0; i--)
        {
            // d - n, byte by byte from the least significant end; borrow is 0 or 1.
            int difference = scalar[i] - order[i] - borrow;
            borrow = (difference >> 8) & 1;
            any |= scalar[i];
        }

        // borrow == 1 exactly when d < n; any != 0 exactly when d != 0.
        int nonZero = ((any | -any) >> 31) & 1;
        return (borrow & nonZero) == 1;
    }

    /// <summary>Whether (x, y) (32 bytes each, big-endian) is a point of P-256 other than the identity:
    /// both coordinates below p and y^2 = x^3 - 3x + b (mod p). The identity has no affine coordinates;
    /// the (0, 0) some encoders use for it fails the equation, as b is not 0.</summary>
    public static bool IsOnCurve(ReadOnlySpan<byte> x, ReadOnlySpan<byte> y)
    {
        if (x.Length != FieldSize || y.Length != FieldSize)
        {
            return false;
        }

        var px = new BigInteger(x, isUnsigned: true, isBigEndian: true);
        var py = new BigInteger(y, isUnsigned: true, isBigEndian: true);
        if (px >= Prime || py >= Prime)
        {
            return false;
        }

        BigInteger left = py * py % Prime;
        BigInteger right = ((px * px % Prime * px) - (3 * px) + B) % Prime;
        if (right.Sign < 0)
        {
            right += Prime;
        }

        return left == right;
    }

    /// <summary>Makes the platform do, now, whatever import work it may defer (.NET 11 computes the public
    /// point of a key given only d at first use), and checks the point it arrives at.</summary>
    /// <exception cref="CryptographicException">The platform refuses the key, or its public point is not on the curve.</exception>
    public static void ForceImport(ECAlgorithm key)
    {
        ECParameters parameters = key.ExportParameters(includePrivateParameters: false);
        if (parameters.Q.X is not { } x || parameters.Q.Y is not { } y || !IsOnCurve(x, y))
        {
            throw new CryptographicException(WebPushMessages.NotOnCurve);
        }
    }

    /// <summary>Imports a raw private key (the scalar d, 32 bytes, big-endian) as <typeparamref name="T"/>,
    /// checked here and with the platform's work done before it returns.</summary>
    /// <exception cref="ArgumentException"><paramref name="privateKey"/> is not 32 bytes, or d is not in [1, n-1]
    /// (named <paramref name="parameterName"/>, with the same message on every runtime).</exception>
    public static T ImportPrivateKey<T>(ReadOnlySpan<byte> privateKey, string parameterName, Func<ECParameters, T> create)
        where T : ECAlgorithm
    {
        if (privateKey.Length != FieldSize)
        {
            throw new ArgumentException(string.Format(System.Globalization.CultureInfo.InvariantCulture, WebPushMessages.PrivateKeySize, privateKey.Length), parameterName);
        }

        if (!IsValidPrivateScalar(privateKey))
        {
            throw new ArgumentException(WebPushMessages.PrivateKeyInvalid, parameterName);
        }

        byte[] d = privateKey.ToArray();
        T? key = null;
        try
        {
            key = create(new ECParameters { Curve = ECCurve.NamedCurves.nistP256, D = d });
            ForceImport(key);
            return key;
        }
        catch (CryptographicException exception)
        {
            key?.Dispose();
            throw new ArgumentException(WebPushMessages.PrivateKeyInvalid, parameterName, exception);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(d);
        }
    }
}
