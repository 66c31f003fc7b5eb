// AES-GCM-SIV encryption on each backend this machine has, against .NET's AesGcm (the baseline)
// with the same key size, in one run.

using System.Collections.Generic;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

[MemoryDiagnoser]
public class EncryptBenchmarks
{
    private byte[] _plaintext = [];
    private byte[] _ciphertext = [];
    private readonly byte[] _tag = new byte[16];
    private readonly byte[] _nonce = new byte[12];
    private AesGcm _aesGcm = null!;
    private AesGcmSiv _aesGcmSiv = null!;

    [Params(64, 1350, 8192)]
    public int Size { get; set; }

    [Params(16, 32)]
    public int KeySize { get; set; }

    [ParamsSource(nameof(AllBackends))]
    public AesGcmSivBackend Backend { get; set; }

    public static IEnumerable<AesGcmSivBackend> AllBackends() => Backends.Supported();

    [GlobalSetup]
    public void Setup()
    {
        byte[] key = new byte[KeySize];
        RandomNumberGenerator.Fill(key);
        _plaintext = new byte[Size];
        _ciphertext = new byte[Size];
        _aesGcm = new AesGcm(key, 16);
        _aesGcmSiv = new AesGcmSiv(key, Backend);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _aesGcm.Dispose();
        _aesGcmSiv.Dispose();
    }

    [Benchmark(Baseline = true)]
    public void AesGcmEncrypt() => _aesGcm.Encrypt(_nonce, _plaintext, _ciphertext, _tag);

    [Benchmark]
    public void AesGcmSivEncrypt() => _aesGcmSiv.Encrypt(_nonce, _plaintext, _ciphertext, _tag);
}
