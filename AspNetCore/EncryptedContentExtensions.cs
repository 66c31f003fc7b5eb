// Registration in ASP.NET Core's shapes: services.AddEncryptedContent(options => ...) with the options pattern, the keys
// from dependency injection (IContentKeyRing), and app.UseEncryptedContent() in the pipeline.

using System;
using Cryptography.AspNetCore;
using Cryptography.ContentEncoding;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection
{
    /// <summary>Registers the encrypted-content middleware's services.</summary>
    public static class EncryptedContentServiceCollectionExtensions
    {
        /// <summary>Registers the middleware's options; the keys come from the <see cref="IContentKeyRing"/> registered in
        /// <paramref name="services"/> (register one, such as a <see cref="ContentKeyRing"/> or your own backed by a vault).</summary>
        /// <param name="services">The services.</param>
        /// <param name="configure">Sets the options.</param>
        /// <returns><paramref name="services"/>.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configure"/> is <see langword="null"/>.</exception>
        public static IServiceCollection AddEncryptedContent(this IServiceCollection services, Action<EncryptedContentOptions> configure)
        {
            ArgumentNullException.ThrowIfNull(services);
            ArgumentNullException.ThrowIfNull(configure);
            services.AddOptions<EncryptedContentOptions>().Configure(configure);
            return services;
        }

        /// <summary>Registers the middleware's options and <paramref name="keyRing"/> as the <see cref="IContentKeyRing"/>.</summary>
        /// <param name="services">The services.</param>
        /// <param name="keyRing">The keys. The container disposes (wipes) it when it is disposed.</param>
        /// <param name="configure">Sets the options; <see langword="null"/> for the defaults.</param>
        /// <returns><paramref name="services"/>.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="keyRing"/> is <see langword="null"/>.</exception>
        public static IServiceCollection AddEncryptedContent(this IServiceCollection services, ContentKeyRing keyRing, Action<EncryptedContentOptions>? configure = null)
        {
            ArgumentNullException.ThrowIfNull(services);
            ArgumentNullException.ThrowIfNull(keyRing);
            services.AddOptions<EncryptedContentOptions>();
            if (configure is not null)
            {
                services.Configure(configure);
            }

            // A factory, not the instance, so that the container owns the ring and disposes it.
            services.TryAddSingleton<IContentKeyRing>(_ => keyRing);
            return services;
        }
    }
}

namespace Microsoft.AspNetCore.Builder
{
    using Microsoft.Extensions.DependencyInjection;

    /// <summary>Adds the encrypted-content middleware to a pipeline.</summary>
    public static class EncryptedContentApplicationBuilderExtensions
    {
        /// <summary>Decrypts request bodies whose <c>Content-Encoding</c> is <c>aes128gcm</c> or <c>aes256gcmsiv</c> and encrypts
        /// responses (see <see cref="EncryptedContentOptions"/>) for everything after it in the pipeline.</summary>
        /// <param name="app">The application.</param>
        /// <returns><paramref name="app"/>.</returns>
        /// <remarks>Put it before the middleware whose bodies it should cover (routing, endpoints), and after an exception
        /// handler whose error pages should go out unencrypted. The key responses are encrypted under is looked up here, so a
        /// missing one fails at startup.</remarks>
        /// <exception cref="ArgumentNullException"><paramref name="app"/> is <see langword="null"/>.</exception>
        /// <exception cref="InvalidOperationException">No <see cref="IContentKeyRing"/> is registered, or the ring has no key for
        /// the responses' key id.</exception>
        public static IApplicationBuilder UseEncryptedContent(this IApplicationBuilder app)
        {
            ArgumentNullException.ThrowIfNull(app);
            IContentKeyRing keyRing = app.ApplicationServices.GetService<IContentKeyRing>()
                ?? throw new InvalidOperationException(
                    "No IContentKeyRing is registered: call services.AddEncryptedContent(new ContentKeyRing().Add(keyId, key), options => ...), " +
                    "or register an IContentKeyRing and call services.AddEncryptedContent(options => ...).");
            EncryptedContentOptions options = app.ApplicationServices.GetRequiredService<IOptions<EncryptedContentOptions>>().Value;
            EncryptedContentExtensions.CheckResponseKey(keyRing, options.Responses);
            return app.UseMiddleware<EncryptedContentMiddleware>();
        }
    }
}

namespace Cryptography.AspNetCore
{
    internal static class EncryptedContentExtensions
    {
        public static string NoResponseKey(ContentEncodingOptions options) =>
            $"The IContentKeyRing has no key for the responses' key id ({options.KeyId.Length} bytes: '{Convert.ToHexString(options.KeyId.Span)}'), " +
            "set in EncryptedContentOptions.Responses.KeyId.";

        public static void CheckResponseKey(IContentKeyRing keyRing, ContentEncodingOptions options)
        {
            Span<byte> key = stackalloc byte[ContentEncryption.MaxKeyingMaterialSize];
            try
            {
                if (!keyRing.TryCopyKey(options.KeyId.Span, options.Coding, key, out int length) || length is < 1 or > ContentEncryption.MaxKeyingMaterialSize)
                {
                    throw new InvalidOperationException(NoResponseKey(options));
                }
            }
            finally
            {
                System.Security.Cryptography.CryptographicOperations.ZeroMemory(key);
            }
        }
    }
}
