/**
 * Every command-line tool answers `--help` with its usage and exit code 0, and refuses an unknown
 * option with the usage and exit code 2 (node:util parseArgs, strict).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

const CLIS: [string, string[]][] = [
  ['src/cli/keys.ts', ['create']],
  ['src/cli/token.ts', []],
  ['src/cli/export.ts', ['feedback']],
  ['src/cli/import.ts', []],
  ['snapshots/build.ts', []],
  ['snapshots/synthetic.ts', []],
];

describe('command-line tools', () => {
  it('answer --help with their usage (exit 0) and refuse unknown options (exit 2)', { timeout: 60_000 }, async () => {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: path.join(inject('testTmpRoot'), 'cli-help') };
    await Promise.all(
      CLIS.map(async ([file, sub]) => {
        const help = await run(process.execPath, [TSX, file, ...sub, '--help'], { cwd: ROOT, env });
        expect(help.stdout, file).toMatch(/usage/i);
        const bad = await run(process.execPath, [TSX, file, ...sub, '--no-such-option'], { cwd: ROOT, env }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => e,
        );
        expect(bad.code, file).toBe(2);
        expect(bad.stderr, file).toMatch(/usage/i);
      }),
    );
  });
});
