// Opens pages of the built DocFX site in headless Chromium, as a reader would, and uses the
// site's own search box. Run by scripts/check-docs.sh, which serves _site/ on 127.0.0.1 (the
// modern template loads its navigation and its search index with fetch and a web worker, which
// do not work from file://). Usage:
//
//   node check.mjs BASE_URL SCREENSHOT_DIR CLASS_PAGE PAGE.html...
//
// Every PAGE (relative to BASE_URL) must load with no console error, no uncaught script error,
// no failed request and no request that leaves 127.0.0.1, show a title (the article's h1) and a
// filled-in navigation bar; a screenshot of each goes to SCREENSHOT_DIR. Then the start page's
// search box is given "AesGcmSiv": the results must list CLASS_PAGE (the AesGcmSiv class page, as
// DocFX's xrefmap.yml names it), and a screenshot of the results is kept too.
//
// Chromium is Debian's /usr/bin/chromium (or $CHROMIUM), started with a fresh profile and without
// anything that reaches the network on its own.

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [baseArg, screenshotDir, classPage, ...pages] = process.argv.slice(2);
if (!baseArg || !screenshotDir || !classPage || pages.length === 0) {
  console.error('usage: node check.mjs BASE_URL SCREENSHOT_DIR CLASS_PAGE PAGE.html...');
  process.exit(2);
}
const base = new URL(baseArg.endsWith('/') ? baseArg : baseArg + '/');

mkdirSync(screenshotDir, { recursive: true });
const profile = mkdtempSync(path.join(tmpdir(), 'docs-check-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
  ],
});

// A page of this site must work offline: anything not served by the local server is refused
// and reported.
await context.route('**/*', (route) => {
  const url = new URL(route.request().url());
  if (url.origin === base.origin || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
  return route.abort('blockedbyclient');
});

function shotName(name) {
  return name.replace(/\.html$/, '').replace(/[\/\\]/g, '_') + '.png';
}

function watch(page, problems) {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed to load ${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
  });
}

let failures = 0;
try {
  for (const name of pages) {
    const problems = [];
    const page = await context.newPage();
    watch(page, problems);
    const response = await page.goto(new URL(name, base).href, { waitUntil: 'networkidle' });
    if (!response || !response.ok()) problems.push(`no such page (HTTP ${response?.status()})`);

    // The modern template fills the navigation bar from toc.json after load.
    await page.waitForSelector('#navbar a', { timeout: 10000 }).catch(() => problems.push('navigation bar did not appear'));
    const title = (await page.locator('article h1').first().textContent({ timeout: 5000 }).catch(() => ''))?.trim();
    if (!title) problems.push('page has no title (article h1)');

    const shot = path.join(screenshotDir, shotName(name));
    await page.screenshot({ path: shot });
    await page.close();

    if (problems.length) {
      failures++;
      console.error(`FAIL ${name} (${title}):\n  ${problems.join('\n  ')}`);
    } else {
      console.log(`ok   ${name} (${title}) -> ${shot}`);
    }
  }

  // The site's search, as a reader uses it: type into the box on the start page, read the list.
  {
    const problems = [];
    const page = await context.newPage();
    watch(page, problems);
    await page.goto(new URL('index.html', base).href, { waitUntil: 'networkidle' });
    const box = page.locator('#search-query');
    // The box is enabled once the search worker has loaded index.json.
    await page.waitForSelector('#search-query:not([disabled])', { timeout: 20000 }).catch(() => problems.push('search box never became usable (index not loaded)'));
    await box.fill('AesGcmSiv');
    await page.waitForSelector('#search-results .sr-item', { timeout: 10000 }).catch(() => problems.push('no search results appeared'));
    const hrefs = await page.locator('#search-results .sr-item .item-title a').evaluateAll((links) => links.map((a) => a.href));
    const titles = await page.locator('#search-results .sr-item .item-title').allTextContents();
    const want = new URL(classPage, base);
    const rank = hrefs.findIndex((href) => new URL(href).pathname === want.pathname);
    const shot = path.join(screenshotDir, 'search-AesGcmSiv.png');
    await page.screenshot({ path: shot });
    await page.close();
    if (rank < 0) problems.push(`the results do not list ${classPage}; they list: ${titles.map((t) => t.trim()).join(' | ') || '(nothing)'}`);
    if (problems.length) {
      failures++;
      console.error(`FAIL search "AesGcmSiv":\n  ${problems.join('\n  ')}`);
    } else {
      console.log(`ok   search "AesGcmSiv": ${hrefs.length} results on the first page, ${classPage} is result ${rank + 1} (${titles[rank].trim()}) -> ${shot}`);
    }
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

const total = pages.length + 1;
console.log(`${total - failures} pages ok, ${failures} failed (${pages.length} pages and the search)`);
process.exit(failures ? 1 : 0);
