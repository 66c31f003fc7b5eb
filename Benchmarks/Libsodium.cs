// The few libsodium functions the libsodium AES-256-GCM peer calls. The native library is the one
// the `libsodium` NuGet package (1.0.22, a dependency of Sodium.Core) ships under runtimes/; it is
// called directly rather than through Sodium.Core's SecretAeadAes, which allocates its output on every
// call, so that the peer pays for the native call and nothing else: the key is expanded once into a
// precomputed crypto_aead_aes256gcm_state (beforenm) and every call uses the *_detached_afternm
// functions on it. No system copy is looked for: Debian's libsodium23 is the older 1.0.18.
//
// When the library does not load, or this CPU lacks what libsodium's AES-GCM needs (AES-NI and
// PCLMULQDQ), the libsodium rows are left out of the run and Unavailable says why.

using System;
using System.Runtime.InteropServices;

namespace Benchmarks;

internal static unsafe partial class Libsodium
{
    private const string Library = "libsodium";

    /// <summary>The library's version string, e.g. "1.0.22"; empty when it is unavailable.</summary>
    public static string Version { get; private set; } = string.Empty;

    /// <summary>Size of crypto_aead_aes256gcm_state (512 bytes in every release so far).</summary>
    public static int StateBytes { get; private set; }

    // Declared after the properties Probe sets, so that their initializers run first.
    /// <summary>null when the peer can run; otherwise why it cannot.</summary>
    public static readonly string? Unavailable = Probe();

    private static string? Probe()
    {
        try
        {
            if (sodium_init() < 0)
            {
                return "sodium_init failed";
            }

            Version = Marshal.PtrToStringUTF8((IntPtr)sodium_version_string()) ?? string.Empty;
            if (crypto_aead_aes256gcm_is_available() == 0)
            {
                return $"libsodium {Version} has no AES-256-GCM on this CPU (it needs AES-NI and PCLMULQDQ)";
            }

            StateBytes = checked((int)crypto_aead_aes256gcm_statebytes());
            return null;
        }
        catch (DllNotFoundException e)
        {
            return "libsodium not found: " + e.Message;
        }
        catch (EntryPointNotFoundException e)
        {
            return "libsodium lacks a function: " + e.Message;
        }
    }

    [LibraryImport(Library)]
    private static partial int sodium_init();

    [LibraryImport(Library)]
    private static partial byte* sodium_version_string();

    [LibraryImport(Library)]
    private static partial int crypto_aead_aes256gcm_is_available();

    [LibraryImport(Library)]
    private static partial nuint crypto_aead_aes256gcm_statebytes();

    [LibraryImport(Library)]
    internal static partial int crypto_aead_aes256gcm_beforenm(void* state, byte* key);

    [LibraryImport(Library)]
    internal static partial int crypto_aead_aes256gcm_encrypt_detached_afternm(
        byte* ciphertext, byte* mac, ulong* macLength, byte* message, ulong messageLength,
        byte* associatedData, ulong associatedDataLength, byte* secretNonce, byte* publicNonce, void* state);

    [LibraryImport(Library)]
    internal static partial int crypto_aead_aes256gcm_decrypt_detached_afternm(
        byte* message, byte* secretNonce, byte* ciphertext, ulong ciphertextLength, byte* mac,
        byte* associatedData, ulong associatedDataLength, byte* publicNonce, void* state);
}
