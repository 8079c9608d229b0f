/**
 * The API contract checked on every answer a test receives (D234): `call` looks the answer up in
 * the service's own `/openapi.json` (fetched once per target) and fails the test on
 *   - a status the operation does not document,
 *   - a successful answer to a request with a query parameter the operation does not document,
 *   - a body that does not fit the documented schema (closed objects refuse extra members),
 *   - a documented response header whose value does not fit its schema,
 *   - a leaf value (string, number, boolean, null) whose schema states no type (`type`, `const`
 *     or `enum`): the typed share of the answers must be 100 %. The description itself
 *     (/openapi.json, whose schema is OpenAPI 3.1's, `externalDocs`) is validated by
 *     test/http/openapi.test.ts and not counted.
 * The counts of leaves and typed leaves are written per test process to the run's temporary
 * directory; the global teardown adds them up and prints the share.
 *
 * `CPS_CONTRACT=count` counts without failing (to measure a document's share), `CPS_CONTRACT=off` skips
 * the checks (to time them), `CPS_CONTRACT_LOG=<file>` appends every problem and unrouted answer to a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, any>;

export interface ContractCounts {
  answers: number;
  checked: number;
  leaves: number;
  typed: number;
  /** Answers to paths the document does not have (404 of unknown routes). */
  unrouted: number;
  /** Answers of services without a description (the pipeline tests' own test routes). */
  undescribed: number;
  /** Time spent fetching documents and checking answers. */
  ms: number;
}

export interface Answer {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
  /** The request's query parameters are not checked (a probe with parameters the API ignores). */
  ignoredQuery?: boolean;
}

const DOC_ID = 'openapi.json';
/** Items of an array whose leaves are counted (all are validated). */
const MAX_WALKED = 200;
const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface PathEntry {
  name: string;
  re: RegExp;
  params: number;
}

