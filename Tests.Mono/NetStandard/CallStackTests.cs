// The netstandard2.0 stack burn (Platform/NetStandard/CallStack.cs) relies on the stackalloc's own
// zeroing: BurnAfterCall keeps the IL's localsinit flag, with which ECMA-335 (Partition III, localloc)
// makes the runtime zero the 16 KiB block. Mono 6.8 zero-fills it whatever the flag says, so the Mono
// leg's stack-residue tests would not notice a [SkipLocalsInit] (on the method or the whole module)
// that takes the flag away; on .NET Framework's JIT the block would then keep what the message's
// frames left there. This reads the flag itself. Only in the Mono leg (Tests/ sees net10.0's CallStack).

using System.Reflection;
using Cryptography;
using NUnit.Framework;

namespace Tests.NetStandard;

[TestFixture]
public class CallStackTests
{
    [Test]
    public void TheBurnKeepsTheLocalsInitFlagThatZeroesItsStackalloc()
    {
        System.Type callStack = typeof(AesGcmSiv).Assembly.GetType("Cryptography.Internal.CallStack", throwOnError: true)!;
        MethodInfo burn = callStack.GetMethod("BurnAfterCall", BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static)!;
        Assert.That(burn, Is.Not.Null, "CallStack.BurnAfterCall");
        MethodBody body = burn.GetMethodBody()!;
        Assert.That(body, Is.Not.Null, "BurnAfterCall's IL body");
        Assert.That(body.InitLocals, Is.True, "BurnAfterCall's localsinit flag: without it its stackalloc is not zeroed on .NET Framework");
    }
}
