// The public contract of the record layer's one-shot helpers and of ContentEncryptor where no round trip
// reaches it: argument checks, buffer sizes, the texts that name what went wrong, the zeroed padding, and
// what Dispose releases. Mutation testing (docs/testing.md) found each of these untested: a build with
// the line changed passed the rest of the suite.

using System;
using System.Linq;
using System.Net.Http;
using Cryptography;
using Cryptography.ContentEncoding;
using Cryptography.Internal;
using NUnit.Framework;

namespace Tests.ContentEncodingTests;

[TestFixture]
public class EncoderContractTests
{
    private const int RecordSize = 100;
    private static readonly byte[] Ikm = Enumerable.Range(0, 16).Select(i => (byte)(i * 11 + 3)).ToArray();
    private static readonly byte[] Salt = Enumerable.Range(0, 16).Select(i => (byte)(i + 90)).ToArray();

    [Test]
    public void GetEncryptedLengthChecksEachArgument()
    {
        Assert.That(ContentEncryption.GetEncryptedLength(0, new ContentEncodingOptions { RecordSize = RecordSize, KeyId = new byte[255] }), Is.EqualTo(21 + 255 + 17));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.GetEncryptedLength(-1, new ContentEncodingOptions { RecordSize = RecordSize }))!.ParamName, Is.EqualTo("plaintextLength"));
        Assert.That(ContentEncryption.GetEncryptedLength(100), Is.EqualTo(21 + 100 + 17), "the default options: 64 KiB records, no key id");

        // The options check their own values, where they are set.
        Assert.That(() => new ContentEncodingOptions { KeyId = new byte[256] }, Throws.ArgumentException.With.Property("ParamName").EqualTo("value"));
        Assert.That(() => new ContentEncodingOptions { RecordSize = 17 }, Throws.InstanceOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("value"));
        Assert.That(() => new ContentEncodingOptions { RecordSize = ContentEncryption.MaxRecordSize + 1 }, Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(() => new ContentEncodingOptions { MaxRecordSize = 17 }, Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(() => new ContentEncodingOptions { MaxDegreeOfParallelism = 0 }, Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(() => new ContentEncodingOptions { Coding = (ContentCoding)2 }, Throws.InstanceOf<ArgumentOutOfRangeException>());
    }

    // Issue 31, defect 6: near long.MaxValue the 17 bytes per record took the length past it, and
    // it came out negative (EncryptedHttpContent sent that as Content-Length). With 18-byte records
    // (one byte of data each) a body is 21 + 18 n bytes: the largest n that fits, then one more.
    [Test]
    public void GetEncryptedLengthRefusesABodyLongerThanInt64()
    {
        long largest = (long.MaxValue - 21) / 18;
        Assert.That(ContentEncryption.GetEncryptedLength(largest, new ContentEncodingOptions { RecordSize = 18 }), Is.EqualTo(21 + (18 * largest)));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.GetEncryptedLength(largest + 1, new ContentEncodingOptions { RecordSize = 18 }))!.ParamName, Is.EqualTo("plaintextLength"));
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => ContentEncryption.GetEncryptedLength(long.MaxValue))!.ParamName, Is.EqualTo("plaintextLength"));
        Assert.That(ContentEncryption.GetEncryptedLength(long.MaxValue / 2, new ContentEncodingOptions { RecordSize = ContentEncryption.MaxRecordSize }), Is.GreaterThan(long.MaxValue / 2));

        var inner = new ByteArrayContent([]);
        inner.Headers.ContentLength = long.MaxValue;
        using var content = new EncryptedHttpContent(inner, new byte[16]);
        Assert.That(content.Headers.ContentLength, Is.Null, "a length that does not fit is unknown, not negative");
    }

    [Test]
    public void EncryptIntoABufferTakesOneLongerThanNeededAndRefusesAShortOrOverlappingOne()
    {
        byte[] plaintext = Enumerable.Range(0, 300).Select(i => (byte)i).ToArray();
        int length = (int)ContentEncryption.GetEncryptedLength(plaintext.Length, new ContentEncodingOptions { RecordSize = RecordSize });

        byte[] roomy = new byte[length + 10];
        Assert.That(ContentEncryption.Encrypt(plaintext, Ikm, roomy, new ContentEncodingOptions { RecordSize = RecordSize }, salt: Salt), Is.EqualTo(length));
        Assert.That(ContentEncryption.Decrypt(roomy.AsSpan(0, length).ToArray(), Ikm), Is.EqualTo(plaintext));

        var shortOne = Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt(plaintext, Ikm, new byte[length - 1], new ContentEncodingOptions { RecordSize = RecordSize }))!;
        Assert.That(shortOne.ParamName, Is.EqualTo("destination"));
        Assert.That(shortOne.Message, Does.Contain($"{length} bytes are needed"));

        byte[] shared = new byte[2 * length];
        var overlapping = Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt(shared.AsSpan(0, plaintext.Length), Ikm, shared, new ContentEncodingOptions { RecordSize = RecordSize }))!;
        Assert.That(overlapping.ParamName, Is.EqualTo("destination"));
        Assert.That(overlapping.Message, Does.Contain("overlap"));

        // Here no record overlaps the piece of plaintext it seals, so only the check of the whole
        // buffers stops the records from overwriting plaintext not yet read.
        var behind = Assert.Throws<ArgumentException>(() => ContentEncryption.Encrypt(shared.AsSpan(0, plaintext.Length), Ikm, shared.AsSpan(100), new ContentEncodingOptions { RecordSize = RecordSize }))!;
        Assert.That(behind.ParamName, Is.EqualTo("destination"));
    }

    // The Try forms: false and nothing written for a destination one byte short, the same body as the
    // throwing form otherwise; a body that does not verify still throws (it is not a short buffer).
    [Test]
    public void TryEncryptAndTryDecryptReportAShortDestinationInsteadOfThrowing()
    {
        byte[] plaintext = Enumerable.Range(0, 300).Select(i => (byte)i).ToArray();
        var options = new ContentEncodingOptions { RecordSize = RecordSize };
        int length = (int)ContentEncryption.GetEncryptedLength(plaintext.Length, options);
        byte[] shortBody = new byte[length - 1];
        Assert.That(ContentEncryption.TryEncrypt(plaintext, Ikm, shortBody, out int written, options, Salt), Is.False);
        Assert.That((written, shortBody.All(b => b == 0)), Is.EqualTo((0, true)));

        byte[] body = new byte[length];
        Assert.That(ContentEncryption.TryEncrypt(plaintext, Ikm, body, out written, options, Salt), Is.True);
        byte[] expected = new byte[length];
        ContentEncryption.Encrypt(plaintext, Ikm, expected, options, Salt);
        Assert.That((written, body), Is.EqualTo((length, expected)));

        int needed = (int)ContentEncryption.GetMaxDecryptedLength(body, body.Length);
        byte[] content = new byte[needed - 1];
        Assert.That(ContentEncryption.TryDecrypt(body, Ikm, content, out int read, options), Is.False);
        Assert.That((read, content.All(b => b == 0)), Is.EqualTo((0, true)));
        content = new byte[needed];
        Assert.That(ContentEncryption.TryDecrypt(body, Ikm, content, out read, options), Is.True);
        Assert.That(content.AsSpan(0, read).SequenceEqual(plaintext), Is.True);

        body[^1] ^= 1;
        Assert.That(() => ContentEncryption.TryDecrypt(body, Ikm, content, out _, options), Throws.InstanceOf<ContentEncodingCorruptedException>());
        Assert.That(content, Is.All.Zero, "a failed body leaves nothing in the destination");
    }

    [Test]
    public void DecryptIntoABufferRefusesAShortOrOverlappingOne()
    {
        byte[] plaintext = Enumerable.Range(0, 300).Select(i => (byte)i).ToArray();
        byte[] body = ContentEncryption.Encrypt(plaintext, Ikm, new ContentEncodingOptions { RecordSize = RecordSize });
        long needed = ContentEncryption.GetMaxDecryptedLength(body, body.Length);

        var shortOne = Assert.Throws<ArgumentException>(() => ContentEncryption.Decrypt(body, Ikm, new byte[needed - 1]))!;
        Assert.That(shortOne.ParamName, Is.EqualTo("destination"));
        Assert.That(shortOne.Message, Does.Contain($"{needed} bytes are needed"));

        byte[] shared = new byte[body.Length + needed];
        body.CopyTo(shared, 0);
        var overlapping = Assert.Throws<ArgumentException>(() => ContentEncryption.Decrypt(shared.AsSpan(0, body.Length), Ikm, shared.AsSpan(10)))!;
        Assert.That(overlapping.ParamName, Is.EqualTo("destination"));

        Assert.That(ContentEncryption.Decrypt(body, Ikm, new byte[needed]), Is.EqualTo(plaintext.Length));

        // A one-record body whose record starts where the destination does: decrypting the record in
        // place would work, but the body and the destination overlap, which the method refuses.
        byte[] one = ContentEncryption.Encrypt(plaintext.AsSpan(0, 50), Ikm, new ContentEncodingOptions { RecordSize = RecordSize });
        var inPlace = Assert.Throws<ArgumentException>(() => ContentEncryption.Decrypt(one, Ikm, one.AsSpan(21)))!;
        Assert.That(inPlace.ParamName, Is.EqualTo("destination"));
    }

    // The bound is the records' length less 16 per record, a remnant shorter than a tag counting as
    // none: the exact figures, so that a looser or tighter formula fails.
    [TestCase(0, 0)]
    [TestCase(10, 0)]
    [TestCase(16, 0)]
    [TestCase(20, 4)]
    [TestCase(RecordSize, RecordSize - 16)]
    [TestCase(2 * RecordSize + 20, 2 * (RecordSize - 16) + 4)]
    [TestCase(3 * RecordSize + 5, 3 * (RecordSize - 16))]
    public void GetMaxDecryptedLengthIsTheRecordsLessTheirTags(int recordsLength, int expected)
    {
        byte[] header = new byte[ContentEncodingHeader.FixedLength];
        new ContentEncodingHeader(Salt, RecordSize, []).WriteTo(header);
        Assert.That(ContentEncryption.GetMaxDecryptedLength(header, header.Length + recordsLength), Is.EqualTo(expected));
    }

    // The provider writes into the library's buffer of MaxKeyingMaterialSize bytes; a length that is
    // not in 1..that (a provider that says yes but wrote nothing, or claims more than there is room
    // for) is no key.
    [TestCase(0)]
    [TestCase(-1)]
    [TestCase(ContentEncryption.MaxKeyingMaterialSize + 1)]
    public void AProviderThatWritesNoUsableKeyIsAMissingKey(int claimed)
    {
        byte[] body = ContentEncryption.Encrypt("x"u8, Ikm);
        int room = 0;
        bool Provider(ReadOnlySpan<byte> keyId, ContentCoding coding, Span<byte> destination, out int bytesWritten)
        {
            room = destination.Length;
            bytesWritten = claimed;
            return true;
        }

        Assert.Throws<ContentEncodingHeaderException>(() => ContentEncryption.Decrypt(body, Provider));
        Assert.That(room, Is.EqualTo(ContentEncryption.MaxKeyingMaterialSize));
        Assert.That(ContentEncryption.Decrypt(body, KeyProviders.Always(Ikm)), Is.EqualTo("x"u8.ToArray()));
    }

    // The key id goes into the error in hex, cut at 32 bytes with "..." after.
    [TestCase(0, "()")]
    [TestCase(3, "(0A0B0C)")]
    [TestCase(32, "(" + "0A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223242526272829" + ")")]
    [TestCase(33, "(" + "0A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223242526272829" + "...)")]
    public void AMissingKeyIsNamedByItsKeyId(int keyIdLength, string shown)
    {
        byte[] keyId = Enumerable.Range(10, keyIdLength).Select(i => (byte)i).ToArray();
        byte[] body = ContentEncryption.Encrypt("x"u8, Ikm, new ContentEncodingOptions { KeyId = keyId });
        var error = Assert.Throws<ContentEncodingHeaderException>(() => ContentEncryption.Decrypt(body, KeyProviders.None))!;
        Assert.That(error.Message, Is.EqualTo($"No key is known for the key id of {keyIdLength} bytes in the header {shown}."));
    }

    [Test]
    public void TheEncryptorChecksItsCodingAndPaddingAndNamesWhichLengthRuleWasBroken()
    {
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = (ContentCoding)7 }))!.ParamName, Is.EqualTo("value"));

        using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { RecordSize = RecordSize }, salt: Salt);
        byte[] record = new byte[RecordSize];
        Assert.That(Assert.Throws<ArgumentOutOfRangeException>(() => encryptor.EncryptRecord([], record, isLastRecord: true, paddingLength: -1))!.ParamName, Is.EqualTo("paddingLength"));

        var notFull = Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(new byte[5], record, isLastRecord: false))!;
        Assert.That(notFull.Message, Does.StartWith("A record other than the last must be exactly the record size: data (5) + delimiter (1) + padding (0) + tag (16) must equal 100."));
        var tooLong = Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(new byte[80], record, isLastRecord: true, paddingLength: 4))!;
        Assert.That(tooLong.Message, Does.StartWith("The record is longer than the record size: data (80) + delimiter (1) + padding (4) + tag (16) exceeds 100."));
        var shortDestination = Assert.Throws<ArgumentException>(() => encryptor.EncryptRecord(new byte[10], new byte[26], isLastRecord: true))!;
        Assert.That(shortDestination.ParamName, Is.EqualTo("destination"));
        Assert.That(shortDestination.Message, Does.StartWith("The destination is too short: 27 bytes are needed."));
        Assert.That(encryptor.RecordCount, Is.Zero, "a refused record takes no sequence number");

        Assert.That(encryptor.EncryptRecords(ReadOnlyMemory<byte>.Empty, Memory<byte>.Empty, maxDegreeOfParallelism: 4), Is.Zero);
        Assert.That(encryptor.RecordCount, Is.Zero, "no records, no sequence numbers");
        Assert.That(encryptor.IsComplete, Is.False);
    }

    // The padding is built in the destination, so whatever the destination held before must not reach
    // it: a receiver rejects a record whose padding is not all zeros (RFC 8188 section 2).
    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void PaddingIsZeroWhateverTheDestinationHeld(ContentCoding coding)
    {
        using var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }, salt: Salt);
        byte[] record = Enumerable.Repeat((byte)0xA5, RecordSize).ToArray();
        int length = encryptor.EncryptRecord("abc"u8, record, isLastRecord: true, paddingLength: 40);

        byte[] body = new byte[encryptor.Header.Length + length];
        encryptor.Header.WriteTo(body);
        record.AsSpan(0, length).CopyTo(body.AsSpan(encryptor.Header.Length));
        Assert.That(ContentEncryption.Decrypt(body, Ikm, new ContentEncodingOptions { Coding = coding }), Is.EqualTo("abc"u8.ToArray()));
    }

    // AES-GCM is not safe for concurrent calls, so each worker of a parallel batch but the first gets a
    // sibling cipher with its own AEAD and a copy of the key: Dispose wipes and disposes them all.
    [Test]
    public void TheAesGcmCipherGivesWorkersSiblingsAndDisposeWipesThemAll()
    {
        RecordCipher cipher = RecordCipher.Create(ContentCoding.Aes128Gcm, Ikm, Salt);
        Assert.That(cipher.ForWorker(0), Is.SameAs(cipher));
        RecordCipher sibling = cipher.ForWorker(5);
        Assert.That(sibling, Is.Not.SameAs(cipher));
        Assert.That(cipher.ForWorker(5), Is.SameAs(sibling), "made once, then kept");

        // The sibling seals as the cipher does.
        byte[] plaintext = [1, 2, 3], ciphertext = new byte[3], tag = new byte[16], viaSibling = new byte[3], siblingTag = new byte[16];
        cipher.Seal(7, plaintext, ciphertext, tag);
        sibling.Seal(7, plaintext, viaSibling, siblingTag);
        Assert.That((viaSibling, siblingTag), Is.EqualTo((ciphertext, tag)));

        byte[] key = Internals.Key((RecordCipher.AesGcmRecordCipher)cipher);
        byte[] siblingKey = Internals.Key((RecordCipher.AesGcmRecordCipher)sibling);
        Assert.That(key.Any(b => b != 0) && siblingKey.Any(b => b != 0), Is.True);

        cipher.Dispose();
        Assert.That(key.All(b => b == 0), Is.True, "the key is wiped");
        Assert.That(siblingKey.All(b => b == 0), Is.True, "and the sibling's copy");
        Assert.Throws<ObjectDisposedException>(() => sibling.Seal(8, plaintext, viaSibling, siblingTag), "the sibling's AEAD is disposed");
    }

    [TestCase(ContentCoding.Aes128Gcm)]
    [TestCase(ContentCoding.Aes256GcmSiv)]
    public void DisposeReleasesTheKeysAndLaterCallsNameTheEncryptor(ContentCoding coding)
    {
        var encryptor = new ContentEncryptor(Ikm, new ContentEncodingOptions { Coding = coding, RecordSize = RecordSize }, salt: Salt);
        byte[] nonceBase = Internals.NonceBase(encryptor);
        Assert.That(nonceBase.Any(b => b != 0), Is.True);

        encryptor.Dispose();
        Assert.That(nonceBase.All(b => b == 0), Is.True, "the nonce base is wiped");
        string expected = typeof(ContentEncryptor).FullName!;
        byte[] record = new byte[RecordSize];
        Assert.That(Assert.Throws<ObjectDisposedException>(() => encryptor.EncryptRecord([], record, isLastRecord: true))!.ObjectName, Is.EqualTo(expected));
        Assert.That(Assert.Throws<ObjectDisposedException>(() => encryptor.EncryptRecords(new byte[encryptor.MaxRecordDataLength], record))!.ObjectName, Is.EqualTo(expected));
        encryptor.Dispose();
    }
}
