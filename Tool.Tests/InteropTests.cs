// The aes128gcm mode speaks RFC 8188: it decrypts the RFC's own examples (section 3.1 and 3.2, key
// file = the example's IKM), its output opens with the library's one-shot decoder and the other way
// round, and, where Node.js and the npm registry (or npm's cache) are at hand, it interoperates with
// http_ece, the RFC author's JavaScript implementation, in both directions.

using System;
using System.Buffers.Text;
using System.Diagnostics;
using System.IO;
using System.Text;
using Cryptography;
using Cryptography.ContentEncoding;
using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class InteropTests : ToolTestBase
{
    private const string HttpEceVersion = "1.2.1";
    private static readonly byte[] Walrus = Encoding.ASCII.GetBytes("I am the walrus");

    [TestCase("yqdlZ-tYemfogSmv7Ws5PQ", "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg", TestName = "Rfc8188Section31")]
    [TestCase("BO3ZVPxUlnLORbVGMpbT1Q", "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA", TestName = "Rfc8188Section32")]
    public void DecryptsTheRfc8188Examples(string key, string body)
    {
        Write("key", Base64Url.DecodeFromChars(key));
        Write("body", Base64Url.DecodeFromChars(body));
        AssertSuccess(Run("decrypt", "-k", "key", "-c", "aes128gcm", "body", "out"));
        Assert.That(Read("out"), Is.EqualTo(Walrus));

        ToolResult piped = RunWithInput(Base64Url.DecodeFromChars(body), "decrypt", "-k", "key", "-c", "aes128gcm");
        AssertSuccess(piped);
        Assert.That(piped.Stdout, Is.EqualTo(Walrus));
    }

    [TestCase(0)]
    [TestCase(4079)]
    [TestCase(100_000)]
    public void TheLibrarysOneShotDecoderOpensTheToolsOutputAndTheOtherWayRound(int length)
    {
        byte[] key = KeyFile(length: 16);
        byte[] content = Write("plain", Content(length));
        AssertSuccess(Run("encrypt", "-k", "key", "-c", "aes128gcm", "-r", "4096", "plain", "sealed"));
        Assert.That(ContentEncryption.Decrypt(Read("sealed"), key, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm }), Is.EqualTo(content));

        Write("library", ContentEncryption.Encrypt(content, key, new ContentEncodingOptions { Coding = ContentCoding.Aes128Gcm, RecordSize = 4096, KeyId = ("k1"u8).ToArray() }));
        AssertSuccess(Run("decrypt", "-k", "key", "-c", "aes128gcm", "library", "opened"));
        Assert.That(Read("opened"), Is.EqualTo(content));
    }

    [Test]
    public void InteroperatesWithHttpEceInBothDirections()
    {
        string module = HttpEce.Install();
        byte[] content = Write("plain", Content(10_000));
        KeyFile(length: 16);
        Write("script.js", Encoding.UTF8.GetBytes("""
            const ece = require(process.argv[2]);
            const fs = require('fs');
            const key = fs.readFileSync('key');
            if (process.argv[3] === 'decrypt') {
              fs.writeFileSync('from-tool', ece.decrypt(fs.readFileSync('sealed-by-tool'), { version: 'aes128gcm', key }));
            } else {
              fs.writeFileSync('sealed-by-node', ece.encrypt(fs.readFileSync('plain'), { version: 'aes128gcm', key, rs: 1000, keyid: 'node' }));
            }
            """));

        AssertSuccess(Run("encrypt", "-k", "key", "-c", "aes128gcm", "-r", "1000", "plain", "sealed-by-tool"));
        HttpEce.Node(Directory, "script.js", module, "decrypt");
        Assert.That(Read("from-tool"), Is.EqualTo(content), "http_ece decrypted the tool's output differently");

        HttpEce.Node(Directory, "script.js", module, "encrypt");
        AssertSuccess(Run("decrypt", "-k", "key", "-c", "aes128gcm", "sealed-by-node", "from-node"));
        Assert.That(Read("from-node"), Is.EqualTo(content), "the tool decrypted http_ece's output differently");
    }

    /// <summary>http_ece from the npm registry, installed once per test run into the test's output
    /// directory (npm's cache makes later runs offline). Without node or npm, the test is ignored.</summary>
    private static class HttpEce
    {
        private static string? _module;

        public static string Install()
        {
            if (_module is not null)
            {
                return _module;
            }

            string root = Path.Combine(TestContext.CurrentContext.WorkDirectory, "node-interop");
            string module = Path.Combine(root, "node_modules", "http_ece");
            if (!File.Exists(Path.Combine(module, "ece.js")))
            {
                System.IO.Directory.CreateDirectory(root);
                if (Execute(root, "node", "--version").ExitCode != 0)
                {
                    Assert.Ignore("Node.js is not installed: the http_ece cross-check is skipped.");
                }

                (int exitCode, string output) = Execute(root, "npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", $"http_ece@{HttpEceVersion}");
                if (exitCode != 0 || !File.Exists(Path.Combine(module, "ece.js")))
                {
                    Assert.Ignore($"npm could not install http_ece {HttpEceVersion} (no registry and not in npm's cache?): the cross-check is skipped. {output}");
                }
            }

            return _module = module;
        }

        public static void Node(string directory, params string[] arguments)
        {
            (int exitCode, string output) = Execute(directory, "node", arguments);
            Assert.That(exitCode, Is.Zero, $"node {string.Join(' ', arguments)}: {output}");
        }

        private static (int ExitCode, string Output) Execute(string directory, string program, params string[] arguments)
        {
            var start = new ProcessStartInfo(program)
            {
                WorkingDirectory = directory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (string argument in arguments)
            {
                start.ArgumentList.Add(argument);
            }

            try
            {
                using Process process = Process.Start(start)!;
                var stdout = process.StandardOutput.ReadToEndAsync();
                var stderr = process.StandardError.ReadToEndAsync();
                if (!process.WaitForExit(TimeSpan.FromSeconds(90)))
                {
                    process.Kill(entireProcessTree: true);
                    return (-1, $"{program} timed out");
                }

                return (process.ExitCode, stdout.Result + stderr.Result);
            }
            catch (System.ComponentModel.Win32Exception exception)
            {
                return (-1, exception.Message);
            }
        }
    }
}
