// Verification only: the decryption of what AuthenticateBenchmarks produces (empty ciphertext, Size
// bytes of associated data, the tag checked), by each AEAD, against .NET's AesGcm.
// One method per implementation; AesGcm with the same key size is the baseline. Setup, sizes, key
// sizes and which rows are skipped where: AeadBenchmarks.cs.

using BenchmarkDotNet.Attributes;

namespace Benchmarks;

public class VerifyBenchmarks : AeadBenchmarks
{
    [Benchmark(Baseline = true), Requires(Requirement.AesGcm)]
    public void AesGcm() => AesGcmPeer.Verify();

    [Benchmark, Requires(Requirement.ChaCha20Poly1305)]
    public void ChaCha20Poly1305() => ChaCha20Poly1305Peer.Verify();

    [Benchmark, Requires(Requirement.Libsodium)]
    public void Libsodium() => LibsodiumPeer.Verify();

    [Benchmark, Requires(Requirement.BoringSsl)]
    public void BoringSsl() => BoringSslPeer.Verify();

    [Benchmark]
    public void BouncyCastle() => BouncyCastlePeer.Verify();

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void AesGcmSiv_AesNiVpclmulqdq() => AesNiVpclmulqdqPeer.Verify();

    [Benchmark, Requires(Requirement.BackendAesNiPclmulqdq)]
    public void AesGcmSiv_AesNiPclmulqdq() => AesNiPclmulqdqPeer.Verify();

    [Benchmark, Requires(Requirement.BackendArm64)]
    public void AesGcmSiv_Arm64() => Arm64Peer.Verify();

    [Benchmark, Requires(Requirement.BackendBitslicedVector)]
    public void AesGcmSiv_BitslicedVector() => BitslicedVectorPeer.Verify();

    [Benchmark, Requires(Requirement.BackendPortable)]
    public void AesGcmSiv_Portable() => PortablePeer.Verify();
}
