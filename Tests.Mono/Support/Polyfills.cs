// What the shared test sources call that .NET Framework 4.7.2 lacks, under the same names (C# 14
// static extension members), so the sources compile unchanged for the Mono leg.

using System;
using System.Linq;
using System.Security.Cryptography;

namespace Tests
{
    internal static class FrameworkExtensions
    {
        extension(Convert)
        {
            public static string ToHexStringLower(byte[] bytes) => string.Concat(bytes.Select(b => b.ToString("x2")));

            public static string ToHexStringLower(ReadOnlySpan<byte> bytes) => ToHexStringLower(bytes.ToArray());

            public static string ToHexString(byte[] bytes) => string.Concat(bytes.Select(b => b.ToString("X2")));

            public static byte[] FromHexString(string hex)
            {
                if (hex.Length % 2 != 0)
                {
                    throw new FormatException("odd number of hex digits");
                }

                byte[] bytes = new byte[hex.Length / 2];
                for (int i = 0; i < bytes.Length; i++)
                {
                    bytes[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
                }

                return bytes;
            }
        }

        extension(RandomNumberGenerator)
        {
            public static byte[] GetBytes(int count)
            {
                byte[] bytes = new byte[count];
                using (var generator = RandomNumberGenerator.Create())
                {
                    generator.GetBytes(bytes);
                }

                return bytes;
            }
        }

        extension(BitConverter)
        {
            public static bool TryWriteBytes(Span<byte> destination, int value)
            {
                if (destination.Length < sizeof(int))
                {
                    return false;
                }

                System.Runtime.InteropServices.MemoryMarshal.Write(destination, ref value);
                return true;
            }
        }

        extension(Array)
        {
            public static void Clear(Array array) => Array.Clear(array, 0, array.Length);
        }

        extension(Enum)
        {
            public static TEnum[] GetValues<TEnum>()
                where TEnum : struct, Enum => (TEnum[])Enum.GetValues(typeof(TEnum));
        }
    }
}

namespace System.Runtime.CompilerServices
{
    /// <summary>What the compiler calls for array[range] (in .NET's RuntimeHelpers since .NET Core 3.0).</summary>
    internal static class RuntimeHelpers
    {
        public static T[] GetSubArray<T>(T[] array, Range range)
        {
            (int offset, int length) = range.GetOffsetAndLength(array.Length);
            T[] result = new T[length];
            Array.Copy(array, offset, result, 0, length);
            return result;
        }
    }
}
