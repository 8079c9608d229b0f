/**
 * Every `npm run` script is accounted for: the ones that take `--help` answer it with their usage
 * (exit 0) and refuse an unknown option (exit 2) where they parse options; the ones with a check
 * mode run it; every other script is listed with where it is exercised. A script added to
 * package.json without a line here fails this test.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Scripts whose entry (the last `node <file>` of the script) answers `--help`; true: it also refuses unknown options with 2. */
const HELP: Record<string, boolean> = {
  keys: true,
  products: true,
  outbox: true,
  token: true,
  'wait-ready': true,
  export: true,
  import: true,
  'snapshot:build': true,
  'snapshot:synthetic': true,
  'ocpi:cost': true,
  arrows: true,
  'prune:uws': true,
  'openapi:examples': false,
  'client:types': true,
};

/** Scripts with a check mode: the arguments that run it (cheap, no side effects). */
const CHECK: Record<string, string[]> = {
  arrows: [],
  'prune:uws': ['--check'],
};

/** Every other script, and where it runs. */
const ELSEWHERE: Record<string, string> = {
  prepare: 'npm ci (every install)',
  build: 'npm test compiles first; .ci/run',
  start: 'README; test/opt-in/install.test.ts; test/process/start.test.ts (signals reach the service)',
  dev: 'start after a build',
  test: '.ci/run (the in-process suites)',
  'test:watch': 'vitest in watch mode',
  lint: '.ci/run',
  typecheck: 'npm test runs the same compilers',
  'test:process': '.ci/run (this suite)',
  'test:proxy': '.ci/run',
  'test:pg': '.ci/run',
  'test:cluster': '.ci/run',
  fuzz: '.ci/run (short mode)',
  'test:crash': '.ci/run (short mode)',
  'test:ocpi-diff': '.ci/run (short mode, OCPI_DIFF_CASES=10000)',
  'test:node-lts': 'by hand on a machine with glibc 2.38 or newer (D225)',
  'test:node-root': '.ci/run (Node 22 and 24 in a Debian 13 root, D264); the usage test below; --bench and --omit-optional by hand (D289)',
  'test:trips': '.ci/run (TRIP_CASES=2000); npm test runs 300 corridors',
  'test:install': '.ci/run',
  'test:deploy': '.ci/run',
  'test:browser': '.ci/run',
  'test:container': '.ci/run',
  bench: 'test/bench/micro.test.ts',
  'bench:scale': 'test/bench/scale.test.ts',
  'bench:charts': 'test/bench/charts.test.ts',
  'bench:all': 'the benches it runs',
  'bench:accounts': 'bench/RESULTS.md (accounts); test/http/accounts.test.ts runs the same flows',
  'bench:http': 'test/bench/http-suite.test.ts',
  'bench:catalog': 'a measurement (bench/RESULTS.md)',
  'bench:pricing': 'a measurement (bench/RESULTS.md)',
  'bench:charge-prices': 'a measurement (bench/RESULTS.md)',
  'bench:stations': 'a measurement (bench/RESULTS.md)',
  'bench:cdr-cost': 'a measurement (bench/RESULTS.md)',
  'bench:cdr-cost-first': 'a measurement (bench/RESULTS.md, D259)',
  'bench:cdr-cost-long': 'a measurement (bench/RESULTS.md, D260)',
  'bench:cdr-cost-load': '.ci/run (--check)',
  'bench:tracing': '.ci/run (--check)',
  'bench:read-floor': 'a measurement (README, D295); its --check answers the same bytes on every rung',
  'bench:contract': '.ci/run (--check)',
  'bench:postgis': '.ci/run (--check)',
  'bench:replicas': '.ci/run (--check)',
  'bench:live-store': '.ci/run (--check); on Node 22/24 per SQLite driver: npm run test:node-root -- --bench live-store@<driver> (D289)',
  'bench:pg-client': 'a measurement (bench/RESULTS.md)',
  'bench:http:stations': 'bench:http restricted to station scenarios',
  'bench:http:prices': 'a measurement (bench/RESULTS.md)',
  'bench:status-fanout': '.ci/run (--check)',
  'bench:rate-limits': '.ci/run (--check)',
  'bench:login-flood': '.ci/run (--check); bench/RESULTS.md (login-flood)',
  'bench:availability': 'a measurement (bench/RESULTS.md)',
  'bench:area': 'a measurement (bench/RESULTS.md)',
  'bench:overload': 'a measurement (bench/RESULTS.md)',
  'bench:floods': 'a measurement (bench/RESULTS.md)',
  'bench:tiles': 'a measurement (bench/RESULTS.md)',
  'bench:price-tiles': 'a measurement (bench/RESULTS.md)',
  'bench:catalog-memory': 'a measurement (bench/RESULTS.md)',
  'bench:metrics': 'a measurement (bench/RESULTS.md)',
  'bench:sqlite-driver': 'a measurement (docs/decisions.md, D281); on Node 22/24: npm run test:node-root -- --bench sqlite-driver (D289)',
  'bench:trips': 'a measurement (README, D272)',
  'bench:station-prices': 'a measurement against another checkout (README, D288); its byte-equality check needs that checkout too (--check <n> --baseline <dir>)',
};

