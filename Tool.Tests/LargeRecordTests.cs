// Records above 1 MiB take their own path in the tool (one record buffer, sealed and opened in place,
// to stay within the memory bound at the 16 MiB maximum): the same round trips across record
// boundaries and the same failures as the batch path, at the smallest such record size.

using System.Collections.Generic;
using System.IO;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class LargeRecordTests : ToolTestBase
{
    private const int RecordSize = (1 << 20) + 1;
    private const int Data = RecordSize - 17;
    private const int Header = 21;

    public static IEnumerable<TestCaseData> Boundaries()
    {
        foreach (string coding in new[] { "gcmsiv", "aes128gcm" })
        {
            foreach (int length in new[] { 0, 1, Data - 1, Data, Data + 1, 2 * Data })
            {
                yield return new TestCaseData(coding, length).SetArgDisplayNames(coding, $"len={length}");
            }
        }
    }

    [TestCaseSource(nameof(Boundaries))]
    public void FilesRoundTripAcrossRecordBoundaries(string coding, int length)
    {
        KeyFile();
        byte[] content = Write("plain", Content(length));
        AssertSuccess(Run("encrypt", "-k", "key", "-c", coding, "-r", RecordSize.ToString(), "plain", "sealed"));
        Assert.That(new FileInfo(PathOf("sealed")).Length, Is.EqualTo(ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = RecordSize })));
        Assert.That(ContentEncryption.Decrypt(Read("sealed"), Read("key"), new ContentEncodingOptions { Coding = coding == "gcmsiv" ? ContentCoding.Aes256GcmSiv : ContentCoding.Aes128Gcm }), Is.EqualTo(content), "the library reads what the tool wrote");
        AssertSuccess(Run("decrypt", "-k", "key", "-c", coding, "sealed", "opened"));
        Assert.That(Read("opened"), Is.EqualTo(content));
        Assert.That(Files(), Is.EqualTo(new[] { "key", "opened", "plain", "sealed" }), "a temporary file was left behind");
    }

    [Test]
    public void StandardInputToStandardOutput()
    {
        KeyFile();
        byte[] content = Content((2 * Data) + 5);
        ToolResult encrypted = RunWithInput(content, "encrypt", "-k", "key", "-r", RecordSize.ToString());
        AssertSuccess(encrypted);
        ToolResult decrypted = RunWithInput(encrypted.Stdout, "decrypt", "-k", "key");
        AssertSuccess(decrypted);
        Assert.That(decrypted.Stdout, Is.EqualTo(content));
    }

    [Test]
    public void ACorruptedRecordFailsWithItsOffsetAndOnlyEarlierRecordsReachStandardOutput()
    {
        byte[] body = Sealed(Content((2 * Data) + 5));
        body[Header + RecordSize + 7] ^= 1;
        ToolResult result = RunWithInput(body, "decrypt", "-k", "key");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            Assert.That(result.Stdout, Has.Length.EqualTo(Data), "record 0 only");
            Assert.That(result.Stderr, Does.Contain($"at byte offset {Header + RecordSize}, in record 1").And.Contain("failed authentication"));
        });
        DecryptToFileFails(body, "in record 1");
    }

    [Test]
    public void ATruncatedBodyFails()
    {
        byte[] body = Sealed(Content((2 * Data) + 5));
        DecryptToFileFails(body[..(Header + RecordSize + 50)], $"at byte offset {Header + RecordSize}, in record 1", "ends 50 bytes into this record");
        DecryptToFileFails(body[..(Header + (2 * RecordSize))], "the end of the input, after record 1", "truncated");
    }

    [Test]
    public void DataAfterAFullSizeLastRecordFailsAndThatRecordIsNotWritten()
    {
        byte[] body = Sealed(Content(2 * Data));
        Assert.That(body, Has.Length.EqualTo(Header + (2 * RecordSize)), "the last record should be full-size");
        ToolResult result = RunWithInput([.. body, 0x2a], "decrypt", "-k", "key");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            Assert.That(result.Stdout, Has.Length.EqualTo(Data), "record 0 only: record 1 was followed by data");
            Assert.That(result.Stderr, Does.Contain($"at byte offset {Header + (2 * RecordSize)}, after record 1, the last one"));
        });
        DecryptToFileFails([.. body, 0x2a], "after record 1, the last one");
    }

    private byte[] Sealed(byte[] content)
    {
        KeyFile();
        Write("plain", content);
        AssertSuccess(Run("encrypt", "-k", "key", "-r", RecordSize.ToString(), "plain", "sealed"));
        File.Delete(PathOf("plain"));
        byte[] body = Read("sealed");
        File.Delete(PathOf("sealed"));
        return body;
    }

    private void DecryptToFileFails(byte[] body, params string[] expectedInMessage)
    {
        Write("sealed", body);
        ToolResult result = Run("decrypt", "-k", "key", "sealed", "opened");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            foreach (string expected in expectedInMessage)
            {
                Assert.That(result.Stderr, Does.Contain(expected));
            }

            Assert.That(Files(), Is.EqualTo(new[] { "key", "sealed" }), "an output or temporary file was left behind");
        });
        File.Delete(PathOf("sealed"));
    }
}
