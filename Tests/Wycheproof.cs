// Loads Project Wycheproof's AES-GCM-SIV vectors (Tests/Vectors/wycheproof-aes-gcm-siv.json, embedded
// as "Vectors.wycheproof-aes-gcm-siv.json"). Free of NUnit: the browser test host
// (Browser/BrowserHost) links this file and checks the same cases.

using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;

namespace Tests;

public static class Wycheproof
{
    /// <summary>Every case in the file: 202, of which 66 must be rejected.</summary>
    public const int CaseCount = 202;

    public const int InvalidCount = 66;

    public sealed record Case(int Id, string Comment, byte[] Key, byte[] Nonce, byte[] Aad, byte[] Message, byte[] Ciphertext, byte[] Tag, bool Valid)
    {
        public override string ToString() => $"tcId {Id} ({Comment})";
    }

    public static List<Case> Load()
    {
        using Stream stream = typeof(Wycheproof).Assembly.GetManifestResourceStream("Vectors.wycheproof-aes-gcm-siv.json")
            ?? throw new FileNotFoundException("Embedded test vectors not found: wycheproof-aes-gcm-siv.json");
        using JsonDocument document = JsonDocument.Parse(stream);
        var cases = new List<Case>();
        foreach (JsonElement group in document.RootElement.GetProperty("testGroups").EnumerateArray())
        {
            foreach (JsonElement t in group.GetProperty("tests").EnumerateArray())
            {
                byte[] Hex(string name) => Convert.FromHexString(t.GetProperty(name).GetString()!);
                cases.Add(new Case(
                    t.GetProperty("tcId").GetInt32(),
                    t.GetProperty("comment").GetString()!,
                    Hex("key"), Hex("iv"), Hex("aad"), Hex("msg"), Hex("ct"), Hex("tag"),
                    t.GetProperty("result").GetString() == "valid"));
            }
        }

        return cases;
    }
}
