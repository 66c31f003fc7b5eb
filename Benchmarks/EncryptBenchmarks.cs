// Encryption of Size bytes (no associated data) by each AEAD, against .NET's AesGcm.
// One method per implementation; AesGcm with the same key size is the baseline. Setup, sizes, key
// sizes and which rows are skipped where: AeadBenchmarks.cs.

using BenchmarkDotNet.Attributes;

namespace Benchmarks;

public class EncryptBenchmarks : AeadBenchmarks
{
    [Benchmark(Baseline = true), Requires(Requirement.AesGcm)]
    public void AesGcm() => AesGcmPeer.Encrypt();

    [Benchmark, Requires(Requirement.ChaCha20Poly1305)]
    public void ChaCha20Poly1305() => ChaCha20Poly1305Peer.Encrypt();

    [Benchmark, Requires(Requirement.Libsodium)]
    public void Libsodium() => LibsodiumPeer.Encrypt();

    [Benchmark, Requires(Requirement.BoringSsl)]
    public void BoringSsl() => BoringSslPeer.Encrypt();

    [Benchmark]
    public void BouncyCastle() => BouncyCastlePeer.Encrypt();

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void AesGcmSiv_AesNiVpclmulqdq() => AesNiVpclmulqdqPeer.Encrypt();

    [Benchmark, Requires(Requirement.BackendAesNiPclmulqdq)]
    public void AesGcmSiv_AesNiPclmulqdq() => AesNiPclmulqdqPeer.Encrypt();

    [Benchmark, Requires(Requirement.BackendArm64)]
    public void AesGcmSiv_Arm64() => Arm64Peer.Encrypt();

    [Benchmark, Requires(Requirement.BackendBitslicedVector)]
    public void AesGcmSiv_BitslicedVector() => BitslicedVectorPeer.Encrypt();

    [Benchmark, Requires(Requirement.BackendPortable)]
    public void AesGcmSiv_Portable() => PortablePeer.Encrypt();
}
