// netstandard2.0: Platform/Net/CacheHint.cs's hint as a no-op (this build has no intrinsics).

using System.Runtime.CompilerServices;

namespace Cryptography.Internal;

/// <summary>Cache hints; they change timing only, never a result. None on this build.</summary>
internal static class CacheHint
{
    /// <summary>Does nothing here; see Platform/Net/CacheHint.cs.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Prefetch<T>(ref T location)
    {
    }
}
