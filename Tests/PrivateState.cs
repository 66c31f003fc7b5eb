// Private state the tests outside the record layer look at (what Dispose wipes, which instance a guard
// wraps), read through [UnsafeAccessor]: a renamed or retyped field fails with MissingFieldException
// instead of a reflection lookup by name returning null.

using System.Runtime.CompilerServices;
using Cryptography;

namespace Tests;

internal static class PrivateState
{
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_keyGeneratingKeySchedule")]
    public static extern ref ulong[] KeyGeneratingKeySchedule(AesGcmSiv aead);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_aead")]
    public static extern ref AesGcmSiv Aead(GuardedAesGcmSiv guard);
}
