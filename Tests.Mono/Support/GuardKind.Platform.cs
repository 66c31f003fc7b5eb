// Tests/NonceSafety/GuardKind.Platform.cs for .NET Framework: the netstandard2.0 library has no
// AesGcm or ChaCha20Poly1305 guards, so GuardedAesGcmSiv is the only kind.

using System.Collections.Generic;
using System.Linq;

namespace Tests.NonceSafety;

public sealed partial class GuardKind
{
    private static partial IEnumerable<GuardKind> PlatformKinds() => Enumerable.Empty<GuardKind>();
}
