// Every message the Web Push layer raises, in one place. None of them includes key material,
// auth secrets or content: only sizes and what was expected.

using Cryptography.WebPush;

namespace Cryptography.Internal;

internal static class WebPushMessages
{
    public const string PublicKeySize = "The subscription's p256dh key is {0} bytes; it must be the 65-byte uncompressed P-256 point (0x04 || X || Y).";
    public const string PublicKeyNotUncompressed = "The subscription's p256dh key must be an uncompressed P-256 point: its first byte must be 0x04.";
    public const string PublicKeyNotOnCurve = "The subscription's p256dh key is not a point on the P-256 curve.";
    public const string AuthSecretSize = "The auth secret is {0} bytes; RFC 8291 auth secrets are 16 bytes.";
    public const string NotBase64Url = "The {0} value is not valid base64url.";
    public const string NotP256 = "The key must be an elliptic-curve key on P-256 (secp256r1).";
    public const string PrivateKeySize = "The private key is {0} bytes; a P-256 private key (the scalar d) is 32 bytes.";
    public const string NotOnCurve = "The key's public point is not a point on the P-256 curve.";
    public const string PrivateKeyInvalid = "The private key is not a valid P-256 private key.";
    public const string PlaintextTooLong = "The push message ({0} bytes) and its padding ({1} bytes) exceed {2} bytes, the most that fits a 4096-byte push message body (RFC 8291 section 4).";
    public const string BodyTooLong = "The push message body is {0} bytes; push services need not accept more than 4096 (RFC 8030 section 7.2, RFC 8291 section 4).";
    public const string KeyIdSize = "The body's key id is {0} bytes; RFC 8291 puts the application server's 65-byte uncompressed P-256 public key there.";
    public const string KeyIdNotOnCurve = "The body's key id is not an uncompressed point on the P-256 curve, so it is not an application server's public key.";
    public const string MoreThanOneRecord = "The body holds {0} bytes of records, more than its record size of {1}: RFC 8291 section 4 requires a push message to be a single record.";
    public const string NotOpened = "The push message could not be opened: {0} For a push message this means the body was modified, or it was not encrypted for this private key and auth secret.";
    public const string TimeToLiveOutOfRange = "The time to live must be between 0 and {0} seconds.";
    public const string TopicInvalid = "A topic is 1 to 32 characters of the base64url alphabet (RFC 8030 section 5.4).";
    public const string UnknownUrgency = "Unknown urgency.";
    public const string VapidEndpoint = "The endpoint must be an absolute https (or http) URI: its origin is the VAPID token's audience.";
    public const string VapidSubject = "The VAPID subject must be a mailto: or https: URI that reaches the application server's operator (RFC 8292 section 2.1).";
    public const string VapidKeysDoNotMatch = "The VAPID public key is not the public key of the private key given with it.";
    public const string SubscriptionEndpoint = "The subscription's endpoint must be an absolute https (or http) URI.";
    public const string SubscriptionNotAnObject = "A push subscription is a JSON object (PushSubscription.toJSON()).";
    public const string SubscriptionKeysNotAnObject = "A push subscription's keys are a JSON object with p256dh and auth.";
    public const string SubscriptionMissing = "The push subscription has no {0}.";
    public const string SubscriptionNotAString = "The push subscription's {0} must be a JSON string.";
    public const string SubscriptionDuplicate = "The push subscription has {0} more than once.";
    public const string SubscriptionExpirationTime = "The push subscription's expirationTime must be null or a number of milliseconds since 1970.";
    public const string SubscriptionKeys = "The push subscription's keys are not valid: {0}";
    public const string VapidValidity = "A VAPID token must expire within 24 hours (RFC 8292 section 2), and after it is made.";
}
