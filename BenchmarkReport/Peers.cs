// A copy of Benchmarks/Peers.cs for the report runner (Program.cs), so that both measure the peers
// through the same calls. One difference: AesGcmSivPeer uses the public constructor (the active
// backend), because the runner is not among the assemblies that see the library's internals and
// because a report per backend is what a user of that platform gets. Keep the two in step.

// The AEADs the suite compares, each behind the same four operations on buffers prepared once:
// encrypt, decrypt, authenticate (empty plaintext, the input as associated data) and verify (the
// decryption of what authenticate produced). Each peer keeps its own nonce, ciphertext and tags,
// so that decrypt and verify always see valid input and measure the successful path.
//
// The operations go through one virtual call (Seal/Open) whichever peer runs, so every row pays the
// same dispatch cost; the peers' own calls are the ones a user would write, without copies, except
// BouncyCastle, whose API produces ciphertext and tag in one buffer (see its remarks).

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Benchmarks;
using Cryptography;

namespace BenchmarkReport;

internal abstract class AeadPeer : IDisposable
{
    protected const int NonceSize = 12;
    protected const int TagSize = 16;

    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(NonceSize);
    private readonly byte[] _tag = new byte[TagSize];
    private byte[] _input = [];
    private byte[] _output = [];

    // What Decrypt and Verify open, each as ciphertext || tag in one array: BoringSSL's open takes
    // them contiguous, and the other peers take the two halves as spans.
    private byte[] _sealed = new byte[TagSize];
    private byte[] _authenticated = new byte[TagSize];

    /// <summary>
    /// Computes, with this peer, what <see cref="Decrypt"/> and <see cref="Verify"/> will check, and
    /// checks that both round trips give <paramref name="input"/> back.
    /// </summary>
    public void Prepare(byte[] input)
    {
        _input = input;
        _output = new byte[input.Length];
        _sealed = new byte[input.Length + TagSize];
        Seal(_nonce, input, _sealed.AsSpan(0, input.Length), _sealed.AsSpan(input.Length), []);
        Seal(_nonce, [], [], _authenticated, input);
        Decrypt();
        Verify();
        if (!_output.AsSpan().SequenceEqual(input))
        {
            throw new InvalidOperationException($"{GetType().Name} did not decrypt its own ciphertext.");
        }
    }

    public void Encrypt() => Seal(_nonce, _input, _output, _tag, []);

    public void Decrypt() => Open(_nonce, _sealed.AsSpan(0, _input.Length), _sealed.AsSpan(_input.Length), _output, []);

    public void Authenticate() => Seal(_nonce, [], [], _tag, _input);

    public void Verify() => Open(_nonce, _authenticated.AsSpan(0, 0), _authenticated, [], _input);

    /// <summary>Encrypts; <paramref name="ciphertext"/> is as long as <paramref name="plaintext"/>, <paramref name="tag"/> 16 bytes.</summary>
    protected abstract void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData);

    /// <summary>Decrypts; throws when the tag does not match. <paramref name="tag"/> directly follows <paramref name="ciphertext"/> in memory.</summary>
    protected abstract void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);

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

    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) =>
        _aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);

    protected override void Dispose(bool disposing) => _aead.Dispose();
}

/// <summary>.NET's ChaCha20Poly1305; it has one key size, 32 bytes, whatever the row's KeySize.</summary>
internal sealed class ChaCha20Poly1305Peer(byte[] key) : AeadPeer
{
    private readonly ChaCha20Poly1305 _aead = new(key);

    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) =>
        _aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);

    protected override void Dispose(bool disposing) => _aead.Dispose();
}

