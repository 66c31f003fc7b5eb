// Key files: 16 or 32 raw bytes, nothing else: the input keying material of RFC 8188's HKDF key schedule.
// Any other length is far more likely a mistake (a text file, a trailing newline, the wrong file) than a
// key, so it is refused. Messages name the file and its length, never its bytes.

using System;
using System.IO;
using System.Security.Cryptography;
using System.Threading;

namespace Cryptography.Tool;

internal static class KeyFile
{
    public const int DefaultLength = 32;

    public static bool IsValidLength(int length) => length is 16 or 32;

    /// <summary>Reads a key file into a pinned array, which the caller wipes.</summary>
    public static byte[] Read(string path)
    {
        Errors.CheckPath(path, $"cannot read the key file '{path}'");

        // One byte more than the longest key, to tell "32" from "longer".
        byte[] buffer = GC.AllocateArray<byte>(33, pinned: true);
        try
        {
            int read;
            try
            {
                using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);
                read = stream.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
            }
            catch (UnauthorizedAccessException exception) when (Directory.Exists(path))
            {
                // Opening a directory fails as "access denied", which would send the user after permissions.
                throw new ToolException(ExitCodes.IO, $"the key file '{path}' is a directory", exception);
            }
            catch (Exception exception) when (Errors.IsFileError(exception))
            {
                throw Errors.IO($"cannot read the key file '{path}'", exception);
            }

            if (!IsValidLength(read))
            {
                string problem = read switch
                {
                    0 => "is empty; a key file holds 16 or 32 raw bytes (see 'keygen')",
                    > 32 => "holds more than 32 bytes; a key file holds exactly 16 or 32 raw bytes (see 'keygen'), not text or base64",
                    _ => $"holds {read} bytes; a key file holds exactly 16 or 32 raw bytes (see 'keygen'), not text or base64",
                };
                throw new ToolException(ExitCodes.IO, $"the key file '{path}' {problem}");
            }

            byte[] key = GC.AllocateArray<byte>(read, pinned: true);
            buffer.AsSpan(0, read).CopyTo(key);
            return key;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    /// <summary>Writes a fresh random key, readable and writable by its owner only (0600) from the moment it exists.</summary>
    public static int Generate(string path, int length, bool force, CancellationToken cancellationToken)
    {
        byte[] key = GC.AllocateArray<byte>(length, pinned: true);
        try
        {
            RandomNumberGenerator.Fill(key);
            using var output = OutputFile.Create(path, force, OutputFile.OwnerOnly, "key file", cancellationToken);
            output.Stream.Write(key);
            output.Commit();
            return ExitCodes.Success;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }
}
