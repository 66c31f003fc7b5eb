// The public contract of the record-layer decoder types where no round trip reaches it: ContentDecryptor's
// argument checks, the record index its errors carry, what Dispose releases, and ContentEncodingHeader's
// bounds and checks. Mutation testing (docs/testing.md) found each of these untested: a build with the
// check removed passed the rest of the suite.

using System;
using System.Linq;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class DecoderContractTests
{
    private const int RecordSize = 100;
    private static readonly byte[] Ikm = Enumerable.Range(0, 32).Select(i => (byte)(i * 7 + 1)).ToArray();
    private static readonly byte[] Salt = Enumerable.Range(0, 16).Select(i => (byte)(i + 50)).ToArray();

    // Two full records (the second one the last) and the header they go with.
    private static (byte[] First, byte[] Last, ContentEncodingHeader Header) TwoRecords(ContentCoding coding)
    {
        using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }, salt: Salt);
        byte[] first = new byte[RecordSize], last = new byte[RecordSize];
        encryptor.EncryptRecord(new byte[encryptor.MaxRecordDataLength], first, isLastRecord: false);
        encryptor.EncryptRecord(new byte[encryptor.MaxRecordDataLength], last, isLastRecord: true);
        return (first, last, encryptor.Header);
    }

    [Test]
    public void TheConstructorRefusesANullHeaderAndAnUnknownCoding()
    {
        Assert.That(Assert.Throws<ArgumentNullException>(() => new ContentDecryptor(null!, Ikm))!.ParamName, Is.EqualTo("header"));
        var header = new ContentEncodingHeader(Salt, RecordSize, []);
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = (ContentCoding)2 }))!.ParamName, Is.EqualTo("value"));
    }

    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DecryptRecordRefusesBadBuffersByNameAndTakesNoRecordNumber(ContentCoding coding)
    {
        (byte[] first, _, ContentEncodingHeader header) = TwoRecords(coding);
        using var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecord(new byte[RecordSize + 1], new byte[RecordSize + 1], out _))!.ParamName, Is.EqualTo("record"));
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecord(first, new byte[RecordSize - 17], out _))!.ParamName, Is.EqualTo("destination"));

        // The plaintext may start exactly where the record does (in place), nowhere else inside it.
        byte[] shared = new byte[2 * RecordSize];
        first.CopyTo(shared, 0);
        Assert.That(Assert.Throws<ArgumentException>(() => decryptor.DecryptRecord(shared.AsSpan(0, RecordSize), shared.AsSpan(1), out _))!.ParamName, Is.EqualTo("destination"));
        Assert.That(decryptor.RecordCount, Is.Zero, "a refused call opens nothing");

        Assert.That(decryptor.DecryptRecord(shared.AsSpan(0, RecordSize), shared, out bool isLast), Is.EqualTo(RecordSize - 17));
        Assert.That(isLast, Is.False);
        Assert.That(decryptor.RecordCount, Is.EqualTo(1));
    }

    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void ErrorsAfterTheLastRecordAndAtCompleteNameTheRightRecord(ContentCoding coding)
    {
        (byte[] first, byte[] last, ContentEncodingHeader header) = TwoRecords(coding);
        byte[] plaintext = new byte[RecordSize];
        int[] lengths = new int[2];

        using (var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding }))
        {
            decryptor.DecryptRecord(first, plaintext, out _);
            var truncated = Assert.Throws<ContentEncodingTruncatedException>(decryptor.Complete)!;
            Assert.That(truncated.RecordIndex, Is.EqualTo(0), "record 0 was the last one read, and not marked last");
            Assert.That(truncated.Message, Does.Contain("after record 0,"));
        }

        using (var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding }))
        {
            Assert.That(decryptor.DecryptRecords(first.Concat(last).ToArray(), new byte[2 * (RecordSize - 16)], lengths), Is.EqualTo(2));
            Assert.That(decryptor.IsComplete, Is.True);

            // Nothing more is fine (the records may be empty); another record is not, and the error
            // points at the last record, the one it follows.
            Assert.That(decryptor.DecryptRecords(ReadOnlyMemory<byte>.Empty, Memory<byte>.Empty, lengths), Is.Zero);
            var afterLast = Assert.Throws<ContentEncodingCorruptedException>(() => decryptor.DecryptRecords(first, new byte[RecordSize], lengths))!;
            Assert.That(afterLast.RecordIndex, Is.EqualTo(1));
            Assert.That(afterLast.Message, Does.Contain("after record 1,"));
            afterLast = Assert.Throws<ContentEncodingCorruptedException>(() => decryptor.DecryptRecord(first, plaintext, out _))!;
            Assert.That(afterLast.RecordIndex, Is.EqualTo(1));
            Assert.That(afterLast.Message, Does.Contain("after record 1,"));
            Assert.That(decryptor.RecordCount, Is.EqualTo(2));
        }
    }

    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DisposeReleasesTheKeysAndLaterCallsNameTheDecryptor(ContentCoding coding)
    {
        (byte[] first, _, ContentEncodingHeader header) = TwoRecords(coding);
        var decryptor = new ContentDecryptor(header, Ikm, new ContentEncodingOptions { Coding = coding });
        var cipher = Internals.Cipher(decryptor);
        byte[] nonceBase = Internals.NonceBase(decryptor);
        Assert.That(nonceBase.Any(b => b != 0), Is.True);

        decryptor.Dispose();
        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        Assert.Throws<ObjectDisposedException>(() => cipher.TryOpen(0, first.AsSpan(0, RecordSize - 16), first.AsSpan(RecordSize - 16), new byte[RecordSize - 16]), "the AEAD is disposed");

        // The exception names the object the caller disposed, not one inside it.
        string expected = typeof(ContentDecryptor).FullName!;
        Assert.That(Assert.Throws<ObjectDisposedException>(() => decryptor.DecryptRecord(first, new byte[RecordSize], out _))!.ObjectName, Is.EqualTo(expected));
        Assert.That(Assert.Throws<ObjectDisposedException>(() => decryptor.DecryptRecords(first, new byte[RecordSize], new int[1]))!.ObjectName, Is.EqualTo(expected));
        decryptor.Dispose();
    }

    [Test]
    public void TheHeaderTakesKeyIdsUpTo255BytesAndValidatesRecordSizes()
    {
        var header = new ContentEncodingHeader(Salt, RecordSize, new byte[255]);
        Assert.That(header.Length, Is.EqualTo(ContentEncodingHeader.FixedLength + 255));
        Assert.That(Assert.Throws<ArgumentException>(() => new ContentEncodingHeader(Salt, RecordSize, new byte[256]))!.ParamName, Is.EqualTo("keyId"));
        Assert.That(Assert.Throws<ArgumentException>(() => new ContentEncodingHeader(Salt.AsSpan(1), RecordSize, []))!.ParamName, Is.EqualTo("salt"));
        foreach (int bad in new[] { int.MinValue, 0, ContentEncryption.MinRecordSize - 1, ContentEncryption.MaxRecordSize + 1 })
        {
            Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentEncodingHeader(Salt, bad, []))!.ParamName, Is.EqualTo("recordSize"), $"rs={bad}");
            Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncodingHeader.Parse(new byte[ContentEncodingHeader.FixedLength], bad))!.ParamName, Is.EqualTo("maxRecordSize"), $"max={bad}");
        }

        // A header written with a 255-byte key ID reads back whole.
        byte[] written = new byte[header.Length];
        Assert.That(header.WriteTo(written), Is.EqualTo(written.Length));
        Assert.That(ContentEncodingHeader.Parse(written).KeyId.Length, Is.EqualTo(255));
        byte[] tooShort = new byte[header.Length - 1];
        Assert.That(Assert.Throws<ArgumentException>(() => header.WriteTo(tooShort))!.ParamName, Is.EqualTo("destination"));
        Assert.That(tooShort.All(b => b == 0), Is.True, "a refused write leaves the destination as it was");
    }
}
