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
    private const int AtFdCwd = -100;             // AT_FDCWD: a relative path is relative to the working directory
    private const int AtSymlinkNoFollow = 0x100;  // AT_SYMLINK_NOFOLLOW: report the link, not its target
    private const uint StatxType = 0x1;           // STATX_TYPE: only the file type is wanted
    private const int StatxSize = 256;            // sizeof(struct statx)
    private const int StatxModeOffset = 28;       // offsetof(struct statx, stx_mode)
    private const int TypeMask = 0xF000;          // S_IFMT
    private const int TypeRegular = 0x8000;       // S_IFREG
    private const int TypeDirectory = 0x4000;     // S_IFDIR
    private const int TypeSymbolicLink = 0xA000;  // S_IFLNK
    private const int NoSuchFile = 2;             // ENOENT
    private const int NotADirectory = 20;         // ENOTDIR

    public static FileKind Of(string path)
    {
        if (OperatingSystem.IsLinux() && TryStatx(path, out FileKind kind))
        {
            return kind;
        }

        var info = new FileInfo(path);
        if (info.LinkTarget is not null)
        {
            return FileKind.SymbolicLink;
        }

        if (Directory.Exists(path))
        {
            return FileKind.Directory;
        }

        return info.Exists ? FileKind.Regular : FileKind.Missing;
    }

    private static bool TryStatx(string path, out FileKind kind)
    {
        kind = FileKind.Missing;
        byte[] buffer = new byte[StatxSize];
        int result;
        try
        {
            result = Statx(AtFdCwd, Encoding.UTF8.GetBytes(path + "\0"), AtSymlinkNoFollow, StatxType, buffer);
        }
        catch (Exception exception) when (exception is DllNotFoundException or EntryPointNotFoundException)
        {
            return false;
        }

        if (result != 0)
        {
            int error = Marshal.GetLastPInvokeError();
            return error is NoSuchFile or NotADirectory;
        }

        int type = BitConverter.ToUInt16(buffer, StatxModeOffset) & TypeMask;
        kind = type switch
        {
            TypeRegular => FileKind.Regular,
            TypeDirectory => FileKind.Directory,
            TypeSymbolicLink => FileKind.SymbolicLink,
            _ => FileKind.Other,
        };
        return true;
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static partial int Statx(int directoryFd, byte[] path, int flags, uint mask, byte[] statxBuffer);
}
