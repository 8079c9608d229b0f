/**
 * Clients generated from the service's /openapi.json by two generators, and a TypeScript file that
 * calls every operation through both (D275): openapi-typescript with openapi-fetch (the client
 * the README links to) and @hey-api/openapi-ts (its fetch client and SDK). For each operation
 * with a JSON answer the file asserts that `data` is typed (neither `any` nor `unknown`); for each
 * operation with a request body it sends the description's example body (which must compile) and
 * `{nonsense: 1}` under `@ts-expect-error` (which must not). The compile errors, by the line's
 * label, say which operation failed which check.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Json = Record<string, any>;

export interface ClientCheck {
  /** The operations (HEAD and OPTIONS left out: no generator gives them a function). */
  operations: string[];
  /** Operations whose success answer is JSON, and those with a request body. */
  jsonAnswers: string[];
  withBody: string[];
  /** Compile problems by label: `<generator> <check> <operation>` (checks: data, body, wrong-body). */
  failed: Map<string, string>;
  /** Problems not on a labelled line (the generated code itself, the harness). */
  other: string[];
}

const GENERATORS = ['openapi-fetch', 'hey-api'] as const;

/** A value of a parameter's schema (the types matter, not the values). */
function valueOf(schema: Json | undefined): string {
  const t = schema?.type;
  if (t === 'integer' || t === 'number') return '1';
  if (t === 'boolean') return 'true';
  return "'x'";
}

function paramsOf(item: Json, op: Json, doc: Json): { path: string | null; query: string | null } {
  const list = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => (typeof p.$ref === 'string' ? doc.components.parameters[(p.$ref as string).split('/').pop()!] : p) as Json);
  const obj = (where: string, all: boolean): string | null => {
    const ps = list.filter((p) => p.in === where && (all || p.required === true));
    return ps.length === 0 ? null : `{ ${ps.map((p) => `${JSON.stringify(p.name)}: ${valueOf(p.schema)}`).join(', ')} }`;
  };
  return { path: obj('path', true), query: obj('query', false) };
}

const isJsonAnswer = (op: Json): boolean =>
  Object.entries((op.responses ?? {}) as Json).some(([s, r]) => s.startsWith('2') && Object.keys((r.content ?? {}) as Json).some((m) => m === 'application/json' || m === 'application/vnd.api+json'));

