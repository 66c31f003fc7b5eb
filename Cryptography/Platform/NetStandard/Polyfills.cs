// netstandard2.0: the members of newer .NET that the shared files call and this target lacks, with
// the same names, so that those files compile unchanged (C# 14 static extension members add a static
// method to an existing type, such as ArgumentNullException.ThrowIfNull). Each does what the .NET
// member does, for the arguments this library passes.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cryptography
{
    /// <summary>
    /// Stands in for System.Runtime.CompilerServices.MethodImplOptions in the library's attributes:
    /// netstandard2.0's enum has no AggressiveOptimization (512, which Mono and .NET Framework
    /// ignore). Type lookup finds this class in the library's namespace before the imported enum,
    /// and its constants are values of that enum, so [MethodImpl(...)] means the same on every target.
    /// </summary>
    internal static class MethodImplOptions
    {
        public const System.Runtime.CompilerServices.MethodImplOptions AggressiveInlining = System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining;
        public const System.Runtime.CompilerServices.MethodImplOptions NoInlining = System.Runtime.CompilerServices.MethodImplOptions.NoInlining;
        public const System.Runtime.CompilerServices.MethodImplOptions NoOptimization = System.Runtime.CompilerServices.MethodImplOptions.NoOptimization;
        public const System.Runtime.CompilerServices.MethodImplOptions AggressiveOptimization = (System.Runtime.CompilerServices.MethodImplOptions)512;
    }

    internal static class PlatformExtensions
    {
        extension(ArgumentNullException)
        {
            public static void ThrowIfNull([System.Diagnostics.CodeAnalysis.NotNull] object? argument, [CallerArgumentExpression(nameof(argument))] string? paramName = null)
            {
                if (argument is null)
                {
                    throw new ArgumentNullException(paramName);
                }
            }
        }

        extension(ObjectDisposedException)
        {
            public static void ThrowIf([System.Diagnostics.CodeAnalysis.DoesNotReturnIf(true)] bool condition, object instance)
            {
                if (condition)
                {
                    throw new ObjectDisposedException(instance?.GetType().FullName);
                }
            }
        }

        extension(ArgumentOutOfRangeException)
        {
            public static void ThrowIfNegative(long value, [CallerArgumentExpression(nameof(value))] string? paramName = null)
            {
                if (value < 0)
                {
                    throw new ArgumentOutOfRangeException(paramName, value, "The value must not be negative.");
                }
            }

            public static void ThrowIfNegative(int value, [CallerArgumentExpression(nameof(value))] string? paramName = null)
            {
                if (value < 0)
                {
                    throw new ArgumentOutOfRangeException(paramName, value, "The value must not be negative.");
                }
            }

            public static void ThrowIfGreaterThan(int value, int other, [CallerArgumentExpression(nameof(value))] string? paramName = null)
            {
                if (value > other)
                {
                    throw new ArgumentOutOfRangeException(paramName, value, $"The value must be less than or equal to {other}.");
                }
            }

            public static void ThrowIfLessThan(int value, int other, [CallerArgumentExpression(nameof(value))] string? paramName = null)
            {
                if (value < other)
                {
                    throw new ArgumentOutOfRangeException(paramName, value, $"The value must be greater than or equal to {other}.");
                }
            }
        }

        extension(System.Threading.Interlocked)
        {
            /// <summary>Atomically ORs <paramref name="value"/> into <paramref name="location"/>; returns the value before.</summary>
            public static int Or(ref int location, int value)
            {
                int current = System.Threading.Volatile.Read(ref location);
                while (true)
                {
                    int seen = System.Threading.Interlocked.CompareExchange(ref location, current | value, current);
                    if (seen == current)
                    {
                        return seen;
                    }

                    current = seen;
                }
            }
        }

        extension(System.Threading.Volatile)
        {
            /// <summary>Keeps every load before it ahead of every load after it (KeyLifetime's check after a
            /// call). netstandard2.0 has no load-only barrier; a full fence is stronger and correct.</summary>
            public static void ReadBarrier() => System.Threading.Thread.MemoryBarrier();
        }

        extension(System.Security.Cryptography.RandomNumberGenerator)
        {
            public static byte[] GetBytes(int count)
            {
                byte[] bytes = new byte[count];
                using (var generator = System.Security.Cryptography.RandomNumberGenerator.Create())
                {
                    generator.GetBytes(bytes);
                }

                return bytes;
            }

            /// <summary>Fills <paramref name="data"/> from the system's cryptographic generator (through a wiped array: netstandard2.0's takes arrays only).</summary>
            public static void Fill(Span<byte> data)
            {
                byte[] bytes = new byte[data.Length];
                using (var generator = System.Security.Cryptography.RandomNumberGenerator.Create())
                {
                    generator.GetBytes(bytes);
                }

                bytes.CopyTo(data);
                System.Security.Cryptography.CryptographicOperations.ZeroMemory(bytes);
            }
        }

        extension(System.Text.Encoding encoding)
        {
            public int GetBytes(string chars, Span<byte> bytes)
            {
                byte[] encoded = encoding.GetBytes(chars);
                encoded.CopyTo(bytes);
                return encoded.Length;
            }
        }

        extension(System.Security.Cryptography.HMACSHA256)
        {
            public static int HashSizeInBytes => 32;

            /// <summary>
            /// HMAC-SHA256 of <paramref name="source"/> into <paramref name="destination"/>. netstandard2.0's
            /// HMAC takes arrays: the input is copied into an array pinned for the call (so the garbage
            /// collector leaves no copy of it) and wiped before it is released.
            /// </summary>
            public static int HashData(byte[] key, ReadOnlySpan<byte> source, Span<byte> destination)
            {
                byte[] input = new byte[source.Length];
                GCHandle pin = GCHandle.Alloc(input, GCHandleType.Pinned);
                try
                {
                    source.CopyTo(input);
                    using var hmac = new System.Security.Cryptography.HMACSHA256(key);
                    byte[] mac = hmac.ComputeHash(input);
                    mac.CopyTo(destination);
                    System.Security.Cryptography.CryptographicOperations.ZeroMemory(mac);
                    return 32;
                }
                finally
                {
                    System.Security.Cryptography.CryptographicOperations.ZeroMemory(input);
                    pin.Free();
                }
            }
        }

        extension(Convert)
        {
            /// <summary>Upper-case hex, as .NET's (for messages: a reused nonce is not secret).</summary>
            public static string ToHexString(ReadOnlySpan<byte> bytes)
            {
                const string Digits = "0123456789ABCDEF";
                char[] chars = new char[bytes.Length * 2];
                for (int i = 0; i < bytes.Length; i++)
                {
                    chars[2 * i] = Digits[bytes[i] >> 4];
                    chars[(2 * i) + 1] = Digits[bytes[i] & 0xF];
                }

                return new string(chars);
            }
        }

        extension(Enum)
        {
            public static bool IsDefined<TEnum>(TEnum value)
                where TEnum : struct, Enum => Enum.IsDefined(typeof(TEnum), value);
        }

        extension(Array)
        {
            public static void Clear(Array array) => Array.Clear(array, 0, array.Length);
        }

        extension(GC)
        {
            /// <summary>
            /// An ordinary array: netstandard2.0 has no pinned object heap, so <paramref name="pinned"/> is
            /// not honoured and the garbage collector may leave a copy behind when it compacts (the record
            /// layer's buffers; AesGcmSiv's key schedule is pinned by PinnedArray instead).
            /// </summary>
            public static T[] AllocateArray<T>(int length, bool pinned = false) => new T[length];

            /// <summary>A zeroed ordinary array: as <see cref="AllocateArray"/>, not pinned.</summary>
            public static T[] AllocateUninitializedArray<T>(int length, bool pinned = false) => new T[length];
        }

        extension(OperatingSystem)
        {
            /// <summary>False: the browser's .NET takes the package's net10.0 build, never this one.</summary>
            public static bool IsBrowser() => false;
        }

        extension(MemoryMarshal)
        {
            public static ref T GetArrayDataReference<T>(T[] array) => ref MemoryMarshal.GetReference(array.AsSpan());

            /// <summary>A span over memory that cannot move (the stack, or a pinned array): made from its address.</summary>
            public static unsafe Span<T> CreateSpan<T>(ref T reference, int length) => new(Unsafe.AsPointer(ref reference), length);
        }
    }
}

