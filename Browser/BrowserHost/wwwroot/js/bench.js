// The JavaScript peers of the browser benchmark (Browser/BrowserHost/BenchRunner.cs drives them):
// @noble/ciphers' gcmsiv (served from npm's node_modules under /noble/ by Browser/run.mjs) and
// WebCrypto AES-GCM (native, another algorithm: the browser's ceiling). Each call times a batch
// inside JavaScript, so the .NET-to-JS interop is paid once per batch, not per message.
const noble = await import('/noble/aes.js').catch(() => null);

function randomBytes(n) {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(n, i + 65536)));
  return bytes;
}

const prepared = new Map();

async function prepare(peer, keySize, size) {
  const id = `${peer}/${keySize}/${size}`;
  if (prepared.has(id)) return prepared.get(id);
  const key = randomBytes(keySize), nonce = randomBytes(12), message = randomBytes(size);
  let state;
  if (peer === 'noble') {
    state = { key, nonce, message, sealed: noble.gcmsiv(key, nonce).encrypt(message) };
  } else {
    const cryptoKey = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
    state = { cryptoKey, nonce, message, sealed: new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, cryptoKey, message)) };
  }
  prepared.set(id, state);
  return state;
}

// Returns the batch's elapsed milliseconds (performance.now()).
export async function run(peer, keySize, size, op, iterations) {
  if (peer === 'noble' && !noble) throw new Error('@noble/ciphers was not served at /noble/aes.js');
  const s = await prepare(peer, keySize, size);
  let sink = 0;
  const start = performance.now();
  if (peer === 'noble') {
    if (op === 'encrypt') {
      for (let i = 0; i < iterations; i++) sink ^= noble.gcmsiv(s.key, s.nonce).encrypt(s.message)[0];
    } else {
      for (let i = 0; i < iterations; i++) sink ^= noble.gcmsiv(s.key, s.nonce).decrypt(s.sealed).length;
    }
  } else {
    const params = { name: 'AES-GCM', iv: s.nonce };
    if (op === 'encrypt') {
      for (let i = 0; i < iterations; i++) sink ^= (await crypto.subtle.encrypt(params, s.cryptoKey, s.message)).byteLength;
    } else {
      for (let i = 0; i < iterations; i++) sink ^= (await crypto.subtle.decrypt(params, s.cryptoKey, s.sealed)).byteLength;
    }
  }
  const elapsed = performance.now() - start;
  globalThis.benchSink = sink;
  return elapsed;
}

export function nobleVersion() {
  return noble ? 'available' : 'missing';
}

export function publish(results) {
  window.benchResults = JSON.parse(results);
}
