#!/usr/bin/env node
/**
 * Captures the example answers of the OpenAPI description (D121): runs the compiled service on
 * the test snapshot in process (the sample of the default snapshot plus test/fixtures/stations-extra.jsonl,
 * whose EVSEs the availability examples name), sends every example request
 * (src/api/openapi/examples-runner.ts) and writes src/api/openapi/examples.generated.ts.
 *
 *   npm run openapi:examples      (after a change of an example request or of an answer's shape)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** @param {string} p */
const dist = (p) => import(path.join(ROOT, 'dist', p));

if (process.argv.includes('--help')) {
  console.log('npm run openapi:examples  writes src/api/openapi/examples.generated.ts from the answers of the service (test snapshot, in process)');
  process.exit(0);
}

const { buildSnapshot } = await dist('src/import/default-snapshot.js');
const { openLiveStore } = await dist('src/storage/open.js');
const { createKey } = await dist('src/auth/keys.js');
const { GROUPS } = await dist('src/auth/groups.js');
const { OPERATIONS } = await dist('src/api/openapi/operations.js');
const { runExamples, shorten } = await dist('src/api/openapi/examples-runner.js');
const { startService } = await dist('src/app.js');
const { loadConfig } = await dist('src/config.js');
const { createLogger } = await dist('src/log.js');
const { SignJWT } = await import('jose');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-openapi-'));
const SECRET = 'openapi-examples-secret-0123456789abcdef';
const KEY = 'openapi-examples-key';
try {
  const snapshot = path.join(tmp, 'sample.sqlite');
  buildSnapshot({ out: snapshot, sample: true, progress: false, extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl') });
  const dataDir = path.join(tmp, 'data');
  fs.mkdirSync(dataDir);
  const store = await openLiveStore({ dataDir, databaseUrl: null });
  await createKey(store, { name: 'examples', key: KEY, groups: [...GROUPS] });
  await store.close();
  const config = loadConfig({ DATA_DIR: dataDir, SNAPSHOT: snapshot, LOG_LEVEL: 'warn', WORKERS: '1', JWT_SECRET: SECRET });
  const service = await startService(config, createLogger('warn'), { listen: false, devKeyOnTerminal: false });
  try {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ sub: 'example-user' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(SECRET));
    /** @type {import('../src/api/openapi/examples-runner.js').Send} */
    const send = async (method, url, headers, body) => {
      const r = await service.request({ method, url, headers, body });
      return { status: r.status, contentType: r.headers['content-type'] ?? '', text: r.body.toString('utf8') };
    };
    const results = await runExamples(send, KEY, token, Object.keys(OPERATIONS));
    /** @type {Record<string, { status: number; body: unknown }>} */
    const out = {};
    for (const r of results) {
      if (r.status >= 300) throw new Error(`${r.key}: example answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      if (r.status !== 204) out[r.key] = { status: r.status, body: shorten(r.body) };
    }
    const file = path.join(ROOT, 'src/api/openapi/examples.generated.ts');
    fs.writeFileSync(
      file,
      `/** Example answers of the OpenAPI description, captured by \`npm run openapi:examples\` from the running service; do not edit. */\n` +
        `export const EXAMPLE_RESPONSES: Readonly<Record<string, { status: number; body: unknown }>> = ${JSON.stringify(out, null, 2)};\n`,
    );
    console.log(`${Object.keys(out).length} example answers written to ${path.relative(ROOT, file)}`);
  } finally {
    await service.stop();
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