namespace System.Numerics
{
    /// <summary>The rotations of .NET's BitOperations (branch-free shifts).</summary>
    internal static class BitOperations
    {
        public static uint RotateLeft(uint value, int offset) => (value << offset) | (value >> (32 - offset));

        public static ulong RotateLeft(ulong value, int offset) => (value << offset) | (value >> (64 - offset));

        public static uint RotateRight(uint value, int offset) => (value >> offset) | (value << (32 - offset));

        public static ulong RotateRight(ulong value, int offset) => (value >> offset) | (value << (64 - offset));

        /// <summary>The smallest power of 2 not below <paramref name="value"/> (0 for 0 and above 2^31, as .NET's).</summary>
        /// <summary>The number of leading zero bits (32 for 0), as .NET's; for lengths, which are public.</summary>
        public static int LeadingZeroCount(uint value)
        {
            int count = 0;
            for (uint bit = 0x80000000; bit != 0 && (value & bit) == 0; bit >>= 1)
            {
                count++;
            }

            return count;
        }

        /// <summary>The floor of the base-2 logarithm (0 for 0), as .NET's; for lengths, which are public.</summary>
        public static int Log2(uint value) => 31 - LeadingZeroCount(value | 1);

        public static bool IsPow2(int value) => (value & (value - 1)) == 0 && value > 0;

