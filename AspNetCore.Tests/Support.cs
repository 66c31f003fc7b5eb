// What the tests share: the keys, a Kestrel server on 127.0.0.1 with the middleware in front of test endpoints, and a
// deterministic generator of large bodies (produced and hashed on the fly, so that nothing holds a whole body).

using System;
using System.IO;
using System.Linq;
using System.Net;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Cryptography.AspNetCore;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace AspNetCore.Tests;

internal static class Keys
{
    public static readonly byte[] K1 = Enumerable.Range(1, 16).Select(i => (byte)i).ToArray();
    public static readonly byte[] K2 = Enumerable.Range(100, 32).Select(i => (byte)i).ToArray();

    public static ContentKeyRing Ring() => new ContentKeyRing().Add("k1", K1).Add("k2", K2);
}

/// <summary>A Kestrel server on 127.0.0.1 (an ephemeral port).</summary>
internal sealed class LoopbackServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private LoopbackServer(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
    }

    public Uri Address { get; }

    public static async Task<LoopbackServer> StartAsync(Action<IServiceCollection> services, Action<WebApplication> configure)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(options =>
        {
            options.Listen(IPAddress.Loopback, 0);
            options.Limits.MaxRequestBodySize = null;
        });
        services(builder.Services);
        WebApplication app = builder.Build();
        configure(app);
        await app.StartAsync();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        return new LoopbackServer(app, new Uri(address));
    }

    public ValueTask DisposeAsync() => _app.DisposeAsync();
}

/// <summary>Bytes from a seeded xorshift generator: the same seed gives the same body on both sides.</summary>
internal sealed class GeneratorStream(long size, ulong seed) : Stream
{
    private ulong _state = seed | 1;
    private long _position;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => size;

    public override long Position { get => _position; set => throw new NotSupportedException(); }

    public static async Task WriteAsync(Stream destination, long size, ulong seed, CancellationToken cancellationToken = default)
    {
        var generator = new GeneratorStream(size, seed);
        byte[] buffer = new byte[16384];
        int read;
        while ((read = generator.Read(buffer)) > 0)
        {
            await destination.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
        }
    }

    public static async Task<(long Count, string Hash)> HashAsync(Stream stream)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        byte[] buffer = new byte[1 << 16];
        long count = 0;
        int read;
        while ((read = await stream.ReadAsync(buffer)) > 0)
        {
            hash.AppendData(buffer, 0, read);
            count += read;
        }

        return (count, Convert.ToHexString(hash.GetHashAndReset()));
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        int n = (int)Math.Min(buffer.Length, size - _position);
        for (int i = 0; i < n; i++)
        {
            _state ^= _state << 13;
            _state ^= _state >> 7;
            _state ^= _state << 17;
            buffer[i] = (byte)_state;
        }

        _position += n;
        return n;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(Read(buffer.Span));

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
