// Decryption failures: the exit code says what kind, stderr says what and where (byte offset and
// record), and nothing is left behind: no output file, no temporary file; on stdout, only the data
// of the records that verified before the failure. Also the I/O and usage failures of every command.

using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class FailureTests : ToolTestBase
{
    // Three records at rs 100 (83 bytes of content each): 0 at [21, 121), 1 at [121, 221), and the
    // last, 2, at [221, 278) holding 40 bytes.
    private const int RecordSize = 100;
    private const int Data = RecordSize - 17;
    private const int Header = 21;
    private static readonly byte[] Plain = Content((2 * Data) + 40);

    private byte[] Sealed(byte[]? content = null, string coding = "gcmsiv")
    {
        KeyFile();
        Write("plain", content ?? Plain);
        AssertSuccess(Run("encrypt", "-k", "key", "-c", coding, "-r", RecordSize.ToString(), "plain", "sealed"));
        File.Delete(PathOf("plain"));
        return Read("sealed");
    }

    private ToolResult DecryptFails(byte[] body, params string[] expectedInMessage)
    {
        Write("sealed", body);
        ToolResult result = Run("decrypt", "-k", "key", "sealed", "opened");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            Assert.That(result.Stdout, Is.Empty);
            foreach (string expected in expectedInMessage)
            {
                Assert.That(result.Stderr, Does.Contain(expected));
            }

            Assert.That(result.Stderr, Does.Contain("No output file was written"));
            Assert.That(Files(), Is.EqualTo(new[] { "key", "sealed" }), "an output or temporary file was left behind");
        });
        return result;
    }

    [Test]
    public void WrongKey()
    {
        byte[] body = Sealed();
        KeyFile(seed: 8);
        DecryptFails(body, "at byte offset 21, in record 0", "Record 0 failed authentication", "check the key file and --coding");
    }

    // Issue 50, item 4: a small file is one record, shorter than the record size, so its record ends
    // "short"; with the wrong key the message must lead with the key, not with truncation.
    [Test]
    public void WrongKeyOnAOneRecordFileNamesTheKeyBeforeTruncation()
    {
        byte[] body = Sealed(Content(40));
        KeyFile(seed: 8);
        ToolResult result = DecryptFails(body, "at byte offset 21, in record 0", "Record 0 failed authentication", "check the key file and --coding");
        int key = result.Stderr.IndexOf("check the key file", StringComparison.Ordinal);
        int cut = result.Stderr.IndexOf("cut short", StringComparison.Ordinal);
        Assert.That(cut < 0 || key < cut, Is.True, "the hint points at truncation before the key: " + result.Stderr);
    }

    [Test]
    public void WrongCoding()
    {
        byte[] body = Sealed(coding: "aes128gcm");
        DecryptFails(body, "in record 0", "failed authentication");
    }

    [Test]
    public void CorruptedByteInTheMiddleRecord()
    {
        byte[] body = Sealed();
        body[Header + RecordSize + 50] ^= 0x04;
        DecryptFails(body, "at byte offset 121, in record 1", "Record 1 failed authentication");
    }

    [Test]
    public void TruncatedInTheMiddleOfARecord()
    {
        byte[] body = Sealed();
        DecryptFails(body[..(Header + RecordSize + 50)], "at byte offset 121, in record 1", "ends 50 bytes into this record");
    }

    [Test]
    public void TruncatedAtARecordBoundary()
    {
        byte[] body = Sealed();
        DecryptFails(body[..(Header + (2 * RecordSize))], "at byte offset 221, the end of the input, after record 1", "truncated");
    }

    [Test]
    public void TruncatedRightAfterTheHeader()
    {
        byte[] body = Sealed();
        DecryptFails(body[..Header], "right after the header", "no record");
    }

    // Issue 47, item 0: the pattern the docs teach (await using, CopyToAsync, FlushFinalBlockAsync),
    // with a source that fails half way: disposing no longer writes the last record, and the tool
    // rejects the body as truncated. Before the fix it decrypted the first half as a whole file.
    [Test]
    public async Task ABodyWhoseSourceFailedHalfWayIsTruncated()
    {
        byte[] key = KeyFile();
        var body = new MemoryStream();
        await Assert.ThrowsAsync<IOException>(async () =>
        {
            await using var encrypting = new ContentEncryptingStream(body, key, new ContentEncodingOptions { RecordSize = RecordSize }, leaveOpen: true);
            await new FailingSource(Content(10 * Data), failAfter: 5 * Data).CopyToAsync(encrypting);
            await encrypting.FlushFinalBlockAsync();
        });
        DecryptFails(body.ToArray(), "the end of the input, after record 5", "truncated");
    }

    [Test]
    public void TruncatedInTheHeader()
    {
        byte[] body = Sealed();
        DecryptFails(body[..10], "in the header", "header needs 21");
    }

    [Test]
    public void TrailingDataAfterAFullSizeLastRecord()
    {
        byte[] body = Sealed(Content(2 * Data));
        Assert.That(body, Has.Length.EqualTo(Header + (2 * RecordSize)), "the last record should be full-size");
        DecryptFails([.. body, 0x00], "at byte offset 221, after record 1, the last one", "continues after record 1");
    }

    [Test]
    public void TrailingDataAfterAShortLastRecord()
    {
        byte[] body = Sealed();
        DecryptFails([.. body, .. "junk"u8], "in record 2", "failed authentication");
    }

    [Test]
    public void EmptyInput()
    {
        KeyFile();
        DecryptFails([], "in the header", "0 bytes long");
    }

    [Test]
    public void NotAnEncryptedFile()
    {
        KeyFile();
        DecryptFails(Content(5000), "Is it an encrypted file");
    }

    [Test]
    public void OnStandardOutputOnlyVerifiedRecordsAreWritten()
    {
        byte[] body = Sealed();
        body[Header + (2 * RecordSize) + 5] ^= 0x01;   // in the last record
        ToolResult result = RunWithInput(body, "decrypt", "-k", "key");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            Assert.That(result.Stdout, Is.EqualTo(Plain[..(2 * Data)]), "records 0 and 1, and nothing of record 2");
            Assert.That(result.Stderr, Does.Contain("in record 2").And.Contain($"Standard output already received {2 * Data} bytes"));
        });
    }

    [Test]
    public void OnStandardOutputAFullSizeLastRecordFollowedByDataIsNotWritten()
    {
        byte[] content = Content(2 * Data);
        byte[] body = Sealed(content);
        ToolResult result = RunWithInput([.. body, 0x2a], "decrypt", "-k", "key");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
            Assert.That(result.Stdout, Is.EqualTo(content[..Data]), "record 0 only: record 1 was followed by data");
            Assert.That(result.Stderr, Does.Contain("after record 1, the last one"));
        });
    }

    [Test]
    public void OnStandardOutputAWrongKeyWritesNothing()
    {
        byte[] body = Sealed();
        KeyFile(seed: 8);
        ToolResult result = RunWithInput(body, "decrypt", "-k", "key");
        Assert.That(result.ExitCode, Is.EqualTo(3), result.ToString());
        Assert.That(result.Stdout, Is.Empty);
        Assert.That(result.Stderr, Does.Contain("Nothing was written to standard output"));
    }

    [TestCase(0, "is empty")]
    [TestCase(20, "holds 20 bytes")]
    [TestCase(33, "holds more than 32 bytes")]
    [TestCase(44, "holds more than 32 bytes")]
    public void KeyFilesOfTheWrongLengthAreRefused(int length, string expected)
    {
        Write("key", Content(length, seed: 3));
        Write("plain", Content(10));
        foreach (string command in new[] { "encrypt", "decrypt" })
        {
            ToolResult result = Run(command, "-k", "key", "plain", "out");
            Assert.That(result.ExitCode, Is.EqualTo(2), result.ToString());
            Assert.That(result.Stderr, Does.Contain("the key file 'key' " + expected));
        }

        Assert.That(Files(), Is.EqualTo(new[] { "key", "plain" }));
    }

    [Test]
    public void MissingFiles()
    {
        KeyFile();
        ToolResult noKey = Run("encrypt", "-k", "nokey", "key", "out");
        ToolResult noInput = Run("decrypt", "-k", "key", "noinput", "out");
        ToolResult noDirectory = Run("encrypt", "-k", "key", "key", Path.Combine("nowhere", "out"));
        System.IO.Directory.CreateDirectory(PathOf("dir"));
        ToolResult directoryInput = Run("encrypt", "-k", "key", "dir", "out");
        Assert.Multiple(() =>
        {
            Assert.That(noKey.ExitCode, Is.EqualTo(2), noKey.ToString());
            Assert.That(noKey.Stderr, Does.Contain("cannot read the key file 'nokey': no such file"));
            Assert.That(noInput.ExitCode, Is.EqualTo(2), noInput.ToString());
            Assert.That(noInput.Stderr, Does.Contain("cannot open the input 'noinput': no such file"));
            Assert.That(noDirectory.ExitCode, Is.EqualTo(2), noDirectory.ToString());
            Assert.That(noDirectory.Stderr, Does.Contain("no such directory"));
            Assert.That(directoryInput.ExitCode, Is.EqualTo(2), directoryInput.ToString());
            Assert.That(directoryInput.Stderr, Does.Contain("'dir' is a directory"));
        });
    }

    /// <summary>
    /// Issue 17, finding 8: an empty path went to .NET's file APIs, whose ArgumentException printed a
    /// stack trace; a key file that is a directory was reported as "permission denied". Each bad path
    /// is one line on stderr and exit code 2 (an I/O error, docs/tool.md), and nothing is created.
    /// </summary>
    [TestCase("the key file '' ... the path is empty", "keygen", "")]
    [TestCase("the key file '' ... the path is empty", "encrypt", "-k", "", "plain", "out")]
    [TestCase("the key file '' ... the path is empty", "decrypt", "-k", "", "plain", "out")]
    [TestCase("the input '' ... the path is empty", "encrypt", "-k", "key", "", "out")]
    [TestCase("the input '' ... the path is empty", "decrypt", "-k", "key", "", "out")]
    [TestCase("the output '' ... the path is empty", "encrypt", "-k", "key", "plain", "")]
    [TestCase("the output '' ... the path is empty", "decrypt", "-k", "key", "plain", "")]
    [TestCase("the key file 'dir' is a directory", "encrypt", "-k", "dir", "plain", "out")]
    [TestCase("the key file 'dir' is a directory", "decrypt", "-k", "dir", "plain", "out")]
    [TestCase("the key file 'dir' is a directory", "keygen", "dir")]
    public void BadPathsGiveOneLineAndExitCodeTwo(string expected, params string[] arguments)
    {
        KeyFile();
        Write("plain", Content(10));
        System.IO.Directory.CreateDirectory(PathOf("dir"));
        ToolResult result = Run(arguments);
        string[] lines = result.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        string[] parts = expected.Split(" ... ");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(2), result.ToString());
            Assert.That(lines, Has.Length.EqualTo(1), result.ToString());
            Assert.That(result.Stderr, Does.StartWith("aesgcmsiv: "));
            foreach (string part in parts)
            {
                Assert.That(result.Stderr, Does.Contain(part));
            }

            Assert.That(Files(), Is.EqualTo(new[] { "key", "plain" }), "nothing was created");
        });
    }

    [Test]
    public void OutputsThatAreNotRegularFilesAreNeverRenamedOver()
    {
        Assume.That(OperatingSystem.IsLinux(), Is.True, "device nodes and symbolic links as on Linux");
        KeyFile();
        Write("plain", Content(10));
        Write("target", Content(5));
        File.CreateSymbolicLink(PathOf("link"), PathOf("target"));
        ToolResult device = Run("encrypt", "-k", "key", "--force", "plain", "/dev/null");
        ToolResult link = Run("encrypt", "-k", "key", "--force", "plain", "link");
        Assert.Multiple(() =>
        {
            Assert.That(device.ExitCode, Is.EqualTo(2), device.ToString());
            Assert.That(device.Stderr, Does.Contain("not a regular file"));
            Assert.That(new FileInfo("/dev/null").Attributes, Is.Not.EqualTo(FileAttributes.Archive));
            Assert.That(link.ExitCode, Is.EqualTo(2), link.ToString());
            Assert.That(link.Stderr, Does.Contain("is a symbolic link"));
            Assert.That(new FileInfo(PathOf("link")).LinkTarget, Is.Not.Null);
        });
    }

    [TestCase("encrypt", "--bogus")]
    [TestCase("encrypt", "--record-size", "17")]
    [TestCase("encrypt", "--record-size", "16777217")]
    [TestCase("encrypt", "--coding", "aes256gcm")]
    [TestCase("decrypt", "a", "b", "c")]
    [TestCase("frobnicate")]
    public void UsageErrorsExitWithOneAndTouchNothing(params string[] arguments)
    {
        KeyFile();
        string[] withKey = arguments[0] == "frobnicate" ? arguments : [arguments[0], "-k", "key", .. arguments[1..]];
        ToolResult result = Run(withKey);
        Assert.That(result.ExitCode, Is.EqualTo(1), result.ToString());
        Assert.That(result.Stderr, Does.Contain("--help"));
        Assert.That(Files(), Is.EqualTo(new[] { "key" }));
    }

    /// <summary>The coding parser knows the library's coding names and "gcmsiv", in any case, and
    /// nothing else: an unknown name is a usage error that names the valid ones, never a default coding.</summary>
    [TestCase("aes256gcm")]
    [TestCase("gcm-siv")]
    [TestCase("")]
    public void AnUnknownCodingIsAUsageErrorThatNamesTheCodings(string name)
    {
        KeyFile();
        ToolResult encrypt = Run("encrypt", "-k", "key", "--coding", name, "-", "out");
        ToolResult decrypt = Run("decrypt", "-k", "key", "-c", name, "in", "out");
        Assert.Multiple(() =>
        {
            foreach (ToolResult result in new[] { encrypt, decrypt })
            {
                Assert.That(result.ExitCode, Is.EqualTo(1), result.ToString());
                Assert.That(result.Stderr, Does.Contain($"Unknown --coding '{name}'").And.Contain("gcmsiv").And.Contain("aes128gcm"));
            }

            Assert.That(Files(), Is.EqualTo(new[] { "key" }));
        });
    }

    [TestCase("GCMSIV")]
    [TestCase("Aes256GcmSiv")]
    [TestCase("AES128GCM")]
    public void CodingNamesAreCaseInsensitive(string name)
    {
        byte[] key = KeyFile();
        ToolResult result = RunWithInput("hello"u8.ToArray(), "encrypt", "-k", "key", "-c", name);
        Assert.That(result.ExitCode, Is.Zero, result.ToString());
        ContentCoding coding = name.Contains("128", StringComparison.Ordinal) ? ContentCoding.Aes128Gcm : ContentCoding.Aes256GcmSiv;
        Assert.That(ContentEncryption.Decrypt(result.Stdout, key, new ContentEncodingOptions { Coding = coding }), Is.EqualTo("hello"u8.ToArray()));
    }

    [Test]
    public void TheKeyOptionIsRequiredAndTheKeyIdIsLimited()
    {
        KeyFile();
        ToolResult noKey = Run("encrypt");
        ToolResult longKeyId = Run("encrypt", "-k", "key", "--key-id", new string('x', 256));
        Assert.Multiple(() =>
        {
            Assert.That(noKey.ExitCode, Is.EqualTo(1), noKey.ToString());
            Assert.That(noKey.Stderr, Does.Contain("'--key' is required"));
            Assert.That(longKeyId.ExitCode, Is.EqualTo(1), longKeyId.ToString());
            Assert.That(longKeyId.Stderr, Does.Contain("at most 255 bytes"));
        });
    }

    /// <summary>A write that fails (standard output on /dev/full: no space left) after several batches
    /// have gone to the writer thread: the error comes back to the loop, the tool stops with the I/O exit
    /// code and says what failed.</summary>
    [TestCase("encrypt")]
    [TestCase("decrypt")]
    public void AFailedWriteStopsTheToolWithTheError(string command)
    {
        Assume.That(File.Exists("/dev/full"), Is.True, "needs /dev/full");
        byte[] key = KeyFile();
        byte[] plain = Content(6 << 20);
        Write("input", command == "decrypt" ? ContentEncryption.Encrypt(plain, key, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096 }) : plain);
        var start = new ProcessStartInfo("/bin/sh") { WorkingDirectory = Directory, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add("exec dotnet \"$0\" " + command + " -k key input > /dev/full");
        start.ArgumentList.Add(ToolRunner.ToolPath);
        using Process process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        Assert.That(process.WaitForExit(ToolRunner.Timeout), Is.True, "the tool did not stop");
        Assert.Multiple(() =>
        {
            Assert.That(process.ExitCode, Is.EqualTo(2), stderr.Result);
            Assert.That(stderr.Result, Does.Contain("cannot write standard output"));
            Assert.That(Files(), Is.EqualTo(new[] { "input", "key" }));
        });
    }

    /// <summary>Ctrl+C (SIGINT), SIGTERM or SIGHUP (terminal closed) while the tool waits for more input: the temporary file is
    /// removed and the signal ends the process (exit status 128 + the signal, as a shell reports it).</summary>
    [TestCase("decrypt", "INT", 2)]
    [TestCase("encrypt", "INT", 2)]
    [TestCase("decrypt", "TERM", 15)]
    [TestCase("encrypt", "TERM", 15)]
    [TestCase("decrypt", "HUP", 1)]
    public void AnInterruptLeavesNoFileBehind(string command, string signal, int number)
    {
        Assume.That(OperatingSystem.IsWindows(), Is.False, "signals");

        byte[] key = KeyFile();
        byte[] firstPart = command == "decrypt"
            ? ContentEncryption.Encrypt(Content(1 << 20), key, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = 4096 })[..(1 << 19)]
            : Content(1 << 19);

        // A signal ignored here would be ignored in the tool too, as in any program it starts: a test run
        // started in the background by a shell without job control ignores SIGINT, one under nohup
        // SIGHUP. Then the tool starts with that signal's default action restored, so the case runs
        // there too (CI) instead of being left inconclusive.
        using Process process = IsIgnoredHere(number)
            ? ToolRunner.StartWithDefaultSignal(Directory, signal, command, "-k", "key", "-", "out")
            : ToolRunner.Start(Directory, command, "-k", "key", "-", "out");
        var stderr = process.StandardError.ReadToEndAsync();
        var stdout = ToolRunner.ReadAllAsync(process.StandardOutput.BaseStream);
        try
        {
            process.StandardInput.BaseStream.Write(firstPart);
            process.StandardInput.BaseStream.Flush();

            // The temporary file exists once the tool is under way; stdin stays open, so it waits for more.
            var clock = Stopwatch.StartNew();
            while (!Files().Any(name => name.StartsWith(".out.tmp-", StringComparison.Ordinal)) && clock.Elapsed < ToolRunner.Timeout)
            {
                Thread.Sleep(20);
            }

            Assert.That(Files(), Has.Some.StartsWith(".out.tmp-"), "the tool never created its temporary file");
            using (Process kill = Process.Start("kill", ["-" + signal, process.Id.ToString(CultureInfo.InvariantCulture)]))
            {
                kill.WaitForExit();
            }

            Assert.That(process.WaitForExit(TimeSpan.FromSeconds(30)), Is.True, "the tool did not stop after the signal");
            Assert.Multiple(() =>
            {
                Assert.That(process.ExitCode, Is.EqualTo(128 + number), stderr.Result);
                Assert.That(stderr.Result, Does.Contain("interrupted (SIG" + signal + ")"));
                Assert.That(Files(), Is.EqualTo(new[] { "key" }), "a file was left behind");
                Assert.That(stdout.Result, Is.Empty);
            });
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill();
            }
        }
    }

    private static bool IsIgnoredHere(int signal)
    {
        // /proc/self/status: "SigIgn:" and a hexadecimal mask in which bit (signal - 1) is set for an ignored signal.
        string? line = File.Exists("/proc/self/status") ? File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal)) : null;
        return line is not null && ((ulong.Parse(line["SigIgn:".Length..].Trim(), NumberStyles.HexNumber, CultureInfo.InvariantCulture) >> (signal - 1)) & 1) == 1;
    }

    // Serves its data up to failAfter bytes, then throws, as a disk or network source does.
    private sealed class FailingSource(byte[] data, int failAfter) : Stream
    {
        private int _position;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => _position; set => throw new NotSupportedException(); }

        public override int Read(byte[] buffer, int offset, int count)
        {
            if (_position >= failAfter)
            {
                throw new IOException("the source failed half way");
            }

            count = Math.Min(Math.Min(count, 100), data.Length - _position);
            data.AsSpan(_position, count).CopyTo(buffer.AsSpan(offset));
            _position += count;
            return count;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
