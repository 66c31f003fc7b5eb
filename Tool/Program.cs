// aesgcmsiv: the command-line file tool. See Cli for the commands and docs/tool.md for the guide.

using System;
using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;

namespace Cryptography.Tool;

internal static class Program
{
    public static int Main(string[] args)
    {
        Warmup.StartFor(args);
        RootCommand root = Cli.Build();
        var configuration = new InvocationConfiguration
        {
            // Interrupt handles Ctrl+C and SIGTERM: System.CommandLine's handling would wait for the
            // command to return, which a read blocked on a pipe or a terminal never does.
            ProcessTerminationTimeout = null,

            // Every expected failure is caught and reported in one line; anything else is a bug, and
            // its stack trace is worth seeing.
            EnableDefaultExceptionHandler = true,
        };
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

        return parsed.Invoke(configuration);
    }
}
