// AES-GCM-SIV behind a nonce-reuse guard: AesGcmSiv's constructors and calls, plus a memory of
// the nonces its key has used (NonceHistory). See docs/nonce-safety.md.

using System;
using System.Security.Cryptography;
using Cryptography.Internal;
using Cryptography.NonceSafety;

namespace Cryptography;

/// <summary>
/// <see cref="AesGcmSiv"/> with a nonce-reuse guard. Same constructors and calls as
/// <see cref="AesGcmSiv"/>, each with an optional <see cref="NonceGuardOptions"/>.
/// </summary>
/// <remarks>
/// <para>By default (<see cref="NonceReusePolicy.Observe"/>) a repeated nonce is let through and
/// counted in <see cref="GuardedAead.DistinctRepeats"/> and <see cref="GuardedAead.IdenticalRepeats"/>: under AES-GCM-SIV a
/// repeat reveals only whether two messages were equal, so refusing it would turn a harmless event
/// into an outage. The strict mode, <see cref="NonceReusePolicy.Refuse"/>, refuses a repeat with a
/// different message before writing anything, as <see cref="GuardedAesGcm"/> does; it suits
/// deployments whose message limits assume unique nonces. <see cref="NonceReusePolicy.RefuseAll"/>
/// refuses identical re-encryption too, for when even message equality must not show.</para>
/// <para>Thread-safe, like <see cref="AesGcmSiv"/>. Calls do not allocate, except the first time a
/// repeat of a given size is examined under <see cref="NonceReusePolicy.Refuse"/>.</para>
/// </remarks>
/// <example>
/// The strict mode refuses a repeated nonce with a different message; by default it is counted:
/// <code>
/// using var aead = new GuardedAesGcmSiv(key, new NonceGuardOptions { Policy = NonceReusePolicy.Refuse });
/// aead.Encrypt(nonce, plaintext, ciphertext, tag);
/// aead.Encrypt(nonce, otherPlaintext, otherCiphertext, otherTag);   // throws NonceReuseException
/// </code>
/// </example>
public sealed class GuardedAesGcmSiv : GuardedAead
{
    private readonly AesGcmSiv _aead;

    /// <summary>Creates a guarded AES-GCM-SIV.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(byte[] key, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM-SIV.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(ReadOnlySpan<byte> key, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM-SIV with a tag size, in the shape of <see cref="GuardedAesGcm(byte[], int, NonceGuardOptions?)"/>.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="tagSizeInBytes">The tag size every call uses: only 16 is supported.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not 16.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(byte[] key, int tagSizeInBytes, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key, tagSizeInBytes), key, options)
    {
    }

    /// <summary>Creates a guarded AES-GCM-SIV with a tag size, in the shape of <see cref="GuardedAesGcm(ReadOnlySpan{byte}, int, NonceGuardOptions?)"/>.</summary>
    /// <param name="key">The 16- or 32-byte key.</param>
    /// <param name="tagSizeInBytes">The tag size every call uses: only 16 is supported.</param>
    /// <param name="options">The guard's options; <see langword="null"/> for <see cref="NonceGuardOptions.Default"/>,
    /// which for this type means <see cref="NonceReusePolicy.Observe"/>.</param>
    /// <exception cref="CryptographicException">The key is not 16 or 32 bytes.</exception>
    /// <exception cref="ArgumentException"><paramref name="tagSizeInBytes"/> is not 16.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public GuardedAesGcmSiv(ReadOnlySpan<byte> key, int tagSizeInBytes, NonceGuardOptions? options = null)
        : this(new AesGcmSiv(key, tagSizeInBytes), key, options)
    {
    }

    private GuardedAesGcmSiv(AesGcmSiv aead, ReadOnlySpan<byte> key, NonceGuardOptions? options)
        : base(GuardedCalls.Create(new Adapter(aead), aead), key, options, NonceReusePolicy.Observe)
    {
        _aead = aead;
    }

    /// <summary>Always <see langword="true"/>: AES-GCM-SIV runs everywhere (<see cref="AesGcmSiv.IsSupported"/>).</summary>
    public static bool IsSupported => AesGcmSiv.IsSupported;

    /// <summary>The key sizes AES-GCM-SIV accepts: 16 and 32 bytes.</summary>
    public static KeySizes KeyByteSizes => AesGcmSiv.KeyByteSizes;

    /// <summary>The nonce sizes AES-GCM-SIV accepts: 12 bytes.</summary>
    public static KeySizes NonceByteSizes => AesGcmSiv.NonceByteSizes;

    /// <summary>The tag sizes AES-GCM-SIV accepts: 16 bytes.</summary>
    public static KeySizes TagByteSizes => AesGcmSiv.TagByteSizes;

    /// <summary>The tag size every call uses: always 16, as <see cref="AesGcmSiv.TagSizeInBytes"/>.</summary>
    public int? TagSizeInBytes => _aead.TagSizeInBytes;

    private readonly struct Adapter(AesGcmSiv aead) : IGuardedAead
    {
        public string Name => "AES-GCM-SIV";

        public int NonceSize => 12;

        public int MaxTagSize => 16;

        // AesGcmSiv is safe for concurrent calls: NonceGuard reserves and publishes around them.
        public bool Concurrent => true;

        // AesGcmSiv.Encrypt's checks, in its order and with its messages (the guard has checked the
        // nonce's length and the ciphertext's already), so that no call fails after reserving.
        public void CheckEncryptBuffers(ReadOnlySpan<byte> plaintext, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag)
        {
            if (tag.Length != 16)
            {
                throw new ArgumentException(Messages.InvalidTagSize, nameof(tag));
            }

            if (plaintext.Overlaps(ciphertext, out int offset) && offset != 0)
            {
                throw new ArgumentException(Messages.OverlappingBuffers, nameof(ciphertext));
            }

            if (tag.Overlaps(ciphertext))
            {
                throw new ArgumentException(Messages.TagOverlapsCiphertext, nameof(tag));
            }
        }

        public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
            => aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);

        public void Decrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
            => aead.Decrypt(nonce, ciphertext, tag, plaintext, associatedData);
    }
}
