// AEAD_AES_128_GCM_SIV and AEAD_AES_256_GCM_SIV (RFC 8452), shaped like
// System.Security.Cryptography.AesGcm and source-compatible with the archived AES-GCM-SIV 0.3.x
// package (same namespace, same type name, same calls).
//
// This file owns the public contract: argument validation, the key's lifetime and the choice of
// backend. The algorithm itself is Internal/GcmSiv.cs.

using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Cryptography.Internal;

namespace Cryptography;

/// <summary>
/// Authenticated encryption with associated data using AES-GCM-SIV (RFC 8452): AES-GCM's speed with
/// resistance to nonce misuse. Encrypting two messages under the same key and nonce reveals only
/// whether the two messages (and their associated data) were identical.
/// </summary>
/// <remarks>
/// <para>Keys are 16 bytes (AEAD_AES_128_GCM_SIV) or 32 bytes (AEAD_AES_256_GCM_SIV); nonces are 12
/// bytes; tags are 16 bytes. The ciphertext has the same length as the plaintext.</para>
/// <para>An instance is immutable after construction: any number of threads may call
/// <see cref="Encrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, Span{byte}, ReadOnlySpan{byte})"/>
/// and <see cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/>
/// on it at once. Calls do not allocate. <see cref="Dispose"/> wipes the key schedule (so does the
/// finalizer, if the instance is never disposed). It may race with calls: a call that starts after
/// <see cref="Dispose"/> throws <see cref="ObjectDisposedException"/>, and so does a call in flight
/// that <see cref="Dispose"/> overtakes, with its output buffers zeroed; a call that returns never
/// computed with a wiped key.</para>
/// </remarks>
/// <example>
/// Encrypt and decrypt with a caller-chosen nonce, or let <see cref="Seal(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> pick a random one:
/// <code>
/// byte[] key = RandomNumberGenerator.GetBytes(32);   // 16 bytes for AES-128-GCM-SIV
/// byte[] nonce = RandomNumberGenerator.GetBytes(12);
/// byte[] plaintext = "hello"u8.ToArray();
/// byte[] ciphertext = new byte[plaintext.Length];
/// byte[] tag = new byte[16];
///
/// using var aead = new AesGcmSiv(key);
/// aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData: null);
/// aead.Decrypt(nonce, ciphertext, tag, plaintext);   // AuthenticationTagMismatchException if tampered
///
/// byte[] sealedMessage = aead.Seal(plaintext);       // nonce || ciphertext || tag
/// byte[] opened = aead.Open(sealedMessage);
/// </code>
/// </example>
public sealed partial class AesGcmSiv : IDisposable
{
    private const int NonceSize = 12;
    private const int TagSize = 16;

    // The key-generating key's schedule lives in a pinned array so the garbage collector never
    // leaves a copy of it behind when it compacts the heap; Dispose wipes it.
    private readonly ulong[] _keyGeneratingKeySchedule;
    private readonly int _rounds;
    private readonly Backend _backend;

    // The disposed flag (Internal/KeyLifetime.cs): a call checks it before it starts and again after
    // its computation; if Dispose began in between, the call may have read wiped round keys, so its
    // outputs are zeroed and it throws ObjectDisposedException. The check after the computation also
    // keeps this instance reachable until then, so the finalizer cannot wipe mid-call.
    private KeyLifetime _lifetime;

    /// <summary>Creates an instance with the given key, using <see cref="ActiveBackend"/>.</summary>
    /// <param name="key">The key-generating key: 16 or 32 bytes.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException"><paramref name="key"/> is not 16 or 32 bytes long.</exception>
    public AesGcmSiv(byte[] key)
        : this(new ReadOnlySpan<byte>(key ?? throw new ArgumentNullException(nameof(key))))
    {
    }

    /// <summary>Creates an instance with the given key, using <see cref="ActiveBackend"/>.</summary>
    /// <param name="key">The key-generating key: 16 or 32 bytes.</param>
    /// <exception cref="CryptographicException"><paramref name="key"/> is not 16 or 32 bytes long.</exception>
    public AesGcmSiv(ReadOnlySpan<byte> key)
        : this(key, Backends.Active.Id)
    {
    }

