#!/usr/bin/env node
// `npm run prune:uws`: deletes the HTTP core's native binaries for other platforms, architectures
// and Node versions from node_modules/uWebSockets.js (it ships 54 of them, 257 MB), keeping the one
// this Node loads (uws_<platform>_<arch>_<ABI>.node). For production installs and images; run it
// again after switching Node versions (or reinstall).
//
//   npm run prune:uws [-- --check]   (--check: say what would be deleted, delete nothing)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from './args.mjs';

const USAGE = 'usage: npm run prune:uws [-- --check]  deletes the uWebSockets.js binaries this Node does not load; --check only lists them';
const args = scriptArgs({ check: { type: 'boolean' } }, USAGE);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'node_modules', 'uWebSockets.js');
const keep = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
if (!fs.existsSync(path.join(dir, keep))) {
  console.error(`prune:uws: ${keep} is not in ${dir}; nothing deleted`);
  process.exit(1);
}
let freed = 0;
let n = 0;
for (const f of fs.readdirSync(dir)) {
  if (!f.endsWith('.node') || f === keep) continue;
  const p = path.join(dir, f);
  freed += fs.statSync(p).size;
  if (!args.check) fs.rmSync(p);
  n++;
}
console.log(`prune:uws: kept ${keep}, ${args.check ? 'would delete' : 'deleted'} ${n} other binaries (${Math.round(freed / 2 ** 20)} MB)`);
