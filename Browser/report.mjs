// Turns the browser benchmark's JSON (Browser/run.mjs bench) into the markdown report:
//   node report.mjs <results.json> <commit> <cpu> [title]   (scripts/browser-benchmark.sh passes them)
// Every number comes from the JSON; nothing is typed in here.
import { readFileSync } from 'node:fs';

const [file, commit, cpu] = process.argv.slice(2);
const r = JSON.parse(readFileSync(file, 'utf8'));
const names = { AesGcmSiv: `this library (${r.activeBackend})`, 'AesGcmSiv/Portable': 'this library, Portable backend', BouncyCastle: `BouncyCastle ${r.bouncyCastleVersion ?? ''} GcmSiv`.replace('  ', ' '), noble: '@noble/ciphers gcmsiv (JS)', webcrypto: 'WebCrypto AES-GCM (native, another algorithm)' };
const implementations = [...new Set(r.cells.map((c) => c.implementation))];
const cell = (impl, bits, size, op) => r.cells.find((c) => c.implementation === impl && c.keyBits === bits && c.size === size && c.operation === op);
const ns = (v) => (v === undefined ? 'n/a' : Math.round(v).toLocaleString('en-US'));
const ratio = (a, b) => (a && b ? (a.medianNs / b.medianNs).toFixed(2) : 'n/a');
const label = (size) => (size >= 1024 && size % 1024 === 0 ? `${size / 1024} KiB` : `${size} B`);

const lines = [];
lines.push('# Browser benchmark: AES-GCM-SIV in Blazor WebAssembly');
lines.push('');
lines.push('Written by `scripts/browser-benchmark.sh` (Browser/BrowserHost/BenchRunner.cs, Browser/run.mjs, Browser/report.mjs); do not edit by hand.');
lines.push('');
lines.push(`- Browser: ${r.browser} (headless, Debian's chromium), user agent \`${r.userAgent}\``);
lines.push(`- .NET runtime: ${r.runtime} on ${r.os}/${r.architecture} (interpreter and jiterpreter; no WebAssembly AOT), Vector128 accelerated: ${r.vector128Accelerated}, PackedSimd: ${r.packedSimd}`);
lines.push(`- This library's backend in the browser: \`${r.activeBackend}\``);
lines.push(`- Peers: ${r.peers}`);
lines.push(`- CPU: ${cpu}`);
lines.push(`- Commit: ${commit}`);
lines.push(`- Method: ${r.rounds} interleaved rounds over every cell (each cell a batch calibrated to at least ${r.targetMilliseconds} ms), median ns per call, one page, one Chromium session; empty associated data; a fresh cipher state per message for the peers whose API takes the nonce at set-up (BouncyCastle Init, noble gcmsiv(key, nonce)), one AesGcmSiv instance per key for this library and one imported CryptoKey for WebCrypto.`);
lines.push('- The machine is shared (2 cores, other builds running): absolute times move between runs; compare within one run.');
lines.push('');
for (const bits of [128, 256]) {
  lines.push(`## AES-${bits}, median ns per call`);
  lines.push('');
  lines.push(`| size, op | ${implementations.map((i) => names[i] ?? i).join(' | ')} | ours / noble | ours / BouncyCastle |`);
  lines.push(`|---|${implementations.map(() => '---:').join('|')}|---:|---:|`);
  for (const size of [...new Set(r.cells.map((c) => c.size))]) {
    for (const op of ['encrypt', 'decrypt']) {
      const ours = cell('AesGcmSiv', bits, size, op);
      lines.push(`| ${label(size)} ${op.slice(0, 3)} | ${implementations.map((i) => ns(cell(i, bits, size, op)?.medianNs)).join(' | ')} | ${ratio(ours, cell('noble', bits, size, op))} | ${ratio(ours, cell('BouncyCastle', bits, size, op))} |`);
    }
  }
  lines.push('');
}
if (r.profile?.length) {
  lines.push('## Where the time goes: each step alone, median ns per call');
  lines.push('');
  lines.push('Browser/BrowserHost/ProfileRunner.cs, same session, interleaved rounds. The fixed cost of a message is key derivation, one key expansion (the message-encryption key), POLYVAL set-up and the tag block; CTR and POLYVAL are the cost per byte.');
  lines.push('');
  lines.push('| step | key | bytes | ns |');
  lines.push('|---|---|---:|---:|');
  for (const p of r.profile) lines.push(`| ${p.step} | ${p.keyBits ? `AES-${p.keyBits}` : '-'} | ${p.bytes} | ${ns(p.medianNs)} |`);
  lines.push('');
}
process.stdout.write(lines.join('\n'));
