// aesgcmsiv: the command-line file tool. See Cli for the commands and docs/tool.md for the guide.

using System;
using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.Tool;

internal static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] is "encrypt" or "decrypt")
        {
            // A thread of its own starts at once; the thread pool's first work item waited 7-17 ms for
            // the pool to start its workers.
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
            // Interrupt handles the signals: System.CommandLine's handling would wait for the command
            // to return, which a read blocked on a pipe or a terminal never does.
            ProcessTerminationTimeout = null,

            // Every expected failure is caught and reported in one line; anything else is a bug, and
            // its stack trace is worth seeing.
            EnableDefaultExceptionHandler = true,
        });
    }

    /// <summary>
    /// Start-up work moved off the critical path. The first AesGcmSiv in a process runs the backend
    /// self-test, which compiles the hardware code paths, and the first HKDF loads OpenSSL: together
    /// 40-60 ms of an encrypt or decrypt that does nothing else. Run on another core while the arguments
    /// are parsed and the files opened; a command that gets there first waits for the same one-time
    /// initialisation (the runtime's class-initialisation lock), so the order cannot matter.
    /// </summary>
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
            // Whatever failed here, the command meets again on its own thread and reports there; an
            // exception escaping the thread would end the process instead.
        }
    }
}