/** The TypeScript source calling every operation, and the label of each checked line. */
function harness(doc: Json, sdkNames: ReadonlyMap<string, string>): { source: string; labels: Map<number, string>; operations: string[]; jsonAnswers: string[]; withBody: string[] } {
  const lines = [
    "import createClient from 'openapi-fetch';",
    "import type { paths } from './api.js';",
    "import * as sdk from './hey/sdk.gen.js';",
    '/** `true` only for a type that is neither `any` nor `unknown`. */',
    'type Typed<T> = 0 extends 1 & T ? false : unknown extends T ? false : true;',
    "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });",
    'export const calls: (() => Promise<unknown>)[] = [];',
  ];
  const labels = new Map<number, string>();
  const add = (line: string, label?: string): void => {
    lines.push(line);
    if (label !== undefined) labels.set(lines.length, label);
  };
  const operations: string[] = [];
  const jsonAnswers: string[] = [];
  const withBody: string[] = [];
  for (const [p, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (method === 'head' || method === 'options' || method === 'parameters') continue;
      const id = op.operationId as string;
      operations.push(id);
      // The SDK's function of the operation (@hey-api writes `ZXY` as `Zxy`).
      const fn = sdkNames.get(id.toLowerCase()) ?? id;
      const { path: pathParams, query } = paramsOf(item as Json, op, doc);
      const params = [pathParams !== null ? `path: ${pathParams}` : null, query !== null ? `query: ${query}` : null].filter((x) => x !== null);
      const fetchParams = params.length > 0 ? `params: { ${params.join(', ')} }` : null;
      const sdkParams = params.join(', ');
      const M = method.toUpperCase();
      const example = op.requestBody?.content?.['application/json']?.example as unknown;
      const fetchInit = (body: string | null): string => `{ ${[fetchParams, body !== null ? `body: ${body}` : null].filter((x) => x !== null).join(', ')} }`;
      const sdkInit = (body: string | null): string => `{ ${[sdkParams || null, body !== null ? `body: ${body}` : null].filter((x) => x !== null).join(', ')} }`;
      add(`calls.push(async () => {`);
      if (op.requestBody !== undefined) {
        withBody.push(id);
        const good = JSON.stringify(example ?? {});
        add(`  await client.${M}(${JSON.stringify(p)}, ${fetchInit(good)});`, `openapi-fetch body ${id}`);
        add('  // @ts-expect-error a body of no documented shape', `openapi-fetch wrong-body ${id}`);
        add(`  await client.${M}(${JSON.stringify(p)}, ${fetchInit('{ nonsense: 1 }')});`);
        add(`  await sdk.${fn}(${sdkInit(good)});`, `hey-api body ${id}`);
        add('  // @ts-expect-error a body of no documented shape', `hey-api wrong-body ${id}`);
        add(`  await sdk.${fn}(${sdkInit('{ nonsense: 1 }')});`);
      }
      const body = op.requestBody !== undefined ? JSON.stringify(example ?? {}) : null;
      add(`  const a = await client.${M}(${JSON.stringify(p)}, ${fetchInit(body)});`, `openapi-fetch call ${id}`);
      add(`  const b = await sdk.${fn}(${sdkInit(body)});`, `hey-api call ${id}`);
      if (isJsonAnswer(op)) {
        jsonAnswers.push(id);
        add('  const typedA: Typed<typeof a.data> = true;', `openapi-fetch data ${id}`);
        add('  const typedB: Typed<typeof b.data> = true;', `hey-api data ${id}`);
        add('  return [typedA, typedB];');
      } else add('  return [a, b];');
      add('});');
    }
  }
  return { source: `${lines.join('\n')}\n`, labels, operations, jsonAnswers, withBody };
}

/** Generates both clients from `doc` into `dir`, writes the harness beside them and compiles it. */
export async function checkGeneratedClients(doc: Json, dir: string): Promise<ClientCheck> {
  fs.mkdirSync(dir, { recursive: true });
  const input = path.join(dir, 'openapi.json');
  fs.writeFileSync(input, JSON.stringify(doc));
  fs.writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(doc as never)));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/@hey-api/openapi-ts/bin/run.js'), '-i', input, '-o', path.join(dir, 'hey')], { stdio: 'pipe', timeout: 120_000 });
  const sdkNames = new Map([...fs.readFileSync(path.join(dir, 'hey/sdk.gen.ts'), 'utf8').matchAll(/^export const (\w+) =/gm)].map((m) => [m[1].toLowerCase(), m[1]]));
  const h = harness(doc, sdkNames);
  const file = path.join(dir, 'calls.ts');
  fs.writeFileSync(file, h.source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    baseUrl: dir,
    paths: { 'openapi-fetch': [path.join(ROOT, 'node_modules/openapi-fetch')] },
  });
  const failed = new Map<string, string>();
  const other: string[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const line = d.file !== undefined && d.start !== undefined && d.file.fileName === file ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : -1;
    const label = h.labels.get(line);
    if (label === undefined) other.push(`${d.file?.fileName ?? ''}:${line}: ${text}`);
    else if (!failed.has(label)) failed.set(label, text.slice(0, 300));
  }
  return { operations: h.operations, jsonAnswers: h.jsonAnswers, withBody: h.withBody, failed, other };
}

/** Operations each generator types fully: `data` typed where JSON is answered, a wrong body refused where one is sent. */
export function typedShare(c: ClientCheck): Record<(typeof GENERATORS)[number], number> {
  const out = {} as Record<(typeof GENERATORS)[number], number>;
  for (const g of GENERATORS) out[g] = c.operations.filter((id) => !['data', 'body', 'wrong-body', 'call'].some((k) => c.failed.has(`${g} ${k} ${id}`))).length;
  return out;
}
