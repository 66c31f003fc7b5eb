// Shared setup of the four operation benchmarks (EncryptBenchmarks, DecryptBenchmarks,
// AuthenticateBenchmarks, VerifyBenchmarks): every peer over the same random input, for each
// Size and KeySize.
//
// Each implementation is its own [Benchmark] method and .NET's AesGcm with the same key size is
// the Baseline, so BenchmarkDotNet's Ratio column compares each row with AesGcm at the same Size
// and KeySize. Rows that cannot exist are filtered out before the run (Requirements.cs):
// AesGcmSiv backends this CPU lacks, and libsodium for KeySize 16 (it has AES-256-GCM only) or
// where it is not installed. ChaCha20Poly1305 has one key size: it runs with a 32-byte key in both
// KeySize rows, so its KeySize 16 row compares a 256-bit ChaCha20 with AES-128-GCM.

using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography;

namespace Benchmarks;

public abstract class AeadBenchmarks
{
    /// <summary>Message sizes: a small record, 1 KiB, a QUIC packet's payload (1350), 8 KiB, 64 KiB, 1 MiB.</summary>
    [Params(64, 1024, 1350, 8192, 65536, 1048576)]
    public int Size { get; set; }

    /// <summary>AES key size in bytes: 16 for AES-128, 32 for AES-256.</summary>
    [Params(16, 32)]
    public int KeySize { get; set; }

    private protected AesGcmPeer AesGcmPeer { get; private set; } = null!;
    private protected ChaCha20Poly1305Peer ChaCha20Poly1305Peer { get; private set; } = null!;
    private protected LibsodiumPeer LibsodiumPeer { get; private set; } = null!;
    private protected BoringSslPeer BoringSslPeer { get; private set; } = null!;
    private protected AesGcmSivPeer AesNiVpclmulqdqPeer { get; private set; } = null!;
    private protected AesGcmSivPeer AesNiPclmulqdqPeer { get; private set; } = null!;
    private protected AesGcmSivPeer Arm64Peer { get; private set; } = null!;
    private protected AesGcmSivPeer BitslicedVectorPeer { get; private set; } = null!;
    private protected AesGcmSivPeer PortablePeer { get; private set; } = null!;
    private protected BouncyCastlePeer BouncyCastlePeer { get; private set; } = null!;

    // Setup runs once per case (each case is its own process), so it prepares every peer the case
    // could use; a case's method touches only its own.
    [GlobalSetup]
    public void Setup()
    {
        byte[] input = RandomNumberGenerator.GetBytes(Size);
        byte[] key = RandomNumberGenerator.GetBytes(KeySize);

        AesGcmPeer = Prepared(new AesGcmPeer(key), input);
        if (Requirements.Holds(Requirement.ChaCha20Poly1305))
        {
            ChaCha20Poly1305Peer = Prepared(new ChaCha20Poly1305Peer(RandomNumberGenerator.GetBytes(32)), input);
        }

        if (Requirements.Holds(Requirement.Libsodium, KeySize))
        {
            LibsodiumPeer = Prepared(new LibsodiumPeer(key), input);
        }

        if (Requirements.Holds(Requirement.BoringSsl))
        {
            BoringSslPeer = Prepared(new BoringSslPeer(key), input);
        }

        AesNiVpclmulqdqPeer = SivPeer(Requirement.BackendAesNiVpclmulqdq, AesGcmSivBackend.AesNiVpclmulqdq, key, input);
        AesNiPclmulqdqPeer = SivPeer(Requirement.BackendAesNiPclmulqdq, AesGcmSivBackend.AesNiPclmulqdq, key, input);
        Arm64Peer = SivPeer(Requirement.BackendArm64, AesGcmSivBackend.Arm64, key, input);
        BitslicedVectorPeer = SivPeer(Requirement.BackendBitslicedVector, AesGcmSivBackend.BitslicedVector, key, input);
        PortablePeer = SivPeer(Requirement.BackendPortable, AesGcmSivBackend.Portable, key, input);
        BouncyCastlePeer = Prepared(new BouncyCastlePeer(key), input);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        AesGcmPeer?.Dispose();
        ChaCha20Poly1305Peer?.Dispose();
        LibsodiumPeer?.Dispose();
        BoringSslPeer?.Dispose();
        AesNiVpclmulqdqPeer?.Dispose();
        AesNiPclmulqdqPeer?.Dispose();
        Arm64Peer?.Dispose();
        BitslicedVectorPeer?.Dispose();
        PortablePeer?.Dispose();
        BouncyCastlePeer?.Dispose();
    }

    private static T Prepared<T>(T peer, byte[] input)
        where T : AeadPeer
    {
        peer.Prepare(input);
        return peer;
    }

    private static AesGcmSivPeer SivPeer(Requirement requirement, AesGcmSivBackend backend, byte[] key, byte[] input) =>
        Requirements.Holds(requirement) ? Prepared(new AesGcmSivPeer(key, backend), input) : null!;
}
