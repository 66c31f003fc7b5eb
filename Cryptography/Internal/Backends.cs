// The one decision of which implementation runs, made once per process, widest first; after it an
// AesGcmSiv instance holds a Backend object whose three methods are the whole implementation, so
// nothing switches on the backend per call.
//
// A hardware backend is chosen only after its known-answer self-test (SelfTest.cs) passes. A backend
// that fails it, or throws while running it, is skipped: the next one is tried, and portable always
// works.
//
// Adding a backend: its instruction-set files (Aes.<Isa>.cs implementing IAes / IAesBlock, and an
// ICarrylessMultiply or IPolyval), a value in AesGcmSivBackend, and one line in Widest, which is per
// target: Platform/Net/Backends.Widest.cs (every backend) and Platform/NetStandard/Backends.Widest.cs
// (the software ones: netstandard2.0 has no System.Runtime.Intrinsics).

using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Cryptography.Internal;

/// <summary>One complete AES-GCM-SIV implementation: key expansion, encryption, decryption.</summary>
internal abstract class Backend
{
    public abstract AesGcmSivBackend Id { get; }

    public abstract bool IsSupported { get; }

    public abstract void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule);

    public abstract void Encrypt(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData);

    /// <summary>Decrypts and verifies; on a bad tag zeroes <paramref name="plaintext"/> and returns false.</summary>
    public abstract bool Decrypt(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData);
}

/// <summary>The implementation built from one AES and one POLYVAL, decrypting in two passes; the JIT specialises GcmSiv for each pair.</summary>
internal sealed class Backend<TAes, TPolyval>(AesGcmSivBackend id) : Backend<TAes, TPolyval, TwoPassDecrypt<TAes, TPolyval>>(id)
    where TAes : struct, IAes
    where TPolyval : struct, IPolyval;

/// <summary>The implementation built from one AES, one POLYVAL and the way decryption schedules the two (IDecryptLoop).</summary>
internal class Backend<TAes, TPolyval, TDecryptLoop>(AesGcmSivBackend id) : Backend
    where TAes : struct, IAes
    where TPolyval : struct, IPolyval
    where TDecryptLoop : struct, IDecryptLoop
{
    public override AesGcmSivBackend Id => id;

    public override bool IsSupported => default(TAes).IsSupported && default(TPolyval).IsSupported;

    // Fully optimised from the first call, like everything that handles keys: a method that starts
    // at Tier0 is call-counted and later patched, and the runtime's tier-up work can run on this
    // thread while vector registers still hold the last round key, saving them in a frame below.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public override void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule)
    {
        try
        {
            default(TAes).ExpandKey(key, ref schedule);
        }
        finally
        {
            CallStack.BurnAfterCall();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public override void Encrypt(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        try
        {
            GcmSiv<TAes, TPolyval>.Encrypt(in schedule, rounds, nonce, plaintext, ciphertext, tag, associatedData);
        }
        finally
        {
            CallStack.BurnAfterCall();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public override bool Decrypt(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        try
        {
            return GcmSiv<TAes, TPolyval>.Decrypt<TDecryptLoop>(in schedule, rounds, nonce, ciphertext, tag, plaintext, associatedData);
        }
        finally
        {
            CallStack.BurnAfterCall();
        }
    }
}

internal static partial class Backends
{
    /// <summary>Every backend there is, widest first (per target); initialised before Active, which reads it.</summary>
    private static readonly Backend[] Widest = AllWidestFirst();

    /// <summary>The backend new instances use: the widest this machine supports that passes its self-test.</summary>
    public static readonly Backend Active = Get(Choose(Supported(), SelfTest.Passes));

    /// <summary>Every backend this machine can run, widest first; tests and benchmarks iterate it.</summary>
    public static AesGcmSivBackend[] Supported() =>
        Array.ConvertAll(Array.FindAll(Widest, backend => backend.IsSupported), backend => backend.Id);

    public static bool IsSupported(AesGcmSivBackend id) => Find(id)?.IsSupported == true;

    /// <summary>The implementation of <paramref name="id"/>; it must be supported here.</summary>
    public static Backend Get(AesGcmSivBackend id) => Find(id) is { IsSupported: true } backend
        ? backend
        : throw new PlatformNotSupportedException(string.Format(CultureInfo.InvariantCulture, Messages.BackendNotSupported, id));

    private static Backend? Find(AesGcmSivBackend id) => Array.Find(Widest, backend => backend.Id == id);

    /// <summary>
    /// The first of <paramref name="candidates"/> (widest first) that passes
    /// <paramref name="selfTest"/>; Portable needs no test. A candidate whose self-test throws
    /// (PlatformNotSupportedException from an intrinsic this CPU lacks, say) has failed it: the
    /// exception must not escape, since it would surface as a TypeInitializationException from the
    /// first constructor and make the library unusable instead of merely slower. Tests pass a
    /// self-test that throws to prove the fallback.
    /// </summary>
    internal static AesGcmSivBackend Choose(ReadOnlySpan<AesGcmSivBackend> candidates, Func<AesGcmSivBackend, bool> selfTest)
    {
        foreach (AesGcmSivBackend backend in candidates)
        {
            if (backend == AesGcmSivBackend.Portable)
            {
                return backend;
            }

            try
            {
                if (selfTest(backend))
                {
                    return backend;
                }
            }
#pragma warning disable CA1031 // Any exception from a candidate backend means "not this one"; the next is tried.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }

        return AesGcmSivBackend.Portable;
    }
}
