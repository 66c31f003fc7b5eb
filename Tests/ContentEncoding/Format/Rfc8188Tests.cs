// RFC 8188 section 3 examples, byte for byte: 3.1 (one record, rs 4096, no key id) with the
// intermediate PRK-derived values, and 3.2 (two records, rs 25, key id "a1", one byte of padding
// in the first record), through every decoding path and re-encoded with the examples' salts.

using System;
using System.IO;
using System.Text;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class Rfc8188Tests
{
    // The RFC\'s examples are aes128gcm; the library\'s default coding is aes256gcmsiv.
    private static readonly ContentEncodingOptions Gcm = new() { Coding = ContentCoding.Aes128Gcm };

    private static readonly byte[] Walrus = Encoding.ASCII.GetBytes("I am the walrus");

    // Section 3.1
    private static readonly byte[] Ikm31 = Base64Url.Decode("yqdlZ-tYemfogSmv7Ws5PQ");
    private static readonly byte[] Salt31 = Base64Url.Decode("I1BsxtFttlv3u_Oo94xnmw");
    private static readonly byte[] Body31 = Base64Url.Decode("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg");

    // Section 3.2
    private static readonly byte[] Ikm32 = Base64Url.Decode("BO3ZVPxUlnLORbVGMpbT1Q");
    private static readonly byte[] Body32 = Base64Url.Decode("uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA");

    [Test]
    public void Section31KeyScheduleGivesTheRfcCekAndNonce()
    {
        byte[] cek = new byte[16];
        byte[] nonce = new byte[12];
        RecordCipher.DeriveKeys(ContentCoding.Aes128Gcm, Ikm31, Salt31, cek, nonce);
        Assert.Multiple(() =>
        {
            Assert.That(Base64Url.Encode(cek), Is.EqualTo("_wniytB-ofscZDh4tbSjHw"), "CEK");
            Assert.That(Base64Url.Encode(nonce), Is.EqualTo("Bcs8gkIRKLI8GeI8"), "NONCE");
        });

        // PRK = HMAC-SHA-256(salt, IKM): the step HKDF.Extract performs inside DeriveKeys.
        byte[] prk = System.Security.Cryptography.HMACSHA256.HashData(Salt31, Ikm31);
        Assert.That(Base64Url.Encode(prk), Is.EqualTo("zyeH5phsIsgUyd4oiSEIy35x-gIi4aM7y0hCF8mwn9g"), "PRK");
    }

    [Test]
    public void Section31HeaderParses()
    {
        ContentEncodingHeader header = ContentEncodingHeader.Parse(Body31);
        Assert.Multiple(() =>
        {
            Assert.That(header.Salt.ToArray(), Is.EqualTo(Salt31));
            Assert.That(header.RecordSize, Is.EqualTo(4096));
            Assert.That(header.KeyId.Length, Is.Zero);
            Assert.That(header.Length, Is.EqualTo(21));
        });
    }

    [Test]
    public void Section31EncryptsByteForByte()
    {
        byte[] body = new byte[ContentEncryption.GetEncryptedLength(Walrus.Length, new ContentEncodingOptions { RecordSize = 4096 })];
        int written = ContentEncryption.Encrypt(Walrus, Ikm31, body, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 4096 }, salt: Salt31);
        Assert.That(written, Is.EqualTo(Body31.Length));
        Assert.That(Base64Url.Encode(body), Is.EqualTo(Base64Url.Encode(Body31)));
    }

    [Test]
    public void Section31EncryptingStreamWritesTheRfcBytes()
    {
        var output = new MemoryStream();
        using (var stream = new ContentEncryptingStream(output, Ikm31, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 4096 }, salt: Salt31, leaveOpen: true))
        {
            stream.Write(Walrus);
            stream.FlushFinalBlock();
        }

        Assert.That(output.ToArray(), Is.EqualTo(Body31));
    }

    [Test]
    public void Section32EncryptsByteForByteWithTheRfcPadding()
    {
        // The example's first record carries 7 bytes of data, the delimiter and one byte of padding
        // (7 + 1 + 1 + 16 = rs 25); the second carries the remaining 8 bytes and the last delimiter.
        ContentEncodingHeader expected = ContentEncodingHeader.Parse(Body32);
        using var encryptor = new ContentEncryptor(Ikm32, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 25, KeyId = ("a1"u8).ToArray() }, salt: expected.Salt.Span);
        byte[] body = new byte[Body32.Length];
        int written = encryptor.Header.WriteTo(body);
        written += encryptor.EncryptRecord(Walrus.AsSpan(0, 7), body.AsSpan(written), isLastRecord: false, paddingLength: 1);
        written += encryptor.EncryptRecord(Walrus.AsSpan(7), body.AsSpan(written), isLastRecord: true);
        Assert.That(written, Is.EqualTo(Body32.Length));
        Assert.That(Base64Url.Encode(body), Is.EqualTo(Base64Url.Encode(Body32)));
        Assert.That(encryptor.IsComplete, Is.True);
    }

    [Test]
    public void Section32HeaderParses()
    {
        ContentEncodingHeader header = ContentEncodingHeader.Parse(Body32);
        Assert.That((header.RecordSize, Encoding.ASCII.GetString(header.KeyId.Span), header.Length), Is.EqualTo((25, "a1", 23)));
    }

    [Test]
    public void Section32RecordsOpenOneByOne()
    {
        ContentEncodingHeader header = ContentEncodingHeader.Parse(Body32);
        using var decryptor = new ContentDecryptor(header, Ikm32, Gcm);
        byte[] plaintext = new byte[9];
        int first = decryptor.DecryptRecord(Body32.AsSpan(23, 25), plaintext, out bool firstIsLast);
        Assert.That((Encoding.ASCII.GetString(plaintext, 0, first), firstIsLast), Is.EqualTo(("I am th", false)));
        int second = decryptor.DecryptRecord(Body32.AsSpan(48), plaintext, out bool secondIsLast);
        Assert.That((Encoding.ASCII.GetString(plaintext, 0, second), secondIsLast), Is.EqualTo(("e walrus", true)));
        Assert.DoesNotThrow(decryptor.Complete);
    }

    [Test]
    public async Task BothExamplesDecryptThroughEveryPath()
    {
        foreach ((byte[] body, byte[] ikm) in new[] { (Body31, Ikm31), (Body32, Ikm32) })
        {
            Assert.That(ContentEncryption.Decrypt(body, ikm, Gcm), Is.EqualTo(Walrus));
            byte[] destination = new byte[ContentEncryption.GetMaxDecryptedLength(body, body.Length)];
            int length = ContentEncryption.Decrypt(body, ikm, destination, Gcm);
            Assert.That(destination.AsSpan(0, length).ToArray(), Is.EqualTo(Walrus));
            Assert.That(destination.AsSpan(length).IndexOfAnyExcept((byte)0), Is.EqualTo(-1), "padding left in the destination");

            Assert.That(Decoders.ReadAll(new ContentDecryptingStream(new MemoryStream(body), ikm, Gcm), 1), Is.EqualTo(Walrus));
            Assert.That(Decoders.ReadAll(new ContentDecryptingStream(new MemoryStream(body), ikm, Gcm), 4096), Is.EqualTo(Walrus));
            Assert.That(await Decoders.ReadAllAsync(new ContentDecryptingStream(new MemoryStream(body), ikm, Gcm), 3), Is.EqualTo(Walrus));
        }
    }

    [Test]
    public void Section32DecryptsWithAKeyProviderKeyedByKeyId()
    {
        bool Provider(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten) =>
            KeyProviders.Write(keyId.SequenceEqual("a1"u8) && coding == ContentCoding.Aes128Gcm ? Ikm32 : null, destination, out bytesWritten);

        Assert.That(ContentEncryption.Decrypt(Body32, Provider, Gcm), Is.EqualTo(Walrus));
        Assert.That(Decoders.ReadAll(new ContentDecryptingStream(new MemoryStream(Body32), Provider, Gcm), 100), Is.EqualTo(Walrus));

        var unknown = Assert.Throws<ContentEncodingHeaderException>(() => ContentEncryption.Decrypt(Body31, Provider, Gcm));
        Assert.That(unknown!.Message, Does.Contain("key id"));
    }
}

/// <summary>base64url without padding, as RFC 8188's examples write their values.</summary>
internal static class Base64Url
{
    public static byte[] Decode(string text) => System.Buffers.Text.Base64Url.DecodeFromChars(text);

    public static string Encode(ReadOnlySpan<byte> bytes) => System.Buffers.Text.Base64Url.EncodeToString(bytes);
}
