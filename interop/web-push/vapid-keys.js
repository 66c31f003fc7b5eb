// The npm web-push package's VAPID key strings against VapidKeyPair (Tests/WebPush/WebPushInteropTests.cs,
// issue 50 item 2). Reads one JSON object on stdin, writes one on stdout; errors to stderr, exit code 1.
//   node vapid-keys.js generate  prints {publicKey, privateKey} from webpush.generateVAPIDKeys();
//   node vapid-keys.js sign      reads {publicKey, privateKey, audience} (strings made by VapidKeyPair) and
//                                prints {authorization}: the header web-push's getVapidHeaders signs with them
//                                (web-push checks the strings' form: 65 and 32 bytes of base64url).
'use strict';
const webpush = require('web-push');

const commands = {
  generate: () => webpush.generateVAPIDKeys(),
  sign: (input) => ({
    authorization: webpush.getVapidHeaders(input.audience, 'mailto:ops@example.com', input.publicKey, input.privateKey, 'aes128gcm').Authorization,
  }),
};
const command = commands[process.argv[2]];
if (!command) {
  process.stderr.write('usage: node vapid-keys.js generate|sign < input.json\n');
  process.exit(2);
}

let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => {
  try {
    process.stdout.write(JSON.stringify(command(JSON.parse(text || '{}'))) + '\n');
  } catch (error) {
    process.stderr.write(String(error && error.stack || error) + '\n');
    process.exit(1);
  }
});
