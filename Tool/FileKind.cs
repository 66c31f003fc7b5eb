// What kind of file a path names, without following a final symbolic link. .NET reports a device, a
// FIFO and a regular file alike (FileAttributes.Normal), but the tool must not rename a file over
// /dev/null or a named pipe: it writes every output under a temporary name and renames it into place.
// Linux: statx(2), whose struct has one layout on every architecture (stx_mode is the u16 at offset
// 28; include/uapi/linux/stat.h). Elsewhere: .NET's view (directory, symbolic link, or a file).

using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;

namespace Cryptography.Tool;

internal enum FileKind
{
    Missing,
    Regular,
    Directory,
    SymbolicLink,
    Other,
}

internal static partial class FileKinds
{
    public static FileKind Of(string path)
    {
        if (OperatingSystem.IsLinux() && TryStatx(path) is { } kind)
        {
            return kind;
        }

        var info = new FileInfo(path);
        return info.LinkTarget is not null ? FileKind.SymbolicLink
            : Directory.Exists(path) ? FileKind.Directory
            : info.Exists ? FileKind.Regular
            : FileKind.Missing;
    }

    /// <summary>The kind from statx(2), or null where it cannot tell (no statx, or an error other than a missing file).</summary>
    private static FileKind? TryStatx(string path)
    {
        const int AtFdCwd = -100;             // AT_FDCWD: a relative path is relative to the working directory
        const int AtSymlinkNoFollow = 0x100;  // AT_SYMLINK_NOFOLLOW: report the link, not its target
        const uint StatxType = 0x1;           // STATX_TYPE: only the file type is wanted
        byte[] buffer = new byte[256];        // sizeof(struct statx)
        try
        {
            if (Statx(AtFdCwd, Encoding.UTF8.GetBytes(path + "\0"), AtSymlinkNoFollow, StatxType, buffer) != 0)
            {
                // ENOENT or ENOTDIR: there is no such file.
                return Marshal.GetLastPInvokeError() is 2 or 20 ? FileKind.Missing : null;
            }
        }
        catch (Exception exception) when (exception is DllNotFoundException or EntryPointNotFoundException)
        {
            return null;
        }

        // stx_mode & S_IFMT: S_IFREG, S_IFDIR, S_IFLNK, or something else.
        return (BitConverter.ToUInt16(buffer, 28) & 0xF000) switch
        {
            0x8000 => FileKind.Regular,
            0x4000 => FileKind.Directory,
            0xA000 => FileKind.SymbolicLink,
            _ => FileKind.Other,
        };
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static partial int Statx(int directoryFd, byte[] path, int flags, uint mask, byte[] statxBuffer);
}
