/** The service's version (package.json), for the OpenAPI description and the docs page's cache tag. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function packageVersion(): string {
  // src/version.ts (tests, tsx) and dist/src/version.js (compiled) sit at different depths.
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const f = path.join(dir, 'package.json');
    if (fs.existsSync(f)) return (JSON.parse(fs.readFileSync(f, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

export const SERVICE_VERSION: string = packageVersion();
