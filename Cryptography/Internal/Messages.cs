// Every exception message the library raises, in one place, so wording stays consistent and
// matches what .NET's own AEADs say for the same mistake.

namespace Cryptography.Internal;

internal static class Messages
{
    public const string InvalidKeySize = "The key must be 16 bytes (AES-128-GCM-SIV) or 32 bytes (AES-256-GCM-SIV).";
    public const string InvalidNonceSize = "The nonce must be 12 bytes.";
    public const string InvalidTagSize = "The tag must be 16 bytes.";

    // AesGcm's own wording for a tag size its constructor does not support (SR.Cryptography_InvalidTagLength).
    public const string UnsupportedTagSize = "The specified tag is not a valid size for this algorithm.";
    public const string PlaintextCiphertextLengthMismatch = "Plaintext and ciphertext must have the same length.";
    public const string OverlappingBuffers = "The input and output buffers overlap partially; use either the same buffer (in place) or buffers that do not overlap.";
    public const string DestinationTooShort = "The destination is {0} bytes; this needs {1}.";
    public const string SealedMessageTooShort = "The message is {0} bytes, too short to be a sealed message: one holds at least a 12-byte nonce and a 16-byte tag (28 bytes), so it was cut short or is not a sealed message.";
    public const string TagOverlapsCiphertext = "The tag buffer must not overlap the ciphertext buffer.";
    public const string TagComparisonLength = "Both tags must be 16 bytes.";
    public const string BackendNotSupported = "The backend {0} is not supported on this machine.";
}
