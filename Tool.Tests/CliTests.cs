// The help text explains every command and option and ends with the key-file rules and exit codes.

using NUnit.Framework;

namespace Tool.Tests;

[TestFixture]
public class CliTests : ToolTestBase
{
    [TestCase(new string[0], new[] { "keygen", "encrypt", "decrypt" })]
    [TestCase(new[] { "keygen" }, new[] { "KEYFILE", "--bytes", "--force" })]
    [TestCase(new[] { "encrypt" }, new[] { "--key", "--coding", "--record-size", "--key-id", "--force", "INPUT", "OUTPUT" })]
    [TestCase(new[] { "decrypt" }, new[] { "--key", "--coding", "--force", "INPUT", "OUTPUT" })]
    public void HelpExplainsEveryOptionAndTheExitCodes(string[] command, string[] names)
    {
        ToolResult result = Run([.. command, "--help"]);
        string help = System.Text.Encoding.UTF8.GetString(result.Stdout);
        Assert.That(result.ExitCode, Is.Zero, result.ToString());
        Assert.Multiple(() =>
        {
            foreach (string name in names)
            {
                Assert.That(help, Does.Contain(name));
            }

            Assert.That(help, Does.Contain("Exit codes:").And.Contain("130").And.Contain("exactly 16 or 32 bytes"));
        });
    }

    [Test]
    public void TheBenchCommandIsHidden()
    {
        ToolResult result = Run("--help");
        Assert.That(System.Text.Encoding.UTF8.GetString(result.Stdout), Does.Not.Contain("bench"));
    }
}
