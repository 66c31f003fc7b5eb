// Ctrl+C (SIGINT), SIGTERM and SIGHUP (the terminal closed): clean up, then let the signal end the process.
//
// The handler cancels the token the commands watch, and the registrations on that token run at once,
// on the signal's thread: each deletes the temporary file of an unfinished output (OutputFile.Discard,
// which cannot race with the rename that finishes an output). The handler leaves the signal's default
// action alone, so the process ends at once with the status of that signal (a shell shows 130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP), even when the work is blocked in a read from a terminal or
// a pipe that no cancellation token can interrupt. That is also why System.CommandLine's own
// termination handling is off (Program): it waits for the command to return, and a blocked read never does.

using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;

namespace Cryptography.Tool;

internal static class Interrupt
{
    private static readonly CancellationTokenSource Source = new();

    // Held for the life of the process: a registration that is collected no longer handles its signal.
    private static readonly List<PosixSignalRegistration> Registrations = [];

    public static CancellationToken Token => Source.Token;

    public static void Install()
    {
        PosixSignal[] signals = OperatingSystem.IsWindows() ? [PosixSignal.SIGINT, PosixSignal.SIGTERM] : [PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGHUP];
        foreach (PosixSignal signal in signals)
        {
            Registrations.Add(PosixSignalRegistration.Create(signal, OnSignal));
        }
    }

    /// <summary>Called by a command that noticed the cancellation: the signal handler is about to let the
    /// signal end the process, so wait for that rather than exit with a status of our own. (Should the
    /// platform not end it, give up after a while and let the caller return its exit code.)</summary>
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
