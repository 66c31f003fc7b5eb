// The netstandard2.0 build's one record-layer difference (docs/platforms.md): the aes128gcm coding needs
// .NET's AesGcm, which .NET Standard 2.0 lacks and Mono's throws, so every path that would seal or open an
// aes128gcm record throws PlatformNotSupportedException naming aes256gcmsiv instead; aes256gcmsiv runs.
// Only in the Mono leg: on net10.0 aes128gcm works, and Tests/ checks it.

using System;
using System.IO;
using System.Net.Http;
using System.Threading.Tasks;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tests.NetStandard;

[TestFixture]
public class GcmCodingTests
{
    private static readonly byte[] Ikm = new byte[16];
    private static readonly ContentEncodingOptions Gcm = new() { Coding = ContentCoding.Aes128Gcm };
    private static readonly ContentEncodingOptions GcmSiv = new() { Coding = ContentCoding.Aes256GcmSiv };

    private static void AssertRefused(Action call) =>
        Assert.That(
            call,
            Throws.TypeOf<PlatformNotSupportedException>()
                .With.Message.Contains("aes128gcm")
                .And.Message.Contains("aes256gcmsiv (ContentCoding.Aes256GcmSiv)"));

    // A well-formed header (salt, rs = 4096, no key id) and one record's worth of bytes: decryption
    // parses the header, then needs the cipher, and stops there.
    private static byte[] GcmBody()
    {
        byte[] body = new byte[21 + 17 + 1];
        body[18] = 0x10;
        return body;
    }

    [Test]
    public void TheGcmCodingIsRefusedWithWhatToUseInstead()
    {
        AssertRefused(() => ContentEncryption.Encrypt([1, 2, 3], Ikm, Gcm));
        AssertRefused(() => ContentEncryption.Decrypt(GcmBody(), Ikm, Gcm));
        AssertRefused(() =>
        {
            using var encrypting = new ContentEncryptingStream(new MemoryStream(), Ikm, Gcm);
            encrypting.Write([1, 2, 3], 0, 3);
            encrypting.FlushFinalBlock();
        });
        AssertRefused(() =>
        {
            using var decrypting = new ContentDecryptingStream(new MemoryStream(GcmBody()), Ikm, Gcm);
            _ = decrypting.Read(new byte[16], 0, 16);
        });
        AssertRefused(() => new EncryptedHttpContent(new ByteArrayContent([1, 2, 3]), Ikm, Gcm).ReadAsByteArrayAsync().GetAwaiter().GetResult());
    }

    [Test]
    public async Task TheGcmSivCodingRoundTripsThroughEveryPath()
    {
        byte[] plaintext = new byte[10_000];
        new Random(48).NextBytes(plaintext);

        byte[] body = ContentEncryption.Encrypt(plaintext, Ikm, GcmSiv);
        Assert.That(ContentEncryption.Decrypt(body, Ikm, GcmSiv), Is.EqualTo(plaintext), "one-shot");

        var sink = new MemoryStream();
        await using (var encrypting = new ContentEncryptingStream(sink, Ikm, GcmSiv, leaveOpen: true))
        {
            await encrypting.WriteAsync(plaintext.AsMemory());
            await encrypting.FlushFinalBlockAsync();
        }

        Assert.That(sink.ToArray().Length, Is.EqualTo(body.Length), "stream body length");
        var read = new MemoryStream();
        await using (var decrypting = new ContentDecryptingStream(new MemoryStream(sink.ToArray()), Ikm, GcmSiv))
        {
            await decrypting.CopyToAsync(read);
        }

        Assert.That(read.ToArray(), Is.EqualTo(plaintext), "streams");

        byte[] sent = await new EncryptedHttpContent(new ByteArrayContent(plaintext), Ikm, GcmSiv).ReadAsByteArrayAsync();
        using var handler = new ContentDecryptingHandler(Ikm, new StubHandler(sent), GcmSiv);
        using var client = new HttpClient(handler);
        Assert.That(await client.GetByteArrayAsync("http://127.0.0.1/"), Is.EqualTo(plaintext), "EncryptedHttpContent and ContentDecryptingHandler");
    }

    private sealed class StubHandler(byte[] body) : HttpMessageHandler
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, System.Threading.CancellationToken cancellationToken)
        {
            var content = new ByteArrayContent(body);
            content.Headers.ContentEncoding.Add(ContentEncryption.Aes256GcmSivName);
            return Task.FromResult(new HttpResponseMessage(System.Net.HttpStatusCode.OK) { Content = content, RequestMessage = request });
        }
    }
}
