// Web Push's argument contract at its edges: the limits themselves accepted, one past them refused, the
// lengths the helpers promise, null arguments named, a short destination refused and left zeroed, and
// the encrypted body wiped when the content is disposed. Written from the mutants of
// Cryptography/WebPush/ that the rest of the suite let live (docs/testing.md); a second Stryker run
// kills most of them, and docs/testing.md says why the rest live.

using System;
using System.Linq;
using Cryptography;
using Cryptography.WebPush;
using NUnit.Framework;

namespace Tests.WebPushTests;

[TestFixture]
public class WebPushContractTests
{
    [TestCase(0, 0)]
    [TestCase(100, 50)]
    [TestCase(3993, 0)]
    public void TheLengthHelpersMatchTheBody(int length, int padding)
    {
        var (key, auth, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt(new byte[length], subscription, padding);
            Assert.That(body, Has.Length.EqualTo(WebPushEncryption.GetEncryptedLength(length, padding)));
            Assert.That(WebPushEncryption.GetMaxDecryptedLength(body.Length), Is.EqualTo(length + 1 + padding), "the record's content: message, delimiter, padding");
            Assert.That(WebPushEncryption.GetMaxDecryptedLength(50), Is.Zero, "shorter than a header and a tag");
        }
    }

    [Test]
    public void NegativeLengthsAreRefused()
    {
        Assert.That(() => WebPushEncryption.GetEncryptedLength(-1), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("plaintextLength"));
        Assert.That(() => WebPushEncryption.GetEncryptedLength(0, -1), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("paddingLength"));
        Assert.That(() => WebPushEncryption.GetMaxDecryptedLength(-1), Throws.TypeOf<ArgumentOutOfRangeException>().With.Property("ParamName").EqualTo("bodyLength"));
    }

    [Test]
    public void NullArgumentsAreNamed()
    {
        var (key, auth, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            Assert.That(() => WebPushEncryption.Encrypt([1], (WebPushSubscriptionKeys)null!), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("subscription"));
            Assert.That(() => new WebPushContent([1], null!, TimeSpan.Zero), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("subscription"));
            Assert.That(() => WebPushSubscriptionKeys.FromBase64Url("x", null!), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("auth"));
            Assert.That(() => WebPushSubscriptionKeys.FromKey(null!, auth), Throws.ArgumentNullException.With.Property("ParamName").EqualTo("userAgentKey"));
        }
    }

    [Test]
    public void AShortDestinationIsRefusedAndLeftZeroed()
    {
        var (key, auth, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            byte[] body = WebPushEncryption.Encrypt(new byte[100], subscription);
            byte[] destination = Enumerable.Repeat((byte)0xAA, WebPushEncryption.GetMaxDecryptedLength(body.Length) - 1).ToArray();
            Assert.That(() => WebPushEncryption.Decrypt(body, destination, key, auth), Throws.ArgumentException.With.Property("ParamName").EqualTo("destination"));
            Assert.That(destination, Is.All.Zero);

            byte[] roomy = new byte[4096];
            Assert.That(WebPushEncryption.Decrypt(body, roomy, key, auth), Is.EqualTo(100), "a larger destination is fine");
        }
    }

    [Test]
    public void TheTimeToLiveLimitsThemselvesAreAccepted()
    {
        var (key, _, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            using (var now = new WebPushContent([1], subscription, TimeSpan.Zero))
            {
                Assert.That(now.Headers.GetValues("TTL").Single(), Is.EqualTo("0"));
            }

            using (var longest = new WebPushContent([1], subscription, TimeSpan.FromSeconds(WebPushContent.MaxTimeToLiveSeconds)))
            {
                Assert.That(longest.Headers.GetValues("TTL").Single(), Is.EqualTo(WebPushContent.MaxTimeToLiveSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture)));
            }

            Assert.That(() => new WebPushContent([1], subscription, TimeSpan.FromSeconds(WebPushContent.MaxTimeToLiveSeconds + 1)), Throws.TypeOf<ArgumentOutOfRangeException>());
            Assert.That(() => new WebPushContent([1], subscription, TimeSpan.FromSeconds(-1)), Throws.TypeOf<ArgumentOutOfRangeException>());
        }
    }

    [Test]
    public void UrgencyAndTopicHeaders()
    {
        var (key, _, subscription) = WebPushTests.NewUserAgent();
        using (key)
        using (var content = new WebPushContent([1], subscription, TimeSpan.FromMinutes(1)))
        {
            foreach ((WebPushUrgency urgency, string name) in new[] { (WebPushUrgency.VeryLow, "very-low"), (WebPushUrgency.Low, "low"), (WebPushUrgency.High, "high") })
            {
                content.Urgency = urgency;
                Assert.That(content.Headers.GetValues("Urgency").Single(), Is.EqualTo(name));
            }

            content.Urgency = WebPushUrgency.Normal;
            Assert.That(content.Headers.Contains("Urgency"), Is.False);

            string longest = new('a', 32);
            content.Topic = longest;
            Assert.That(content.Headers.GetValues("Topic").Single(), Is.EqualTo(longest));
            Assert.That(() => content.Topic = new string('a', 33), Throws.ArgumentException);
            Assert.That(content.Topic, Is.EqualTo(longest), "a refused topic changes nothing");
        }
    }

    [Test]
    public void DisposingTheContentWipesTheBody()
    {
        var (key, _, subscription) = WebPushTests.NewUserAgent();
        using (key)
        {
            var content = new WebPushContent(new byte[100], subscription, TimeSpan.Zero);
            ReadOnlyMemory<byte> body = content.Body;
            Assert.That(body.ToArray().Any(b => b != 0), Is.True);
            content.Dispose();
            Assert.That(body.ToArray(), Is.All.Zero);
        }
    }
}
