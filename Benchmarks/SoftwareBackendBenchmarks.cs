// The two scalar software backends side by side under .NET's JIT (issue 48: "If one scalar backend then
// serves the JIT, the browser and Mono equally well, keep one, not two"): AES-256-GCM-SIV encryption by
// Portable (the baseline, chosen by the net10.0 build where the CPU has no AES or SIMD it can use) and
// PortableFlat (the browser's and the netstandard2.0 build's). PortableFlat is not offered under the
// JIT, so each is called through its Backend object, as the public type would call it. Run it as
// `DOTNET_EnableHWIntrinsic=0` too, the setting under which the net10.0 build runs Portable:
//   dotnet run -c Release --project Benchmarks -- --filter '*SoftwareBackendBenchmarks*' --job short

using BenchmarkDotNet.Attributes;
using Cryptography;
using Cryptography.Internal;

namespace Benchmarks;

public class SoftwareBackendBenchmarks
{
    private static readonly Backend Portable = new Backend<AesPortable, PolyvalPortable>(AesGcmSivBackend.Portable);
    private static readonly Backend Flat = new Backend<AesPortableFlat, PolyvalPortable>(AesGcmSivBackend.PortableFlat);

    private readonly byte[] _nonce = new byte[12], _tag = new byte[16], _key = new byte[32];
    private byte[] _plaintext = [], _ciphertext = [];
    private AesKeySchedule _portableSchedule, _flatSchedule;

    [Params(64, 1350, 8192, 65536)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        System.Security.Cryptography.RandomNumberGenerator.Fill(_key);
        _plaintext = System.Security.Cryptography.RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        Portable.ExpandKey(_key, ref _portableSchedule);
        Flat.ExpandKey(_key, ref _flatSchedule);
    }

    [Benchmark(Baseline = true)]
    public void Encrypt_Portable() => Portable.Encrypt(in _portableSchedule, 14, _nonce, _plaintext, _ciphertext, _tag, default);

    [Benchmark]
    public void Encrypt_PortableFlat() => Flat.Encrypt(in _flatSchedule, 14, _nonce, _plaintext, _ciphertext, _tag, default);
}
