// Key schedule and record sealing shared by encoder and decoder, for either coding: RFC 8188 sections 2.2 (key), 2.3 (nonce), 2 (records).
//
// PRK   = HKDF-Extract(salt, IKM)                  HMAC-SHA-256
// CEK   = HKDF-Expand(PRK, key label || 0x00, 16 or 32)
// NONCE = HKDF-Expand(PRK, nonce label || 0x00, 12)
// record i is sealed with nonce NONCE XOR i (i as a 96-bit big-endian integer) and no associated data.

using System;
using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Threading;
using Cryptography.ContentEncoding;

namespace Cryptography.Internal;

internal abstract class RecordCipher(ReadOnlySpan<byte> nonceBase) : IDisposable
{
    public const int NonceSize = 12;

    // The nonce base lives in a pinned array so that no copy is left behind by the GC; Dispose wipes it.
    private readonly byte[] _nonceBase = PinnedBuffers.Copy(nonceBase);

    public static RecordCipher Create(ContentCoding coding, ReadOnlySpan<byte> inputKeyingMaterial, ReadOnlySpan<byte> salt)
    {
        ContentCodingInfo info = ContentCodingInfo.Of(coding);
        Span<byte> contentEncryptionKey = stackalloc byte[info.KeySize];
        Span<byte> nonceBase = stackalloc byte[NonceSize];
        try
        {
            DeriveKeys(coding, inputKeyingMaterial, salt, contentEncryptionKey, nonceBase);
            return info.Aead == ContentCodingInfo.RecordAead.AesGcm
                ? new AesGcmRecordCipher(contentEncryptionKey, nonceBase)
                : new AesGcmSivRecordCipher(contentEncryptionKey, nonceBase);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(contentEncryptionKey);
            CryptographicOperations.ZeroMemory(nonceBase);
        }
    }

    /// <summary>RFC 8188 sections 2.2 and 2.3: the content-encryption key (16 or 32 bytes) and the 12-byte nonce base.</summary>
    public static void DeriveKeys(ContentCoding coding, ReadOnlySpan<byte> inputKeyingMaterial, ReadOnlySpan<byte> salt, Span<byte> contentEncryptionKey, Span<byte> nonceBase)
    {
        if (inputKeyingMaterial.IsEmpty)
        {
            throw new ArgumentException(ContentEncodingMessages.EmptyKeyingMaterial, nameof(inputKeyingMaterial));
        }

        ContentCodingInfo info = ContentCodingInfo.Of(coding);
        Span<byte> prk = stackalloc byte[32];
        try
        {
            HKDF.Extract(HashAlgorithmName.SHA256, inputKeyingMaterial, salt, prk);
            HKDF.Expand(HashAlgorithmName.SHA256, prk, contentEncryptionKey[..info.KeySize], info.KeyInfo.Span);
            HKDF.Expand(HashAlgorithmName.SHA256, prk, nonceBase[..NonceSize], info.NonceInfo.Span);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(prk);
        }
    }

    public void Seal(long sequenceNumber, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag) =>
        Seal(Nonce(sequenceNumber, stackalloc byte[NonceSize]), plaintext, ciphertext, tag);

    /// <summary>Verifies and decrypts; on a bad tag zeroes <paramref name="plaintext"/> and returns false.</summary>
    public bool TryOpen(long sequenceNumber, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext) =>
        TryOpen(Nonce(sequenceNumber, stackalloc byte[NonceSize]), ciphertext, tag, plaintext);

    /// <summary>
    /// The cipher worker <paramref name="worker"/> of a parallel batch uses, from any thread: this one
    /// where the AEAD is safe for concurrent use (AES-GCM-SIV), otherwise a sibling with its own AEAD
    /// instance (AES-GCM), made on first use, kept for later batches and disposed with this one.
    /// </summary>
    public virtual RecordCipher ForWorker(int worker) => this;

    // The disposal rule of the keyed types (AesGcmSiv's: a call that returns never used a wiped key)
    // holds here without a counter of its own: the subclasses dispose their AEAD before this wipes the
    // nonce base, and a call reads the nonce base before it enters the AEAD. A call that read a wiped
    // byte therefore finds the AEAD closed (AesGcmSiv's CallCounter, AesGcm's SafeHandle) and throws
    // ObjectDisposedException; DisposeRaceTests races both codings.
    public virtual void Dispose() => CryptographicOperations.ZeroMemory(_nonceBase);