    /// <summary>Creates an instance that runs a named backend; for tests and benchmarks.</summary>
    /// <exception cref="PlatformNotSupportedException">This machine cannot run <paramref name="backend"/>.</exception>
    internal AesGcmSiv(ReadOnlySpan<byte> key, AesGcmSivBackend backend)
    {
        if (key.Length != 16 && key.Length != 32)
        {
            throw new CryptographicException(Messages.InvalidKeySize);
        }

        _backend = Backends.Get(backend);
        _rounds = key.Length == 16 ? 10 : 14;
        _keyGeneratingKeySchedule = PinnedArray.Allocate<ulong>(AesKeySchedule.Length);
        _backend.ExpandKey(key, ref Schedule);
    }

    /// <summary>Creates an instance with the given key and tag size, using <see cref="ActiveBackend"/>:
    /// the shape of <see cref="AesGcm(byte[], int)"/>, so code written for <see cref="AesGcm"/> compiles with the type name changed.</summary>
    /// <param name="key">The key-generating key: 16 or 32 bytes.</param>
    /// <param name="tagSizeInBytes">The tag size every call uses: only 16 is supported.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException"><paramref name="key"/> is not 16 or 32 bytes long.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not 16 (the exception <see cref="AesGcm"/> throws for an unsupported tag size).</exception>
    public AesGcmSiv(byte[] key, int tagSizeInBytes)
        : this(CheckTagSize(new ReadOnlySpan<byte>(key ?? throw new ArgumentNullException(nameof(key))), tagSizeInBytes))
    {
    }

    /// <summary>Creates an instance with the given key and tag size, using <see cref="ActiveBackend"/>:
    /// the shape of <see cref="AesGcm(ReadOnlySpan{byte}, int)"/>, so code written for <see cref="AesGcm"/> compiles with the type name changed.</summary>
    /// <param name="key">The key-generating key: 16 or 32 bytes.</param>
    /// <param name="tagSizeInBytes">The tag size every call uses: only 16 is supported.</param>
    /// <exception cref="CryptographicException"><paramref name="key"/> is not 16 or 32 bytes long.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not 16 (the exception <see cref="AesGcm"/> throws for an unsupported tag size).</exception>
    public AesGcmSiv(ReadOnlySpan<byte> key, int tagSizeInBytes)
        : this(CheckTagSize(key, tagSizeInBytes))
    {
    }

    /// <summary>Gets the tag size, in bytes, every call uses: always 16 (the tag size <see cref="AesGcm.TagSizeInBytes"/> would report for <c>new AesGcm(key, 16)</c>).</summary>
    public int? TagSizeInBytes => TagSize;

    // AesGcm checks the key size before the tag size; so does this: a bad key is left for the
    // chained constructor to refuse with its CryptographicException, and nothing is allocated
    // before the tag size is known to be good.
    private static ReadOnlySpan<byte> CheckTagSize(ReadOnlySpan<byte> key, int tagSizeInBytes)
    {
        if ((key.Length == 16 || key.Length == 32) && tagSizeInBytes != TagSize)
        {
            throw new ArgumentException(Messages.UnsupportedTagSize, nameof(tagSizeInBytes));
        }

        return key;
    }

    /// <summary>Gets a value that indicates whether AES-GCM-SIV is supported: always <see langword="true"/>,
    /// since a portable backend runs everywhere.</summary>
    public static bool IsSupported => true;

    /// <summary>Gets the backend this process uses, chosen once at startup, widest instruction set first.</summary>
    public static AesGcmSivBackend ActiveBackend => Backends.Active.Id;

    /// <summary>Gets the key sizes, in bytes, that the algorithm supports: 16 and 32.</summary>
    public static KeySizes KeyByteSizes { get; } = new KeySizes(16, 32, 16);

    /// <summary>Gets the nonce sizes, in bytes, that the algorithm supports: 12.</summary>
    public static KeySizes NonceByteSizes { get; } = new KeySizes(NonceSize, NonceSize, 1);

