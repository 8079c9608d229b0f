/**
 * The README's shell examples work as pasted (D252): every `sh` block that calls curl runs in
 * bash, as written, against the service on the default snapshot (the one `npm start` builds), with
 * only the address, the development key and the data directory filled in. Each curl must answer
 * 2xx, and a list it answers must not be empty (a route polyline far from the data prices nothing).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { ROOT, freshDataDir, startTestServer, type TestServer, freePort } from '../helpers/server.js';

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The README's `sh` blocks (also those indented in a list), dedented, that call curl. */
export function curlBlocks(readme: string): string[] {
  const out: string[] = [];
  for (const m of readme.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)) {
    const indent = m[1].length;
    const text = m[2]
      .split('\n')
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join('\n');
    if (/^\s*curl /m.test(text) || /\ncurl /.test(text)) out.push(text);
  }
  return out;
}

const MARK = /\n?@@(\d{3})@@\n/;

describe.runIf(hasCurl)('README examples (D252)', () => {
  let srv: TestServer;
  let cwd: string;
  const blocks = curlBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));

  beforeAll(async () => {
    const dir = freshDataDir();
    const snapshot = path.join(dir, 'default.sqlite');
    buildSnapshot({ out: snapshot, progress: false });
    const port = await freePort();
    srv = await startTestServer({ env: { SNAPSHOT: snapshot, PORT: String(port), PRINT_DEV_KEY: '0' } });
    cwd = freshDataDir();
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('finds the examples: health, companies, area and route prices, price profiles, accounts, GeoJSON and CSV', () => {
    const all = blocks.join('\n');
    for (const what of ['/health', '/v1/companies', '/v1/charge_prices/area', '/v1/charge_prices/route', '/v1/price_profiles', '/v1/users', '/v1/authenticate', 'geo+json', 'text/csv']) {
      expect(all, what).toContain(what);
    }
  });

  it('runs every curl example as pasted, in order in one shell: 2xx answers, and lists with items', () => {
    expect(srv.devKey).toMatch(/^cps_/);
    const all = blocks.join('\n');
    const curls = (all.match(/\bcurl -s /g) ?? []).length;
    const script =
      // The checkout's npm scripts (keys, outbox) from a scratch directory (files the examples write go there).
      `npm() { command npm --prefix ${JSON.stringify(ROOT)} "$@"; }\n` +
      all
        .replaceAll('cps_…', srv.devKey)
        .replace(/(?:http:\/\/127\.0\.0\.1|localhost):8080/g, `http://127.0.0.1:${srv.port}`)
        // Each answer's status after its body, to check it.
        .replace(/\bcurl -s /g, "curl -s -w '\\n@@%{http_code}@@\\n' ");
    let out: string;
    try {
      out = execFileSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: cwd, DATA_DIR: srv.dataDir }, timeout: 120_000 }).toString();
    } catch (e) {
      const x = e as { status: number; stdout?: Buffer; stderr?: Buffer };
      throw new Error(`exit ${x.status}:\n${String(x.stdout ?? '').slice(-1500)}\n${String(x.stderr ?? '').slice(-800)}`);
    }
    const parts = out.split(MARK);
    const answers: [string, string][] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) answers.push([parts[i + 1], parts[i]]);
    expect(answers.length).toBe(curls);
    for (const [status, body] of answers) {
      expect(status, body.slice(0, 500)).toMatch(/^2\d\d$/);
      if (!body.trimStart().startsWith('{')) continue;
      const doc = JSON.parse(body) as { data?: unknown; features?: unknown[] };
      if (Array.isArray(doc.data)) expect(doc.data.length, body.slice(0, 300)).toBeGreaterThan(0);
      if (Array.isArray(doc.features)) expect(doc.features.length, body.slice(0, 300)).toBeGreaterThan(0);
    }
  }, 240_000);
});
