// The input or the output: a file or "-" (standard input or output), as a stream that turns an I/O
// error into a message naming it, and counts the bytes (for progress and failure messages). An input
// file is seekable, so that the decrypting stream sees how much of a large record the file holds and
// sizes its buffer once (ContentDecryptingStream); the tool itself only reads forward.

using System;
using System.IO;
using System.Threading;
using Cryptography.ContentEncoding;

namespace Cryptography.Tool;

internal sealed class Endpoint(Stream inner, string name, bool isOutput, long? knownLength = null, OutputFile? file = null) : Stream
{
    public string Name => name;

    public long? KnownLength => knownLength;

    /// <summary>How many bytes have been read or written: for the input, where the reader is in it.</summary>
    public long BytesPassed { get; private set; }

    /// <summary>Called after each read: lets a copy the tool does not drive (the encrypting stream's
    /// CopyFrom) check for a signal and show progress.</summary>
    public Action? ReadDone { get; set; }

    /// <summary>Whether the output is standard output, where what was written cannot be taken back.</summary>
    public bool IsStandardOutput => isOutput && file is null;

    public override bool CanRead => !isOutput;

    public override bool CanSeek => !isOutput && inner.CanSeek;

    public override bool CanWrite => isOutput;

    public override long Length => CanSeek ? inner.Length : throw new NotSupportedException();

    public override long Position { get => CanSeek ? inner.Position : throw new NotSupportedException(); set => Seek(value, SeekOrigin.Begin); }

    /// <summary>Opens the input: a file, read sequentially without a buffer of its own, or standard input.</summary>
    public static Endpoint OpenInput(string path)
    {
        if (path == "-")
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
            var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, FileOptions.SequentialScan);
            return new Endpoint(stream, $"'{path}'", isOutput: false, stream.CanSeek ? stream.Length : null);
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Errors.IO($"cannot open the input '{path}'", exception);
        }
    }

    /// <summary>Opens the output: an <see cref="OutputFile"/> (complete or absent) or standard output, which
    /// refuses ciphertext (<paramref name="binaryRefusedOnTerminal"/>) when it is a terminal, as gzip does.</summary>
    public static Endpoint OpenOutput(string path, bool force, UnixFileMode? mode, bool binaryRefusedOnTerminal, CancellationToken cancellationToken)
    {
        if (path != "-")
        {
            OutputFile output = OutputFile.Create(path, force, mode, "output", cancellationToken);
            return new Endpoint(output.Stream, $"'{path}'", isOutput: true, file: output);
        }

        if (binaryRefusedOnTerminal && !Console.IsOutputRedirected)
        {
            throw new ToolException(ExitCodes.Usage, "refusing to write ciphertext to a terminal; name an OUTPUT file or redirect standard output");
        }

        return new Endpoint(Console.OpenStandardOutput(), "standard output", isOutput: true);
    }

    /// <summary>Makes the output final: flushes it, and renames a finished file into place.</summary>
    public void Commit()
    {
        Flush();
        file?.Commit();
    }

    public override int Read(Span<byte> buffer)
    {
        int read;
        try
        {
            read = inner.Read(buffer);
            BytesPassed += read;
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Errors.IO($"cannot read {Name}", exception);
        }

        ReadDone?.Invoke();
        return read;
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        try
        {
            inner.Write(buffer);
            BytesPassed += buffer.Length;
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Errors.IO($"cannot write {Name}", exception);
        }
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Flush()
    {
        try
        {
            inner.Flush();
        }
        catch (Exception exception) when (Errors.IsFileError(exception))
        {
            throw Errors.IO($"cannot write {Name}", exception);
        }
    }

    public override long Seek(long offset, SeekOrigin origin) => CanSeek ? BytesPassed = inner.Seek(offset, origin) : throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            // An output file that was not committed deletes its temporary file as it closes.
            ((IDisposable?)file ?? inner).Dispose();
        }

        base.Dispose(disposing);
    }
}