    /// <summary>Gets the tag sizes, in bytes, that the algorithm supports: 16.</summary>
    public static KeySizes TagByteSizes { get; } = new KeySizes(TagSize, TagSize, 1);

    /// <summary>The backend this instance runs.</summary>
    internal AesGcmSivBackend Backend => _backend.Id;

    private ref AesKeySchedule Schedule =>
        ref Unsafe.As<ulong, AesKeySchedule>(ref MemoryMarshal.GetArrayDataReference(_keyGeneratingKeySchedule));

    /// <summary>Encrypts the plaintext into the ciphertext buffer and writes the authentication tag.</summary>
    /// <param name="nonce">The 12-byte nonce. Repeating it with the same key reveals only whether the messages were equal.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">The buffer that receives the ciphertext; as long as <paramref name="plaintext"/>.</param>
    /// <param name="tag">The 16-byte buffer that receives the authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted; may be <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="nonce"/>, <paramref name="plaintext"/>, <paramref name="ciphertext"/> or <paramref name="tag"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A buffer has the wrong size, or the buffers overlap other than exactly in place.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed, before this call or during it (the output buffers are then zeroed).</exception>
    public void Encrypt(byte[] nonce, byte[] plaintext, byte[] ciphertext, byte[] tag, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(plaintext);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        Encrypt((ReadOnlySpan<byte>)nonce, plaintext, ciphertext, tag, associatedData);
    }

