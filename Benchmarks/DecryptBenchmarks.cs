// Decryption and tag check of Size bytes (no associated data) by each AEAD, against .NET's AesGcm.
// One method per implementation; AesGcm with the same key size is the baseline. Setup, sizes, key
// sizes and which rows are skipped where: AeadBenchmarks.cs.

using BenchmarkDotNet.Attributes;

namespace Benchmarks;

public class DecryptBenchmarks : AeadBenchmarks
{
    [Benchmark(Baseline = true), Requires(Requirement.AesGcm)]
    public void AesGcm() => AesGcmPeer.Decrypt();

    [Benchmark, Requires(Requirement.ChaCha20Poly1305)]
    public void ChaCha20Poly1305() => ChaCha20Poly1305Peer.Decrypt();

    [Benchmark, Requires(Requirement.Libsodium)]
    public void Libsodium() => LibsodiumPeer.Decrypt();

    [Benchmark, Requires(Requirement.BoringSsl)]
    public void BoringSsl() => BoringSslPeer.Decrypt();

    [Benchmark]
    public void BouncyCastle() => BouncyCastlePeer.Decrypt();

    [Benchmark, Requires(Requirement.BackendAesNiVpclmulqdq)]
    public void AesGcmSiv_AesNiVpclmulqdq() => AesNiVpclmulqdqPeer.Decrypt();

    [Benchmark, Requires(Requirement.BackendAesNiPclmulqdq)]
    public void AesGcmSiv_AesNiPclmulqdq() => AesNiPclmulqdqPeer.Decrypt();

    [Benchmark, Requires(Requirement.BackendArm64)]
    public void AesGcmSiv_Arm64() => Arm64Peer.Decrypt();

    [Benchmark, Requires(Requirement.BackendBitslicedVector)]
    public void AesGcmSiv_BitslicedVector() => BitslicedVectorPeer.Decrypt();

    [Benchmark, Requires(Requirement.BackendPortable)]
    public void AesGcmSiv_Portable() => PortablePeer.Decrypt();
}