/// <summary>This library through its public API: the backend the runtime chooses (ActiveBackend),
/// which the DOTNET_Enable* knobs steer for a JIT run.</summary>
internal sealed class AesGcmSivPeer(byte[] key) : AeadPeer
{
    private readonly AesGcmSiv _aead = new(key);

    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData) =>
        _aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData) =>
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

    // Spans are pinned through GetReference: for an empty span over an array that is a valid
    // non-null pointer, which libsodium wants even for zero lengths.
    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        fixed (byte* n = &MemoryMarshal.GetReference(nonce))
        fixed (byte* m = &MemoryMarshal.GetReference(plaintext))
        fixed (byte* c = &MemoryMarshal.GetReference(ciphertext))
        fixed (byte* t = &MemoryMarshal.GetReference(tag))
        fixed (byte* ad = &MemoryMarshal.GetReference(associatedData))
        {
            _ = Libsodium.crypto_aead_aes256gcm_encrypt_detached_afternm(
                c, t, null, m, (ulong)plaintext.Length, ad, (ulong)associatedData.Length, null, n, _state);
        }
    }

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        int result;
        fixed (byte* n = &MemoryMarshal.GetReference(nonce))
        fixed (byte* c = &MemoryMarshal.GetReference(ciphertext))
        fixed (byte* t = &MemoryMarshal.GetReference(tag))
        fixed (byte* m = &MemoryMarshal.GetReference(plaintext))
        fixed (byte* ad = &MemoryMarshal.GetReference(associatedData))
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
    private readonly Org.BouncyCastle.Crypto.Modes.GcmSivBlockCipher _cipher = new(Org.BouncyCastle.Crypto.AesUtilities.CreateEngine());
    private readonly Org.BouncyCastle.Crypto.Parameters.KeyParameter _key = new(key);
    private byte[] _sealed = [];

    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        if (_sealed.Length != plaintext.Length + TagSize)
        {
            _sealed = new byte[plaintext.Length + TagSize];
        }

        _cipher.Init(true, new Org.BouncyCastle.Crypto.Parameters.ParametersWithIV(_key, nonce));
        _cipher.ProcessAadBytes(associatedData);
        _cipher.ProcessBytes(plaintext, _sealed);
        _cipher.DoFinal(_sealed);
        _sealed.AsSpan(0, plaintext.Length).CopyTo(ciphertext);
        _sealed.AsSpan(plaintext.Length).CopyTo(tag);
    }

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        _cipher.Init(false, new Org.BouncyCastle.Crypto.Parameters.ParametersWithIV(_key, nonce));
        _cipher.ProcessAadBytes(associatedData);
        _cipher.ProcessBytes(ciphertext, plaintext);
        _cipher.ProcessBytes(tag, plaintext);
        _cipher.DoFinal(plaintext);
    }
}

/// <summary>
/// BoringSSL's AES-GCM-SIV (EVP_aead_aes_128_gcm_siv / EVP_aead_aes_256_gcm_siv): on x64 with AES-NI,
/// Shay Gueron's assembly. One EVP_AEAD_CTX per key, set up once; seal_scatter writes ciphertext and
/// tag apart, open reads them contiguous (the assembly variant has no open_gather).
/// </summary>
internal sealed unsafe class BoringSslPeer : AeadPeer
{
    private void* _context;

    public BoringSslPeer(byte[] key)
    {
        if (BoringSsl.Unavailable is { } reason)
        {
            throw new PlatformNotSupportedException(reason);
        }

        void* aead = key.Length == 16 ? BoringSsl.EVP_aead_aes_128_gcm_siv() : BoringSsl.EVP_aead_aes_256_gcm_siv();
        fixed (byte* k = key)
        {
            _context = BoringSsl.EVP_AEAD_CTX_new(aead, k, (nuint)key.Length, TagSize);
        }

        if (_context == null)
        {
            throw new InvalidOperationException("EVP_AEAD_CTX_new failed.");
        }
    }

    protected override void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        int result;
        nuint tagLength;
        fixed (byte* n = &MemoryMarshal.GetReference(nonce))
        fixed (byte* m = &MemoryMarshal.GetReference(plaintext))
        fixed (byte* c = &MemoryMarshal.GetReference(ciphertext))
        fixed (byte* t = &MemoryMarshal.GetReference(tag))
        fixed (byte* ad = &MemoryMarshal.GetReference(associatedData))
        {
            result = BoringSsl.EVP_AEAD_CTX_seal_scatter(
                _context, c, t, &tagLength, (nuint)tag.Length, n, (nuint)nonce.Length, m, (nuint)plaintext.Length, null, 0, ad, (nuint)associatedData.Length);
        }

        if (result != 1)
        {
            throw new CryptographicException("EVP_AEAD_CTX_seal_scatter failed.");
        }
    }

    protected override void Open(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        if (!Unsafe.AreSame(ref Unsafe.Add(ref MemoryMarshal.GetReference(ciphertext), ciphertext.Length), ref MemoryMarshal.GetReference(tag)))
        {
            throw new ArgumentException("BoringSSL's open takes ciphertext || tag as one buffer.", nameof(tag));
        }

        int result;
        nuint plaintextLength;
        fixed (byte* n = &MemoryMarshal.GetReference(nonce))
        fixed (byte* c = &MemoryMarshal.GetReference(ciphertext))
        fixed (byte* m = &MemoryMarshal.GetReference(plaintext))
        fixed (byte* ad = &MemoryMarshal.GetReference(associatedData))
        {
            result = BoringSsl.EVP_AEAD_CTX_open(
                _context, m, &plaintextLength, (nuint)plaintext.Length, n, (nuint)nonce.Length, c, (nuint)(ciphertext.Length + tag.Length), ad, (nuint)associatedData.Length);
        }

        if (result != 1)
        {
            throw new AuthenticationTagMismatchException();
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (_context != null)
        {
            BoringSsl.EVP_AEAD_CTX_free(_context);
            _context = null;
        }
    }
}
