// The bool-returning decryption for callers inside the library that expect forgeries as a normal
// outcome (the record layer opens records an attacker may have sent): a failed tag is an answer,
// not an exception, so a flood of bad records costs no exception throws. Same checks and the same
// zeroing as Decrypt; only the way a bad tag is reported differs.

using System;
using Cryptography.Internal;

namespace Cryptography;

public sealed partial class AesGcmSiv
{
    /// <summary>Like <see cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/>,
    /// but a tag that does not verify returns <see langword="false"/> (the plaintext zeroed) instead of throwing.</summary>
    internal bool TryDecrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        CheckParameters(nonce, ciphertext, plaintext, tag.Length, nameof(plaintext));
        ObjectDisposedException.ThrowIf(!_calls.TryEnter(), this);
        try
        {
            return Backends.Decrypt(_backend, in Schedule, _rounds, nonce, ciphertext, tag, plaintext, associatedData);
        }
        finally
        {
            ExitCall();
        }
    }
}
