// Where the tool reads from and writes to: a file or "-" (standard input or output), as a forward-only
// stream that turns an I/O error into a message naming the file, and counts the bytes that pass (for
// the progress display, and for the message after a failure on standard output).

using System;
using System.IO;
using System.Threading;

namespace Cryptography.Tool;

internal sealed class Endpoint : Stream
{
    private readonly Stream _inner;
    private readonly bool _isOutput;
    private readonly OutputFile? _file;

    private Endpoint(Stream inner, string name, bool isOutput, long? knownLength = null, OutputFile? file = null)
    {
        _inner = inner;
        _isOutput = isOutput;
        _file = file;
        Name = name;
        KnownLength = knownLength;
    }

    /// <summary>How messages name the input or output.</summary>
    public string Name { get; }

    /// <summary>The input's length when it is known in advance (a regular file).</summary>
    public long? KnownLength { get; }

    /// <summary>How many bytes have been read or written: for the input, where the reader is in it.</summary>
    public long BytesPassed { get; private set; }

    /// <summary>Whether the output is standard output, where what was written cannot be taken back.</summary>
    public bool IsStandardOutput => _isOutput && _file is null;

    public override bool CanRead => !_isOutput;

    public override bool CanSeek => false;

    public override bool CanWrite => _isOutput;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    /// <summary>Opens the input: a file, read sequentially without a buffer of its own, or standard input.</summary>
    public static Endpoint OpenInput(string path)
    {
        if (IsStandard(path))
        {
            return new Endpoint(Console.OpenStandardInput(), "standard input", isOutput: false);
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
            return new Endpoint(file, $"'{path}'", isOutput: false, file.CanSeek ? file.Length : null);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw new ToolException(ExitCodes.IO, $"cannot open the input '{path}': {Errors.Describe(exception)}", exception);
        }
    }

    /// <summary>Opens the output: an <see cref="OutputFile"/> (complete or absent) or standard output.</summary>
    /// <param name="path">A path, or "-" for standard output.</param>
    /// <param name="force">Whether an existing file may be replaced.</param>
    /// <param name="mode">The new file's Unix mode, or null for the default.</param>
    /// <param name="binaryRefusedOnTerminal">For ciphertext: refuse to write it to a terminal, as gzip does.</param>
    /// <param name="cancellationToken">Cancelled on an interrupt: a file output is then deleted.</param>
    public static Endpoint OpenOutput(string path, bool force, UnixFileMode? mode, bool binaryRefusedOnTerminal, CancellationToken cancellationToken)
    {
        if (!IsStandard(path))
        {
            OutputFile file = OutputFile.Create(path, force, mode, "output", cancellationToken);
            return new Endpoint(file.Stream, $"'{path}'", isOutput: true, file: file);
        }

        if (binaryRefusedOnTerminal && !Console.IsOutputRedirected)
        {
            throw new ToolException(ExitCodes.Usage, "refusing to write ciphertext to a terminal; name an OUTPUT file or redirect standard output");
        }

        return new Endpoint(Console.OpenStandardOutput(), "standard output", isOutput: true);
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

    public override int Read(Span<byte> buffer)
    {
        try
        {
            int read = _inner.Read(buffer);
            BytesPassed += read;
            return read;
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Failure("read", exception);
        }
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        try
        {
            _inner.Write(buffer);
            BytesPassed += buffer.Length;
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Failure("write", exception);
        }
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Flush()
    {
        try
        {
            _inner.Flush();
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Failure("write", exception);
        }
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            // An output file that was not committed deletes its temporary file as it closes.
            ((IDisposable?)_file ?? _inner).Dispose();
        }

        base.Dispose(disposing);
    }

    private static bool IsStandard(string path) => path == "-";

    private ToolException Failure(string verb, Exception exception) =>
        new(ExitCodes.IO, $"cannot {verb} {Name}: {Errors.Describe(exception)}", exception);
}
