// The compositions SecretFlow checks beyond the timing tool's backends, built here directly because the
// library does not choose them on this machine under valgrind: BitslicedVector's 128-bit path, which the
// library takes on a CPU without AVX2 (a Native AOT program does not read DOTNET_EnableAVX2), and AES-NI
// with the two-pass decryption AesNiVpclmulqdq uses, whose 256-bit POLYVAL valgrind's CPU cannot run.
// net10.0 only: ConstantTime.Mono, whose library has no hardware backend, has an empty list instead
// (ConstantTime.Mono/Support/Framework.cs).

using System.Collections.Generic;
using Cryptography;
using Cryptography.Internal;

namespace ConstantTime;

internal static partial class SecretFlow
{
    private static IEnumerable<(string Name, Backend Backend)> HardwareCompositions()
    {
        if (Backends.IsSupported(AesGcmSivBackend.AesNiPclmulqdq))
        {
            yield return ("AesNiPclmulqdq (two passes)", new Backend<AesVector<AesNi>, PolyvalClmul<Pclmul>>(AesGcmSivBackend.AesNiPclmulqdq));
        }

        if (default(AesBitslicedVector<NoWideBitsliced>).IsSupported)
        {
            yield return ("BitslicedVector (128-bit)", new Backend<AesBitslicedVector<NoWideBitsliced>, PolyvalWidening<NativeWideningMultiply, NoWidePolyval>>(AesGcmSivBackend.BitslicedVector));
        }
    }
}
