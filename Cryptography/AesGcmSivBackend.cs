namespace Cryptography;

/// <summary>
/// The implementation of AES-GCM-SIV that <see cref="AesGcmSiv"/> runs in this process.
/// </summary>
/// <remarks>
/// The choice is made once per process, widest instruction set first; see
/// <see cref="AesGcmSiv.ActiveBackend"/>. Every backend gives the same bytes; they differ only in speed.
/// </remarks>
public enum AesGcmSivBackend
{
    /// <summary>
    /// Scalar C#, constant-time: a fixsliced AES (bitsliced: four blocks in eight 64-bit words; no
    /// ShiftRows in the rounds, the round keys stored to match) and a carry-less multiply built from masked integer
    /// multiplies. Runs everywhere, including with <c>DOTNET_EnableHWIntrinsic=0</c>. Chosen where no
    /// faster backend is supported: .NET without usable SIMD or AES instructions, the browser
    /// (docs/blazor.md), and the netstandard2.0 build (.NET Framework, Mono, Unity; docs/platforms.md).
    /// </summary>
    Portable = 0,

    /// <summary>x64 AES-NI for AES and PCLMULQDQ on 128-bit vectors for POLYVAL.</summary>
    AesNiPclmulqdq = 1,

    /// <summary>x64 AES-NI for AES and VPCLMULQDQ on 256-bit vectors (two blocks per multiply) for POLYVAL.</summary>
    AesNiVpclmulqdq = 2,

    /// <summary>ARM64 AES instructions (AESE/AESMC) and PMULL for POLYVAL.</summary>
    Arm64 = 3,

    /// <summary>
    /// Constant-time software on 128-bit SIMD, for a JIT with vector instructions but no AES
    /// instructions (x64 without AES-NI, or with <c>DOTNET_EnableAES=0</c>; ARM64 without the
    /// Cryptography Extension): AES bitsliced across vector lanes, eight blocks at a time, and a
    /// POLYVAL without a carry-less multiply instruction. Chosen there instead of <see cref="Portable"/>;
    /// same bytes. See docs/backends.md for how much faster.
    /// </summary>
    BitslicedVector = 5,
}
