// Decryption's bulk schedule (IDecryptLoop): the two-pass loop against the stitched ones, on both x64
// backends' POLYVAL (and AesNiVpclmulqdq's own loop, Decrypt.StitchedWide.cs), through the whole internal GcmSiv.Decrypt, in one run, so that which one each
// backend uses (its line in Backends.Widest) is chosen by measurement. Run it once as is and once
// with DOTNET_EnableAVX2=0, where the 128-bit backend has x64's 16 vector registers and no
// VEX-encoded 256-bit work, as on the CPUs that run it:
//
//   dotnet run -c Release --project Benchmarks -- --filter '*DecryptLoopBenchmarks*'

using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography.Internal;

namespace Benchmarks;

public class DecryptLoopBenchmarks
{
    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(12);
    private readonly byte[] _tag = new byte[16];
    private AesKeySchedule _keyGeneratingKey;
    private byte[] _ciphertext = [];
    private byte[] _plaintext = [];

    /// <summary>Message sizes: as in the AEAD benchmarks.</summary>
    [Params(64, 1350, 8192, 65536, 1048576)]
    public int Size { get; set; }

    /// <summary>AES key size in bytes.</summary>
    [Params(16, 32)]
    public int KeySize { get; set; }

    private int Rounds => KeySize == 16 ? 10 : 14;

    [GlobalSetup]
    public void Setup()
    {
        default(AesVector<AesNi>).ExpandKey(RandomNumberGenerator.GetBytes(KeySize), ref _keyGeneratingKey);
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Encrypt(in _keyGeneratingKey, Rounds, _nonce, _plaintext, _ciphertext, _tag, default);
    }

    [Benchmark(Baseline = true), Requires(Requirement.BackendAesNiPclmulqdq)]
    public bool Pclmulqdq_TwoPass() =>
        GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<TwoPassDecrypt<AesVector<AesNi>, PolyvalClmul<Pclmul>>>(in _keyGeneratingKey, Rounds, _nonce, _ciphertext, _tag, _plaintext, default);

    [Benchmark, Requires(Requirement.BackendAesNiPclmulqdq)]
    public bool Pclmulqdq_Stitched() =>
        GcmSiv<AesVector<AesNi>, PolyvalClmul<Pclmul>>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>(in _keyGeneratingKey, Rounds, _nonce, _ciphertext, _tag, _plaintext, default);

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool Vpclmulqdq_TwoPass() =>
        GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<TwoPassDecrypt<AesVector<AesNi>, PolyvalVpclmulqdq>>(in _keyGeneratingKey, Rounds, _nonce, _ciphertext, _tag, _plaintext, default);

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool Vpclmulqdq_Stitched() =>
        GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<StitchedDecrypt<AesNi, Pclmul>>(in _keyGeneratingKey, Rounds, _nonce, _ciphertext, _tag, _plaintext, default);

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public bool Vpclmulqdq_StitchedWide() =>
        GcmSiv<AesVector<AesNi>, PolyvalVpclmulqdq>.Decrypt<StitchedWideDecrypt<AesNi>>(in _keyGeneratingKey, Rounds, _nonce, _ciphertext, _tag, _plaintext, default);
}
