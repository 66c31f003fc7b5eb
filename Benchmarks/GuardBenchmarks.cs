// What the nonce guard costs: each guarded AEAD (GuardedAesGcm, GuardedChaCha20Poly1305,
// GuardedAesGcmSiv, default options) against the bare AEAD it wraps (the baseline), encrypting
// with a fresh counter nonce per call, as a service would. The history is warm and full: every
// call evicts the oldest nonce of the exact window, and one in 16 also lands among the
// distinguished points. Issue 5's goal: at most 15 % overhead at 64 bytes and 5 % at 1350 bytes
// on AesGcm. One class per AEAD so that each ratio is against its own bare AEAD.
//
//   dotnet run -c Release --project Benchmarks -- --filter '*Guard*' --sizes 64,1350,8192
//
// (GuardSplitBenchmarks, at the end, splits GuardedAesGcmSiv's time; on a loaded machine
// Benchmarks.dll --guard-split does the same with a minimum over rounds: GuardSplitLoop.cs.)

using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Cryptography;

namespace Benchmarks;

public abstract class GuardBenchmarks
{
    private readonly byte[] _nonce = new byte[12];
    private readonly byte[] _tag = new byte[16];
    private byte[] _plaintext = [];
    private byte[] _ciphertext = [];
    private ulong _counter;

    [Params(64, 1350, 8192)]
    public int Size { get; set; }

    protected ReadOnlySpan<byte> Plaintext => _plaintext;

    protected Span<byte> Ciphertext => _ciphertext;

    protected Span<byte> Tag => _tag;

    [GlobalSetup]
    public void Setup()
    {
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        Create(RandomNumberGenerator.GetBytes(32));
    }

    [GlobalCleanup]
    public void Cleanup() => Dispose();

    [Benchmark(Baseline = true)]
    public void Bare() => EncryptBare(NextNonce());

    [Benchmark]
    public void Guarded() => EncryptGuarded(NextNonce());

    protected abstract void Create(byte[] key);

    protected abstract void EncryptBare(ReadOnlySpan<byte> nonce);

    protected abstract void EncryptGuarded(ReadOnlySpan<byte> nonce);

    protected abstract void Dispose();

    // The same fresh nonce sequence for every row, so the only difference is the guard.
    protected byte[] NextNonce()
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_nonce, ++_counter);
        return _nonce;
    }
}

// The guard wraps the very AesGcm instance the bare row calls, so that the rows differ only by the
// guard. Even so, BenchmarkDotNet runs each row in a process of its own, and .NET's AesGcm (OpenSSL)
// takes up to 15 % more or less per call in one process than in another, steadily within each:
// far more than the guard's own ~20 ns (GuardCostBenchmarks). BareOtherInstance, a second bare
// instance, shows that spread; --launchCount 5 averages it (docs/nonce-safety.md, Cost).
public class GuardAesGcmBenchmarks : GuardBenchmarks
{
    private AesGcm _bare = null!;
    private GuardedAesGcm _guarded = null!;
    private AesGcm _other = null!;

    // A second bare instance, same key, measured like every row in a process of its own: the spread of the bare AEAD itself.
    [Benchmark]
    public void BareOtherInstance() => _other.Encrypt(NextNonce(), Plaintext, Ciphertext, Tag);

    protected override void Create(byte[] key)
    {
        _bare = new AesGcm(key, 16);
        _guarded = new GuardedAesGcm(_bare, key, null);
        _other = new AesGcm(key, 16);
    }

    protected override void EncryptBare(ReadOnlySpan<byte> nonce) => _bare.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    protected override void EncryptGuarded(ReadOnlySpan<byte> nonce) => _guarded.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    protected override void Dispose()
    {
        _guarded.Dispose(); // disposes _bare, which it wraps
        _other.Dispose();
    }
}

