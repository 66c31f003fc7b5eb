// The "keyfile" target: the aesgcmsiv tool's key-file reader (Tool/KeyFile.cs), as the tool runs it,
// on a real file. Byte 0 picks the case: mostly the rest is the file's content; otherwise the path is
// a directory, an empty string or a string with a NUL. Checks: a file of exactly 16 or 32 bytes is
// read back as it is; anything else is refused with a ToolException of exit code IO (2) whose message
// names the file and does not carry the file's bytes; nothing else escapes.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Cryptography.Tool;

namespace Fuzz;

public static class KeyFileTarget
{
    private static readonly string Folder = Directory.CreateTempSubdirectory("aesgcmsiv-fuzz-keyfile-").FullName;
    private static readonly string KeyPath = Path.Combine(Folder, "key");

    public static void Run(byte[] input)
    {
        if (input.Length == 0)
        {
            return;
        }

        byte[] content = input[1..];
        string path = (input[0] % 16) switch
        {
            13 => Folder,
            14 => "",
            15 => KeyPath + "\0" + "x",
            _ => KeyPath,
        };
        if (path == KeyPath)
        {
            File.WriteAllBytes(KeyPath, content);
        }

        byte[] key;
        try
        {
            key = KeyFile.Read(path);
        }
        catch (ToolException exception)
        {
            Finding.Check(exception.ExitCode == ExitCodes.IO, $"refused with exit code {exception.ExitCode}");
            Finding.Check(path != KeyPath || !KeyFile.IsValidLength(content.Length), $"a {content.Length}-byte key file was refused: {exception.Message}");
            Finding.Check(path.Length == 0 || exception.Message.Contains(path.Split('\0')[0], StringComparison.Ordinal), "the message does not name the file");
            Finding.Check(content.Length < 4 || !exception.Message.Contains(Convert.ToHexString(content[..4]), StringComparison.OrdinalIgnoreCase), "the message carries the file's bytes");
            return;
        }

        Finding.Check(path == KeyPath && KeyFile.IsValidLength(content.Length), $"a key was read from a {content.Length}-byte file or a bad path");
        Finding.Check(key.AsSpan().SequenceEqual(content), "the key read differs from the file");
    }

    public static IEnumerable<byte[]> Seeds()
    {
        foreach (int length in new[] { 0, 1, 15, 16, 17, 31, 32, 33, 44, 100 })
        {
            yield return [0, .. Enumerable.Range(0, length).Select(i => (byte)(i * 7))];
        }

        // A key written as base64 text with a newline, the mistake the reader is there to catch.
        yield return [0, .. "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=\n"u8];
        yield return [13];
        yield return [14];
        yield return [15];
    }
}
