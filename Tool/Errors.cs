// Short, plain descriptions of the I/O failures the tool reports. .NET's own messages repeat the
// path, which the tool's messages already name.

using System;
using System.IO;

namespace Cryptography.Tool;

internal static class Errors
{
    public static bool IsFileError(Exception exception) =>
        exception is IOException or UnauthorizedAccessException && exception is not ToolException;

    /// <summary>
    /// Refuses, as an I/O error with a one-line message, a path that .NET's file APIs would reject
    /// with an ArgumentException (a stack trace, were it not caught): an empty one, or one with a NUL
    /// character. <paramref name="failure"/> says what could not be done ("cannot read the key file '...'").
    /// </summary>
    public static void CheckPath(string path, string failure)
    {
        if (path.Length == 0)
        {
            throw new ToolException(ExitCodes.IO, $"{failure}: the path is empty");
        }

        if (path.Contains('\0', StringComparison.Ordinal))
        {
            throw new ToolException(ExitCodes.IO, $"{failure}: the path contains a NUL character");
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
}