// The same arrangement as GuardAesGcmBenchmarks, for the same reason.
public class GuardChaCha20Poly1305Benchmarks : GuardBenchmarks
{
    private ChaCha20Poly1305 _bare = null!;
    private GuardedChaCha20Poly1305 _guarded = null!;
    private ChaCha20Poly1305 _other = null!;

    [Benchmark]
    public void BareOtherInstance() => _other.Encrypt(NextNonce(), Plaintext, Ciphertext, Tag);

    protected override void Create(byte[] key)
    {
        _bare = new ChaCha20Poly1305(key);
        _guarded = new GuardedChaCha20Poly1305(_bare, key, null);
        _other = new ChaCha20Poly1305(key);
    }

    protected override void EncryptBare(ReadOnlySpan<byte> nonce) => _bare.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    protected override void EncryptGuarded(ReadOnlySpan<byte> nonce) => _guarded.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    protected override void Dispose()
    {
        _guarded.Dispose(); // disposes _bare, which it wraps
        _other.Dispose();
    }
}

// Guarded is the default policy (Observe); GuardedRefuse the strict mode, which reserves each nonce
// before encrypting and publishes the tag after.
public class GuardAesGcmSivBenchmarks : GuardBenchmarks
{
    private AesGcmSiv _bare = null!;
    private GuardedAesGcmSiv _guarded = null!;
    private GuardedAesGcmSiv _refusing = null!;
    private readonly byte[] _nonceCopy = new byte[12];

    [Benchmark]
    public void GuardedRefuse() => _refusing.Encrypt(NextNonce(), Plaintext, Ciphertext, Tag);

    // Diagnostics (issue 49, eighth pass): the bare AEAD given the nonce as the guard gave it before
    // that pass, read from the caller's buffer and written to a 12-byte stackalloc buffer of the
    // method that calls the AEAD, and the same copy made to a heap array instead. At 64 B on Zen 4
    // the first costs about 10 ns and the second nothing: the stackalloc buffer makes the JIT copy
    // the method's span parameters on entry (docs/nonce-safety.md, Cost; Cryptography/Internal/StackBytes.cs).
    [Benchmark]
    public void BareNonceOnStack() => EncryptFromStackCopy(_bare, NextNonce(), Plaintext, Ciphertext, Tag);

    [Benchmark]
    public void BareNonceOnHeap() => EncryptFromHeapCopy(_bare, _nonceCopy, NextNonce(), Plaintext, Ciphertext, Tag);

    protected override void Create(byte[] key)
    {
        _bare = new AesGcmSiv(key);
        _guarded = new GuardedAesGcmSiv(key);
        _refusing = new GuardedAesGcmSiv(key, new NonceGuardOptions { Policy = NonceReusePolicy.Refuse, ShareHistory = false });
    }

    protected override void EncryptBare(ReadOnlySpan<byte> nonce) => _bare.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    protected override void EncryptGuarded(ReadOnlySpan<byte> nonce) => _guarded.Encrypt(nonce, Plaintext, Ciphertext, Tag);

    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit]
    private static void EncryptFromStackCopy(AesGcmSiv aead, ReadOnlySpan<byte> callers, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag)
    {
        Span<byte> nonce = stackalloc byte[12];
        BinaryPrimitives.WriteUInt64LittleEndian(nonce, BinaryPrimitives.ReadUInt64LittleEndian(callers));
        BinaryPrimitives.WriteUInt32LittleEndian(nonce[8..], BinaryPrimitives.ReadUInt32LittleEndian(callers[8..]));
        aead.Encrypt(nonce, plaintext, ciphertext, tag);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void EncryptFromHeapCopy(AesGcmSiv aead, byte[] copy, ReadOnlySpan<byte> callers, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag)
    {
        BinaryPrimitives.WriteUInt64LittleEndian(copy, BinaryPrimitives.ReadUInt64LittleEndian(callers));
        BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(8), BinaryPrimitives.ReadUInt32LittleEndian(callers[8..]));
        aead.Encrypt(copy, plaintext, ciphertext, tag);
    }

    protected override void Dispose()
    {
        _bare.Dispose();
        _guarded.Dispose();
        _refusing.Dispose();
    }
}

