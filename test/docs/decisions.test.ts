// Every decision number the code cites (D1…) is written down in docs/decisions.md, so a comment
// never points at a decision nobody can read.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function defined(): Set<number> {
  const text = readFileSync(join(root, 'docs', 'decisions.md'), 'utf8');
  const numbers = new Set<number>();
  for (const m of text.matchAll(/^\*\*D(\d+)\./gm)) numbers.add(Number(m[1]));
  return numbers;
}

describe('docs/decisions.md', () => {
  it('defines decisions D1 to D92 once each, in order', () => {
    const text = readFileSync(join(root, 'docs', 'decisions.md'), 'utf8');
    const heads = [...text.matchAll(/^\*\*D(\d+)\./gm)].map((m) => Number(m[1]));
    expect(heads.length).toBe(new Set(heads).size);
    expect(heads.slice(0, 92)).toEqual(Array.from({ length: 92 }, (_, i) => i + 1));
  });

  it('holds every decision number cited in src/ and workers/', () => {
    const known = defined();
    const missing: string[] = [];
    for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'workers'))]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bD(\d{1,3})\b/g)) {
        if (!known.has(Number(m[1]))) missing.push(`${file.slice(root.length + 1)}: D${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
