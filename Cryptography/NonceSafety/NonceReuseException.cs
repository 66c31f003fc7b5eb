// The error a nonce guard raises for a repeated (key, nonce).

using System;
using System.Security.Cryptography;

namespace Cryptography;

/// <summary>
/// A nonce was used a second time with the same key for a different message (or, under
/// <see cref="NonceReusePolicy.RefuseAll"/>, at all). When encrypting, nothing was written to the
/// output buffers; when decrypting, the plaintext buffer was zeroed.
/// </summary>
public class NonceReuseException : CryptographicException
{
    /// <summary>Creates the exception with a default message.</summary>
    public NonceReuseException()
        : base("A nonce was used again with the same key.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">What went wrong.</param>
    public NonceReuseException(string? message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="inner">The cause.</param>
    public NonceReuseException(string? message, Exception? inner)
        : base(message, inner)
    {
    }

    /// <summary>Whether the repeat was found among the distinguished points, beyond the exact window.</summary>
    public bool LongRange { get; init; }
}
