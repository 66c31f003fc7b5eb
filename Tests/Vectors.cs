// Loads the embedded test-vector files (Tests/Vectors/*.json; their sources are named in
// Tests/Vectors/README.md and in each file's "source" field).

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace Tests;

public sealed class AeadVector
{
    public required string Source { get; init; }
    public required string Name { get; init; }
    public required byte[] Key { get; init; }
    public required byte[] Nonce { get; init; }
    public required byte[] Aad { get; init; }
    public required byte[] Plaintext { get; init; }
    public required byte[] Result { get; init; }
    public byte[]? RecordAuthenticationKey { get; init; }
    public byte[]? RecordEncryptionKey { get; init; }
    public byte[]? PolyvalInput { get; init; }
    public byte[]? PolyvalResult { get; init; }
    public byte[]? PolyvalResultXorNonceMasked { get; init; }
    public byte[]? Tag { get; init; }
    public byte[]? InitialCounter { get; init; }

    public byte[] Ciphertext => Result[..^16];
    public byte[] ResultTag => Result[^16..];

    public override string ToString() => Name;
}

public sealed class PolyvalVector
{
    public required string Name { get; init; }
    public required byte[] H { get; init; }
    public required byte[] Input { get; init; }
    public required byte[] Result { get; init; }

    public override string ToString() => Name;
}

public static class Vectors
{
    public static IEnumerable<AeadVector> Aead(string file)
    {
        using JsonDocument document = Load(file);
        string source = document.RootElement.GetProperty("source").GetString()!;
        return document.RootElement.GetProperty("vectors").EnumerateArray().Select(v => new AeadVector
        {
            Source = source,
            Name = v.GetProperty("name").GetString()!,
            Key = Hex(v, "key")!,
            Nonce = Hex(v, "nonce")!,
            Aad = Hex(v, "aad")!,
            Plaintext = Hex(v, "plaintext")!,
            Result = Hex(v, "result")!,
            RecordAuthenticationKey = Hex(v, "recordAuthenticationKey"),
            RecordEncryptionKey = Hex(v, "recordEncryptionKey"),
            PolyvalInput = Hex(v, "polyvalInput"),
            PolyvalResult = Hex(v, "polyvalResult"),
            PolyvalResultXorNonceMasked = Hex(v, "polyvalResultXorNonceMasked"),
            Tag = Hex(v, "tag"),
            InitialCounter = Hex(v, "initialCounter"),
        }).ToList();
    }

    public static IEnumerable<PolyvalVector> Polyval()
    {
        using JsonDocument document = Load("rfc8452-polyval.json");
        return document.RootElement.GetProperty("vectors").EnumerateArray().Select(v => new PolyvalVector
        {
            Name = v.GetProperty("name").GetString()!,
            H = Hex(v, "h")!,
            Input = Hex(v, "input")!,
            Result = Hex(v, "result")!,
        }).ToList();
    }

    public static IEnumerable<AeadVector> Rfc8452() =>
        Aead("rfc8452-aes128.json").Concat(Aead("rfc8452-aes256.json")).Concat(Aead("rfc8452-counter-wrap.json"));

    private static JsonDocument Load(string file)
    {
        using Stream stream = typeof(Vectors).Assembly.GetManifestResourceStream("Vectors." + file)
            ?? throw new FileNotFoundException("Embedded test vectors not found: " + file);
        return JsonDocument.Parse(stream);
    }

    private static byte[]? Hex(JsonElement element, string name) =>
        element.TryGetProperty(name, out JsonElement value) ? Convert.FromHexString(value.GetString()!) : null;
}