// The guard's own cost, without an AEAD: NonceGuard around an AEAD that does nothing, on the two
// paths the guards use (one critical section, as GuardedAesGcm and GuardedChaCha20Poly1305 do;
// reserve-then-publish, as GuardedAesGcmSiv does), with the default options and a fresh nonce
// per call. On this shared machine the AES-GCM rows above vary by 10-30 % from run to run, far
// more than the guard costs; these rows measure that cost on its own, to set against the bare
// AEAD's time in the same run.
public class GuardCostBenchmarks
{
    private readonly byte[] _nonce = new byte[12];
    private readonly byte[] _tag = new byte[16];
    private readonly byte[] _plaintext = new byte[64];
    private readonly byte[] _ciphertext = new byte[64];
    private readonly object _owner = new();
    private Cryptography.NonceSafety.NonceHistory _serial = null!;
    private Cryptography.NonceSafety.NonceHistory _twoPhase = null!;
    private Cryptography.NonceSafety.NonceHistory _observed = null!;
    private Cryptography.Internal.KeyLifetime _lifetime;
    private ulong _counter;

    [GlobalSetup]
    public void Setup()
    {
        _serial = new Cryptography.NonceSafety.NonceHistory(NonceGuardOptions.Default);
        _twoPhase = new Cryptography.NonceSafety.NonceHistory(NonceGuardOptions.Default);
        _observed = new Cryptography.NonceSafety.NonceHistory(NonceGuardOptions.Default);
    }

    [Benchmark(Description = "one critical section (AesGcm, ChaCha20Poly1305)")]
    public void Serialised()
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_nonce, ++_counter);
        Cryptography.NonceSafety.NonceGuard.ReadNonce(_nonce, out ulong low, out uint high);
        Cryptography.NonceSafety.NonceGuard.Encrypt(default(NullAead<Serial>), ref _lifetime, _owner, _serial, NonceReusePolicy.Refuse, low, high, _plaintext, _ciphertext, _tag, default);
    }

    [Benchmark(Description = "reserve, then publish (AesGcmSiv, Refuse)")]
    public void TwoPhase()
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_nonce, ++_counter);
        Cryptography.NonceSafety.NonceGuard.ReadNonce(_nonce, out ulong low, out uint high);
        Cryptography.NonceSafety.NonceGuard.Encrypt(default(NullAead<Parallel>), ref _lifetime, _owner, _twoPhase, NonceReusePolicy.Refuse, low, high, _plaintext, _ciphertext, _tag, default);
    }

    [Benchmark(Description = "encrypt, then record (AesGcmSiv, Observe: its default)")]
    public void Observed()
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_nonce, ++_counter);
        Cryptography.NonceSafety.NonceGuard.ReadNonce(_nonce, out ulong low, out uint high);
        Cryptography.NonceSafety.NonceGuard.Encrypt(default(NullAead<Parallel>), ref _lifetime, _owner, _observed, NonceReusePolicy.Observe, low, high, _plaintext, _ciphertext, _tag, default);
    }

    public interface IMode
    {
        static abstract bool Concurrent { get; }
    }

    public readonly struct Serial : IMode
    {
        public static bool Concurrent => false;
    }

    public readonly struct Parallel : IMode
    {
        public static bool Concurrent => true;
    }

    // An "AEAD" that writes nothing: what remains is the guard.
    internal readonly struct NullAead<TMode> : Cryptography.NonceSafety.IGuardedAead
        where TMode : IMode
    {
        public string Name => "none";

        public int NonceSize => 12;

        public int MaxTagSize => 16;

        public bool Concurrent => TMode.Concurrent;

        public void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag)
        {
        }

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
        {
        }

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
        {
        }
    }
}

