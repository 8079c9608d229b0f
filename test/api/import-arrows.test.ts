/**
 * `npm run arrows` (scripts/import-arrows.mjs) on small trees of its own: the shared kit of
 * src/api (its own files, jsonapi/, schemas/) imports no feature folder, except the tables that
 * gather them (routes.ts, price-work.ts); features import no other feature.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

/** Runs the script in a tree of the given files (path → text); its exit code and output. */
function arrows(files: Record<string, string>): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'arrows-'));
  for (const f of ['scripts/import-arrows.mjs', 'scripts/args.mjs']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  for (const dirName of ['src', 'workers', 'snapshots']) fs.mkdirSync(path.join(dir, dirName), { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts/import-arrows.mjs')], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

const FEATURE = { 'src/api/admin/control.ts': 'export interface Control { run(): void }\n' };

describe('npm run arrows', () => {
  it('refuses a shared module of src/api that imports a feature, a type included', () => {
    const r = arrows({ ...FEATURE, 'src/api/context.ts': "import type { Control } from './admin/control.js';\nexport type C = Control;\n" });
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/1 imports of feature folders by the shared kit of src\/api:\s+src\/api\/context\.ts → src\/api\/admin\/control\.ts/);
    const kit = arrows({ ...FEATURE, 'src/api/jsonapi/errors.ts': "import type { Control } from '../admin/control.js';\nexport type C = Control;\n" });
    expect(kit.status).toBe(1);
  });

  it('lets the route table gather the features, and a feature use the shared kit', () => {
    const r = arrows({
      ...FEATURE,
      'src/api/routes.ts': "import type { Control } from './admin/control.js';\nexport type C = Control;\n",
      'src/api/context.ts': 'export interface Context { version: string }\n',
      'src/api/stations/stations.handler.ts': "import type { Context } from '../context.js';\nexport type S = Context;\n",
    });
    expect(r.out).toContain('0 imports of feature folders by the shared kit of src/api');
    expect(r.status).toBe(0);
  });
});
