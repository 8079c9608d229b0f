/**
 * `npm run test:browser`: the docs page (D121) in a real browser. Debian's chromium, driven by
 * puppeteer-core, opens /docs of the running service (nothing fetched from anywhere else: requests
 * to other hosts are refused and counted), finds every operation of /openapi.json rendered, and
 * saves a screenshot (BROWSER_SCREENSHOT, default test-results/docs.png).
 *
 * Chromium: CHROMIUM_PATH, else /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it).
 */
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, call, startTestServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOT = process.env.BROWSER_SCREENSHOT ?? path.join(ROOT, 'test-results/docs.png');

describe('docs page in chromium', () => {
  let srv: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
    srv = await startTestServer();
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Root in CI containers needs --no-sandbox; the page is our own.
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('renders every operation of the description from self-hosted files, and saves a screenshot', async () => {
    const doc = (await call(srv, 'GET', '/openapi.json')).json;
    const expected: string[] = [];
    for (const [p, item] of Object.entries<Record<string, unknown>>(doc.paths)) for (const m of Object.keys(item)) expected.push(`${m.toUpperCase()} ${p}`);

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const foreign: string[] = [];
    const failed: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.url().startsWith(srv.url) || req.url().startsWith('data:')) void req.continue();
      else {
        foreign.push(req.url());
        void req.abort();
      }
    });
    page.on('requestfailed', (req) => failed.push(req.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    const res = await page.goto(`${srv.url}/docs`, { waitUntil: 'networkidle0', timeout: 60_000 });
    expect(res?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    await page.waitForFunction((n: number) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('.opblock').length >= n, { timeout: 30_000 }, expected.length);
    const rendered = await page.$$eval('.opblock', (els) =>
      els.map((el) => `${el.querySelector('.opblock-summary-method')?.textContent?.trim()} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    expect([...rendered].sort()).toEqual([...expected].sort());
    expect(await page.$eval('.info .title', (el) => el.textContent)).toContain('Charging Price Service');
    expect(foreign).toEqual([]);
    expect(failed.filter((u) => !foreign.includes(u))).toEqual([]);
    expect(errors).toEqual([]);

    fs.mkdirSync(path.dirname(SHOT), { recursive: true });
    await page.screenshot({ path: SHOT as `${string}.png`, fullPage: false });
    expect(fs.statSync(SHOT).size).toBeGreaterThan(10_000);
  });
});
