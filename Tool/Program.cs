// aesgcmsiv: the command-line file tool. See Cli for the commands and docs/tool.md for the guide.

using System;
using System.CommandLine;
using System.CommandLine.Parsing;

namespace Cryptography.Tool;

internal static class Program
{
    public static int Main(string[] args)
    {
        RootCommand root = Cli.Build();
        var configuration = new InvocationConfiguration
        {
            // Ctrl+C and SIGTERM cancel the token the commands watch; the command deletes its temporary
            // file at once (a registration on the token) and then stops. When a read blocks, give up
            // waiting after this long: the temporary file is gone already.
            ProcessTerminationTimeout = TimeSpan.FromSeconds(2),

            // Every expected failure is caught and reported in one line; anything else is a bug, and
            // its stack trace is worth seeing.
            EnableDefaultExceptionHandler = true,
        };
        ParseResult parsed = root.Parse(args);
        if (parsed.Errors.Count > 0)
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
