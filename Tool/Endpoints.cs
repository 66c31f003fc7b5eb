// Where the tool reads from and writes to: a file or "-" (standard input/output). Reads and writes
// go through thin wrappers that turn an I/O error into a message that names the file (and count the
// bytes written, for the message after a failure on standard output).

using System;
using System.IO;
using System.Threading;

namespace Cryptography.Tool;

/// <summary>The input: a file, opened for sequential reading without a buffer of its own, or standard input.</summary>
internal sealed class Source : ReadOnlyForwardStream
{
    private readonly Stream _inner;

    private Source(Stream inner, string name, long? length)
    {
        _inner = inner;
        Name = name;
        KnownLength = length;
    }

    /// <summary>How messages name the input.</summary>
    public string Name { get; }

    /// <summary>The input's length when it is known in advance (a regular file).</summary>
    public long? KnownLength { get; }

    public static bool IsStandard(string path) => path == "-";

    public static Source Open(string path)
    {
        if (IsStandard(path))
        {
            return new Source(Console.OpenStandardInput(), "standard input", null);
        }

        Errors.CheckPath(path, $"cannot open the input '{path}'");
        if (Directory.Exists(path))
        {
            throw new ToolException(ExitCodes.IO, $"the input '{path}' is a directory");
        }

        try
        {
            // bufferSize 0: the tool reads in large blocks, so a FileStream buffer would only add a copy.
            var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, FileOptions.SequentialScan);
            return new Source(file, $"'{path}'", file.CanSeek ? file.Length : null);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw new ToolException(ExitCodes.IO, $"cannot open the input '{path}': {Errors.Describe(exception)}", exception);
        }
    }

    /// <summary>How many bytes have been read: where the reader is in the input.</summary>
    public long BytesRead { get; private set; }

    public override int Read(Span<byte> buffer)
    {
        int read;
        try
        {
            read = _inner.Read(buffer);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw new ToolException(ExitCodes.IO, $"cannot read {Name}: {Errors.Describe(exception)}", exception);
        }

        BytesRead += read;
        return read;
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _inner.Dispose();
        }

        base.Dispose(disposing);
    }
}

/// <summary>The output: an <see cref="OutputFile"/> (complete or absent) or standard output.</summary>
internal sealed class Sink : WriteOnlyForwardStream
{
    private readonly Stream _inner;
    private readonly OutputFile? _file;

    private Sink(Stream inner, OutputFile? file, string name)
    {
        _inner = inner;
        _file = file;
        Name = name;
    }

    /// <summary>How messages name the output.</summary>
    public string Name { get; }

    /// <summary>Whether the output is standard output, where what was written cannot be taken back.</summary>
    public bool IsStandardOutput => _file is null;

    /// <summary>How many bytes have been written.</summary>
    public long BytesWritten { get; private set; }

    /// <summary>Opens the output.</summary>
    /// <param name="path">A path, or "-" for standard output.</param>
    /// <param name="force">Whether an existing file may be replaced.</param>
    /// <param name="mode">The new file's Unix mode, or null for the default.</param>
    /// <param name="binaryRefusedOnTerminal">For ciphertext: refuse to write it to a terminal, as gzip does.</param>
    /// <param name="cancellationToken">Cancelled on an interrupt: a file output is then deleted (registered as it is created).</param>
    public static Sink Open(string path, bool force, UnixFileMode? mode, bool binaryRefusedOnTerminal, CancellationToken cancellationToken)
    {
        if (Source.IsStandard(path))
        {
            if (binaryRefusedOnTerminal && !Console.IsOutputRedirected)
            {
                throw new ToolException(ExitCodes.Usage, "refusing to write ciphertext to a terminal; name an OUTPUT file or redirect standard output");
            }

            return new Sink(Console.OpenStandardOutput(), null, "standard output");
        }

        OutputFile file = OutputFile.Create(path, force, mode, "output", cancellationToken);
        return new Sink(file.Stream, file, $"'{path}'");
    }

    /// <summary>Makes the output final: renames the finished file into place, or flushes standard output.</summary>
    public void Commit()
    {
        if (_file is not null)
        {
            _file.Commit();
        }
        else
        {
            Flush();
        }
    }

    /// <summary>Removes a file output that was not committed; does nothing for standard output. Safe from any thread.</summary>
    public void Discard() => _file?.Discard();

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        try
        {
            _inner.Write(buffer);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw new ToolException(ExitCodes.IO, $"cannot write {Name}: {Errors.Describe(exception)}", exception);
        }

        BytesWritten += buffer.Length;
    }

    public override void Flush()
    {
        try
        {
            _inner.Flush();
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw new ToolException(ExitCodes.IO, $"cannot write {Name}: {Errors.Describe(exception)}", exception);
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            if (_file is not null)
            {
                _file.Dispose();
            }
            else
            {
                _inner.Dispose();
            }
        }

        base.Dispose(disposing);
    }
}
