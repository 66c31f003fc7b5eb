// Small byte buffers for the per-call paths, as struct locals instead of stackalloc (issue 49,
// eighth pass). A fixed-size stackalloc makes the JIT protect the frame: a GS cookie after the
// buffer, and a copy of each of the method's struct parameters below it, made on entry. For a
// method that takes spans, those copies are 16-byte loads of arguments its caller had just stored
// as 8- and 4-byte halves; a load that spans two stores cannot be forwarded from the store buffer,
// so each waits for the stores to retire, at the head of every call (about 10 ns of a 64-byte
// encryption on Zen 4: docs/nonce-safety.md, Cost). A struct local is not such a buffer.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cryptography.Internal;

/// <summary>Twelve bytes (a nonce) on the stack: <c>var b = default(StackBytes12); Span&lt;byte&gt; s = StackBytes12.Span(ref b);</c></summary>
[StructLayout(LayoutKind.Sequential, Size = 12)]
internal struct StackBytes12
{
    /// <summary>The twelve bytes of <paramref name="buffer"/>, as long as it is in scope.</summary>
    public static Span<byte> Span(ref StackBytes12 buffer) => MemoryMarshal.CreateSpan(ref Unsafe.As<StackBytes12, byte>(ref buffer), 12);
}

/// <summary>Sixteen bytes (a tag) on the stack, as <see cref="StackBytes12"/>.</summary>
[StructLayout(LayoutKind.Sequential, Size = 16)]
internal struct StackBytes16
{
    /// <summary>The sixteen bytes of <paramref name="buffer"/>, as long as it is in scope.</summary>
    public static Span<byte> Span(ref StackBytes16 buffer) => MemoryMarshal.CreateSpan(ref Unsafe.As<StackBytes16, byte>(ref buffer), 16);
}
