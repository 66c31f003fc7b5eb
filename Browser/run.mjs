// Serves the published Blazor WebAssembly host on 127.0.0.1 and drives it in Debian's headless
// Chromium through playwright-core (no browser is downloaded: executablePath is the system one).
//
//   node run.mjs test  <wwwroot>            runs the checks; prints "browser tests: N passed, N failed"
//   node run.mjs bench <wwwroot> <out.json> runs the benchmark page; writes its results as JSON
//                                           (BENCH_QUERY="?rounds=3&impl=..." passes options to the page)
//
// The exit code is 0 only when the page printed its summary and nothing failed. A page error, a
// crash or a missing summary within the time limit is a failure.

import { createServer } from 'node:http';
import { readFile, stat, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [mode, root, out] = process.argv.slice(2);
if (!['test', 'bench'].includes(mode) || !root) {
  console.error('usage: node run.mjs test|bench <wwwroot> [out.json]');
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
// @noble/ciphers is plain ES modules with relative imports: served as they are under /noble/.
const mounts = [['/noble/', join(here, 'node_modules/@noble/ciphers')], ['/', resolve(root)]];
const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
  '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png', '.dat': 'application/octet-stream',
  '.pdb': 'application/octet-stream', '.webcil': 'application/octet-stream', '.ico': 'image/x-icon',
};

const server = createServer(async (request, response) => {
  const path = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
  const [prefix, dir] = mounts.find(([p]) => path.startsWith(p));
  let file = normalize(join(dir, path.slice(prefix.length)));
  if (!file.startsWith(dir)) {
    response.writeHead(403).end();
    return;
  }
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
  } catch {
    // Blazor routes (/bench) fall back to the app's page, as a static host configured for it would.
    if (extname(path) !== '') {
      response.writeHead(404).end();
      return;
    }
    file = join(resolve(root), 'index.html');
  }
  response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
  response.end(await readFile(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

const userDataDir = await mkdtemp(join(tmpdir(), 'aesgcmsiv-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

let status = 1;
try {
  const page = context.pages()[0] ?? await context.newPage();
  const lines = [];
  let pageError = null;
  let failBench;
  const benchFailed = new Promise((_, reject) => { failBench = reject; });
  benchFailed.catch(() => {});
  page.on('console', (message) => {
    const text = message.text();
    // Blazor reports an exception the page did not handle as a console error, not a page error.
    if (message.type() === 'error') {
      console.error(`console error: ${text}`);
      if (/unhandled exception/i.test(text)) {
        pageError = new Error(text);
        failBench(pageError);
      }
    }
    lines.push(text);
    // The summary is printed once, below, from the page's element (so a script counts it once).
    if ((mode === 'test' && !text.startsWith('browser tests:')) || text.startsWith('bench')) console.log(text);
  });
  page.on('pageerror', (error) => { pageError = error; console.error(`page error: ${error.message}`); });
  page.on('crash', () => { pageError = new Error('the page crashed'); });

  const browserVersion = context.browser()?.version() ?? 'unknown';
  console.log(`chromium ${browserVersion}, ${base}`);
  const limit = Number(process.env.BROWSER_TIMEOUT_SECONDS ?? (mode === 'test' ? 900 : 3600)) * 1000;
  const started = Date.now();
  await page.goto(`${base}/${mode === 'test' ? '' : `bench${process.env.BENCH_QUERY ?? ''}`}`);
  if (mode === 'test') {
    await page.waitForSelector('#summary', { timeout: limit });
    const summary = (await page.textContent('#summary')).trim();
    const match = /^browser tests: (\d+) passed, (\d+) failed$/.exec(summary);
    console.log(`browser leg: ${((Date.now() - started) / 1000).toFixed(1)} s in the page`);
    console.log(summary);
    status = match && match[2] === '0' && Number(match[1]) > 0 && !pageError ? 0 : 1;
  } else {
    const handle = await Promise.race([page.waitForFunction(() => window.benchResults, null, { timeout: limit, polling: 1000 }), benchFailed]);
    const results = await handle.jsonValue();
    results.browser = `Chromium ${browserVersion}`;
    results.userAgent = await page.evaluate(() => navigator.userAgent);
    await writeFile(out ?? 'bench.json', JSON.stringify(results, null, 2));
    console.log(`bench results written to ${out ?? 'bench.json'}`);
    status = pageError ? 1 : 0;
  }
} catch (error) {
  console.error(`browser leg failed: ${error.message}`);
} finally {
  await context.close();
  server.close();
  await rm(userDataDir, { recursive: true, force: true });
}
process.exit(status);
