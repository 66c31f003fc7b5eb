// The command line, with System.CommandLine: keygen, encrypt, decrypt, their options, a help text that
// ends with what a key file is and what the exit codes mean, and how failures become those exit codes:
// one per kind of failure, so that scripts can tell a typo from a missing file from a forged or damaged
// ciphertext, with one short line on stderr (.NET's own messages repeat the path).

using System;
using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;
using System.IO;
using System.Linq;
using Cryptography.ContentEncoding;

namespace Cryptography.Tool;

internal static class Cli
{
    public const string CommandName = "aesgcmsiv";

    /// <summary>The tool's short name for <see cref="ContentCoding.Aes256GcmSiv"/>, besides the HTTP names.</summary>
    private const string GcmSivShortName = "gcmsiv";

    public const string Epilog = """

        Key files:
          A key file holds the raw bytes of a key: exactly 16 or 32 bytes, no text, no base64, no newline.
          'keygen' writes 32 random bytes with mode 0600. Both codings use the key file's bytes as the
          input keying material of RFC 8188's HKDF-SHA-256 key schedule, with a fresh random 16-byte salt
          per file, so one key can encrypt any number of files.

        Codings (--coding):
          gcmsiv     the default: RFC 8188 framing with AES-256-GCM-SIV records (RFC 8452), nonce-misuse
                     resistant; only this library reads it (also accepted as 'aes256gcmsiv').
          aes128gcm  RFC 8188 aes128gcm (AES-128-GCM records): any RFC 8188 implementation reads and writes it.

        Safety on failure:
          A file OUTPUT is written as '.OUTPUT.tmp-XXXXXXXX' in OUTPUT's directory and renamed to OUTPUT
          only when complete (for decrypt: after the last record verified); on any failure or interrupt it
          is deleted, so OUTPUT is complete or absent. An existing OUTPUT is replaced only with --force.
          Decrypted files get mode 0600. On standard output, decrypt writes each record's data only after
          that record verified, but records before a failure have been written: check the exit code.

        Exit codes:
          0    success
          1    usage error: unknown command or option, bad value, ciphertext to a terminal
          2    I/O error: a file is missing, unreadable or unwritable, a path is empty, OUTPUT exists (use
               --force), or the key file is unusable (missing, a directory, empty, not 16 or 32 bytes)
          3    decryption failed: wrong key or --coding, modified, truncated or extended data, or not an
               encrypted file; the message gives the byte offset and record number
          130  interrupted by Ctrl+C (SIGINT); 143 by SIGTERM, 129 by SIGHUP: the process ends with the
               signal, after removing an unfinished OUTPUT
        """;

    public static RootCommand Build()
    {
        var root = new RootCommand(
            "Encrypts and decrypts files with a key file: RFC 8188 records sealed with AES-256-GCM-SIV "
            + "(the default) or AES-128-GCM (RFC 8188 aes128gcm), streaming in constant memory. INPUT and "
            + "OUTPUT default to standard input and output ('-' names them too).")
        {
            Keygen(), Encrypt(), Decrypt(),
        };
        HelpOption help = root.Options.OfType<HelpOption>().Single();
        help.Action = new HelpWithEpilog((HelpAction)help.Action!);
        return root;
    }

    private static Command Keygen()
    {
        var keyFile = new Argument<string>("KEYFILE") { Description = "The file to write the key to (raw bytes, mode 0600 on Unix)." };
        var bytes = new Option<int>("--bytes", "-b") { Description = "The key's length in bytes: 16 or 32.", DefaultValueFactory = _ => KeyFile.DefaultLength };
        bytes.AcceptOnlyFromAmong("16", "32");
        var force = new Option<bool>("--force", "-f") { Description = "Replace an existing KEYFILE." };
        var command = new Command("keygen", "Writes a new random key (from the operating system's CSPRNG) to KEYFILE. Refuses to replace an existing file without --force.") { keyFile, bytes, force };
        command.SetAction(result => Run(() => KeyFile.Generate(result.GetRequiredValue(keyFile), result.GetValue(bytes), result.GetValue(force), Interrupt.Token)));
        return command;
    }

