// What a random nonce costs: AES-GCM-SIV encryption (the active backend, as `new AesGcmSiv(key)`
// gives) with a fresh RandomNumberGenerator nonce per call, against the same with a fixed nonce
// (the baseline). With GCM-SIV a fixed or counter nonce is safe to repeat; a random one is the
// usual choice when writers cannot coordinate. Seal into a buffer is the library's random-nonce helper.

using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography;

namespace Benchmarks;

public class NonceBenchmarks
{
    private readonly byte[] _nonce = new byte[12];
    private readonly byte[] _tag = new byte[16];
    private byte[] _plaintext = [];
    private byte[] _ciphertext = [];
    private byte[] _sealed = [];
    private AesGcmSiv _aead = null!;

    [Params(64, 1350, 8192)]
    public int Size { get; set; }

    [Params(16, 32)]
    public int KeySize { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        _sealed = new byte[AesGcmSiv.GetSealedLength(Size)];
        _aead = new AesGcmSiv(RandomNumberGenerator.GetBytes(KeySize));
    }

    [GlobalCleanup]
    public void Cleanup() => _aead.Dispose();

    [Benchmark(Baseline = true)]
    public void FixedNonce() => _aead.Encrypt(_nonce, _plaintext, _ciphertext, _tag);

    [Benchmark]
    public void RandomNonce()
    {
        RandomNumberGenerator.Fill(_nonce);
        _aead.Encrypt(_nonce, _plaintext, _ciphertext, _tag);
    }

    // Seal draws its random nonces 64 at a time (Internal/RandomNonce.cs).
    [Benchmark]
    public void SealInto() => _aead.Seal(_plaintext, default, _sealed);
}
