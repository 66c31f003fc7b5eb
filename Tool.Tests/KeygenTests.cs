// keygen: a fresh random key of the asked length, mode 0600, never replacing a file without --force.

using System;
using System.IO;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class KeygenTests : ToolTestBase
{
    [TestCase(null, 32)]
    [TestCase("32", 32)]
    [TestCase("16", 16)]
    public void WritesARandomKeyOfTheLengthAskedWithModeOwnerOnly(string? bytes, int expected)
    {
        ToolResult first = bytes is null ? Run("keygen", "a") : Run("keygen", "--bytes", bytes, "a");
        ToolResult second = bytes is null ? Run("keygen", "b") : Run("keygen", "--bytes", bytes, "b");
        AssertSuccess(first);
        AssertSuccess(second);
        Assert.That(Read("a"), Has.Length.EqualTo(expected));
        Assert.That(Read("a"), Is.Not.EqualTo(Read("b")), "two keys are the same");
        Assert.That(Files(), Is.EqualTo(new[] { "a", "b" }), "a temporary file was left behind");
        if (!OperatingSystem.IsWindows())
        {
            Assert.That(File.GetUnixFileMode(PathOf("a")), Is.EqualTo(UnixFileMode.UserRead | UnixFileMode.UserWrite));
        }
    }

    [Test]
    public void RefusesToReplaceAKeyWithoutForce()
    {
        byte[] original = Write("key", Content(32));
        ToolResult result = Run("keygen", "key");
        Assert.Multiple(() =>
        {
            Assert.That(result.ExitCode, Is.EqualTo(2), result.ToString());
            Assert.That(result.Stderr, Does.Contain("'key' exists").And.Contain("--force"));
            Assert.That(Read("key"), Is.EqualTo(original), "the existing key was changed");
            Assert.That(Files(), Is.EqualTo(new[] { "key" }));
        });
    }

    [Test]
    public void ReplacesAKeyWithForceAndTheNewOneIsOwnerOnly()
    {
        byte[] original = Write("key", Content(32));
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(PathOf("key"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        }

        AssertSuccess(Run("keygen", "key", "--force", "--bytes", "16"));
        Assert.That(Read("key"), Has.Length.EqualTo(16));
        Assert.That(Read("key"), Is.Not.EqualTo(original[..16]));
        Assert.That(Files(), Is.EqualTo(new[] { "key" }));
        if (!OperatingSystem.IsWindows())
        {
            Assert.That(File.GetUnixFileMode(PathOf("key")), Is.EqualTo(UnixFileMode.UserRead | UnixFileMode.UserWrite));
        }
    }

    [TestCase("24")]
    [TestCase("0")]
    [TestCase("abc")]
    public void RejectsOtherLengthsAsAUsageError(string bytes)
    {
        ToolResult result = Run("keygen", "--bytes", bytes, "key");
        Assert.That(result.ExitCode, Is.EqualTo(1), result.ToString());
        Assert.That(result.Stderr, Does.Contain("keygen --help"));
        Assert.That(Files(), Is.Empty);
    }

    [Test]
    public void RefusesADirectoryAndAMissingDirectory()
    {
        System.IO.Directory.CreateDirectory(PathOf("dir"));
        ToolResult directory = Run("keygen", "dir", "--force");
        ToolResult missing = Run("keygen", Path.Combine("nowhere", "key"));
        Assert.Multiple(() =>
        {
            Assert.That(directory.ExitCode, Is.EqualTo(2), directory.ToString());
            Assert.That(directory.Stderr, Does.Contain("is a directory"));
            Assert.That(missing.ExitCode, Is.EqualTo(2), missing.ToString());
            Assert.That(missing.Stderr, Does.Contain("no such directory"));
        });
    }
}
