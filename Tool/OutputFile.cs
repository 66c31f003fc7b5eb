// An output file that appears complete or not at all. It is written under a temporary name in the
// target's directory (".NAME.tmp-XXXXXXXX", created exclusively), flushed to the disk, closed, and
// only then renamed to NAME; a rename within one directory is atomic, so a reader never sees half a
// file, and a failure or an interrupt leaves only the temporary name, which is deleted. Discard may be
// called from another thread (the signal handler) while the owner is still writing.
//
// The rename must not replace a device or a named pipe (/dev/null), which .NET cannot tell from a regular
// file: on Linux the target's type comes from statx(2), whose struct has one layout on every architecture.

using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;
using System.Threading;

namespace Cryptography.Tool;

internal sealed partial class OutputFile(string displayPath, string fullPath, string temporaryPath, bool overwrite) : IDisposable
{
    /// <summary>rw------- : for keys and decrypted content.</summary>
    public const UnixFileMode OwnerOnly = UnixFileMode.UserRead | UnixFileMode.UserWrite;

    // File types, as in stat's st_mode & S_IFMT, with 0 for no file at all.
    private const int Missing = 0;
    private const int TypeMask = 0xF000;          // S_IFMT
    private const int TypeRegular = 0x8000;       // S_IFREG
    private const int TypeDirectory = 0x4000;     // S_IFDIR
    private const int TypeSymbolicLink = 0xA000;  // S_IFLNK

    private readonly Lock _gate = new();
    private FileStream? _stream;
    private CancellationTokenRegistration _onCancel;
    private bool _committed;
    private bool _discarded;

    /// <summary>The content goes here (unbuffered: every write goes to the file).</summary>
    public Stream Stream => _stream!;

    /// <summary>Creates the temporary file beside <paramref name="path"/> (<paramref name="what"/> names it in messages).
    /// An interrupt (<paramref name="cancellationToken"/>) deletes it: the deletion is registered before the file
    /// is created, and both take the same lock, so a signal at any moment leaves no file behind.</summary>
    public static OutputFile Create(string path, bool overwrite, UnixFileMode? mode, string what, CancellationToken cancellationToken)
    {
        Errors.CheckPath(path, $"cannot create the {what} '{path}'");
        string fullPath = Path.GetFullPath(path);
        string? problem = TypeOf(fullPath) switch
        {
            Missing => null,
            TypeRegular => overwrite ? null : "exists; use --force to replace it",
            TypeDirectory => "is a directory",
            TypeSymbolicLink => "is a symbolic link; name the file it points to (the output replaces the file it is renamed over)",
            _ => "is not a regular file (a device, pipe or socket); write to standard output and redirect it there instead",
        };
        if (problem is not null)
        {
            throw new ToolException(ExitCodes.IO, $"the {what} '{path}' {problem}");
        }

        string directory = Path.GetDirectoryName(fullPath) ?? throw new ToolException(ExitCodes.IO, $"the {what} '{path}' names no file");

        var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write, Share = FileShare.None, BufferSize = 0 };
        if (mode is { } unixMode && !OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = unixMode;
        }

        string temporaryPath = Path.Combine(directory, $".{Path.GetFileName(fullPath)}.tmp-{Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(4))}");
        var file = new OutputFile(path, fullPath, temporaryPath, overwrite);
        file._onCancel = cancellationToken.Register(file.Discard);
        try
        {
            lock (file._gate)
            {
                // Already interrupted: create nothing (Discard has run, or runs once this lock is free).
                file.ThrowIfDiscarded();
                file._stream = new FileStream(temporaryPath, options);
            }

            return file;
        }
        catch (Exception exception)
        {
            // Nothing was created (the stream's constructor is the last step), so there is nothing to delete.
            file._onCancel.Dispose();
            if (Errors.IsFileError(exception))
            {
                throw Errors.IO($"cannot create a temporary file in '{directory}' for the {what} '{path}'", exception);
            }

            throw;
        }
    }

    /// <summary>Flushes the content to the disk, closes the file and renames it to the output's name.</summary>
    public void Commit()
    {
        ThrowIfDiscarded();
        try
        {
            _stream!.Flush(flushToDisk: true);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Errors.IO($"cannot write the output '{displayPath}' (temporary file '{temporaryPath}')", exception);
        }

        lock (_gate)
        {
            ThrowIfDiscarded();
            _stream.Dispose();
            try
            {
                File.Move(temporaryPath, fullPath, overwrite);
            }
            catch (IOException exception) when (!overwrite && File.Exists(fullPath))
            {
                throw new ToolException(ExitCodes.IO, $"'{displayPath}' exists (it appeared while this command ran); use --force to replace it", exception);
            }
            catch (Exception exception) when (Errors.IsFileError(exception))
            {
                throw Errors.IO($"cannot rename the finished temporary file to '{displayPath}'", exception);
            }

            _committed = true;
        }
    }

    /// <summary>Deletes the temporary file unless the output was committed. Safe from any thread, any number of times.</summary>
    public void Discard()
    {
        lock (_gate)
        {
            if (!_committed)
            {
                _discarded = true;
                try
                {
                    File.Delete(temporaryPath);
                }
                catch (Exception exception) when (Errors.IsFileError(exception))
                {
                    // Nothing more can be done; the message about the failure that led here matters more.
                }
            }
        }
    }

    public void Dispose()
    {
        // First: this waits for a Discard in progress on the signal's thread, and none starts after it.
        _onCancel.Dispose();
        _stream?.Dispose();

        // Also after a Discard from the signal's thread: on Windows an open file cannot be deleted.
        Discard();
    }

    private void ThrowIfDiscarded()
    {
        if (_discarded)
        {
            throw new OperationCanceledException();
        }
    }

    /// <summary>The type of file <paramref name="path"/> names, without following a final symbolic link.</summary>
    private static int TypeOf(string path)
    {
        if (OperatingSystem.IsLinux() && TryStatx(path) is { } type)
        {
            return type;
        }

        var info = new FileInfo(path);
        return info.LinkTarget is not null ? TypeSymbolicLink
            : Directory.Exists(path) ? TypeDirectory
            : info.Exists ? TypeRegular : Missing;
    }

    /// <summary>The type from statx(2), or null when it cannot tell.</summary>
    private static int? TryStatx(string path)
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
                return Marshal.GetLastPInvokeError() is 2 or 20 ? Missing : null;
            }
        }
        catch (Exception exception) when (exception is DllNotFoundException or EntryPointNotFoundException)
        {
            return null;
        }

        return BitConverter.ToUInt16(buffer, 28) & TypeMask;
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static partial int Statx(int directoryFd, byte[] path, int flags, uint mask, byte[] statxBuffer);
}
