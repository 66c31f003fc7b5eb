// The tool's exit codes, one per kind of failure, so that scripts can tell a typo from a missing
// file from a forged or damaged ciphertext. Listed in --help (Cli.Epilog) and docs/tool.md.

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

    /// <summary>Interrupted: the process ends by the signal itself (a shell reports 128 + the signal: 130 for
    /// Ctrl+C, 143 for SIGTERM, 129 for SIGHUP); an unfinished output file was removed first. Returned only if the work
    /// notices the cancellation before the signal has ended the process.</summary>
    public const int Interrupted = 130;
}

/// <summary>A failure the tool reports as one line on stderr and an exit code.</summary>
internal sealed class ToolException : System.Exception
{
    public ToolException(int exitCode, string message)
        : base(message)
    {
        ExitCode = exitCode;
    }

    public ToolException(int exitCode, string message, System.Exception innerException)
        : base(message, innerException)
    {
        ExitCode = exitCode;
    }

    public ToolException()
    {
    }

    public ToolException(string message)
        : base(message)
    {
    }

    public ToolException(string message, System.Exception innerException)
        : base(message, innerException)
    {
    }

    public int ExitCode { get; } = ExitCodes.IO;
}
