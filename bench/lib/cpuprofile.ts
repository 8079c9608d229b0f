/**
 * Summary of .cpuprofile files (node --cpu-prof, e.g. from `npm run bench:http -- --profile <dir>`):
 * the functions with the most self time, and the share of idle / GC / program.
 *
 *   node dist/bench/lib/cpuprofile.js <file.cpuprofile | dir> [--top <n>]
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export function summarize(file: string, top = 15): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i])!;
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const f = n.callFrame;
    const where = f.url ? `${path.relative(process.cwd(), f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]);
  const idle = self.get('(idle)') ?? 0;
  const busy = total - idle;
  const lines = [
    `${path.basename(file)}: ${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy (${((busy / Math.max(1, total)) * 100).toFixed(0)} %)`,
    '  self ms  % busy  function',
  ];
  for (const [k, v] of rows.filter(([k]) => k !== '(idle)').slice(0, top)) {
    lines.push(`  ${(v / 1000).toFixed(1).padStart(7)}  ${((v / Math.max(1, busy)) * 100).toFixed(1).padStart(5)} %  ${k}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const argv = process.argv.slice(2);
  let top = 15;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--top') top = Number(argv[++i]);
    else if (fs.statSync(argv[i]).isDirectory()) {
      for (const f of fs.readdirSync(argv[i]).sort()) if (f.endsWith('.cpuprofile')) files.push(path.join(argv[i], f));
    } else files.push(argv[i]);
  }
  for (const f of files) console.log(summarize(f, top) + '\n');
}
