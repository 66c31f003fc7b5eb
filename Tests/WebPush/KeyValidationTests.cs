// Key validation that the library does itself (issue 35), so that it does not depend on when the
// platform checks: .NET 10 refused a bad P-256 scalar inside ECDsa.Create / ECDiffieHellman.Create,
// .NET 11.0.0 accepts it there and fails at first use, naming another parameter. Every import of a
// private scalar (VAPID, Web Push user agent keys) and of a peer's public point (p256dh, the body's
// key id) must give the same exception, naming the same parameter, with the same message, on both
// runtimes. The .NET 11 CI leg (.ci/net11) runs these on .NET 11.

using System;
using System.Linq;
using System.Numerics;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class KeyValidationTests
{
    // n, the order of P-256's base point, and G's coordinates (SP 800-186 section 3.2.1.3).
    private const string OrderHex = "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551";
    private const string GxHex = "6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296";
    private const string GyHex = "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5";
    private const string PrimeHex = "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF";

    private static readonly BigInteger Order = new(Convert.FromHexString(OrderHex), isUnsigned: true, isBigEndian: true);

    private static byte[] Scalar(BigInteger value)
    {
        byte[] bytes = new byte[32];
        Assert.That(value.TryWriteBytes(bytes.AsSpan(32 - value.GetByteCount(isUnsigned: true)), out _, isUnsigned: true, isBigEndian: true), Is.True);
        return bytes;
    }

    public static readonly object[] InvalidScalars =
    [
        new object[] { "0", Scalar(BigInteger.Zero) },
        new object[] { "n", Scalar(Order) },
        new object[] { "n+1", Scalar(Order + 1) },
        new object[] { "2^256-1", Enumerable.Repeat((byte)0xFF, 32).ToArray() },
    ];

    private static void AssertRefusedAtImport(Action import, string parameterName)
    {
        var exception = Assert.Throws<ArgumentException>(() => import())!;
        Assert.Multiple(() =>
        {
            Assert.That(exception.GetType(), Is.EqualTo(typeof(ArgumentException)));
            Assert.That(exception.ParamName, Is.EqualTo(parameterName));
            Assert.That(exception.Message, Does.StartWith(WebPushMessages.PrivateKeyInvalid));
        });
    }

    [TestCaseSource(nameof(InvalidScalars))]
    public void VapidImportRefusesAScalarOutsideOneToNMinusOne(string name, byte[] scalar) =>
        AssertRefusedAtImport(() => VapidAuthorization.ImportPrivateKey(scalar).Dispose(), "privateKey");

    [TestCaseSource(nameof(InvalidScalars))]
    public void WebPushImportRefusesAScalarOutsideOneToNMinusOne(string name, byte[] scalar) =>
        AssertRefusedAtImport(() => WebPushEncryption.ImportPrivateKey(scalar).Dispose(), "privateKey");

    [TestCaseSource(nameof(InvalidScalars))]
    public void DecryptingWithARawScalarOutsideOneToNMinusOneNamesThatScalar(string name, byte[] scalar)
    {
        var (key, auth, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt("x"u8, subscription);
            AssertRefusedAtImport(() => WebPushEncryption.Decrypt(body, scalar, auth), "userAgentPrivateKey");
        }
    }

    [Test]
    public void TheEdgesOfTheRangeAreAcceptedAndTheirPublicPointsComputedAtImport()
    {
        // d = 1 gives G; d = n - 1 gives -G = (Gx, p - Gy). Both keys are usable at once.
        byte[] gx = Convert.FromHexString(GxHex);
        byte[] gy = Convert.FromHexString(GyHex);
        byte[] minusGy = Scalar(new BigInteger(Convert.FromHexString(PrimeHex), true, true) - new BigInteger(gy, true, true));
        foreach ((byte[] scalar, byte[] y) in new[] { (Scalar(BigInteger.One), gy), (Scalar(Order - 1), minusGy) })
        {
            using ECDsa vapid = VapidAuthorization.ImportPrivateKey(scalar);
            using ECDiffieHellman webPush = WebPushEncryption.ImportPrivateKey(scalar);
            Assert.Multiple(() =>
            {
                Assert.That(vapid.ExportParameters(false).Q.X, Is.EqualTo(gx));
                Assert.That(vapid.ExportParameters(false).Q.Y, Is.EqualTo(y));
                Assert.That(webPush.ExportParameters(false).Q.X, Is.EqualTo(gx));
                Assert.That(webPush.ExportParameters(false).Q.Y, Is.EqualTo(y));
                Assert.That(VapidAuthorization.Create(new Uri("https://push.example.net/1"), "mailto:a@example.com", vapid).Scheme, Is.EqualTo("vapid"));
            });
        }
    }

    [Test]
    public void TheScalarRangeCheckAgreesWithArithmetic()
    {
        // Around 0, around n, and random values (seeded; the seed is in the failure message).
        int seed = Environment.TickCount;
        var random = new Random(seed);
        var values = new[] { BigInteger.Zero, BigInteger.One, new BigInteger(2), Order - 2, Order - 1, Order, Order + 1, (BigInteger.One << 256) - 1 }.ToList();
        for (int i = 0; i < 2000; i++)
        {
            byte[] bytes = new byte[32];
            random.NextBytes(bytes);
            // Half of them share n's first bytes, so the comparison runs deep.
            if (i % 2 == 0)
            {
                Convert.FromHexString(OrderHex).AsSpan(0, random.Next(1, 32)).CopyTo(bytes);
            }

            values.Add(new BigInteger(bytes, isUnsigned: true, isBigEndian: true));
        }

        foreach (BigInteger value in values)
        {
            bool expected = value >= 1 && value < Order;
            Assert.That(P256.IsValidPrivateScalar(Scalar(value)), Is.EqualTo(expected), $"d = {value:X}, seed {seed}");
        }

        Assert.That(P256.IsValidPrivateScalar(new byte[31]), Is.False);
        Assert.That(P256.IsValidPrivateScalar(new byte[33]), Is.False);
    }

    [Test]
    public void PointsOffTheCurveOrAtInfinityAreRefusedBeforeThePlatformSeesThem()
    {
        byte[] gx = Convert.FromHexString(GxHex);
        byte[] gy = Convert.FromHexString(GyHex);
        byte[] p = Convert.FromHexString(PrimeHex);
        byte[] flipped = (byte[])gy.Clone();
        flipped[31] ^= 1;
        Assert.Multiple(() =>
        {
            Assert.That(P256.IsOnCurve(gx, gy), Is.True, "G");
            Assert.That(P256.IsOnCurve(gx, flipped), Is.False, "G with one bit of y changed");
            Assert.That(P256.IsOnCurve(new byte[32], new byte[32]), Is.False, "(0, 0), the encoding some libraries give the identity");
            Assert.That(P256.IsOnCurve(p, gy), Is.False, "x = p");
            Assert.That(P256.IsOnCurve(gx, p), Is.False, "y = p");
        });

        byte[] auth = new byte[16];
        foreach ((string name, byte[] x, byte[] y) in new[] { ("off the curve", gx, flipped), ("(0, 0)", new byte[32], new byte[32]), ("x = p", p, gy) })
        {
            byte[] point = [0x04, .. x, .. y];
            var exception = Assert.Throws<ArgumentException>(() => new WebPushSubscriptionKeys(point, auth), name)!;
            Assert.That(exception.ParamName, Is.EqualTo("p256dh"), name);
            Assert.That(exception.Message, Does.StartWith(WebPushMessages.PublicKeyNotOnCurve), name);
        }
    }

    [Test]
    public void AKeyIdAtInfinityIsAHeaderError()
    {
        // The body's key id is the application server's public point; (0, 0) is refused as a header error.
        var (key, auth, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt("x"u8, subscription);
            body.AsSpan(22, 64).Clear(); // salt 16, rs 4, idlen 1, then 0x04 and X, Y
            Assert.That(body[21], Is.EqualTo(0x04));
            Assert.Throws<ContentEncodingHeaderException>(() => WebPushEncryption.Decrypt(body, key, auth));
        }
    }
}
