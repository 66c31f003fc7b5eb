// encrypt then decrypt gives the content back, for both codings, files and pipes, across record
// boundaries; a file output appears only when complete and replaces a file only with --force.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class RoundTripTests : ToolTestBase
{
    private const int SmallRecordSize = 100;          // 83 bytes of content per record
    private const int DataPerRecord = SmallRecordSize - 17;

    public static IEnumerable<TestCaseData> Boundaries()
    {
        foreach (string coding in new[] { "gcmsiv", "aes128gcm" })
        {
            foreach (int length in new[] { 0, 1, DataPerRecord - 1, DataPerRecord, DataPerRecord + 1, 2 * DataPerRecord, (3 * DataPerRecord) + 5 })
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
        AssertSuccess(Run("encrypt", "--key", "key", "--coding", coding, "--record-size", SmallRecordSize.ToString(), "plain", "sealed"));
        Assert.That(new FileInfo(PathOf("sealed")).Length, Is.EqualTo(ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = SmallRecordSize })));
        AssertSuccess(Run("decrypt", "--key", "key", "--coding", coding, "sealed", "opened"));
        Assert.That(Read("opened"), Is.EqualTo(content));
        Assert.That(Files(), Is.EqualTo(new[] { "key", "opened", "plain", "sealed" }), "a temporary file was left behind");
    }

    [TestCase("gcmsiv")]
    [TestCase("aes128gcm")]
    public void StandardInputToStandardOutput(string coding)
    {
        KeyFile();
        byte[] content = Content(200_000);
        ToolResult encrypted = RunWithInput(content, "encrypt", "-k", "key", "-c", coding);
        AssertSuccess(encrypted);
        ToolResult decrypted = RunWithInput(encrypted.Stdout, "decrypt", "-k", "key", "-c", coding, "-", "-");
        AssertSuccess(decrypted);
        Assert.That(decrypted.Stdout, Is.EqualTo(content));
    }

    [Test]
    public void TheDefaultCodingIsGcmSivWithTheDefaultRecordSize()
    {
        byte[] key = KeyFile();
        byte[] content = Write("plain", Content(70_000));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "sealed"));
        byte[] body = Read("sealed");
        ContentEncodingHeader header = ContentEncodingHeader.Parse(body);
        Assert.That(header.RecordSize, Is.EqualTo(ContentEncryption.DefaultRecordSize));
        Assert.That(ContentEncryption.Decrypt(body, key, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }), Is.EqualTo(content));
        Assert.That(() => ContentEncryption.Decrypt(body, key, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm }), Throws.InstanceOf<ContentEncodingCorruptedException>());
    }

    [Test]
    public void TheKeyIdGoesIntoTheHeader()
    {
        KeyFile();
        Write("plain", Content(10));
        AssertSuccess(Run("encrypt", "-k", "key", "--key-id", "backup-2025", "plain", "sealed"));
        ContentEncodingHeader header = ContentEncodingHeader.Parse(Read("sealed"));
        Assert.That(System.Text.Encoding.UTF8.GetString(header.KeyId.Span), Is.EqualTo("backup-2025"));
        AssertSuccess(Run("decrypt", "-k", "key", "sealed", "opened"));
        Assert.That(Read("opened"), Is.EqualTo(Read("plain")));
    }

    [Test]
    public void SixteenByteKeysWork()
    {
        KeyFile(length: 16);
        byte[] content = Write("plain", Content(1000));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "sealed"));
        AssertSuccess(Run("decrypt", "-k", "key", "sealed", "opened"));
        Assert.That(Read("opened"), Is.EqualTo(content));
    }

    [Test]
    public void EachEncryptionHasAFreshSalt()
    {
        KeyFile();
        Write("plain", Content(100));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "a"));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "b"));
        Assert.That(Read("a")[..16], Is.Not.EqualTo(Read("b")[..16]));
    }

    [Test]
    public void DecryptedFilesAreOwnerOnly()
    {
        KeyFile();
        Write("plain", Content(100));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "sealed"));
        AssertSuccess(Run("decrypt", "-k", "key", "sealed", "opened"));
        if (!OperatingSystem.IsWindows())
        {
            Assert.That(File.GetUnixFileMode(PathOf("opened")), Is.EqualTo(UnixFileMode.UserRead | UnixFileMode.UserWrite));
        }
    }

    [TestCase("encrypt")]
    [TestCase("decrypt")]
    public void AnExistingOutputIsRefusedWithoutForceAndReplacedWithIt(string command)
    {
        KeyFile();
        byte[] content = Write("plain", Content(5000));
        AssertSuccess(Run("encrypt", "-k", "key", "plain", "sealed"));
        string input = command == "encrypt" ? "plain" : "sealed";
        byte[] existing = Write("existing", Content(10, seed: 99));

        ToolResult refused = Run(command, "-k", "key", input, "existing");
        Assert.Multiple(() =>
        {
            Assert.That(refused.ExitCode, Is.EqualTo(2), refused.ToString());
            Assert.That(refused.Stderr, Does.Contain("'existing' exists; use --force"));
            Assert.That(Read("existing"), Is.EqualTo(existing), "the existing file was changed");
        });

        AssertSuccess(Run(command, "-k", "key", "--force", input, "existing"));
        Assert.That(Files(), Is.EqualTo(new[] { "existing", "key", "plain", "sealed" }));
        if (command == "decrypt")
        {
            Assert.That(Read("existing"), Is.EqualTo(content));
        }
        else
        {
            AssertSuccess(Run("decrypt", "-k", "key", "existing", "opened"));
            Assert.That(Read("opened"), Is.EqualTo(content));
        }
    }

    [Test]
    public void AFileCanBeEncryptedInPlaceWithForce()
    {
        KeyFile();
        byte[] content = Write("data", Content(300_000));
        AssertSuccess(Run("encrypt", "-k", "key", "-f", "data", "data"));
        AssertSuccess(Run("decrypt", "-k", "key", "-f", "data", "data"));
        Assert.That(Read("data"), Is.EqualTo(content));
    }

    /// <summary>Many records, and more than one copy buffer (1 MiB) of them, through files and pipes:
    /// 64 MiB here (CI time), 1 GiB by hand (docs/tool.md). CI's portable-backend leg
    /// (DOTNET_EnableHWIntrinsic=0, inherited by the tool) runs AES-GCM-SIV at some 50 MB/s, so
    /// there 16 MiB.</summary>
    [TestCase("gcmsiv", 65536)]
    [TestCase("aes128gcm", 4096)]
    public void A64MiBFileRoundTrips(string coding, int recordSize)
    {
        KeyFile();
        int length = Environment.GetEnvironmentVariable("DOTNET_EnableHWIntrinsic") == "0" ? 16 << 20 : 64 << 20;
        byte[] content = Write("plain", Content(length));
        AssertSuccess(Run("encrypt", "-k", "key", "-c", coding, "-r", recordSize.ToString(), "plain", "sealed"));
        Assert.That(new FileInfo(PathOf("sealed")).Length, Is.EqualTo(ContentEncryption.GetEncryptedLength(content.Length, new ContentEncodingOptions { RecordSize = recordSize })));
        ToolResult piped = RunWithInput(Read("sealed"), "decrypt", "-k", "key", "-c", coding);
        AssertSuccess(piped);
        Assert.That(piped.Stdout.AsSpan().SequenceEqual(content), Is.True, "the content differs");
    }

    [Test]
    public void EmptyInputEncryptsToAHeaderAndOneRecord()
    {
        KeyFile();
        ToolResult encrypted = RunWithInput([], "encrypt", "-k", "key");
        AssertSuccess(encrypted);
        Assert.That(encrypted.Stdout, Has.Length.EqualTo(ContentEncryption.GetEncryptedLength(0)));
        ToolResult decrypted = RunWithInput(encrypted.Stdout, "decrypt", "-k", "key");
        AssertSuccess(decrypted);
        Assert.That(decrypted.Stdout, Is.Empty);
    }
}
