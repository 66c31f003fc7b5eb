// POLYVAL alone (RFC 8452 section 3), this library's implementation per instruction set, against
// GHASH alone as far as .NET exposes it.
//
// .NET has no public GHASH, so the baseline is a proxy: AesGcm.Encrypt with an empty plaintext and
// the Size bytes as associated data. That is OpenSSL's GHASH over the data plus one AES block (the
// tag mask), the length block and the call's fixed overhead (P/Invoke, EVP context setup), so it
// slightly overstates GHASH's cost, by a constant that matters most at 1024 bytes.
//
// A POLYVAL call here is what AES-GCM-SIV pays per message: Init with a fresh H (the message
// authentication key changes with every nonce; wide backends precompute powers of H there) and
// Update over the Size bytes.

using System;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography.Internal;

namespace Benchmarks;

public class PolyvalBenchmarks
{
    private byte[] _data = [];
    private readonly byte[] _h = RandomNumberGenerator.GetBytes(16);
    private readonly byte[] _accumulator = new byte[16];
    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(12);
    private readonly byte[] _tag = new byte[16];
    private AesGcm _aesGcm = null!;
    private PolyvalKey _key;

    [Params(1024, 8192, 65536)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _data = RandomNumberGenerator.GetBytes(Size);
        _aesGcm = new AesGcm(RandomNumberGenerator.GetBytes(16), 16);
    }

    [GlobalCleanup]
    public void Cleanup() => _aesGcm.Dispose();

    /// <summary>GHASH proxy: AES-128-GCM encryption of nothing, with the data as associated data.</summary>
    [Benchmark(Baseline = true, Description = "GHASH proxy (AesGcm AAD only)"), Requires(Requirement.AesGcm)]
    public void GhashProxy() => _aesGcm.Encrypt(_nonce, ReadOnlySpan<byte>.Empty, Span<byte>.Empty, _tag, _data);

    [Benchmark, Requires(Requirement.PolyvalVpclmulqdq)]
    public void Polyval_Vpclmulqdq()
    {
        default(PolyvalVpclmulqdq).Init(_h, Size / 16, ref _key);
        default(PolyvalVpclmulqdq).Update(in _key, _accumulator, _data);
    }

    [Benchmark, Requires(Requirement.PolyvalPclmulqdq)]
    public void Polyval_Pclmulqdq()
    {
        default(PolyvalClmul<Pclmul>).Init(_h, Size / 16, ref _key);
        default(PolyvalClmul<Pclmul>).Update(in _key, _accumulator, _data);
    }

    [Benchmark, Requires(Requirement.PolyvalPmull)]
    public void Polyval_Pmull()
    {
        default(PolyvalClmul<Pmull>).Init(_h, Size / 16, ref _key);
        default(PolyvalClmul<Pmull>).Update(in _key, _accumulator, _data);
    }

    [Benchmark, Requires(Requirement.PolyvalPortable)]
    public void Polyval_Portable()
    {
        default(PolyvalPortable).Init(_h, Size / 16, ref _key);
        default(PolyvalPortable).Update(in _key, _accumulator, _data);
    }
}
