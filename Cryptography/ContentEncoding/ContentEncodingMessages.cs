// Every message the content-encoding layer raises, in one place. None of them includes key
// material, plaintext or ciphertext: only sizes, record numbers and what was expected.

using System;
using System.Globalization;

namespace Cryptography.Internal;

internal static class ContentEncodingMessages
{
    public const string UnknownCoding = "Unknown content coding.";
    public const string KeyingMaterialLength = "The input keying material must be 1 to {0} bytes long.";
    public const string EmptyKeyingMaterial = "The input keying material must not be empty.";
    public const string SaltSize = "The salt must be 16 bytes.";
    public const string KeyIdTooLong = "The key id must be at most 255 bytes.";
    public const string RecordSizeOutOfRange = "The record size must be between {0} and {1} bytes.";
    public const string ShortHeader = "The body is {0} bytes long; its header needs {1}.";
    public const string HeaderRecordSizeTooSmall = "The header's record size is {0}; RFC 8188 requires at least 18.";
    public const string HeaderRecordSizeTooLarge = "The header's record size is {0}, above the limit of {1} bytes this decoder accepts.";
    public const string NoKeyForKeyId = "No key is known for the key id of {0} bytes in the header ({1}).";
    public const string NoRecords = "The body ends after its header: it has no record, so it was truncated.";
    public const string NoLastRecord = "The body ends after record {0}, which is not marked as the last record: the body was truncated.";
    public const string ShortNonLastRecord = "Record {0} is {1} bytes, shorter than the record size {2}, but is not marked as the last record: the body was truncated.";
    public const string RecordTooShort = "Record {0} is {1} bytes; a record needs at least 17 (a delimiter and a 16-byte tag).";
    public const string RecordAuthenticationFailed = "Record {0} failed authentication: the body was modified, records were reordered or removed, or the key is wrong.";
    public const string NoDelimiter = "Record {0} has no padding delimiter: its plaintext is all zeros.";
    public const string BadDelimiter = "Record {0} has the padding delimiter 0x{1:x2}; only 0x01 (more records follow) and 0x02 (last record) are valid.";
    public const string RecordAfterLast = "The body continues after record {0}, which is marked as the last record.";
    public const string EncryptorComplete = "The last record has already been written.";
    public const string RecordLength = "A record other than the last must be exactly the record size: data ({0}) + delimiter (1) + padding ({1}) + tag (16) must equal {2}.";
    public const string LastRecordLength = "The record is longer than the record size: data ({0}) + delimiter (1) + padding ({1}) + tag (16) exceeds {2}.";
    public const string DestinationTooShort = "The destination is too short: {0} bytes are needed.";
    public const string RecordLongerThanRecordSize = "The record is longer than the record size.";
    public const string OverlappingRecord = "The data and the destination overlap other than starting at the same place.";
    public const string BatchDataLength = "The data ({0} bytes) must be a whole number of records' content of {1} bytes each.";
    public const string BatchRecordsLength = "The records ({0} bytes) must be a whole number of records of {1} bytes each.";
    public const string BatchLengthsTooShort = "The lengths span holds {0} entries; the batch has {1} records.";
    public const string OverlappingBatch = "The input and the destination of a batch must not overlap.";
    public const string EncryptedLengthOverflow = "The encrypted body would be longer than Int64.MaxValue bytes.";
    public const string ResponseNotEncrypted = "The response ({0} {1}) is not encrypted: it has {2}, and RequireEncryption is set.";
    public const string EncryptingStreamFaulted = "An earlier write to the destination failed or was cancelled part way, so data may be missing from the body: the stream takes no more data and writes no last record, and the receiver will reject the body as truncated. Encrypt the content again as a new body.";

    /// <summary>Fills in one of these messages' placeholders, culture-invariantly.</summary>
    public static string Format(string format, params ReadOnlySpan<object?> args) => string.Format(CultureInfo.InvariantCulture, format, args);
}
