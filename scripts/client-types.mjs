#!/usr/bin/env node
/**
 * Writes TypeScript types of the API (D234) with openapi-typescript, from the description the
 * compiled service builds (every optional route on: accounts, availability feeds, metrics).
 *
 *   npm run client:types [-- --out <file>]      (default client/api.d.ts)
 *
 * Against a running service: npx openapi-typescript http://127.0.0.1:8080/openapi.json -o api.d.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run client:types [-- --out <file>]  writes the API\'s TypeScript types (openapi-typescript) from /openapi.json of the compiled service';
/** @type {{ out: string; help?: boolean }} */
let values;
try {
  values = /** @type {any} */ (parseArgs({ options: { out: { type: 'string', default: path.join(ROOT, 'client/api.d.ts') }, help: { type: 'boolean' } } }).values);
} catch (e) {
  console.error(`${/** @type {Error} */ (e).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
/** @param {string} p */
const dist = (p) => import(path.join(ROOT, 'dist', p));

/** The description the service serves, built by starting it in process on an empty data directory. */
async function serviceDescription() {
  const { startService } = await dist('src/app.js');
  const { loadConfig } = await dist('src/config.js');
  const { createLogger } = await dist('src/log.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-client-types-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKERS: '0', JWT_SECRET: 'client-types-secret-0123456789abcdef', PRINT_DEV_KEY: '0' });
    const service = await startService(config, createLogger('warn'), { listen: false, devKeyOnTerminal: false });
    try {
      const r = await service.request({ method: 'GET', url: '/openapi.json', headers: {} });
      return JSON.parse(r.body.toString('utf8'));
    } finally {
      await service.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const doc = await serviceDescription();
const types = astToString(await openapiTS(doc));
fs.mkdirSync(path.dirname(values.out), { recursive: true });
fs.writeFileSync(values.out, `/** Types of the Charging Price Service API ${doc.info.version}, written by \`npm run client:types\` (openapi-typescript); do not edit. */\n${types}`);
console.log(`${values.out}: ${types.split('\n').length} lines of types for ${Object.keys(doc.paths).length} paths`);