// Where GuardedAesGcmSiv's time goes beside the AEAD's (issue 49): the guarded call against the
// bare call plus the guard alone (NonceGuard around an AEAD that does nothing, same history
// options) in one method. If the guarded call costs more than the two together, the guard and the
// AEAD slow each other down (a different path through AesGcmSiv, cache or store-buffer effects);
// the small-window row shows what the history's 1 MiB footprint costs.
//
//   dotnet run -c Release --project Benchmarks -- --filter '*GuardSplit*' --sizes 64,1350
public class GuardSplitBenchmarks
{
    private readonly byte[] _nonce = new byte[12];
    private readonly byte[] _tag = new byte[16];
    private readonly object _owner = new();
    private byte[] _plaintext = [];
    private byte[] _ciphertext = [];
    private AesGcmSiv _bare = null!;
    private GuardedAesGcmSiv _guarded = null!;
    private GuardedAesGcmSiv _small = null!;
    private Cryptography.NonceSafety.NonceHistory _history = null!;
    private Cryptography.Internal.KeyLifetime _lifetime;
    private ulong _counter;

    [Params(64, 1350, 8192)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _ciphertext = new byte[Size];
        _bare = new AesGcmSiv(key);
        _guarded = new GuardedAesGcmSiv(key);
        _small = new GuardedAesGcmSiv(key, new NonceGuardOptions { WindowSize = 64, DistinguishedPointCapacity = 0, ShareHistory = false });
        _history = new Cryptography.NonceSafety.NonceHistory(NonceGuardOptions.Default);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _bare.Dispose();
        _guarded.Dispose();
        _small.Dispose();
    }

    [Benchmark(Baseline = true)]
    public void Bare() => _bare.Encrypt(NextNonce(), _plaintext, _ciphertext, _tag);

    [Benchmark]
    public void GuardAloneThenBare()
    {
        byte[] nonce = NextNonce();
        Cryptography.NonceSafety.NonceGuard.ReadNonce(nonce, out ulong low, out uint high);
        Cryptography.NonceSafety.NonceGuard.Encrypt(default(GuardCostBenchmarks.NullAead<GuardCostBenchmarks.Parallel>), ref _lifetime, _owner, _history, NonceReusePolicy.Observe, low, high, _plaintext, _ciphertext, _tag, default);
        _bare.Encrypt(nonce, _plaintext, _ciphertext, _tag);
    }

    [Benchmark]
    public void Guarded() => _guarded.Encrypt(NextNonce(), _plaintext, _ciphertext, _tag);

    [Benchmark]
    public void GuardedSmallWindow() => _small.Encrypt(NextNonce(), _plaintext, _ciphertext, _tag);

    private byte[] NextNonce()
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_nonce, ++_counter);
        return _nonce;
    }
}

// Decryption through GuardedAesGcmSiv (default options: the nonce not checked) against the bare
// AEAD: the guard's plumbing alone, the same message decrypted each time.
//
//   dotnet run -c Release --project Benchmarks -- --filter '*GuardDecrypt*' --sizes 64,1350
public class GuardDecryptBenchmarks
{
    private readonly byte[] _nonce = RandomNumberGenerator.GetBytes(12);
    private readonly byte[] _tag = new byte[16];
    private byte[] _ciphertext = [];
    private byte[] _plaintext = [];
    private AesGcmSiv _bare = null!;
    private GuardedAesGcmSiv _guarded = null!;

    [Params(64, 1350)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        byte[] key = RandomNumberGenerator.GetBytes(32);
        _bare = new AesGcmSiv(key);
        _guarded = new GuardedAesGcmSiv(key);
        _plaintext = new byte[Size];
        _ciphertext = new byte[Size];
        _bare.Encrypt(_nonce, RandomNumberGenerator.GetBytes(Size), _ciphertext, _tag);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _bare.Dispose();
        _guarded.Dispose();
    }

    [Benchmark(Baseline = true)]
    public void Bare() => _bare.Decrypt(_nonce, _ciphertext, _tag, _plaintext);

    [Benchmark]
    public void Guarded() => _guarded.Decrypt(_nonce, _ciphertext, _tag, _plaintext);
}
