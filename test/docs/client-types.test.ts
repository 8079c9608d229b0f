/**
 * The generated client (D234): openapi-typescript turns the service's /openapi.json into types,
 * and docs/client/example.ts, a client reading typed fields of every resource, compiles against
 * them. The same client against a description whose station attributes are untyped does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT, call, startTestApp, type TestApp } from '../helpers/server.js';

/** The compile errors of the example client against the types of `doc`. */
async function compileAgainst(doc: object, dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(doc as never)));
  fs.copyFileSync(path.join(ROOT, 'docs/client/example.ts'), path.join(dir, 'example.ts'));
  const program = ts.createProgram([path.join(dir, 'example.ts')], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
  });
  // Each error with the line it is on, so that a test can tell which read failed.
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file === undefined || d.start === undefined ? '' : d.file.text.split('\n')[d.file.getLineAndCharacterOfPosition(d.start).line].trim();
    return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')} at: ${line}`;
  });
}

describe('the client generated from /openapi.json', () => {
  let app: TestApp;
  let doc: any;
  const tmp = (): string => fs.mkdtempSync(path.join(inject('testTmpRoot'), 'client-'));

  beforeAll(async () => {
    app = await startTestApp({ env: { JWT_SECRET: 'client-types-test-secret-0123456789' } });
    doc = (await call(app, 'GET', '/openapi.json')).json;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('types every field the example client reads: it compiles', async () => {
    expect(await compileAgainst(doc, tmp())).toEqual([]);
    // A TypeScript program compiled in process: 5–10 s quiet, over 30 s at load 15–20.
  }, 180_000);

  it('does not compile when a resource\'s attributes are untyped', async () => {
    const untyped = structuredClone(doc);
    untyped.components.schemas.ChargingStation.properties.attributes = { type: 'object' };
    const errors = await compileAgainst(untyped, tmp());
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => /s\.attributes\.|free|power/.test(e)), errors.join('\n')).toBe(true);
    expect(errors.join('\n')).toMatch(/typed\(s\.attributes\.latitude, true\)/);
  }, 180_000);
});
