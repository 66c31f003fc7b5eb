// The other side of Tests/WebPush/WebPushInteropTests.cs: independent Web Push code from npm.
//   node interop.js encrypt   reads {p256dh, auth, plaintext, ttl} and builds a push request with
//                             web-push's generateRequestDetails (aes128gcm), printing {headers, body};
//   node interop.js decrypt   reads {privateKey, auth, body} and opens the body as a user agent
//                             would with http_ece (the library web-push itself builds on), printing {plaintext};
//   node interop.js vapid-verify  reads {authorization, audience} and checks an RFC 8292 header:
//                             the JWT's ES256 signature under the k= key with node's crypto, and its claims;
//   node interop.js origin    reads {endpoints} and prints, for each, {origin} as new URL(endpoint).origin
//                             gives it (as browsers do) and {webPush}: the aud of web-push's own VAPID token.
// Input is one JSON object on stdin; binary values are base64url. Errors go to stderr, exit code 1.
'use strict';
const crypto = require('crypto');
const webpush = require('web-push');
const ece = require('http_ece');

const b64u = (value) => Buffer.from(value, 'base64url');

function encrypt(input) {
  const details = webpush.generateRequestDetails(
    { endpoint: 'https://push.example.net/push/interop', keys: { p256dh: input.p256dh, auth: input.auth } },
    b64u(input.plaintext),
    { TTL: input.ttl, contentEncoding: 'aes128gcm' });
  return { headers: details.headers, body: Buffer.from(details.body).toString('base64url') };
}

function decrypt(input) {
  const receiver = crypto.createECDH('prime256v1');
  receiver.setPrivateKey(b64u(input.privateKey));
  const plaintext = ece.decrypt(b64u(input.body), { version: 'aes128gcm', privateKey: receiver, authSecret: input.auth });
  return { plaintext: plaintext.toString('base64url') };
}

function vapidVerify(input) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(input.authorization);
  if (!match) throw new Error('not a "vapid t=..., k=..." header: ' + input.authorization);
  const [header, claims, signature] = match[1].split('.');
  const point = b64u(match[2]);
  const key = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const valid = crypto.verify('sha256', Buffer.from(header + '.' + claims), { key, dsaEncoding: 'ieee-p1363' }, b64u(signature));
  return { valid, header: JSON.parse(b64u(header)), claims: JSON.parse(b64u(claims)) };
}

function origin(input) {
  const keys = webpush.generateVAPIDKeys();
  return input.endpoints.map((endpoint) => {
    const details = webpush.generateRequestDetails(
      { endpoint, keys: { p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4', auth: 'BTBZMqHH6r4Tts7J_aSIgg' } },
      null,
      { vapidDetails: { subject: 'mailto:ops@example.com', publicKey: keys.publicKey, privateKey: keys.privateKey } });
    const token = /^vapid t=([^,\s]+),/.exec(details.headers.Authorization)[1];
    return { origin: new URL(endpoint).origin, webPush: JSON.parse(b64u(token.split('.')[1])).aud };
  });
}

const commands = { encrypt, decrypt, 'vapid-verify': vapidVerify, origin };
const command = commands[process.argv[2]];
if (!command) {
  process.stderr.write('usage: node interop.js encrypt|decrypt|vapid-verify|origin < input.json\n');
  process.exit(2);
}

let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => {
  try {
    process.stdout.write(JSON.stringify(command(JSON.parse(text))) + '\n');
  } catch (error) {
    process.stderr.write(String(error && error.stack || error) + '\n');
    process.exit(1);
  }
});
