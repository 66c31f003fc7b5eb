// Authentication only: an empty plaintext with the Size bytes as associated data (a MAC), by each
// AEAD, against .NET's AesGcm.
// One method per implementation; AesGcm with the same key size is the baseline. Setup, sizes, key
// sizes and which rows are skipped where: AeadBenchmarks.cs.

using BenchmarkDotNet.Attributes;

namespace Benchmarks;

public class AuthenticateBenchmarks : AeadBenchmarks
{
    [Benchmark(Baseline = true), Requires(Requirement.AesGcm)]
    public void AesGcm() => AesGcmPeer.Authenticate();

    [Benchmark, Requires(Requirement.ChaCha20Poly1305)]
    public void ChaCha20Poly1305() => ChaCha20Poly1305Peer.Authenticate();

    [Benchmark, Requires(Requirement.Libsodium)]
    public void Libsodium() => LibsodiumPeer.Authenticate();

    [Benchmark, Requires(Requirement.BoringSsl)]
    public void BoringSsl() => BoringSslPeer.Authenticate();

    [Benchmark]
    public void BouncyCastle() => BouncyCastlePeer.Authenticate();

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void AesGcmSiv_AesNiVpclmulqdq() => AesNiVpclmulqdqPeer.Authenticate();

    [Benchmark, Requires(Requirement.BackendAesNiPclmulqdq)]
    public void AesGcmSiv_AesNiPclmulqdq() => AesNiPclmulqdqPeer.Authenticate();

    [Benchmark, Requires(Requirement.BackendArm64)]
    public void AesGcmSiv_Arm64() => Arm64Peer.Authenticate();

    [Benchmark, Requires(Requirement.BackendBitslicedVector)]
    public void AesGcmSiv_BitslicedVector() => BitslicedVectorPeer.Authenticate();

    [Benchmark, Requires(Requirement.BackendPortable)]
    public void AesGcmSiv_Portable() => PortablePeer.Authenticate();
}
