// Tests/PrivateState.cs for .NET Framework: [UnsafeAccessor] needs .NET 8, so the same accessor reads
// the field by reflection, failing (MissingFieldException) when the field is renamed, as the original does.

using System;
using System.Reflection;
using Cryptography;

namespace Tests;

internal static class PrivateState
{
    public static ref ulong[] KeyGeneratingKeySchedule(AesGcmSiv aead)
    {
        FieldInfo field = typeof(AesGcmSiv).GetField("_keyGeneratingKeySchedule", BindingFlags.Instance | BindingFlags.NonPublic)
            ?? throw new MissingFieldException(nameof(AesGcmSiv), "_keyGeneratingKeySchedule");
        // The array itself is what the tests read: a one-element holder gives the ref the original returns.
        ulong[][] holder = [(ulong[])field.GetValue(aead)!];
        return ref holder[0];
    }
}
