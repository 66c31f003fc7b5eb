// aesgcmsiv: the command-line file tool. See Cli for the commands and docs/tool.md for the guide.

using System;
using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.Tool;

internal static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] is "encrypt" or "decrypt")
        {
            // A thread of its own starts at once; the thread pool's first work item waits for the pool to start.
            new Thread(WarmUp) { IsBackground = true, Name = "aesgcmsiv warm-up" }.Start();
        }

        RootCommand root = Cli.Build();
        Interrupt.Install();
        ParseResult parsed = root.Parse(args);
        if (parsed.Action is ParseErrorAction)
        {
            // Each error on a line of its own and a pointer to --help, rather than the whole help text.
            foreach (ParseError error in parsed.Errors)
            {
                Console.Error.WriteLine($"{Cli.CommandName}: {error.Message}");
            }

            Console.Error.WriteLine($"Run '{Cli.CommandName} {parsed.CommandResult.Command.Name} --help' for the options.".Replace($"{Cli.CommandName} {Cli.CommandName}", Cli.CommandName, StringComparison.Ordinal));
            return ExitCodes.Usage;
        }

        return parsed.Invoke(new InvocationConfiguration
        {
            // Interrupt handles the signals: this handling would wait for a command blocked in a read to return.
            ProcessTerminationTimeout = null,

            // Expected failures are reported in one line (Cli.Run); anything else is a bug worth its stack trace.
            EnableDefaultExceptionHandler = true,
        });
    }

    /// <summary>The backend self-test (which compiles the hardware code paths) and loading OpenSSL for HKDF take
    /// 40-60 ms, a large share of a short command: done on another core while the arguments are parsed and the
    /// files opened (a command that gets there first waits for the same one-time initialisation).</summary>
    private static void WarmUp()
    {
        try
        {
            _ = AesGcmSiv.ActiveBackend;
            Span<byte> prk = stackalloc byte[32];
            HKDF.Extract(HashAlgorithmName.SHA256, [0], new byte[16], prk);
        }
        catch (Exception)
        {
            // The command meets the same failure on its own thread and reports it; escaping, it would end the process.
        }
    }
}

/// <summary>SIGINT, SIGTERM, SIGHUP: cancelling <see cref="Token"/> deletes every unfinished output's temporary file
/// at once (OutputFile.Discard, which cannot race with the rename that finishes one); then the signal's default
/// action ends the process, even when the work is blocked in a read that no cancellation token can interrupt.</summary>
internal static class Interrupt
{
    private static readonly CancellationTokenSource Source = new();

    // Held for the life of the process: a registration that is collected no longer handles its signal.
    private static PosixSignalRegistration[] _registrations = [];

    public static CancellationToken Token => Source.Token;

    public static void Install()
    {
        PosixSignal[] signals = OperatingSystem.IsWindows() ? [PosixSignal.SIGINT, PosixSignal.SIGTERM] : [PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGHUP];
        _registrations = Array.ConvertAll(signals, signal => PosixSignalRegistration.Create(signal, OnSignal));
    }

    /// <summary>The signal is about to end the process: wait for that (a while) rather than exit with our own status.</summary>
    public static void AwaitTheSignal() => Thread.Sleep(TimeSpan.FromSeconds(10));

    private static void OnSignal(PosixSignalContext context)
    {
        Source.Cancel();
        try
        {
            Console.Error.WriteLine($"{Cli.CommandName}: interrupted ({context.Signal}); no unfinished output file was left behind");
        }
        catch (System.IO.IOException)
        {
            // After SIGHUP the terminal may be gone; the cleanup above is what matters.
        }

        // context.Cancel stays false: the signal's default action ends the process now.
    }
}
