// netstandard2.0 has no System.Runtime.Intrinsics. The shared algorithm files (GcmSiv.cs, the portable
// backends) pass a 16-byte block as Vector128<T> and use a few of its portable operations; this is
// those operations in plain C#, with the same names and the same bytes (lanes in memory order,
// little-endian), so those files compile unchanged. Branch-free: every operation is bitwise or a
// lane add; the typeof(T) tests are constants the JIT folds per instantiation, not data.
// Only what the shared files use is here; a hardware backend never compiles for this target.

using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace System.Runtime.Intrinsics;

/// <summary>16 bytes as lanes of <typeparamref name="T"/> (software stand-in for the .NET type).</summary>
[StructLayout(LayoutKind.Sequential, Size = 16)]
internal readonly struct Vector128<T>
    where T : struct
{
    internal readonly ulong Lower;
    internal readonly ulong Upper;

    internal Vector128(ulong lower, ulong upper)
    {
        Lower = lower;
        Upper = upper;
    }

    public static int Count => 16 / Unsafe.SizeOf<T>();

    public static Vector128<T> operator ^(Vector128<T> left, Vector128<T> right) => new(left.Lower ^ right.Lower, left.Upper ^ right.Upper);

    public static Vector128<T> operator &(Vector128<T> left, Vector128<T> right) => new(left.Lower & right.Lower, left.Upper & right.Upper);

    public static Vector128<T> operator |(Vector128<T> left, Vector128<T> right) => new(left.Lower | right.Lower, left.Upper | right.Upper);

    /// <summary>Lane-wise addition, wrapping (uint and ulong lanes: what the shared files add).</summary>
    public static Vector128<T> operator +(Vector128<T> left, Vector128<T> right)
    {
        if (typeof(T) == typeof(ulong))
        {
            return new(left.Lower + right.Lower, left.Upper + right.Upper);
        }

        if (typeof(T) == typeof(uint))
        {
            return new(AddUInt32Lanes(left.Lower, right.Lower), AddUInt32Lanes(left.Upper, right.Upper));
        }

        throw new NotSupportedException();
    }

    private static ulong AddUInt32Lanes(ulong a, ulong b) =>
        (uint)((uint)a + (uint)b) | ((ulong)(uint)((uint)(a >> 32) + (uint)(b >> 32)) << 32);
}

/// <summary>The static and extension members of .NET's Vector128 that the shared files use.</summary>
internal static class Vector128
{
    public static Vector128<ulong> Create(ulong e0, ulong e1) => new(e0, e1);

    public static Vector128<uint> Create(uint e0, uint e1, uint e2, uint e3) => new(e0 | ((ulong)e1 << 32), e2 | ((ulong)e3 << 32));

    /// <summary>The first 16 bytes of <paramref name="values"/> (throws if there are fewer).</summary>
    public static Vector128<T> Create<T>(ReadOnlySpan<T> values)
        where T : struct
    {
        ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes(values);
        if (bytes.Length < 16)
        {
            throw new ArgumentOutOfRangeException(nameof(values));
        }

        return Unsafe.ReadUnaligned<Vector128<T>>(ref MemoryMarshal.GetReference(bytes));
    }

    public static Vector128<byte> AsByte<T>(this Vector128<T> vector)
        where T : struct => new(vector.Lower, vector.Upper);

    public static Vector128<uint> AsUInt32<T>(this Vector128<T> vector)
        where T : struct => new(vector.Lower, vector.Upper);

    public static Vector128<ulong> AsUInt64<T>(this Vector128<T> vector)
        where T : struct => new(vector.Lower, vector.Upper);

    public static void CopyTo<T>(this Vector128<T> vector, Span<T> destination)
        where T : struct
    {
        Span<byte> bytes = MemoryMarshal.AsBytes(destination);
        if (bytes.Length < 16)
        {
            throw new ArgumentException("Destination is too short.", nameof(destination));
        }

        Unsafe.WriteUnaligned(ref MemoryMarshal.GetReference(bytes), vector);
    }

    public static void StoreUnsafe<T>(this Vector128<T> source, ref T destination, nuint elementOffset)
        where T : struct =>
        Unsafe.WriteUnaligned(ref Unsafe.As<T, byte>(ref Unsafe.Add(ref destination, (IntPtr)(long)elementOffset)), source);

    public static Vector128<T> WithElement<T>(this Vector128<T> vector, int index, T value)
        where T : struct
    {
        if ((uint)index >= (uint)Vector128<T>.Count)
        {
            throw new ArgumentOutOfRangeException(nameof(index));
        }

        Vector128<T> result = vector;
        Unsafe.Add(ref Unsafe.As<Vector128<T>, T>(ref result), index) = value;
        return result;
    }

    /// <summary>Bits of <paramref name="left"/> where <paramref name="condition"/> is 1, of <paramref name="right"/> elsewhere.</summary>
    public static Vector128<T> ConditionalSelect<T>(Vector128<T> condition, Vector128<T> left, Vector128<T> right)
        where T : struct =>
        new((condition.Lower & left.Lower) | (~condition.Lower & right.Lower), (condition.Upper & left.Upper) | (~condition.Upper & right.Upper));

    /// <summary>Lane i of the result is lane indices[i] of <paramref name="vector"/> (0 or 1), or 0 for any other index.</summary>
    public static Vector128<ulong> Shuffle(Vector128<ulong> vector, Vector128<ulong> indices) =>
        new(Pick(vector, indices.Lower), Pick(vector, indices.Upper));

    // Index vectors are constants in the shared files, never secret data.
    private static ulong Pick(Vector128<ulong> vector, ulong index)
    {
        ulong isLower = (ulong)-(long)(index == 0 ? 1 : 0);
        ulong isUpper = (ulong)-(long)(index == 1 ? 1 : 0);
        return (vector.Lower & isLower) | (vector.Upper & isUpper);
    }
}