    protected abstract void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag);

    protected abstract bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext);

    // Writes the nonce of record sequenceNumber into the 12 bytes of nonce and returns them. SEQ is 96 bits;
    // sequence numbers below 2^63 touch only the last 8 bytes.
    private ReadOnlySpan<byte> Nonce(long sequenceNumber, Span<byte> nonce)
    {
        _nonceBase.CopyTo(nonce);
        BinaryPrimitives.WriteUInt64BigEndian(nonce[4..], BinaryPrimitives.ReadUInt64BigEndian(nonce[4..]) ^ (ulong)sequenceNumber);
        return nonce;
    }

    internal sealed class AesGcmRecordCipher(ReadOnlySpan<byte> key, ReadOnlySpan<byte> nonceBase) : RecordCipher(nonceBase)
    {
        private readonly AesGcm _aead = new(key, ContentEncryption.TagSize);

        // .NET's AesGcm is not safe for concurrent calls, so parallel batches give each worker its own
        // instance. Making one later needs the key: it is kept in a pinned array (no GC copies) and
        // wiped by Dispose, as AesGcm keeps its own copy in native memory until disposed.
        private readonly byte[] _key = PinnedBuffers.Copy(key);
        private readonly Lock _siblingsLock = new();
        private AesGcmRecordCipher?[]? _siblings;
        private bool _disposed;

        // Workers ask from their own threads, so the siblings are found or made under a lock; a worker
        // asks once per chunk of records, not per record, and the lock is rarely contended. Dispose
        // takes the same lock: a sibling made from _key while Dispose wiped it sealed records under
        // an all-zero key and nonce base (issue 31, defect 1), so once disposed none is made.
        public override RecordCipher ForWorker(int worker)
        {
            if (worker == 0)
            {
                return this;
            }

            lock (_siblingsLock)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                if (_siblings is null || worker >= _siblings.Length)
                {
                    Array.Resize(ref _siblings, Math.Max(worker + 1, Environment.ProcessorCount));
                }

                return _siblings[worker] ??= new AesGcmRecordCipher(_key, _nonceBase);
            }
        }

        // A worker already holding a sibling finds its AesGcm disposed (ObjectDisposedException), as
        // this one's: AesGcm refuses calls after Dispose, so none computes with a wiped key.
        public override void Dispose()
        {
            lock (_siblingsLock)
            {
                if (_disposed)
                {
                    return;
                }

                _disposed = true;
                _aead.Dispose();
                CryptographicOperations.ZeroMemory(_key);
                foreach (AesGcmRecordCipher? sibling in _siblings ?? [])
                {
                    sibling?.Dispose();
                }

                base.Dispose();
            }
        }

        protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag) =>
            _aead.Encrypt(nonce, plaintext, ciphertext, tag);

        // .NET's AesGcm has no bool-returning decryption, so this is the one place the record layer
        // turns an exception into an answer. AesGcm zeroes the plaintext on failure already; it is
        // done again here rather than depend on that.
        protected override bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext)
        {
            try
            {
                _aead.Decrypt(nonce, ciphertext, tag, plaintext);
                return true;
            }
            catch (AuthenticationTagMismatchException)
            {
                CryptographicOperations.ZeroMemory(plaintext);
                return false;
            }
        }
    }

    private sealed class AesGcmSivRecordCipher(ReadOnlySpan<byte> key, ReadOnlySpan<byte> nonceBase) : RecordCipher(nonceBase)
    {
        private readonly AesGcmSiv _aead = new(key);

        public override void Dispose()
        {
            _aead.Dispose();
            base.Dispose();
        }

        protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag) =>
            _aead.Encrypt(nonce, plaintext, ciphertext, tag);

        // No exception on a bad tag: AesGcmSiv zeroes the plaintext and says so.
        protected override bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext) =>
            _aead.TryDecrypt(nonce, ciphertext, tag, plaintext);
    }
}
