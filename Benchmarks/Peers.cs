// The AEADs the suite compares, each behind the same four operations on buffers prepared once:
// encrypt, decrypt, authenticate (empty plaintext, the input as associated data) and verify (the
// decryption of what authenticate produced). Each peer keeps its own nonce, ciphertext and tags,
// so that decrypt and verify always see valid input and measure the successful path.
//
// The operations go through one virtual call (Seal/Open) whichever peer runs, so every row pays the
// same dispatch cost; the peers' own calls are the ones a user would write, without copies, except
// BouncyCastle, whose API produces ciphertext and tag in one buffer (see its remarks).

using System;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Cryptography;

namespace Benchmarks;

internal abstract class AeadPeer : IDisposable
{
    protected const int NonceSize = 12;
    protected const int TagSize = 16;

    private static readonly byte[] Empty = [];

    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(NonceSize);
    private readonly byte[] _tag = new byte[TagSize];
    private readonly byte[] _sealedTag = new byte[TagSize];
    private readonly byte[] _authenticationTag = new byte[TagSize];
    private byte[] _input = Empty;
    private byte[] _output = Empty;
    private byte[] _sealedCiphertext = Empty;

    /// <summary>
    /// Computes, with this peer, what <see cref="Decrypt"/> and <see cref="Verify"/> will check, and
    /// checks that both round trips give <paramref name="input"/> back.
    /// </summary>
    public void Prepare(byte[] input)
    {
        _input = input;
        _output = new byte[input.Length];
        _sealedCiphertext = new byte[input.Length];
        Seal(_nonce, input, _sealedCiphertext, _sealedTag, Empty);
        Seal(_nonce, Empty, Empty, _authenticationTag, input);
        Decrypt();
        Verify();
        if (!_output.AsSpan().SequenceEqual(input))
        {
            throw new InvalidOperationException($"{GetType().Name} did not decrypt its own ciphertext.");
        }
    }

    public void Encrypt() => Seal(_nonce, _input, _output, _tag, Empty);

    public void Decrypt() => Open(_nonce, _sealedCiphertext, _sealedTag, _output, Empty);

    public void Authenticate() => Seal(_nonce, Empty, Empty, _tag, _input);

    public void Verify() => Open(_nonce, Empty, _authenticationTag, Empty, _input);

    /// <summary>Encrypts; <paramref name="ciphertext"/> is as long as <paramref name="plaintext"/>, <paramref name="tag"/> 16 bytes.</summary>
    protected abstract void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData);

    /// <summary>Decrypts; throws when the tag does not match.</summary>
    protected abstract void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData);

    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
    }
}

/// <summary>.NET's AesGcm (OpenSSL on Linux): the baseline.</summary>
internal sealed class AesGcmPeer(byte[] key) : AeadPeer
{
    private readonly AesGcm _aead = new(key, TagSize);

    protected override void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData) =>
        _aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);

    protected override void Dispose(bool disposing) => _aead.Dispose();
}

/// <summary>.NET's ChaCha20Poly1305; it has one key size, 32 bytes, whatever the row's KeySize.</summary>
internal sealed class ChaCha20Poly1305Peer(byte[] key) : AeadPeer
{
    private readonly ChaCha20Poly1305 _aead = new(key);

    protected override void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData) =>
        _aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);

    protected override void Dispose(bool disposing) => _aead.Dispose();
}

/// <summary>This library on one named backend.</summary>
internal sealed class AesGcmSivPeer(byte[] key, AesGcmSivBackend backend) : AeadPeer
{
    private readonly AesGcmSiv _aead = new(key, backend);

    protected override void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData) =>
        _aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);

    protected override void Dispose(bool disposing) => _aead.Dispose();
}

/// <summary>
/// libsodium's AES-256-GCM with the key expanded once into a 16-byte-aligned native
/// crypto_aead_aes256gcm_state, as its "precomputation interface" intends for repeated messages.
/// </summary>
internal sealed unsafe class LibsodiumPeer : AeadPeer
{
    private const int StateAlignment = 16;
    private void* _state;

    public LibsodiumPeer(byte[] key)
    {
        if (Libsodium.Unavailable is { } reason)
        {
            throw new PlatformNotSupportedException(reason);
        }

        if (key.Length != 32)
        {
            throw new ArgumentException("libsodium's AES-GCM takes 32-byte keys only.", nameof(key));
        }

        _state = NativeMemory.AlignedAlloc((nuint)Libsodium.StateBytes, StateAlignment);
        fixed (byte* k = key)
        {
            _ = Libsodium.crypto_aead_aes256gcm_beforenm(_state, k);
        }
    }

