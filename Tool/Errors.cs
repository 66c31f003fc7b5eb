// Short, plain descriptions of the I/O failures the tool reports. .NET's own messages repeat the
// path, which the tool's messages already name.

using System;
using System.IO;

namespace Cryptography.Tool;

internal static class Errors
{
    public static bool IsFileError(Exception exception) =>
        exception is IOException or UnauthorizedAccessException && exception is not ToolException;

    public static string Describe(Exception exception) => exception switch
    {
        FileNotFoundException => "no such file",
        DirectoryNotFoundException => "no such directory",
        UnauthorizedAccessException => "permission denied",
        PathTooLongException => "the path is too long",
        _ => exception.Message,
    };
}