/** One service's document, compiled lazily per (operation, status). */
export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: PathEntry[];

  constructor(private readonly doc: Json, private readonly counts: ContractCounts) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    this.paths = Object.keys(doc.paths as Json)
      .map((name) => ({ name, re: new RegExp(`^${name.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '[^/]+')}$`), params: (name.match(/\{/g) ?? []).length }))
      .sort((a, b) => a.params - b.params);
  }

  /** The problems of one answer ([] when it fits); counts its leaves. */
  check(a: Answer): string[] {
    this.counts.answers++;
    const bare = a.path.split('?')[0];
    const entry = this.paths.find((p) => p.re.test(bare));
    if (entry === undefined) {
      this.counts.unrouted++;
      if (process.env.CPS_CONTRACT_LOG !== undefined) fs.appendFileSync(process.env.CPS_CONTRACT_LOG, `UNROUTED ${a.method} ${bare} ${a.status}\n`);
      // 404 route not found; a preflight for an unknown path passes so the browser sees that 404 (D93).
      const fits = a.status === 404 || a.status === 400 || (a.method === 'OPTIONS' && a.status === 204);
      return fits ? [] : [`${a.method} ${bare}: no path of the document, status ${a.status}`];
    }
    const item = this.doc.paths[entry.name] as Json;
    const method = a.method.toLowerCase();
    const op = method === 'parameters' ? undefined : (item[method] as Json | undefined);
    const at = `${a.method} ${entry.name} ${a.status}`;
    // A method the path does not have: 405 as every operation documents it (any operation's 405 will do).
    // (The path item's `parameters` is not an operation.)
    const first = Object.keys(item).find((k) => k !== 'parameters')!;
    const known = op ?? (a.status === 405 ? (item[first] as Json) : undefined);
    if (known === undefined) return [`${at}: operation not documented`];
    let responsePtr = `/paths/${escape(entry.name)}/${op === undefined ? first : method}/responses/${a.status}`;
    let response = known.responses?.[String(a.status)] as Json | undefined;
    if (response === undefined) return [`${at}: status not documented (documented: ${Object.keys(known.responses ?? {}).join(', ')})`];
    if (typeof response.$ref === 'string') {
      responsePtr = (response.$ref as string).slice(1);
      response = this.at(responsePtr);
    }
    this.counts.checked++;
    return [...this.checkQuery(at, known, a), ...this.checkHeaders(at, response, responsePtr, a.headers), ...this.checkBody(at, response, responsePtr, a)];
  }

  /** A request answered with success used only query parameters the operation documents. */
  private checkQuery(at: string, op: Json, a: Answer): string[] {
    const i = a.path.indexOf('?');
    if (i < 0 || a.status >= 300 || a.ignoredQuery === true) return [];
    const documented = new Set(((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name as string));
    const used = [...new URLSearchParams(a.path.slice(i + 1)).keys()];
    const unknown = used.filter((n) => !documented.has(n));
    return unknown.length === 0 ? [] : [`${at}: query parameters not documented: ${unknown.join(', ')}`];
  }

  private checkHeaders(at: string, response: Json, ptr: string, headers: Headers): string[] {
    const out: string[] = [];
    for (const [name, h] of Object.entries((response.headers ?? {}) as Json)) {
      const value = headers.get(name);
      const header = typeof h.$ref === 'string' ? this.at((h.$ref as string).slice(1)) : (h as Json);
      if (value === null) {
        if (header.required === true) out.push(`${at}: header ${name} missing`);
        continue;
      }
      const schema = header.schema as Json | undefined;
      if (schema === undefined) continue;
      const parsed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      const headerPtr = typeof h.$ref === 'string' ? (h.$ref as string).slice(1) : `${ptr}/headers/${escape(name)}`;
      const v = this.validator(`${headerPtr}/schema`);
      if (!v(parsed)) out.push(`${at}: header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(v.errors)}`);
    }
    return out;
  }

  private checkBody(at: string, response: Json, ptr: string, a: Answer): string[] {
    const content = response.content as Json | undefined;
    if (content === undefined) return a.text.length === 0 ? [] : [`${at}: a body where the document has none`];
    const type = (a.headers.get('content-type') ?? '').split(';')[0].trim();
    const media = Object.keys(content).find((m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
    if (media === undefined) return a.text.length === 0 && a.method === 'HEAD' ? [] : [`${at}: media type ${type || '(none)'} not documented (${Object.keys(content).join(', ')})`];
    const schema = content[media].schema as Json | undefined;
    if (schema === undefined || !/json/.test(media) || a.text.length === 0) return [];
    const body = JSON.parse(a.text) as unknown;
    const schemaPtr = `${ptr}/content/${escape(media)}/schema`;
    const v = this.validator(schemaPtr);
    if (!v(body)) return [`${at}: body does not fit: ${this.ajv.errorsText(v.errors, { dataVar: 'body' })}`];
    const untyped: string[] = [];
    this.walk(body, schemaPtr, [], untyped);
    return untyped.length === 0 ? [] : [`${at}: ${untyped.length} values without a documented type, e.g. ${untyped.slice(0, 5).join(', ')}`];
  }

  private readonly nodes = new Map<string, Json>();

  private at(ptr: string): Json {
    const known = this.nodes.get(ptr);
    if (known !== undefined) return known;
    let node: any = this.doc;
    // A $ref's pointer is percent-encoded as a URI fragment (RFC 6901 §6); pointers built here are not (decoding is a no-op).
    for (const part of ptr.split('/').slice(1)) node = node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`no ${ptr} in the document`);
    this.nodes.set(ptr, node as Json);
    return node as Json;
  }

  private validator(ptr: string): ValidateFunction {
    let v = this.validators.get(ptr);
    if (v === undefined) {
      v = this.ajv.compile({ $ref: `${DOC_ID}#${ptr}` });
      this.validators.set(ptr, v);
    }
    return v;
  }

  /** Counts the leaves of `value` under the schema at `ptr`, and which of them have a type. */
  private walk(value: unknown, ptr: string, where: string[], untyped: string[]): void {
    const node = this.at(ptr);
    if (typeof node.$ref === 'string') return this.walk(value, (node.$ref as string).slice(1), where, untyped);
    // A schema defined elsewhere (the OpenAPI 3.1 schema of /openapi.json itself): not counted here.
    if (node.externalDocs !== undefined && where.length === 0) return;
    for (const k of ['oneOf', 'anyOf'] as const) {
      const branches = node[k] as Json[] | undefined;
      if (branches === undefined) continue;
      const i = branches.findIndex((_b, j) => this.validator(`${ptr}/${k}/${j}`)(value));
      if (i >= 0) return this.walk(value, `${ptr}/${k}/${i}`, where, untyped);
    }
    if (Array.isArray(value)) {
      const items = node.items !== undefined ? `${ptr}/items` : null;
      // AJV has checked every item; the walk counts the leaves of the first MAX_WALKED (an answer
      // of 10,000 previews would otherwise cost a second per test).
      for (let i = 0; i < Math.min(value.length, MAX_WALKED); i++) {
        where.push(String(i));
        if (items !== null) this.walk(value[i], items, where, untyped);
        else this.untypedLeaves(value[i], where, untyped);
        where.pop();
      }
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const k in value) {
        const v = (value as Json)[k];
        const sub = this.member(node, ptr, k);
        where.push(k);
        if (sub === null) this.untypedLeaves(v, where, untyped);
        else this.walk(v, sub, where, untyped);
        where.pop();
      }
      return;
    }
    this.counts.leaves++;
    if (node.type !== undefined || 'const' in node || node.enum !== undefined) this.counts.typed++;
    else if (untyped.length < 20) untyped.push(`/${where.join('/')}`);
    else untyped.push('');
  }

  private readonly members = new Map<string, Map<string, string | null>>();

  /** The pointer of member `k`'s schema (cached per object schema: the walk meets the same few often). */
  private member(node: Json, ptr: string, k: string): string | null {
    let m = this.members.get(ptr);
    if (m === undefined) this.members.set(ptr, (m = new Map()));
    let sub = m.get(k);
    if (sub === undefined) {
      sub = node.properties?.[k] !== undefined ? `${ptr}/properties/${escape(k)}` : this.otherMember(node, ptr, k);
      m.set(k, sub);
    }
    return sub;
  }

  /** The schema of a member not in `properties`: a matching patternProperties, else additionalProperties. */
  private otherMember(node: Json, ptr: string, k: string): string | null {
    const pattern = Object.keys((node.patternProperties ?? {}) as Json).find((re) => new RegExp(re, 'u').test(k));
    if (pattern !== undefined) return `${ptr}/patternProperties/${escape(pattern)}`;
    return typeof node.additionalProperties === 'object' ? `${ptr}/additionalProperties` : null;
  }

  private untypedLeaves(value: unknown, where: string[], untyped: string[]): void {
    if (Array.isArray(value)) value.forEach((v, i) => this.untypedLeaves(v, [...where, String(i)], untyped));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) this.untypedLeaves(v, [...where, k], untyped);
    else {
      this.counts.leaves++;
      untyped.push(untyped.length < 20 ? `/${where.join('/')}` : '');
    }
  }
}

/** The counts of this test process, written to `dir` after every answer (read by the global teardown). */
export const COUNTS: ContractCounts = { answers: 0, checked: 0, leaves: 0, typed: 0, unrouted: 0, undescribed: 0, ms: 0 };

export function saveCounts(dir: string, problems: readonly string[]): void {
  fs.writeFileSync(path.join(dir, `contract-${process.pid}.json`), JSON.stringify(COUNTS));
  if (problems.length > 0 && process.env.CPS_CONTRACT_LOG !== undefined) fs.appendFileSync(process.env.CPS_CONTRACT_LOG, `${problems.join('\n')}\n`);
}

/** The counts of every test process of a run. */
export function totalCounts(dir: string): ContractCounts {
  const total: ContractCounts = { answers: 0, checked: 0, leaves: 0, typed: 0, unrouted: 0, undescribed: 0, ms: 0 };
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('contract-') && n.endsWith('.json'))) {
    const c = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ContractCounts;
    for (const k of Object.keys(total) as (keyof ContractCounts)[]) total[k] += c[k];
  }
  return total;
}
