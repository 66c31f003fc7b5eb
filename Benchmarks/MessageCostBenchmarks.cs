// Where one message's time goes on the x64 backends: each step of GcmSiv (RFC 8452 sections 4 and 5)
// alone, on the inputs a Size-byte message without associated data gives it, next to the whole
// internal call, the public call and BoringSSL's seal and open of the same message. The steps
// overlap in the whole call (the CPU runs POLYVAL and the key expansion side by side), so they do
// not add up to it; what is left of the public call after the internal one is the API's own work
// (argument checks, the disposed checks before and after the call, one virtual call). Steps marked
// with a prime are what the step was before issue 49, kept for the A/B in one run.
//
//   dotnet run -c Release --project Benchmarks -- --filter '*MessageCostBenchmarks*'

using System;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

public class MessageCostBenchmarks
{
    private const int NonceSize = 12;
    private const int TagSize = 16;

    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(NonceSize);
    private readonly byte[] _derived = new byte[96];
    private readonly byte[] _accumulator = new byte[16];
    private readonly byte[] _block = new byte[16];
    private readonly byte[] _tag = new byte[TagSize];
    private readonly byte[] _otherTag = new byte[TagSize];
    private readonly byte[] _wipe = new byte[1024];
    private AesKeySchedule _keyGeneratingKey;
    private AesKeySchedule _messageEncryptionKey;
    private PolyvalKey _messageAuthenticationKey;
    private CallCounter _calls;
    private KeyLifetime _lifetime;
    private byte[] _plaintext = [];
    private byte[] _ciphertext = [];
    private byte[] _polyvalInput = [];
    private byte[] _sealed = [];
    private byte[] _output = [];
    private AesGcmSiv _aead = null!;
    private BoringSslPeer? _boringSsl;

    /// <summary>Message sizes: a small record and a QUIC packet's payload.</summary>
    [Params(64, 1350)]
    public int Size { get; set; }

    /// <summary>AES key size in bytes.</summary>
    [Params(16, 32)]
    public int KeySize { get; set; }

    private int Rounds => KeySize == 16 ? 10 : 14;

    // What GcmSiv.Encrypt wipes for this message: from the first POLYVAL-key entry used to the
    // last round-key byte (GcmSiv.Wipe).
    // Computed once in Setup: until issue 49 step 6 called Marshal.SizeOf every time, which cost more
    // than the wipe (10-15 ns of the 20-40 ns the step measured on Zen 4).
    private int _wipeBytes;

    private int WipeBytes => Marshal.SizeOf<PolyvalKey>() - PolyvalKeyLayout.UnusedPrefixBytes(Size / 16) + 192 + ((Rounds + 1) * 16);

