// The failures of decoding an encrypted body. Each derives from CryptographicException, so code that already
// catches that keeps working; the three kinds say what went wrong, and RecordIndex says where.

using System;
using System.Security.Cryptography;

namespace Cryptography.ContentEncoding;

/// <summary>An encrypted body (RFC 8188 framing) could not be decoded.</summary>
/// <remarks>Messages name sizes and record numbers only, never key material or content.</remarks>
public class ContentEncodingException : CryptographicException
{
    /// <inheritdoc cref="CryptographicException()"/>
    public ContentEncodingException()
    {
    }

    /// <inheritdoc cref="CryptographicException(string?)"/>
    public ContentEncodingException(string? message)
        : base(message)
    {
    }

    /// <inheritdoc cref="CryptographicException(string?, Exception?)"/>
    public ContentEncodingException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates an exception about one record.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="recordIndex">The record's sequence number, from 0.</param>
    /// <param name="innerException">The cause, if any.</param>
    public ContentEncodingException(string? message, long recordIndex, Exception? innerException = null)
        : base(message, innerException)
    {
        RecordIndex = recordIndex;
    }

    /// <summary>Gets the sequence number (from 0) of the record at fault, or <see langword="null"/> when the fault is not in a record.</summary>
    public long? RecordIndex { get; }
}

/// <summary>The header of an encrypted body is short or invalid: record size below 18 or above the
/// decoder's limit, or a key id for which no key is known.</summary>
public sealed class ContentEncodingHeaderException : ContentEncodingException
{
    /// <inheritdoc cref="ContentEncodingException()"/>
    public ContentEncodingHeaderException()
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?)"/>
    public ContentEncodingHeaderException(string? message)
        : base(message)
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?, Exception?)"/>
    public ContentEncodingHeaderException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>An encrypted body ended early: no record is marked as the last one, or a record shorter
/// than the record size is not marked as the last one.</summary>
public sealed class ContentEncodingTruncatedException : ContentEncodingException
{
    /// <inheritdoc cref="ContentEncodingException()"/>
    public ContentEncodingTruncatedException()
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?)"/>
    public ContentEncodingTruncatedException(string? message)
        : base(message)
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?, Exception?)"/>
    public ContentEncodingTruncatedException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates an exception about one record.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="recordIndex">The sequence number (from 0) of the last record seen.</param>
    public ContentEncodingTruncatedException(string? message, long recordIndex)
        : base(message, recordIndex)
    {
    }
}

/// <summary>A record of an encrypted body is corrupted: its tag does not verify (modified, reordered or
/// removed records, or the wrong key), its padding or delimiter is invalid, or data follows the last record.</summary>
public sealed class ContentEncodingCorruptedException : ContentEncodingException
{
    /// <inheritdoc cref="ContentEncodingException()"/>
    public ContentEncodingCorruptedException()
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?)"/>
    public ContentEncodingCorruptedException(string? message)
        : base(message)
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?, Exception?)"/>
    public ContentEncodingCorruptedException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <inheritdoc cref="ContentEncodingException(string?, long, Exception?)"/>
    public ContentEncodingCorruptedException(string? message, long recordIndex, Exception? innerException = null)
        : base(message, recordIndex, innerException)
    {
    }
}