    /// <summary>Encrypts the plaintext into the ciphertext buffer and writes the authentication tag.</summary>
    /// <param name="nonce">The 12-byte nonce. Repeating it with the same key reveals only whether the messages were equal.</param>
    /// <param name="plaintext">The content to encrypt.</param>
    /// <param name="ciphertext">The buffer that receives the ciphertext; as long as <paramref name="plaintext"/>.
    /// It may be the very same memory as <paramref name="plaintext"/> (in place) but must not overlap it otherwise.</param>
    /// <param name="tag">The 16-byte buffer that receives the authentication tag.</param>
    /// <param name="associatedData">Data authenticated but not encrypted.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size, or the buffers overlap other than exactly in place.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed, before this call or during it (the output buffers are then zeroed).</exception>
    public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData = default)
    {
        CheckParameters(nonce, plaintext, ciphertext, tag.Length, nameof(ciphertext));
        if (tag.Overlaps(ciphertext))
        {
            throw new ArgumentException(Messages.TagOverlapsCiphertext, nameof(tag));
        }

        ObjectDisposedException.ThrowIf(_lifetime.IsClosed, this);
        _backend.Encrypt(in Schedule, _rounds, nonce, plaintext, ciphertext, tag, associatedData);
        if (_lifetime.ClosedDuringCall())
        {
            DisposedDuringCall(ciphertext, tag);
        }
    }

    /// <summary>Verifies the tag and decrypts the ciphertext into the plaintext buffer.</summary>
    /// <param name="nonce">The 12-byte nonce the message was encrypted with.</param>
    /// <param name="ciphertext">The encrypted content.</param>
    /// <param name="tag">The 16-byte authentication tag.</param>
    /// <param name="plaintext">The buffer that receives the plaintext; as long as <paramref name="ciphertext"/>.
    /// On failure it is filled with zeros.</param>
    /// <param name="associatedData">The associated data the message was encrypted with; may be <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="nonce"/>, <paramref name="ciphertext"/>, <paramref name="tag"/> or <paramref name="plaintext"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A buffer has the wrong size, or the buffers overlap other than exactly in place.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The tag does not match: the message, nonce, associated data or key is wrong. The plaintext buffer has been zeroed.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed, before this call or during it (the output buffers are then zeroed).</exception>
    public void Decrypt(byte[] nonce, byte[] ciphertext, byte[] tag, byte[] plaintext, byte[]? associatedData = null)
    {
        ArgumentNullException.ThrowIfNull(nonce);
        ArgumentNullException.ThrowIfNull(ciphertext);
        ArgumentNullException.ThrowIfNull(tag);
        ArgumentNullException.ThrowIfNull(plaintext);
        Decrypt((ReadOnlySpan<byte>)nonce, ciphertext, tag, plaintext, associatedData);
    }

    /// <summary>Verifies the tag and decrypts the ciphertext into the plaintext buffer.</summary>
    /// <param name="nonce">The 12-byte nonce the message was encrypted with.</param>
    /// <param name="ciphertext">The encrypted content.</param>
    /// <param name="tag">The 16-byte authentication tag.</param>
    /// <param name="plaintext">The buffer that receives the plaintext; as long as <paramref name="ciphertext"/>.
    /// It may be the very same memory as <paramref name="ciphertext"/> (in place) but must not overlap it otherwise.
    /// On failure it is filled with zeros: unverified plaintext is never released.</param>
    /// <param name="associatedData">The associated data the message was encrypted with.</param>
    /// <exception cref="ArgumentException">A buffer has the wrong size, or the buffers overlap other than exactly in place.</exception>
    /// <exception cref="AuthenticationTagMismatchException">The tag does not match: the message, nonce, associated data or key is wrong. The plaintext buffer has been zeroed.</exception>
    /// <exception cref="ObjectDisposedException">The instance has been disposed, before this call or during it (the output buffers are then zeroed).</exception>
    public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        if (!TryDecrypt(nonce, ciphertext, tag, plaintext, associatedData))
        {
            // GcmSiv has already zeroed the plaintext buffer.
            throw new AuthenticationTagMismatchException();
        }
    }

    /// <summary>Like <see cref="Decrypt(ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/>,
    /// but a tag that does not verify returns <see langword="false"/> (the plaintext zeroed) instead of throwing.
    /// The record layer opens records an attacker may have sent: there a bad tag is an answer, and a
    /// flood of forgeries costs no exception throws.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryDecrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData = default)
    {
        CheckParameters(nonce, ciphertext, plaintext, tag.Length, nameof(plaintext));
        ObjectDisposedException.ThrowIf(_lifetime.IsClosed, this);
        bool verified = _backend.Decrypt(in Schedule, _rounds, nonce, ciphertext, tag, plaintext, associatedData);
        if (_lifetime.ClosedDuringCall())
        {
            DisposedDuringCall(plaintext, default);
        }

        return verified;
    }

    /// <summary>Wipes the key schedule if the instance was never disposed.</summary>
    ~AesGcmSiv() => WipeKey();

    /// <summary>
    /// Wipes the key schedule. Calls that start later throw <see cref="ObjectDisposedException"/>, and
    /// so do calls in flight on other threads that Dispose overtakes, with their outputs zeroed: no
    /// call returns a result computed with a wiped key.
    /// </summary>
    public void Dispose()
    {
        if (_lifetime.Close())
        {
            WipeKey();
        }

        GC.SuppressFinalize(this);
    }

    // A call that Dispose overtook may have computed with wiped round keys: nothing of it is released.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void DisposedDuringCall(Span<byte> output, Span<byte> tag)
    {
        CryptographicOperations.ZeroMemory(output);
        CryptographicOperations.ZeroMemory(tag);
        throw new ObjectDisposedException(GetType().FullName);
    }

    // The schedule array is pinned, so this is the only copy of the key material to clear.
    private void WipeKey()
    {
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(_keyGeneratingKeySchedule.AsSpan()));
        PinnedArray.Release(_keyGeneratingKeySchedule);
    }

    private static void CheckParameters(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> input, ReadOnlySpan<byte> output, int tagLength, string outputName)
    {
        if (nonce.Length != NonceSize)
        {
            throw new ArgumentException(Messages.InvalidNonceSize, nameof(nonce));
        }

        if (tagLength != TagSize)
        {
            throw new ArgumentException(Messages.InvalidTagSize, "tag");
        }

        if (input.Length != output.Length)
        {
            throw new ArgumentException(Messages.PlaintextCiphertextLengthMismatch, outputName);
        }

        // Exactly in place is fine (CTR reads each block before writing it); any other overlap
        // would make the output depend on bytes it has already overwritten.
        if (input.Overlaps(output, out int offset) && offset != 0)
        {
            throw new ArgumentException(Messages.OverlappingBuffers, outputName);
        }
    }
}
