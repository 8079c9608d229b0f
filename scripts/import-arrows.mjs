#!/usr/bin/env node
// The import arrows between the code's top-level parts (npm run arrows): for every pair of parts,
// how many import statements point from one to the other, and which arrows go against the layering
// (a lower layer importing a higher one). Parts: the folders under src/ (src/api, src/pool, …),
// src's own files (src/app.ts, …), workers/ and snapshots/. Type-only imports count too: they tie
// the modules together for a reader just the same.
//
//   npm run arrows [-- --json]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Layers from the bottom: a part may import its own layer and those below. */
const LAYERS = [
  ['src/domain', 'src/gc.ts'],
  ['src/storage', 'src/log.ts', 'src/metrics.ts', 'src/config.ts'],
  ['src/import', 'src/auth', 'src/pool'],
  ['src/api'],
  ['src/http'],
  // Entry points: the process (main, app), the pricing workers (they run the API's price
  // documents on the pool's protocol), the command lines.
  ['src/app.ts', 'src/snapshot-swap.ts', 'src/main.ts', 'src/cli', 'snapshots', 'workers'],
];
const layerOf = (part) => LAYERS.findIndex((l) => l.includes(part));

function partOf(file) {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const [top, second] = rel.split('/');
  if (top === 'src') return second.endsWith('.ts') ? `src/${second}` : `src/${second}`;
  return top;
}

function files(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const edges = new Map();
for (const top of ['src', 'workers', 'snapshots']) {
  for (const f of files(path.join(ROOT, top))) {
    const text = fs.readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = path.resolve(path.dirname(f), m[1].replace(/\.js$/, '.ts'));
      if (!fs.existsSync(target)) continue;
      const a = partOf(f);
      const b = partOf(target);
      if (a === b) continue;
      const k = `${a} → ${b}`;
      const e = edges.get(k) ?? { from: a, to: b, count: 0, files: new Set() };
      e.count++;
      e.files.add(path.relative(ROOT, f));
      edges.set(k, e);
    }
  }
}
const rows = [...edges.values()].sort((x, y) => x.from.localeCompare(y.from) || x.to.localeCompare(y.to));
const upward = rows.filter((e) => layerOf(e.from) !== -1 && layerOf(e.to) !== -1 && layerOf(e.to) > layerOf(e.from));
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ arrows: rows.map((e) => ({ ...e, files: [...e.files] })), upward: upward.map((e) => `${e.from} → ${e.to}`) }, null, 1));
} else {
  console.log(`${rows.length} arrows between parts, ${rows.reduce((s, e) => s + e.count, 0)} imports:`);
  for (const e of rows) console.log(`  ${e.from} → ${e.to}: ${e.count}`);
  console.log(`\n${upward.length} against the layering (${LAYERS.map((l) => l.join(', ')).join(' < ')}):`);
  for (const e of upward) console.log(`  ${e.from} → ${e.to}: ${[...e.files].join(', ')}`);
}
