// Opens pages of the built documentation site in headless Chromium, as a reader would, from
// file:// (no server): fails on any console error, uncaught page error or failed local request,
// and writes a screenshot of each page. Run by scripts/check-docs.sh; usage:
//
//   node check.mjs SITE_DIR SCREENSHOT_DIR PAGE.html...
//
// Chromium is Debian's /usr/bin/chromium (or $CHROMIUM), started with a fresh profile and without
// anything that reaches the network on its own.

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [siteDir, screenshotDir, ...pages] = process.argv.slice(2);
if (!siteDir || !screenshotDir || pages.length === 0) {
  console.error('usage: node check.mjs SITE_DIR SCREENSHOT_DIR PAGE.html...');
  process.exit(2);
}

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

let failures = 0;
try {
  for (const name of pages) {
    const file = path.resolve(siteDir, name);
    if (!existsSync(file)) {
      console.error(`FAIL ${name}: no such page in ${siteDir}`);
      failures++;
      continue;
    }

    const problems = [];
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed to load ${request.url()}: ${request.failure()?.errorText}`));

    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    // Doxygen builds the navigation tree and the search box from scripts after load.
    await page.waitForSelector('#nav-tree-contents li', { timeout: 10000 }).catch(() => problems.push('navigation tree did not appear'));
    await page.waitForTimeout(300);

    const title = (await page.locator('.title').first().textContent().catch(() => ''))?.trim();
    if (!title) problems.push('page has no title');

    const shot = path.join(screenshotDir, name.replace(/\.html$/, '.png'));
    await page.screenshot({ path: shot });
    await page.close();

    if (problems.length) {
      failures++;
      console.error(`FAIL ${name} (${title}):\n  ${problems.join('\n  ')}`);
    } else {
      console.log(`ok   ${name} (${title}) -> ${shot}`);
    }
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

console.log(`${pages.length - failures} pages ok, ${failures} failed`);
process.exit(failures ? 1 : 0);
