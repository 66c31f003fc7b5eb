// Interop with an independent implementation: the npm packages web-push (what most Node application
// servers send pushes with) and http_ece (the aes128gcm code it is built on, which also decrypts as a
// user agent would), run with node. Bodies made here are opened there and bodies made there are opened
// here. The packages come from interop/web-push's package-lock.json through `npm ci`, into its
// git-ignored node_modules, on the first run; the test skips (with a message) only when node is absent.
// From a published copy of the suite (.ci/net11) the repository is found through RepositoryRoot().

using System;
using System.Buffers.Text;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Cryptography;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
[NonParallelizable]
public class WebPushInteropTests
{
    private string _directory = null!;

    [OneTimeSetUp]
    public void InstallPackages()
    {
        if (Which("node") is null)
        {
            Assert.Ignore("node is not installed: Web Push interop with the npm web-push and http_ece packages was NOT checked.");
        }

        string? npm = Which("npm");
        Assert.That(npm, Is.Not.Null, "node is installed but npm is not, so interop/web-push's packages cannot be installed");
        _directory = Path.Combine(RepositoryRoot(), "interop", "web-push");

        // npm ci wipes and reinstalls node_modules; do it only when the lock file has changed since the
        // last install (the stamp holds the lock file's hash).
        string stamp = Path.Combine(_directory, "node_modules", ".installed-lock-sha256");
        string lockHash = Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(Path.Combine(_directory, "package-lock.json"))));
        if (!File.Exists(stamp) || File.ReadAllText(stamp) != lockHash)
        {
            (int code, string output, string error) = Run(npm!, "ci --no-audit --no-fund", input: null);
            Assert.That(code, Is.Zero, $"npm ci in {_directory} failed:\n{output}\n{error}");
            File.WriteAllText(stamp, lockHash);
        }
    }

    [TestCase(0, 0)]
    [TestCase(1, 0)]
    [TestCase(1000, 100)]
    [TestCase(3993, 0)]
    public void ABodyMadeHereIsOpenedByHttpEce(int length, int padding)
    {
        using var userAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] auth = RandomNumberGenerator.GetBytes(16);
        byte[] message = RandomNumberGenerator.GetBytes(length);
        byte[] body = WebPushEncryption.Encrypt(message, WebPushSubscriptionKeys.FromKey(userAgent, auth), padding);

        JsonNode result = Node("decrypt", new JsonObject
        {
            ["privateKey"] = Base64Url.EncodeToString(userAgent.ExportParameters(true).D),
            ["auth"] = Base64Url.EncodeToString(auth),
            ["body"] = Base64Url.EncodeToString(body),
        });
        Assert.That(Base64Url.DecodeFromChars(result["plaintext"]!.GetValue<string>()), Is.EqualTo(message));
    }

    [TestCase(0)]
    [TestCase(41)]
    [TestCase(3993)]
    public void ARequestMadeByWebPushIsOpenedHere(int length)
    {
        using var userAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] auth = RandomNumberGenerator.GetBytes(16);
        var subscription = WebPushSubscriptionKeys.FromKey(userAgent, auth);
        byte[] message = RandomNumberGenerator.GetBytes(length);

        JsonNode result = Node("encrypt", new JsonObject
        {
            ["p256dh"] = subscription.GetP256dhBase64Url(),
            ["auth"] = subscription.GetAuthBase64Url(),
            ["plaintext"] = Base64Url.EncodeToString(message),
            ["ttl"] = 60,
        });
        byte[] body = Base64Url.DecodeFromChars(result["body"]!.GetValue<string>());
        JsonNode headers = result["headers"]!;
        Assert.Multiple(() =>
        {
            Assert.That(headers["Content-Encoding"]!.GetValue<string>(), Is.EqualTo("aes128gcm"));
            Assert.That(headers["TTL"]!.ToString(), Is.EqualTo("60"));
            Assert.That(WebPushEncryption.Decrypt(body, userAgent, auth), Is.EqualTo(message));
        });
    }

    [Test]
    public void TheRfcExampleSubscriptionWorksBothWays()
    {
        // The RFC 8291 example's user agent, with keys given as the strings a browser hands out.
        const string p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
        const string auth = "BTBZMqHH6r4Tts7J_aSIgg";
        const string privateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
        byte[] message = Encoding.UTF8.GetBytes("When I grow up, I want to be a watermelon");

        byte[] fromHere = WebPushEncryption.Encrypt(message, p256dh, auth);
        JsonNode opened = Node("decrypt", new JsonObject { ["privateKey"] = privateKey, ["auth"] = auth, ["body"] = Base64Url.EncodeToString(fromHere) });
        Assert.That(Base64Url.DecodeFromChars(opened["plaintext"]!.GetValue<string>()), Is.EqualTo(message));

        JsonNode fromThere = Node("encrypt", new JsonObject { ["p256dh"] = p256dh, ["auth"] = auth, ["plaintext"] = Base64Url.EncodeToString(message), ["ttl"] = 10 });
        byte[] body = Base64Url.DecodeFromChars(fromThere["body"]!.GetValue<string>());
        Assert.That(WebPushEncryption.Decrypt(body, Base64Url.DecodeFromChars(privateKey), Base64Url.DecodeFromChars(auth)), Is.EqualTo(message));
    }

    // Issue 50, item 2: the key strings VapidKeyPair exports are the ones web-push stores, both ways.
    [Test]
    public void WebPushAcceptsTheKeyPairsMadeHereAndTheOtherWayRound()
    {
        // web-push's generateVAPIDKeys() strings import here and sign a header node verifies under them.
        JsonNode generated = VapidKeysNode("generate", new JsonObject());
        using VapidKeyPair imported = VapidKeyPair.FromBase64Url(generated["publicKey"]!.GetValue<string>(), generated["privateKey"]!.GetValue<string>());
        Assert.That(imported.PublicKey, Is.EqualTo(generated["publicKey"]!.GetValue<string>()));
        string header = imported.CreateAuthorization(new Uri("https://push.example.net/push/1"), "mailto:ops@example.com").ToString();
        Assert.That(Node("vapid-verify", new JsonObject { ["authorization"] = header })["valid"]!.GetValue<bool>(), Is.True, header);

        // The strings exported here are taken by web-push, whose header verifies under PublicKey.
        using VapidKeyPair pair = VapidKeyPair.Generate();
        JsonNode signed = VapidKeysNode("sign", new JsonObject { ["publicKey"] = pair.PublicKey, ["privateKey"] = pair.ExportPrivateKey(), ["audience"] = "https://push.example.net" });
        string authorization = signed["authorization"]!.GetValue<string>();
        Assert.That(authorization, Does.EndWith("k=" + pair.PublicKey));
        string[] parts = authorization["vapid t=".Length..authorization.IndexOf(',', StringComparison.Ordinal)].Split('.');
        Assert.That(pair.Key.VerifyData(Encoding.ASCII.GetBytes(parts[0] + "." + parts[1]), Base64Url.DecodeFromChars(parts[2]), HashAlgorithmName.SHA256), Is.True, authorization);
    }

    private JsonNode VapidKeysNode(string command, JsonObject input)
    {
        (int code, string output, string error) = Run(Which("node")!, "vapid-keys.js " + command, input.ToJsonString());
        Assert.That(code, Is.Zero, $"node vapid-keys.js {command} failed:\n{error}");
        return JsonNode.Parse(output)!;
    }

    [Test]
    public void HttpEceRejectsABodyMadeHereForAnotherAuthSecret()
    {
        // A check that the node side really checks: a mismatched auth secret must fail there too.
        using var userAgent = ECDiffieHellman.Create(ECCurve.NamedCurves.nistP256);
        byte[] body = WebPushEncryption.Encrypt("x"u8, WebPushSubscriptionKeys.FromKey(userAgent, RandomNumberGenerator.GetBytes(16)));
        var input = new JsonObject
        {
            ["privateKey"] = Base64Url.EncodeToString(userAgent.ExportParameters(true).D),
            ["auth"] = Base64Url.EncodeToString(RandomNumberGenerator.GetBytes(16)),
            ["body"] = Base64Url.EncodeToString(body),
        };
        (int code, _, string error) = Run(Which("node")!, "interop.js decrypt", input.ToJsonString());
        Assert.That(code, Is.Not.Zero, "http_ece accepted a body under the wrong auth secret");
        Assert.That(error, Does.Contain("Unsupported state or unable to authenticate data").Or.Contain("authenticate"));
    }

    [Test]
    public void NodeVerifiesTheVapidHeaderMadeHere()
    {
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var endpoint = new Uri("https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV");
        string header = VapidAuthorization.Create(endpoint, "mailto:ops@example.com", key).ToString();
        JsonNode result = Node("vapid-verify", new JsonObject { ["authorization"] = header });
        Assert.Multiple(() =>
        {
            Assert.That(result["valid"]!.GetValue<bool>(), Is.True, header);
            Assert.That(result["header"]!["alg"]!.GetValue<string>(), Is.EqualTo("ES256"));
            Assert.That(result["claims"]!["aud"]!.GetValue<string>(), Is.EqualTo("https://push.example.net"));
        });

        // And the check can fail: a signature by another key under this k= is refused.
        using ECDsa other = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        string forged = VapidAuthorization.Create(endpoint, "mailto:ops@example.com", other).ToString();
        forged = forged[..forged.IndexOf(", k=", StringComparison.Ordinal)] + ", k=" + VapidAuthorization.GetPublicKey(key);
        Assert.That(Node("vapid-verify", new JsonObject { ["authorization"] = forged })["valid"]!.GetValue<bool>(), Is.False);
    }

    /// <summary>
    /// The token's aud is the origin browsers give (<c>new URL(endpoint).origin</c>) and the npm
    /// web-push package puts in its own token, for internationalised hosts too (issue 47, item 2:
    /// the Unicode host was sent, and a push service refuses that token). No endpoint here spells a
    /// default port: web-push keeps one written out (":443"), where origins drop it.
    /// </summary>
    [Test]
    public void TheAudienceIsTheOriginNodeAndWebPushGive()
    {
        string[] endpoints =
        [
            "https://bücher.example/push/1",
            "https://BÜCHER.Example:8443/push/1?x=1",
            "https://user:secret@push.münchen.example/x",
            "http://例え.テスト:8080/x",
            "https://PUSH.Example.NET/x",
            "http://user:pw@[::1]:8080/x",
        ];
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        JsonNode result = Node("origin", new JsonObject { ["endpoints"] = new JsonArray([.. endpoints.Select(e => (JsonNode)e)]) });
        Assert.Multiple(() =>
        {
            for (int i = 0; i < endpoints.Length; i++)
            {
                string header = VapidAuthorization.Create(new Uri(endpoints[i]), "mailto:ops@example.com", key).ToString();
                JsonNode claims = Node("vapid-verify", new JsonObject { ["authorization"] = header })["claims"]!;
                string audience = claims["aud"]!.GetValue<string>();
                Assert.That(audience, Is.EqualTo(result[i]!["origin"]!.GetValue<string>()), endpoints[i] + ": new URL(...).origin");
                Assert.That(audience, Is.EqualTo(result[i]!["webPush"]!.GetValue<string>()), endpoints[i] + ": web-push's aud");
            }
        });
    }

    internal JsonNode Node(string command, JsonObject input)
    {
        (int code, string output, string error) = Run(Which("node")!, "interop.js " + command, input.ToJsonString());
        Assert.That(code, Is.Zero, $"node interop.js {command} failed:\n{error}");
        return JsonNode.Parse(output)!;
    }

    private (int Code, string Output, string Error) Run(string fileName, string arguments, string? input)
    {
        var start = new ProcessStartInfo(fileName, arguments)
        {
            WorkingDirectory = _directory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        using Process process = Process.Start(start)!;
        process.StandardInput.Write(input ?? string.Empty);
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(5)))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"{fileName} {arguments} did not finish in 5 minutes");
        }

        return (process.ExitCode, output.Result, error.Result);
    }

    internal static string? Which(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .SelectMany(directory => new[] { Path.Combine(directory, program), Path.Combine(directory, program + ".cmd"), Path.Combine(directory, program + ".exe") })
            .FirstOrDefault(File.Exists);

    /// <summary>The repository, for interop/web-push: $AESGCMSIV_REPOSITORY if set, else the first folder
    /// above the test assembly holding AesGcmSiv.sln (dotnet test, .ci/arm64), else the folder the suite
    /// was built in, which Tests.csproj writes into the assembly (a published copy elsewhere: .ci/net11).</summary>
    internal static string RepositoryRoot()
    {
        static bool IsRoot(string? directory) => directory is not null && File.Exists(Path.Combine(directory, "AesGcmSiv.sln"));

        string? fromEnvironment = Environment.GetEnvironmentVariable("AESGCMSIV_REPOSITORY");
        if (!string.IsNullOrEmpty(fromEnvironment))
        {
            return IsRoot(fromEnvironment) ? fromEnvironment : throw new DirectoryNotFoundException("AESGCMSIV_REPOSITORY is " + fromEnvironment + ", which holds no AesGcmSiv.sln");
        }

        for (var directory = new DirectoryInfo(TestContext.CurrentContext.TestDirectory); directory is not null; directory = directory.Parent)
        {
            if (IsRoot(directory.FullName))
            {
                return directory.FullName;
            }
        }

        string? built = typeof(WebPushInteropTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
            .SingleOrDefault(attribute => attribute.Key == "RepositoryRoot")?.Value;
        if (IsRoot(built))
        {
            return built!;
        }

        throw new DirectoryNotFoundException($"AesGcmSiv.sln not found above {TestContext.CurrentContext.TestDirectory} nor where the suite was built ({built}); set AESGCMSIV_REPOSITORY to the repository");
    }
}
