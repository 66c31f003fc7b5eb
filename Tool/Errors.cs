// How the tool fails: one exit code per kind of failure, so that scripts can tell a typo from a missing file
// from a forged or damaged ciphertext, and one short line on stderr (.NET's messages repeat the path).

using System;
using System.IO;

namespace Cryptography.Tool;

internal static class ExitCodes
{
    /// <summary>Everything was done; the output is complete and, for decrypt, verified.</summary>
    public const int Success = 0;

    /// <summary>The command line is wrong (System.CommandLine's parse-error code): nothing was read or written.</summary>
    public const int Usage = 1;

    /// <summary>A file could not be read, created or written, OUTPUT exists (without --force), or the key file is unusable.</summary>
    public const int IO = 2;

    /// <summary>Decryption failed: wrong key or coding, a modified, truncated or extended body, or not an encrypted body at all.</summary>
    public const int Data = 3;

    /// <summary>Interrupted, as a shell reports Ctrl+C (128 + SIGINT): returned only if the work notices the
    /// cancellation before the signal itself ends the process, after removing an unfinished output file.</summary>
    public const int Interrupted = 130;
}

internal static class Errors
{
    public static bool IsFileError(Exception exception) =>
        exception is IOException or UnauthorizedAccessException && exception is not ToolException;

    /// <summary>Refuses, as an I/O error, a path that .NET's file APIs would reject with an ArgumentException
    /// (a stack trace): an empty one, or one with a NUL. <paramref name="failure"/> says what could not be done.</summary>
    public static void CheckPath(string path, string failure)
    {
        string? problem = path.Length == 0 ? "the path is empty"
            : path.Contains('\0', StringComparison.Ordinal) ? "the path contains a NUL character"
            : null;
        if (problem is not null)
        {
            throw new ToolException(ExitCodes.IO, $"{failure}: {problem}");
        }
    }

    public static string Describe(Exception exception) => exception switch
    {
        FileNotFoundException => "no such file",
        DirectoryNotFoundException => "no such directory",
        UnauthorizedAccessException => "permission denied",
        PathTooLongException => "the path is too long",
        _ => exception.Message,
    };

    /// <summary>An I/O error as a one-line message: what could not be done, and why.</summary>
    public static ToolException IO(string failure, Exception exception) =>
        new(ExitCodes.IO, $"{failure}: {Describe(exception)}", exception);
}

/// <summary>A failure the tool reports as one line on stderr and an exit code.</summary>
internal sealed class ToolException(int exitCode, string message, Exception? innerException = null)
    : Exception(message, innerException)
{
    public int ExitCode { get; } = exitCode;
}
