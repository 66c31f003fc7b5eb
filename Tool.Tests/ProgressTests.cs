// The progress bar, which the tool draws only when standard error is a terminal: each command runs under
// script(1), which gives it a pseudo-terminal, and must still produce the right output. The bar is fed from
// the streams' reads of the input, on whichever thread reads, so these runs are large enough (16 MiB) for the
// streams' background tasks to take over.

using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Text.RegularExpressions;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class ProgressTests : ToolTestBase
{
    private const string Script = "/usr/bin/script";

    [TestCase(false, TestName = "FromAFile")]
    [TestCase(true, TestName = "FromAPipe")]
    public void UnderATerminalTheBarShowsAndTheOutputIsRight(bool piped)
    {
        Assume.That(File.Exists(Script), Is.True, "script(1) from util-linux gives the tool a terminal");
        byte[] content = new byte[16 << 20];
        new Random(16).NextBytes(content);
        Write("plain", content);
        Assert.That(Run("keygen", "key").ExitCode, Is.Zero);

        string encrypting = UnderATerminal(piped ? "cat plain | {0} encrypt -k key - sealed" : "{0} encrypt -k key plain sealed");
        string decrypting = UnderATerminal(piped ? "cat sealed | {0} decrypt -k key - opened" : "{0} decrypt -k key sealed opened");

        Assert.That(Read("opened").AsSpan().SequenceEqual(content), Is.True, "the round trip under a terminal");
        Assert.That(encrypting, Does.Contain("Encrypting"));
        Assert.That(decrypting, Does.Contain("Decrypting"));
        Assert.That(encrypting + decrypting, Does.Not.Contain("2147483647"), "the speed column of the last frame, when the total was unknown");
        if (piped)
        {
            Assert.That(decrypting, Does.Contain("Decrypting 16.0 MiB"), "with no total, the description counts the bytes, to the last");
        }
        else
        {
            Assert.That(decrypting, Does.Contain("%"), "with a total, the bar shows a percentage");
        }
    }

    /// <summary>Runs a shell command line with the tool in a pseudo-terminal and returns what it drew, without
    /// the terminal's control sequences. Fails unless the command exits 0.</summary>
    private string UnderATerminal(string commandLine)
    {
        string tool = $"dotnet '{ToolRunner.ToolPath}'";
        var start = new ProcessStartInfo(Script)
        {
            WorkingDirectory = Directory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in new[] { "-q", "-e", "-c", string.Format(System.Globalization.CultureInfo.InvariantCulture, commandLine, tool), "/dev/null" })
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["TERM"] = "xterm-256color";
        using Process process = Process.Start(start)!;
        process.StandardInput.Close();   // the terminal's keyboard: nothing is typed
        using var output = new MemoryStream();
        var copy = process.StandardOutput.BaseStream.CopyToAsync(output);
        string stderr = process.StandardError.ReadToEnd();
        if (!process.WaitForExit(ToolRunner.Timeout))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"{commandLine} did not finish under script within {ToolRunner.Timeout}.");
        }

        copy.Wait(ToolRunner.Timeout);
        string text = Regex.Replace(Encoding.UTF8.GetString(output.ToArray()), @"\x1b\[[0-9;?]*[A-Za-z]", string.Empty);
        Assert.That(process.ExitCode, Is.Zero, $"{commandLine}: {stderr}{text}");
        return text;
    }
}
