// The two primitives AES-GCM-SIV (RFC 8452) is built from, as contracts each instruction set
// implements (Aes.Vector.cs over Aes.<Isa>.cs, Polyval.Clmul.cs over Polyval.<Isa>.cs, and the portable
// files). GcmSiv<TAes, TPolyval> composes them. The implementations are empty structs called as
// default(TAes).Member(...): the JIT specialises generic code for each struct type argument and
// inlines the whole composition per backend, so the choice of backend costs one virtual call per
// message (Backends.cs) and nothing in the loops. Instance members, not static abstract ones, so that
// the same source compiles for netstandard2.0 (which refuses static abstract members, CS8919) and
// runs on Mono and .NET Framework.

using System;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cryptography.Internal;

// AesKeySchedule and PolyvalKey, the storage these contracts pass by reference, are in
// Platform/Net/Storage.cs and Platform/NetStandard/Storage.cs (inline arrays need the .NET 8+ runtime).

/// <summary>AES encryption (FIPS-197) with a 128- or 256-bit key.</summary>
internal interface IAes
{
    /// <summary>Whether this process can run the backend.</summary>
    bool IsSupported { get; }

    /// <summary>Expands a 16- or 32-byte key into <paramref name="schedule"/>.</summary>
    void ExpandKey(ReadOnlySpan<byte> key, ref AesKeySchedule schedule);

    /// <summary>How many bytes at the start of AesKeySchedule a key with <paramref name="rounds"/> rounds uses: what a wipe must cover.</summary>
    int ScheduleBytes(int rounds);

    /// <summary>
    /// Encrypts <c>input.Length / 16</c> independent blocks (ECB), as key derivation (4 or 6
    /// blocks) and the tag (1 block) need. <paramref name="input"/> and <paramref name="output"/>
    /// have the same length, a multiple of 16; they may be the same memory.
    /// </summary>
    void EncryptBlocks(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> input, Span<byte> output);

    /// <summary>
    /// One block by value, as the tag needs it: the block comes from POLYVAL and the counter block
    /// from the result, so a hardware backend keeps both in registers instead of passing them
    /// through memory, where each 16-byte store and reload is a store-forwarding delay on the
    /// message's critical path.
    /// </summary>
    Vector128<byte> EncryptBlock(in AesKeySchedule schedule, int rounds, Vector128<byte> block);

    /// <summary>
    /// Whether <see cref="EncryptBlock"/> is inlined and keeps its block in a vector register (the
    /// backends with AES instructions). When false the caller gives the tag's block to
    /// <see cref="EncryptBlocks"/> in memory it wipes instead: a block passed by value to a method that
    /// is not inlined is copied into the caller's outgoing-argument area, outside any wiped region, and
    /// the tag's block (POLYVAL's result XOR the nonce) would stay there (issue 47).
    /// </summary>
    bool EncryptsBlockInRegisters { get; }

    /// <summary>
    /// RFC 8452 key derivation's AES for a backend that <see cref="EncryptsBlockInRegisters"/>: the
    /// blocks LE32(i) || nonce (i = 0..3, or 0..5 for 14 rounds) under
    /// <paramref name="keyGeneratingKey"/>, the first 8 bytes of each packed in order at
    /// <paramref name="derived"/> (32 or 48 bytes). GcmSiv gives the other backends' blocks to
    /// <see cref="EncryptBlocks"/> in memory and never calls this on them.
    /// </summary>
    void DeriveKeys(in AesKeySchedule keyGeneratingKey, int rounds, ref byte nonce, ref byte derived);

    /// <summary>
    /// RFC 8452 CTR mode: keystream block i is AES(counterBlock with its first four bytes read as a
    /// little-endian integer plus i, mod 2^32); <c>output = input XOR keystream</c>. Any length;
    /// <paramref name="input"/> and <paramref name="output"/> have the same length and are either
    /// the same memory or do not overlap.
    /// </summary>
    void Ctr32(in AesKeySchedule schedule, int rounds, ReadOnlySpan<byte> counterBlock, ReadOnlySpan<byte> input, Span<byte> output);
}

/// <summary>POLYVAL (RFC 8452 section 3).</summary>
internal interface IPolyval
{
    /// <summary>Whether this process can run the backend.</summary>
    bool IsSupported { get; }

    /// <summary>
    /// Prepares the 16-byte key <paramref name="h"/> for <see cref="Update(in PolyvalKey, Span{byte}, ReadOnlySpan{byte})"/>. <paramref name="blockCount"/>
    /// is the number of blocks the largest following Update call will process: wide backends
    /// precompute powers of H only when there are enough blocks to repay it.
    /// </summary>
    void Init(ReadOnlySpan<byte> h, int blockCount, ref PolyvalKey key);

    /// <summary>
    /// How many bytes at the start of PolyvalKey Init leaves untouched for <paramref name="blockCount"/>
    /// blocks: the wipe covers the rest.
    /// </summary>
    int UnusedKeyPrefixBytes(int blockCount);

    /// <summary>
    /// Continues POLYVAL over whole 16-byte blocks: for each block X,
    /// <c>accumulator = dot(accumulator XOR X, H)</c>. <paramref name="accumulator"/> is 16 bytes,
    /// little-endian as the RFC writes field elements; <paramref name="blocks"/>.Length is a multiple of 16.
    /// </summary>
    void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks);

    /// <summary>
    /// <see cref="Update(in PolyvalKey, Span{byte}, ReadOnlySpan{byte})"/> over <paramref name="blocks"/>
    /// and then <paramref name="last"/> (both whole blocks, either may be empty), as one sequence: a
    /// backend may take a short message's blocks and its length block together, with fewer dependent
    /// multiplications than two calls would allow.
    /// </summary>
    void Update(in PolyvalKey key, Span<byte> accumulator, ReadOnlySpan<byte> blocks, ReadOnlySpan<byte> last);
}
