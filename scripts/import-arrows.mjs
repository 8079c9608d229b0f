#!/usr/bin/env node
// The import arrows between the code's top-level parts (npm run arrows): for every pair of parts,
// how many import statements point from one to the other, and which arrows go against the layering
// (a lower layer importing a higher one). Parts: the folders under src/ (src/api, src/pool, …),
// src's own files (src/app.ts, …), workers/ and snapshots/. Type-only imports count too: they tie
// the modules together for a reader just the same.
//
// It fails (exit 1) on any of:
// - an arrow against the layering;
// - an import cycle between files (strongly connected files of the import graph);
// - an import between feature folders of src/api (src/api/<feature>/…): a feature imports its own
//   folder, the shared modules directly in src/api, src/api/jsonapi and src/api/schemas, and the layers below.
//   src/api/openapi describes every feature's requests and may import them;
// - an import of a feature folder by the shared kit of src/api (its own files, jsonapi/, schemas/):
//   only the tables that gather the features, routes.ts (the routes) and price-work.ts (the
//   pricing workers' tasks), import them.
//
//   npm run arrows [-- --json]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from './args.mjs';

const USAGE = 'usage: npm run arrows [-- --json]  the import arrows between parts; exit 1 on an upward arrow, a cycle, an import between feature folders or of a feature by the shared kit of src/api';
const args = scriptArgs({ json: { type: 'boolean' } }, USAGE);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Layers from the bottom: a part may import its own layer and those below. */
const LAYERS = [
  ['src/domain', 'src/gc.ts'],
  ['src/storage', 'src/mail', 'src/log.ts', 'src/metrics.ts', 'src/config.ts', 'src/tracing.ts'],
  ['src/import', 'src/auth', 'src/pool'],
  ['src/api'],
  ['src/http'],
  // Entry points: the process (main, app), the pricing workers (they run the API's price
  // documents on the pool's protocol), the command lines.
  ['src/app.ts', 'src/snapshot-swap.ts', 'src/snapshot-cluster.ts', 'src/snapshot-download.ts', 'src/main.ts', 'src/cli', 'snapshots', 'workers'],
];
/** @param {string} part */
const layerOf = (part) => LAYERS.findIndex((l) => l.includes(part));

/** @param {string} file */
function partOf(file) {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const [top, second] = rel.split('/');
  if (top === 'src') return `src/${second}`;
  return top;
}

/**
 * @param {string} dir
 * @returns {string[]}
 */
function files(dir) {
  /** @type {string[]} */
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** @type {Map<string, { from: string; to: string; count: number; files: Set<string> }>} */
const edges = new Map();
/** File → the files it imports (the file graph, for cycles and feature folders). */
/** @type {Map<string, Set<string>>} */
const graph = new Map();
for (const top of ['src', 'workers', 'snapshots']) {
  for (const f of files(path.join(ROOT, top))) {
    const text = fs.readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = path.resolve(path.dirname(f), m[1].replace(/\.js$/, '.ts'));
      if (!fs.existsSync(target)) continue;
      const from = path.relative(ROOT, f);
      const targets = graph.get(from) ?? new Set();
      graph.set(from, targets);
      targets.add(path.relative(ROOT, target));
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

/** Strongly connected groups of more than one file (Tarjan), each sorted. */
function cycles() {
  let next = 0;
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const on = new Set();
  /** @type {string[][]} */
  const out = [];
  /** @param {string} v */
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      /** @type {string[]} */
      const group = [];
      /** @type {string} */
      let w;
      do {
        w = /** @type {string} */ (stack.pop());
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

// jsonapi: the JSON:API plumbing; schemas: the answers' shapes and types (D234), written by the features, described by openapi.
const SHARED_API = new Set(['jsonapi', 'schemas']);
const AGGREGATES_API = new Set(['openapi']);
/** @param {string} file */
const featureOf = (file) => {
  const m = /^src\/api\/([^/]+)\//.exec(file);
  return m === null ? null : m[1];
};
/** @type {string[]} */
const crossFeature = [];
for (const [from, targets] of graph) {
  const a = featureOf(from);
  if (a === null || AGGREGATES_API.has(a)) continue;
  for (const to of targets) {
    const b = featureOf(to);
    if (b !== null && b !== a && !SHARED_API.has(b)) crossFeature.push(`${from} → ${to}`);
  }
}
/** The files of src/api that gather the features. */
const GATHERERS = new Set(['src/api/routes.ts', 'src/api/price-work.ts']);
/** @param {string} file */
const inSharedKit = (file) => /^src\/api\/[^/]+\.ts$/.test(file) || SHARED_API.has(featureOf(file) ?? '');
/** @type {string[]} */
const kitToFeature = [];
for (const [from, targets] of graph) {
  if (!inSharedKit(from) || GATHERERS.has(from)) continue;
  for (const to of targets) {
    const b = featureOf(to);
    if (b !== null && !SHARED_API.has(b)) kitToFeature.push(`${from} → ${to}`);
  }
}
const cycleGroups = cycles();

if (args.json) {
  console.log(JSON.stringify({ arrows: rows.map((e) => ({ ...e, files: [...e.files] })), upward: upward.map((e) => `${e.from} → ${e.to}`), cycles: cycleGroups, crossFeature, kitToFeature }, null, 1));
} else {
  console.log(`${rows.length} arrows between parts, ${rows.reduce((s, e) => s + e.count, 0)} imports:`);
  for (const e of rows) console.log(`  ${e.from} → ${e.to}: ${e.count}`);
  console.log(`\n${upward.length} against the layering (${LAYERS.map((l) => l.join(', ')).join(' < ')}):`);
  for (const e of upward) console.log(`  ${e.from} → ${e.to}: ${[...e.files].join(', ')}`);
  console.log(`\n${cycleGroups.length} import cycles between files:`);
  for (const g of cycleGroups) console.log(`  ${g.join(' ⇄ ')}`);
  console.log(`\n${crossFeature.length} imports between feature folders of src/api:`);
  for (const e of crossFeature) console.log(`  ${e}`);
  console.log(`\n${kitToFeature.length} imports of feature folders by the shared kit of src/api:`);
  for (const e of kitToFeature) console.log(`  ${e}`);
}
if (upward.length > 0 || cycleGroups.length > 0 || crossFeature.length > 0 || kitToFeature.length > 0) process.exitCode = 1;
