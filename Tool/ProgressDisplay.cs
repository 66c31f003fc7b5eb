// Progress on stderr for long work, with Spectre.Console's progress bar, only when stderr is a
// terminal (and stdout is not that same terminal receiving the content): silent when piped. The
// copy loop reports at most ten times a second, so the display costs nothing in the hot loop.

using System;
using System.Globalization;
using Spectre.Console;

namespace Cryptography.Tool;

internal static class ProgressDisplay
{
    public const int IntervalMilliseconds = 100;

    /// <summary>Runs <paramref name="work"/>, handing it a callback that takes the number of input bytes
    /// processed so far, or null when there is nothing to show.</summary>
    public static void Run(Endpoint output, string description, long? total, Action<Action<long>?> work)
    {
        if (Console.IsErrorRedirected || (output.IsStandardOutput && !Console.IsOutputRedirected))
        {
            work(null);
            return;
        }

        // Interactive: stderr is a terminal (checked above). Spectre.Console would otherwise decide from
        // stdin, and fall back to printing static lines when the input comes from a pipe.
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(Console.Error), Interactive = InteractionSupport.Yes });
        ProgressColumn[] columns = total is null
            ? [new TaskDescriptionColumn(), new SpinnerColumn(), new TransferSpeedColumn(), new ElapsedTimeColumn()]
            : [new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new TransferSpeedColumn(), new RemainingTimeColumn()];
        console.Progress().AutoClear(true).Columns(columns).Start(context =>
        {
            // With no known length (standard input), the bar is indeterminate and the description counts the bytes.
            ProgressTask task = context.AddTask(Markup.Escape(description), maxValue: total is > 0 ? total.Value : double.MaxValue);
            task.IsIndeterminate = total is null;
            work(bytes =>
            {
                task.Value = bytes;
                if (total is null)
                {
                    task.Description = Markup.Escape($"{description} {FormatBytes(bytes)}");
                }
            });
            task.Value = task.MaxValue;
        });
    }

    private static string FormatBytes(long bytes) => bytes switch
    {
        >= 1L << 30 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 30):0.00} GiB"),
        >= 1L << 20 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 20):0.0} MiB"),
        >= 1L << 10 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 10):0.0} KiB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
    };
}
