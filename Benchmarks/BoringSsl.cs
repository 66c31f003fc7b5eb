// The BoringSSL functions the BoringSSL AES-GCM-SIV peer calls, for the benchmarks only. The library
// is Debian's android-libboringssl (libcrypto.so.0 under /usr/lib/<triplet>/android/), which
// scripts/benchmark-peers.sh installs; on x64 with AES-NI its AES-GCM-SIV is the assembly in
// crypto/cipher_extra/asm/aes128gcmsiv-x86_64.pl, the reference for speed.
//
// It is loaded by full path rather than by name: its libcrypto.so.0 must not be confused with the
// OpenSSL that System.Security.Cryptography loads. When it is missing the BoringSSL rows are left out
// and Unavailable says why.

using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Benchmarks;

internal static unsafe partial class BoringSsl
{
    private const string Library = "boringssl-libcrypto";

    private static readonly string[] Candidates =
    [
        "/usr/lib/x86_64-linux-gnu/android/libcrypto.so.0",
        "/usr/lib/aarch64-linux-gnu/android/libcrypto.so.0",
    ];

    /// <summary>The file loaded; empty when unavailable.</summary>
    public static string Path { get; private set; } = string.Empty;

    /// <summary>null when the peer can run; otherwise why it cannot.</summary>
    public static readonly string? Unavailable = Probe();

    private static string? Probe()
    {
        string? path = Array.Find(Candidates, File.Exists);
        if (path is null)
        {
            return "BoringSSL not installed (scripts/benchmark-peers.sh installs Debian's android-libboringssl)";
        }

        if (!NativeLibrary.TryLoad(path, out IntPtr handle))
        {
            return $"{path} did not load";
        }

        NativeLibrary.SetDllImportResolver(typeof(BoringSsl).Assembly, (name, _, _) => name == Library ? handle : IntPtr.Zero);
        try
        {
            _ = EVP_aead_aes_128_gcm_siv();
            Path = path;
            return null;
        }
        catch (EntryPointNotFoundException e)
        {
            return $"{path} lacks a function: {e.Message}";
        }
    }

    [LibraryImport(Library)]
    internal static partial void* EVP_aead_aes_128_gcm_siv();

    [LibraryImport(Library)]
    internal static partial void* EVP_aead_aes_256_gcm_siv();

    [LibraryImport(Library)]
    internal static partial void* EVP_AEAD_CTX_new(void* aead, byte* key, nuint keyLength, nuint tagLength);

    [LibraryImport(Library)]
    internal static partial void EVP_AEAD_CTX_free(void* context);

    [LibraryImport(Library)]
    internal static partial int EVP_AEAD_CTX_seal_scatter(
        void* context, byte* output, byte* outputTag, nuint* outputTagLength, nuint maxOutputTagLength,
        byte* nonce, nuint nonceLength, byte* input, nuint inputLength, byte* extraInput, nuint extraInputLength,
        byte* associatedData, nuint associatedDataLength);

    [LibraryImport(Library)]
    internal static partial int EVP_AEAD_CTX_open(
        void* context, byte* output, nuint* outputLength, nuint maxOutputLength, byte* nonce, nuint nonceLength,
        byte* input, nuint inputLength, byte* associatedData, nuint associatedDataLength);
}
