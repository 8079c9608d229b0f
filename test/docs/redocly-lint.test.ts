/**
 * Redocly's recommended rules on the served /openapi.json (D275): no error. The CLI runs on the
 * document written to a temporary file, without telemetry or update checks.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT, call, startTestApp, type TestApp } from '../helpers/server.js';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint --extends=recommended` of a document. */
async function lint(doc: object, dir: string): Promise<LintReport> {
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  // Exit code 1 when it finds an error: the report is on stdout either way.
  const out = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--extends=recommended', '--format=json'], { env, cwd: dir, timeout: 120_000, maxBuffer: 64 << 20 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  return JSON.parse(out.stdout) as LintReport;
}

describe('Redocly lint of /openapi.json', () => {
  let app: TestApp;
  let doc: any;
  const tmp = (): string => fs.mkdtempSync(path.join(inject('testTmpRoot'), 'redocly-'));

  beforeAll(async () => {
    app = await startTestApp({ env: { JWT_SECRET: 'redocly-lint-secret-0123456789abcdef', METRICS_KEY_REQUIRED: 'on' } });
    doc = (await call(app, 'GET', '/openapi.json')).json;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('finds no error with the recommended rules', async () => {
    const r = await lint(doc, tmp());
    const errors = r.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(r.totals.errors).toBe(0);
  }, 180_000);

  it('finds the error of an operation missing its path parameter', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/v1/charging_stations/{id}'].parameters;
    const r = await lint(broken, tmp());
    expect(r.problems.some((p) => p.severity === 'error' && p.ruleId === 'path-parameters-defined')).toBe(true);
  }, 180_000);
});