    [GlobalSetup]
    public void Setup()
    {
        byte[] key = RandomNumberGenerator.GetBytes(KeySize);
        _lifetime = default;
        _wipeBytes = WipeBytes;
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        _output = new byte[Size];
        _polyvalInput = new byte[((Size + 15) & ~15) + 16];
        _sealed = new byte[Size + TagSize];
        _aead = new AesGcmSiv(key, AesGcmSivBackend.AesNiVpclmulqdq);
        _aead.Encrypt(_nonce, _plaintext, _sealed.AsSpan(0, Size), _sealed.AsSpan(Size));
        default(AesVector<AesNi>).ExpandKey(key, ref _keyGeneratingKey);
        int encryptionKeyLength = GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.DeriveKeyMaterial(in _keyGeneratingKey, Rounds, _nonce, _derived);
        default(AesVector<AesNi>).ExpandKey(_derived.AsSpan(16, encryptionKeyLength), ref _messageEncryptionKey);
        if (Requirements.Holds(Requirement.BoringSsl))
        {
            _boringSsl = new BoringSslPeer(key);
            _boringSsl.Prepare(_plaintext);
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _aead.Dispose();
        _boringSsl?.Dispose();
    }

    [Benchmark(Description = "1 key derivation (AES of 4 or 6 nonce blocks, in registers)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public int DeriveKeyMaterial() =>
        GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.DeriveKeyMaterial(in _keyGeneratingKey, Rounds, _nonce, _derived);

    [Benchmark(Description = "2 message-encryption key expansion"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void ExpandKey() => default(AesVector<AesNi>).ExpandKey(_derived.AsSpan(16, KeySize), ref _messageEncryptionKey);

    [Benchmark(Description = "2' key expansion with AESKEYGENASSIST (before issue 49)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void ExpandKeyWithKeygenAssist() => AesNi.ExpandKeyWithKeygenAssist(_derived.AsSpan(16, KeySize), ref _messageEncryptionKey);

    [Benchmark(Description = "3 POLYVAL key powers + message and length blocks"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void Polyval()
    {
        default(PolyvalVpclmulqdq).Init(_derived.AsSpan(0, 16), Size / 16, ref _messageAuthenticationKey);
        default(PolyvalVpclmulqdq).Update(in _messageAuthenticationKey, _accumulator, _polyvalInput);
    }

    [Benchmark(Description = "4 tag (one AES block)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void Tag() => default(AesVector<AesNi>).EncryptBlocks(in _messageEncryptionKey, Rounds, _block, _tag);

    [Benchmark(Description = "5 CTR over the message"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void Ctr() => default(AesVector<AesNi>).Ctr32(in _messageEncryptionKey, Rounds, _block, _plaintext, _ciphertext);

    [Benchmark(Description = "6 wipe of the per-message state"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void Wipe() => CryptographicOperations.ZeroMemory(_wipe.AsSpan(0, _wipeBytes));

    [Benchmark(Description = "7 disposed checks before + after (KeyLifetime)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool LifetimeChecks() => !_lifetime.IsClosed && !_lifetime.ClosedDuringCall();

    // What step 7 was before issue 49 (and still is in the nonce guards): two interlocked instructions.
    [Benchmark(Description = "7' call counter enter + exit (before issue 49)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool CallCounter() => _calls.TryEnter() && !_calls.Exit();

    [Benchmark(Description = "8 TagComparison.Equal of two tags"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool CompareTags() => TagComparison.Equal(_tag, _otherTag);

    // What step 8 was before issue 33, for the record of what the change saved.
    [Benchmark(Description = "8' FixedTimeEquals of two tags (before issue 33)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool CompareTagsFixedTimeEquals() => CryptographicOperations.FixedTimeEquals(_tag, _otherTag);

    [Benchmark(Description = "GcmSiv.Encrypt (internal, whole)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void InternalEncrypt() =>
        GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Encrypt(in _keyGeneratingKey, Rounds, _nonce, _plaintext, _ciphertext, _tag, default);

    // The cost of the call counter where it ran: the internal call inside TryEnter/Exit with the
    // try/finally AesGcmSiv.Encrypt had before issue 49 (the nonce guards still do), against the
    // internal call alone, in one run.
    [Benchmark(Description = "GcmSiv.Encrypt (internal) inside the call counter"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void InternalEncryptCounted()
    {
        if (!_calls.TryEnter())
        {
            throw new ObjectDisposedException(nameof(MessageCostBenchmarks));
        }

        try
        {
            InternalEncrypt();
        }
        finally
        {
            _calls.Exit();
        }
    }

    [Benchmark(Description = "AesGcmSiv.Encrypt (public)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void PublicEncrypt() => _aead.Encrypt(_nonce, _plaintext, _ciphertext, _tag);

    [Benchmark(Description = "AesGcmSiv.Decrypt (public)"), Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void PublicDecrypt() => _aead.Decrypt(_nonce, _sealed.AsSpan(0, Size), _sealed.AsSpan(Size), _output);

    [Benchmark(Description = "BoringSSL seal"), Requires(Requirement.BoringSsl)]
    public void BoringSslSeal() => _boringSsl?.Encrypt();

    [Benchmark(Description = "BoringSSL open"), Requires(Requirement.BoringSsl)]
    public void BoringSslOpen() => _boringSsl?.Decrypt();
}
