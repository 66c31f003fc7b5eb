// The record layer (RFC 8188 framing) with the aes256gcmsiv coding, in the browser, through its
// one-shot public calls only: ContentEncryption.Encrypt and Decrypt. Kept in this one file on
// purpose: Cryptography/ContentEncoding/ is being rewritten elsewhere (its namespace may become
// Cryptography.ContentEncoding); only this file follows such a change.

using System;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.ContentEncoding;

namespace BrowserHost;

public static class RecordLayerChecks
{
    public static void Run(CheckRun run)
    {
        byte[] ikm = new byte[16];
        for (int i = 0; i < ikm.Length; i++)
        {
            ikm[i] = (byte)(0xA0 + i);
        }

        foreach ((int length, int recordSize) in new[] { (0, 4096), (1, 18), (100, 18), (1000, 100), (10_000, 4096), (70_000, 65536) })
        {
            run.Check($"aes256gcmsiv: {length} bytes in records of {recordSize} round-trip", () =>
            {
                var random = new Random(length);
                byte[] content = BrowserChecks.Bytes(random, length);
                byte[] body = ContentEncryption.Encrypt(content, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize });
                CheckRun.True(body.Length == ContentEncryption.GetEncryptedLength(length, new ContentEncodingOptions { RecordSize = recordSize }), "body length");
                CheckRun.Equal(content, ContentEncryption.Decrypt(body, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }), "decrypted content");
            });
            run.Check($"aes256gcmsiv: {length} bytes in records of {recordSize}, a changed last byte is rejected", () =>
            {
                byte[] content = BrowserChecks.Bytes(new Random(length), length);
                byte[] body = ContentEncryption.Encrypt(content, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv, RecordSize = recordSize });
                body[^1] ^= 1;
                CheckRun.Throws<CryptographicException>(() => ContentEncryption.Decrypt(body, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }), "decrypt");
                ikm[0] ^= 1;
                body[^1] ^= 1;
                try
                {
                    CheckRun.Throws<CryptographicException>(() => ContentEncryption.Decrypt(body, ikm, new ContentEncodingOptions { Coding = ContentCoding.Aes256GcmSiv }), "decrypt with another key");
                }
                finally
                {
                    ikm[0] ^= 1;
                }
            });
        }
    }
}