    // Empty arrays are pinned through GetArrayDataReference so that libsodium never receives a
    // null pointer, which some of its versions reject even for zero lengths.
    protected override void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData)
    {
        fixed (byte* n = &MemoryMarshal.GetArrayDataReference(nonce))
        fixed (byte* m = &MemoryMarshal.GetArrayDataReference(plaintext))
        fixed (byte* c = &MemoryMarshal.GetArrayDataReference(ciphertext))
        fixed (byte* t = &MemoryMarshal.GetArrayDataReference(tag))
        fixed (byte* ad = &MemoryMarshal.GetArrayDataReference(associatedData))
        {
            _ = Libsodium.crypto_aead_aes256gcm_encrypt_detached_afternm(
                c, t, null, m, (ulong)plaintext.Length, ad, (ulong)associatedData.Length, null, n, _state);
        }
    }

    protected override void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData)
    {
        int result;
        fixed (byte* n = &MemoryMarshal.GetArrayDataReference(nonce))
        fixed (byte* c = &MemoryMarshal.GetArrayDataReference(ciphertext))
        fixed (byte* t = &MemoryMarshal.GetArrayDataReference(tag))
        fixed (byte* m = &MemoryMarshal.GetArrayDataReference(plaintext))
        fixed (byte* ad = &MemoryMarshal.GetArrayDataReference(associatedData))
        {
            result = Libsodium.crypto_aead_aes256gcm_decrypt_detached_afternm(
                m, null, c, (ulong)ciphertext.Length, t, ad, (ulong)associatedData.Length, n, _state);
        }

        if (result != 0)
        {
            throw new AuthenticationTagMismatchException();
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (_state != null)
        {
            NativeMemory.Clear(_state, (nuint)Libsodium.StateBytes);
            NativeMemory.AlignedFree(_state);
            _state = null;
        }
    }
}

#if BOUNCYCASTLE
/// <summary>
/// BouncyCastle's GcmSivBlockCipher over the AES engine AesUtilities picks (its AES-NI one where the
/// CPU has it): one cipher object, Init per message (its API takes the nonce and direction there,
/// and GCM-SIV derives per-nonce keys anyway).
/// </summary>
/// <remarks>
/// It writes ciphertext and tag to one buffer, so Seal copies them apart: a memcpy of the message,
/// small against the cipher's own cost. It buffers the whole message and allocates per call; the
/// Allocated column shows that.
/// </remarks>
internal sealed class BouncyCastlePeer(byte[] key) : AeadPeer
{
    private readonly Org.BouncyCastle.Crypto.Modes.GcmSivBlockCipher _cipher = new(Org.BouncyCastle.Crypto.Engines.AesUtilities.CreateEngine());
    private readonly Org.BouncyCastle.Crypto.Parameters.KeyParameter _key = new(key);
    private byte[] _sealed = [];

    protected override void Seal(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[] associatedData)
    {
        if (_sealed.Length != plaintext.Length + TagSize)
        {
            _sealed = new byte[plaintext.Length + TagSize];
        }

        _cipher.Init(true, new Org.BouncyCastle.Crypto.Parameters.ParametersWithIV(_key, nonce));
        _cipher.ProcessAadBytes(associatedData, 0, associatedData.Length);
        _cipher.ProcessBytes(plaintext, 0, plaintext.Length, _sealed, 0);
        _cipher.DoFinal(_sealed, 0);
        Buffer.BlockCopy(_sealed, 0, ciphertext, 0, plaintext.Length);
        Buffer.BlockCopy(_sealed, plaintext.Length, tag, 0, TagSize);
    }

    protected override void Open(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[] associatedData)
    {
        _cipher.Init(false, new Org.BouncyCastle.Crypto.Parameters.ParametersWithIV(_key, nonce));
        _cipher.ProcessAadBytes(associatedData, 0, associatedData.Length);
        _cipher.ProcessBytes(ciphertext, 0, ciphertext.Length, plaintext, 0);
        _cipher.ProcessBytes(tag, 0, TagSize, plaintext, 0);
        _cipher.DoFinal(plaintext, 0);
    }
}
#endif
