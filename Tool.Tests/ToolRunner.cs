// Runs the tool as a real process: `dotnet aesgcmsiv.dll ARGS`, with bytes on stdin, and collects the
// exit code, stdout (bytes) and stderr (text). Every run has a time limit, so a hang fails the test
// instead of the CI run.

using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;
using NUnit.Framework;

namespace Tool.Tests;

public sealed record ToolResult(int ExitCode, byte[] Stdout, string Stderr)
{
    public override string ToString() => $"exit code {ExitCode}, {Stdout.Length} bytes on stdout, stderr: {Stderr}";
}

public static class ToolRunner
{
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(120);

    /// <summary>The built aesgcmsiv.dll, which Tool.Tests.csproj names (the project reference builds it first).</summary>
    public static string ToolPath { get; } = typeof(ToolRunner).Assembly
        .GetCustomAttributes<AssemblyMetadataAttribute>()
        .Single(attribute => attribute.Key == "ToolPath").Value!;

    public static ToolResult Run(string workingDirectory, byte[]? stdin, params string[] arguments)
    {
        using Process process = Start(workingDirectory, arguments);
        Task<byte[]> stdout = ReadAllAsync(process.StandardOutput.BaseStream);
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        Task feed = Task.Run(() =>
        {
            try
            {
                if (stdin is not null)
                {
                    process.StandardInput.BaseStream.Write(stdin);
                }

                process.StandardInput.Close();
            }
            catch (IOException)
            {
                // The tool stopped reading (it failed early): what it did is what the test checks.
            }
        });
        if (!process.WaitForExit(Timeout))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"aesgcmsiv {string.Join(' ', arguments)} did not finish within {Timeout}.");
        }

        feed.Wait(Timeout);
        return new ToolResult(process.ExitCode, stdout.Result, stderr.Result);
    }

    /// <summary>Starts the tool with all three standard streams redirected; the caller drives them.</summary>
    public static Process Start(string workingDirectory, params string[] arguments) =>
        StartProgram(workingDirectory, "dotnet", [ToolPath, .. arguments]);

    /// <summary>
    /// <see cref="Start(string, string[])"/>, with <paramref name="signal"/> (a name such as INT)
    /// back at its default action in the tool. A program inherits the signals its parent ignores, and
    /// the .NET runtime leaves an ignored signal ignored, so a test run started in the background
    /// (SIGINT ignored) or under nohup (SIGHUP) could not signal the tool. coreutils' env
    /// --default-signal restores the action and then replaces itself with dotnet (exec), so the
    /// process returned is the tool's.
    /// </summary>
    public static Process StartWithDefaultSignal(string workingDirectory, string signal, params string[] arguments) =>
        StartProgram(workingDirectory, "env", ["--default-signal=" + signal, "dotnet", ToolPath, .. arguments]);

    private static Process StartProgram(string workingDirectory, string program, string[] arguments)
    {
        var start = new ProcessStartInfo(program)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        return Process.Start(start) ?? throw new InvalidOperationException("could not start " + program);
    }

    public static async Task<byte[]> ReadAllAsync(Stream stream)
    {
        using var buffer = new MemoryStream();
        await stream.CopyToAsync(buffer).ConfigureAwait(false);
        return buffer.ToArray();
    }
}

/// <summary>A fresh directory for each test, deleted afterwards, with helpers for the files in it.</summary>
public abstract class ToolTestBase
{
    protected string Directory { get; private set; } = null!;

    [SetUp]
    public void CreateDirectory()
    {
        Assert.That(File.Exists(ToolRunner.ToolPath), Is.True, $"the tool is not built at {ToolRunner.ToolPath}");
        Directory = Path.Combine(Path.GetTempPath(), "aesgcmsiv-tests-" + Guid.NewGuid().ToString("N")[..12]);
        System.IO.Directory.CreateDirectory(Directory);
    }

    [TearDown]
    public void DeleteDirectory() => System.IO.Directory.Delete(Directory, recursive: true);

    protected string PathOf(string name) => Path.Combine(Directory, name);

    protected ToolResult Run(params string[] arguments) => ToolRunner.Run(Directory, null, arguments);

    protected ToolResult RunWithInput(byte[] stdin, params string[] arguments) => ToolRunner.Run(Directory, stdin, arguments);

    protected byte[] Write(string name, byte[] content)
    {
        File.WriteAllBytes(PathOf(name), content);
        return content;
    }

    protected byte[] Read(string name) => File.ReadAllBytes(PathOf(name));

    /// <summary>The names in the test directory, temporary files included: what a failure left behind.</summary>
    protected string[] Files() => System.IO.Directory.GetFiles(Directory).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray()!;

    /// <summary>Deterministic content: a failure can be replayed.</summary>
    protected static byte[] Content(int length, int seed = 1)
    {
        byte[] content = new byte[length];
        new Random(seed).NextBytes(content);
        return content;
    }

    /// <summary>Writes a 32-byte key file with known bytes.</summary>
    protected byte[] KeyFile(string name = "key", int length = 32, int seed = 7) => Write(name, Content(length, seed));

    protected static void AssertSuccess(ToolResult result)
    {
        Assert.That(result.ExitCode, Is.Zero, result.ToString());

        // Silent when piped: the progress display is for terminals only, and success says nothing.
        Assert.That(result.Stderr, Is.Empty, result.ToString());
    }
}