        public static uint RoundUpToPowerOf2(uint value)
        {
            value--;
            value |= value >> 1;
            value |= value >> 2;
            value |= value >> 4;
            value |= value >> 8;
            value |= value >> 16;
            return value + 1;
        }
    }
}

namespace System.Security.Cryptography
{
    /// <summary>
    /// .NET's CryptographicOperations for netstandard2.0 (Microsoft.Bcl.Cryptography has it only as
    /// an internal type there). The same promises: ZeroMemory is not removed by an optimiser, since
    /// the method is never inlined or optimised (so no JIT can see that the zeroed bytes are not
    /// read again), and FixedTimeEquals takes the same time for any contents of equal-length inputs.
    /// </summary>
    internal static class CryptographicOperations
    {
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
        public static void ZeroMemory(Span<byte> buffer) => Clear(ref MemoryMarshal.GetReference(buffer), buffer.Length);

        /// <summary>
        /// Bytes from which a copy starts the <see cref="Clear"/> of a long run: at least this many are
        /// copied from <see cref="Zeros"/>, and shorter runs take the store loop. Under Mono 6.8 (AMD EPYC,
        /// Zen 4) a copy of 512 bytes took about 15 ns and the loop about 21; at 256 the loop won.
        /// </summary>
        private const int CopyFrom = 512;

        /// <summary>
        /// Zeros that <see cref="Clear"/> copies over long runs, a chunk at a time. Never written: private,
        /// and only ever the source of a copy.
        /// </summary>
        private static readonly byte[] Zeros = new byte[4096];

        /// <summary>
        /// Zeroes <paramref name="length"/> bytes at <paramref name="start"/>. A run of
        /// <see cref="CopyFrom"/> bytes or more is a copy from <see cref="Zeros"/> (cpblk, which Mono 6.8
        /// and .NET Framework hand to the C library's memcpy, wide stores); a shorter one takes 8-byte
        /// stores, four to an iteration. Under Mono 6.8 (AMD EPYC, Zen 4) the 12 KiB stack burn
        /// (CallStack) took 0.46 µs with the stores alone and 0.12 µs as copies. Span.Clear and
        /// Unsafe.InitBlock take Mono's managed memset, 0.64 µs. Not inlined, and called from ZeroMemory,
        /// which is neither inlined nor optimised: no JIT sees that the bytes are not read again.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Clear(ref byte start, int length)
        {
            if (length >= CopyFrom)
            {
                // Counted down, not up to length: an offset stepping past int.MaxValue cannot wrap here.
                ref byte zeros = ref Zeros[0];
                ref byte at = ref start;
                for (int remaining = length; remaining > 0;)
                {
                    int chunk = Math.Min(Zeros.Length, remaining);
                    Unsafe.CopyBlockUnaligned(ref at, ref zeros, (uint)chunk);
                    at = ref Unsafe.Add(ref at, chunk);
                    remaining -= chunk;
                }

                return;
            }

            int i = 0;
            for (; i + 32 <= length; i += 32)
            {
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, i), 0UL);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, i + 8), 0UL);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, i + 16), 0UL);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, i + 24), 0UL);
            }

            for (; i < length; i++)
            {
                Unsafe.Add(ref start, i) = 0;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
        public static bool FixedTimeEquals(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right)
        {
            // Lengths are public; contents are compared without a data-dependent branch.
            if (left.Length != right.Length)
            {
                return false;
            }

            int accumulator = 0;
            for (int i = 0; i < left.Length; i++)
            {
                accumulator |= left[i] - right[i];
            }

            return accumulator == 0;
        }
    }

    /// <summary>
    /// netstandard2.0 has no AuthenticationTagMismatchException (Microsoft.Bcl.Cryptography 11.0.0
    /// adds it for net462, not for netstandard2.0). This build throws an internal type of that name,
    /// derived from CryptographicException like .NET's: callers catch CryptographicException, which
    /// catches a tag mismatch on every target (docs/platforms.md).
    /// </summary>
    internal sealed class AuthenticationTagMismatchException : CryptographicException
    {
        public AuthenticationTagMismatchException()
            : base("The computed authentication tag did not match the input authentication tag.")
        {
        }

        public AuthenticationTagMismatchException(string message)
            : base(message)
        {
        }
    }
}

namespace System.Threading
{
    /// <summary>
    /// .NET 9's Lock for netstandard2.0: a monitor. The compiler turns <c>lock (x)</c> on a value of this
    /// type into <see cref="EnterScope"/> and the scope's Dispose, as it does for the real one.
    /// </summary>
    internal sealed class Lock
    {
        private readonly object _monitor = new();

        public Scope EnterScope()
        {
            Monitor.Enter(_monitor);
            return new Scope(_monitor);
        }

        public ref struct Scope
        {
            private readonly object _monitor;

            internal Scope(object monitor) => _monitor = monitor;

            public void Dispose() => Monitor.Exit(_monitor);
        }
    }
}