    private static Command Encrypt()
    {
        var recordSize = new Option<int>("--record-size", "-r")
        {
            Description = FormattableString.Invariant($"The record size in bytes, tag included: {ContentEncryption.MinRecordSize} to {ContentEncryption.MaxRecordSize}. Larger records cost less per byte; a decoder holds one whole record in memory."),
            DefaultValueFactory = _ => ContentEncryption.DefaultRecordSize,
            HelpName = "N",
        };
        InRange(recordSize, ContentEncryption.MinRecordSize, ContentEncryption.MaxRecordSize);
        var keyId = new Option<string>("--key-id") { Description = "A key id to put in the header, in the clear (UTF-8, at most 255 bytes), so that a receiver can pick the key. Not secret.", HelpName = "ID" };
        keyId.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { } value && System.Text.Encoding.UTF8.GetByteCount(value) > 255)
            {
                result.AddError("--key-id must be at most 255 bytes in UTF-8.");
            }
        });
        return FileCommand(
            "encrypt",
            "Encrypts INPUT to OUTPUT. A file OUTPUT appears only once complete; a failure on standard output leaves a truncated body that no decoder accepts.",
            [recordSize, keyId],
            (result, job) => FileCommands.Encrypt(job, result.GetValue(recordSize), result.GetValue(keyId), Interrupt.Token));
    }

    private static Command Decrypt() => FileCommand(
        "decrypt",
        "Verifies and decrypts INPUT to OUTPUT. A file OUTPUT appears only after the last record verified; "
            + "on any failure (wrong key, modified, truncated or extended data) there is no OUTPUT and the exit code is 3.",
        [],
        (_, job) => FileCommands.Decrypt(job, Interrupt.Token));

    /// <summary>encrypt or decrypt: the options both take, declared here once, around the command's own.</summary>
    private static Command FileCommand(string name, string description, Option[] own, Func<ParseResult, FileJob, int> run)
    {
        var key = new Option<string>("--key", "-k") { Description = "The key file: exactly 16 or 32 raw bytes, as 'keygen' writes.", Required = true, HelpName = "KEYFILE" };
        Option<ContentCoding> coding = Coding();
        var threads = new Option<int>("--threads", "-t")
        {
            Description = "How many threads seal or open records at once (1 to 256). Default: the number of processors.",
            // Every processor: the sealing and opening threads fill the time the tool's reads and writes leave free.
            DefaultValueFactory = _ => Math.Clamp(Environment.ProcessorCount, 1, 256),
            HelpName = "N",
        };
        InRange(threads, 1, 256);
        var force = new Option<bool>("--force", "-f") { Description = "Replace an existing OUTPUT file." };
        Argument<string> input = FileArgument("INPUT", "The file to read, or '-' for standard input (the default).");
        Argument<string> output = FileArgument("OUTPUT", "The file to write, or '-' for standard output (the default).");
        var command = new Command(name, description) { input, output };
        Option[] options = [key, coding, .. own, threads, force];
        foreach (Option option in options)
        {
            command.Options.Add(option);
        }

        command.SetAction(result => Run(() => run(result, new FileJob(
            result.GetRequiredValue(key), result.GetValue(coding), result.GetValue(threads), result.GetRequiredValue(input), result.GetRequiredValue(output), result.GetValue(force)))));
        return command;
    }

    private static Option<ContentCoding> Coding() => new("--coding", "-c")
    {
        Description = "The record coding: gcmsiv (AES-256-GCM-SIV records, misuse-resistant; also 'aes256gcmsiv') or aes128gcm (RFC 8188, interoperable).",
        DefaultValueFactory = _ => ContentCoding.Aes256GcmSiv,
        HelpName = "gcmsiv|aes128gcm",
        CompletionSources = { { GcmSivShortName, ContentEncryption.Aes256GcmSivName, ContentEncryption.Aes128GcmName } },
        CustomParser = result =>
        {
            // The HTTP names the library knows, or "gcmsiv"; anything else is not a coding (never silently one of them).
            string name = result.Tokens[^1].Value;
            string httpName = string.Equals(name, GcmSivShortName, StringComparison.OrdinalIgnoreCase) ? ContentEncryption.Aes256GcmSivName : name;
            if (ContentEncryption.TryGetCoding(httpName, out ContentCoding parsed))
            {
                return parsed;
            }

            result.AddError($"Unknown --coding '{name}': use gcmsiv (also aes256gcmsiv) or aes128gcm.");
            return default;
        },
    };

    private static void InRange(Option<int> option, int min, int max) => option.Validators.Add(result =>
    {
        int value = result.GetValueOrDefault<int>();
        if (value < min || value > max)
        {
            result.AddError(FormattableString.Invariant($"{option.Name} must be between {min} and {max}, not {value}."));
        }
    });

    private static Argument<string> FileArgument(string name, string description)
    {
        var argument = new Argument<string>(name) { Description = description, Arity = ArgumentArity.ZeroOrOne, DefaultValueFactory = _ => "-" };

        // The parser takes an unknown option for a file name; a misspelt option should not become one.
        argument.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { Length: > 1 } value && value[0] == '-')
            {
                result.AddError($"Unknown option '{value}'. (For a file whose name starts with '-', write ./{value}.)");
            }
        });
        return argument;
    }

    /// <summary>Runs a command's work and turns its failures into a message on stderr and an exit code.</summary>
    private static int Run(Func<int> work)
    {
        try
        {
            return work();
        }
        catch (OperationCanceledException) when (Interrupt.Token.IsCancellationRequested)
        {
            // Interrupt has said so already, and the signal is about to end the process.
            Interrupt.AwaitTheSignal();
            return ExitCodes.Interrupted;
        }
        catch (Exception exception) when (exception is ToolException || Errors.IsFileError(exception))
        {
            var failure = exception as ToolException ?? new ToolException(ExitCodes.IO, Errors.Describe(exception));
            Console.Error.WriteLine($"{CommandName}: {failure.Message}");
            return failure.ExitCode;
        }
    }

    /// <summary>The standard help, followed by <see cref="Epilog"/>.</summary>
    private sealed class HelpWithEpilog(HelpAction standard) : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            int result = standard.Invoke(parseResult);
            parseResult.InvocationConfiguration.Output.WriteLine(Epilog);
            return result;
        }
    }
}

/// <summary>What encrypt and decrypt both take from the command line.</summary>
internal sealed record FileJob(string KeyPath, ContentCoding Coding, int Threads, string InputPath, string OutputPath, bool Force);

/// <summary>The exit codes, as <see cref="Cli.Epilog"/> explains them. <see cref="Usage"/> is System.CommandLine's
/// parse-error code (nothing was read or written); <see cref="Interrupted"/> is what a shell reports for Ctrl+C
/// (128 + SIGINT), returned only if the work notices the cancellation before the signal itself ends the process.</summary>
internal static class ExitCodes
{
    public const int Success = 0, Usage = 1, IO = 2, Data = 3, Interrupted = 130;
}

internal static class Errors
{
    public static bool IsFileError(Exception exception) => exception is IOException or UnauthorizedAccessException;

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