const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The file a script finally runs with node (`node dist/…` or `node scripts/…`). */
function entryOf(name: string): string {
  const m = [...scripts[name].matchAll(/node (?:--[\w-]+ )*(\S+\.m?js)/g)].at(-1);
  if (m === undefined) throw new Error(`${name}: no node entry in "${scripts[name]}"`);
  return path.join(ROOT, m[1]);
}

describe('npm run scripts', () => {
  it('are each listed here: with --help, with a check mode, or with where they run', () => {
    const listed = new Set([...Object.keys(HELP), ...Object.keys(CHECK), ...Object.keys(ELSEWHERE)]);
    expect(Object.keys(scripts).filter((s) => !listed.has(s))).toEqual([]);
    expect([...listed].filter((s) => scripts[s] === undefined)).toEqual([]);
  });

  it('answer --help with their usage (exit 0), and refuse unknown options (exit 2)', { timeout: 60_000 }, async () => {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: path.join(inject('testTmpRoot'), 'scripts-help') };
    await Promise.all(
      Object.entries(HELP).map(async ([name, strict]) => {
        const file = entryOf(name);
        const help = await run(process.execPath, [file, '--help'], { cwd: ROOT, env });
        expect(help.stdout, name).toMatch(/usage|npm run/i);
        if (!strict) return;
        const bad = await run(process.execPath, [file, '--no-such-option'], { cwd: ROOT, env }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => e,
        );
        expect(bad.code, name).toBe(2);
        expect(bad.stderr, name).toMatch(/usage/i);
      }),
    );
  });

  it('test:node-root answers --help and refuses a version that is not a Node major (exit 2) before building anything', { timeout: 60_000 }, async () => {
    const file = path.join(ROOT, 'scripts/test-node-root.sh');
    const help = await run('bash', [file, '--help'], { cwd: ROOT });
    expect(help.stdout).toMatch(/usage: npm run test:node-root/);
    const bad = await run('bash', [file, '22', 'lts'], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a Node major version: lts/);
    // --bench <name>[@<driver>] and --omit-optional (D289): named in the usage, checked before anything is built.
    expect(help.stdout).toMatch(/--omit-optional/);
    expect(help.stdout).toMatch(/--bench <name>\[@node:sqlite\|@better-sqlite3\]/);
    for (const args of [['24', '--bench', 'live-store;rm'], ['24', '--bench', 'live-store@sqlite3'], ['24', '--bench'], ['24', '--no-such-option']]) {
      const r = await run('bash', [file, ...args], { cwd: ROOT }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(args[1] === '--bench' ? /--bench takes <name>\[@node:sqlite\|@better-sqlite3\]/ : /unknown option --no-such-option/);
    }
  });

  it('run their check modes', { timeout: 60_000 }, async () => {
    for (const [name, args] of Object.entries(CHECK)) {
      const r = await run(process.execPath, [entryOf(name), ...args], { cwd: ROOT });
      expect(r.stdout.length, name).toBeGreaterThan(0);
    }
  });
});
