// What ConstantTime/Program.cs and SecretFlow.cs call that .NET Framework 4.7.2 lacks, under the same
// names (C# 14 static extension members), so both compile unchanged for the Mono legs
// (ConstantTime.Mono.csproj), and SecretFlow's (empty) list of hardware compositions. The only
// per-target file of this build.

// The library's netstandard2.0 build has an internal class of constants named MethodImplOptions (its
// target's enum lacks AggressiveOptimization), visible here through InternalsVisibleTo; as in
// Tests.Mono/Support/Usings.cs, this alias picks it so the attributes compile unchanged.
global using MethodImplOptions = Cryptography.MethodImplOptions;

using System;
using System.Collections.Generic;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace ConstantTime
{
    internal static class FrameworkExtensions
    {
        [ThreadStatic]
        private static Random? shared;

        // One generator for the process: the inputs are drawn outside the timed calls, a batch at a time.
        private static readonly RandomNumberGenerator Generator = RandomNumberGenerator.Create();

        // SecretFlow's inputs (not secret in themselves: valgrind is told they are).
        extension(Random)
        {
            public static Random Shared => shared ??= new Random();
        }

        extension(RandomNumberGenerator)
        {
            public static void Fill(Span<byte> data)
            {
                byte[] bytes = new byte[data.Length];
                Generator.GetBytes(bytes);
                bytes.CopyTo(data);
            }

            // Uniform in [0, toExclusive) by rejection, as .NET's GetInt32 (the tool asks for 0 or 1).
            public static int GetInt32(int toExclusive)
            {
                byte[] bytes = new byte[4];
                uint mask = 1;
                while (mask < (uint)toExclusive - 1)
                {
                    mask = (mask << 1) | 1;
                }

                while (true)
                {
                    Generator.GetBytes(bytes);
                    uint value = BitConverter.ToUInt32(bytes, 0) & mask;
                    if (value < (uint)toExclusive)
                    {
                        return (int)value;
                    }
                }
            }
        }
    }

    // SecretFlow.cs's compositions beyond the timing tool's backends are hardware ones
    // (ConstantTime/SecretFlow.Hardware.cs): this build's library has none.
    internal static partial class SecretFlow
    {
        private static IEnumerable<(string Name, Backend Backend)> HardwareCompositions() => [];
    }
}
