// netstandard2.0: nothing to burn. The browser's .NET takes the package's net10.0 build, so this build
// never runs on the WebAssembly interpreter whose frames Platform/Net/InterpreterStack.cs clears;
// on Mono's and .NET Framework's JITs frames are on the machine stack, where the software backends
// burn their own (SECURITY.md).

using System.Runtime.CompilerServices;

namespace Cryptography.Internal;

internal static class InterpreterStack
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void BurnInBrowser()
    {
    }
}
