// Start-up work moved off the critical path. The first AesGcmSiv in a process runs the backend
// self-test, which compiles the hardware code paths (they are compiled fully optimised on first use,
// not precompiled), and the first HKDF loads OpenSSL: together 40-60 ms of an encrypt or decrypt that
// does nothing else, a large share of a short command. Started on a thread of its own as Main begins,
// they run on another core while System.CommandLine parses the arguments and the files are opened;
// when the command reaches them first, it waits for the same one-time initialisation (the runtime's
// class-initialisation lock), so the order cannot matter.

using System;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.Tool;

internal static class Warmup
{
    /// <summary>Starts the warm-up when the command will encrypt or decrypt.</summary>
    public static void StartFor(string[] args)
    {
        if (args.Length > 0 && args[0] is "encrypt" or "decrypt")
        {
            // A thread of its own starts at once; the thread pool's first work item waited 7-17 ms for
            // the pool to start its workers.
            new Thread(Run) { IsBackground = true, Name = "aesgcmsiv warm-up" }.Start();
        }
    }

    private static void Run()
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
