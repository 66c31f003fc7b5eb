// A tour of AesGcmSiv in one screen: encrypt, decrypt, what a repeated nonce does and does not
// reveal, and what a tampered message does.

using System;
using System.Security.Cryptography;
using System.Text;
using Cryptography;

Console.WriteLine($"AES-GCM-SIV (RFC 8452) on .NET {Environment.Version}, backend: {AesGcmSiv.ActiveBackend}");

byte[] key = RandomNumberGenerator.GetBytes(32);        // AES-256-GCM-SIV; 16 bytes gives AES-128
byte[] nonce = RandomNumberGenerator.GetBytes(12);
byte[] associatedData = Encoding.UTF8.GetBytes("invoice 42");
byte[] plaintext = Encoding.UTF8.GetBytes("Pay 100 EUR to Alice");

using var aead = new AesGcmSiv(key);
byte[] ciphertext = new byte[plaintext.Length];
byte[] tag = new byte[16];
aead.Encrypt(nonce, plaintext, ciphertext, tag, associatedData);
Console.WriteLine($"ciphertext: {Convert.ToHexStringLower(ciphertext)}");
Console.WriteLine($"tag:        {Convert.ToHexStringLower(tag)}");

byte[] decrypted = new byte[ciphertext.Length];
aead.Decrypt(nonce, ciphertext, tag, decrypted, associatedData);
Console.WriteLine($"decrypted:  {Encoding.UTF8.GetString(decrypted)}");

// The same nonce again: an equal message gives an equal ciphertext (that is all it reveals),
// a different message gives an unrelated one. With AES-GCM this would leak the XOR of the two.
byte[] again = new byte[plaintext.Length];
aead.Encrypt(nonce, plaintext, again, new byte[16], associatedData);
byte[] other = Encoding.UTF8.GetBytes("Pay 900 EUR to Mallo");
byte[] otherCiphertext = new byte[other.Length];
aead.Encrypt(nonce, other, otherCiphertext, new byte[16], associatedData);
Console.WriteLine($"same nonce, same message:      ciphertexts equal: {again.AsSpan().SequenceEqual(ciphertext)}");
Console.WriteLine($"same nonce, different message: {Convert.ToHexStringLower(otherCiphertext)} (unrelated)");

ciphertext[0] ^= 1;
try
{
    aead.Decrypt(nonce, ciphertext, tag, decrypted, associatedData);
}
catch (AuthenticationTagMismatchException)
{
    Console.WriteLine($"tampered message rejected; plaintext buffer wiped: {Array.TrueForAll(decrypted, b => b == 0)}");
}

// Random nonces without handling them: Seal puts a fresh one in front of the message.
byte[] sealedMessage = aead.Seal(plaintext, associatedData);
Console.WriteLine($"sealed ({sealedMessage.Length} bytes = 12 nonce + {plaintext.Length} ciphertext + 16 tag), opened: {Encoding.UTF8.GetString(aead.Open(sealedMessage, associatedData))}");

// A guard around .NET's AesGcm: the second message under the same nonce is refused before any
// output is written (with bare AesGcm it would leak the XOR of the two plaintexts).
using var guarded = new GuardedAesGcm(RandomNumberGenerator.GetBytes(16), tagSizeInBytes: 16);
guarded.Encrypt(nonce, plaintext, new byte[plaintext.Length], new byte[16]);
try
{
    guarded.Encrypt(nonce, other, new byte[other.Length], new byte[16]);
}
catch (NonceReuseException refusal)
{
    Console.WriteLine($"guard: {refusal.Message}");
}
