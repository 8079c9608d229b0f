/**
 * Query parameter parsing per D9: CSV, booleans, integers, floats and paging, each failing with a
 * 400 whose `source.parameter` names the parameter.
 */
import { badParameter } from './errors.js';

/** Parses a raw query string (after `?`); the last occurrence of a parameter wins. */
export function parseQueryString(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw.length === 0) return out;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const hasEq = eq !== -1 && eq < end;
      const k = decode(raw.slice(start, hasEq ? eq : end));
      const v = hasEq ? decode(raw.slice(eq + 1, end)) : '';
      out.set(k, v);
    }
    start = end + 1;
  }
  return out;
}

function decode(s: string): string {
  const plus = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

export type Query = ReadonlyMap<string, string>;

/** CSV: split, trim, drop empty items; present but empty → 400. Absent → undefined. */
export function csv(q: Query, name: string): string[] | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw badParameter(name, `${name} must not be empty`);
  return items;
}

export function bool(q: Query, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const l = v.trim().toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw badParameter(name, `${name} must be true or false`);
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function float(q: Query, name: string, min = -Infinity, max = Infinity): number | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!NUMBER_RE.test(t)) throw badParameter(name, `${name} must be a number`);
  const n = Number(t);
  if (!Number.isFinite(n)) throw badParameter(name, `${name} must be a finite number`);
  if (n < min || n > max) throw badParameter(name, `${name} must be between ${min} and ${max}`);
  return n;
}

export function int(q: Query, name: string, min = -Infinity, max = Infinity): number | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!/^[+-]?\d+$/.test(t)) throw badParameter(name, `${name} must be an integer`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw badParameter(name, `${name} is out of range`);
  if (n < min) throw badParameter(name, `${name} must be at least ${min}`);
  if (n > max) throw badParameter(name, `${name} must be at most ${max}`);
  return n;
}

export interface Page {
  size: number;
  number: number;
  /** Index of the first item of the page. */
  offset: number;
}

/** `page[size]` (1..max, default `def`) and `page[number]` (≥ 1, default 1), D15. */
export function page(q: Query, def: number, max: number): Page {
  const size = int(q, 'page[size]', 1, max) ?? def;
  const number = int(q, 'page[number]', 1) ?? 1;
  return { size, number, offset: (number - 1) * size };
}

/**
 * Sparse fieldset `fields[type]` (D16): the named members, or undefined when absent.
 * Unknown names → 400.
 */
export function fields(q: Query, type: string, allowed: readonly string[]): Set<string> | undefined {
  const name = `fields[${type}]`;
  const list = csv(q, name);
  if (list === undefined) return undefined;
  for (const f of list) {
    if (!allowed.includes(f)) throw badParameter(name, `unknown field "${f}" in ${name}`);
  }
  return new Set(list);
}

// ---- Query contracts: each parameter's description and its parser in one declaration ----

/** A query parameter as the API description states it. */
export interface QueryParam {
  readonly name: string;
  readonly schema: object;
  readonly description: string;
  readonly required?: boolean;
  /** Kept for the original client; the bracketed form is the one to use. */
  readonly deprecated?: true;
}

/**
 * A route's query: the parameters it states, in the order they are parsed, and the parser (D9,
 * every malformed value a 400 naming its parameter) that turns the query into the handler's input.
 */
export interface QuerySchema<Q> {
  readonly params: readonly QueryParam[];
  parse(query: ReadonlyMap<string, string>): Q;
}


/** One or more query parameters: what the API description states of them, and their parser. */
export interface QueryField<T> {
  readonly params: readonly QueryParam[];
  parse(q: Query): T;
}

function field<T>(name: string, schema: object, description: string, parse: (q: Query) => T): QueryField<T> {
  return {
    params: [{ name, schema, description }],
    parse,
  };
}
const bounds = (min: number, max: number): object => ({ ...(min > -Infinity ? { minimum: min } : {}), ...(max < Infinity ? { maximum: max } : {}) });

/** The parameter kinds of D9, each with its parser's 400s (the same titles as the functions above). */
export const Q = {
  /** A comma-separated list; `check` refuses items the parameter does not take (400 naming it). */
  csv: (name: string, description: string, check?: (items: string[]) => void): QueryField<string[] | undefined> =>
    field(name, { type: 'string', minLength: 1 }, `${description} (comma-separated)`, (q) => {
      const v = csv(q, name);
      if (check !== undefined && v !== undefined) check(v);
      return v;
    }),
  bool: (name: string, description: string): QueryField<boolean | undefined> => field(name, { type: 'boolean' }, description, (q) => bool(q, name)),
  number: (name: string, description: string, min = -Infinity, max = Infinity): QueryField<number | undefined> =>
    field(name, { type: 'number', ...bounds(min, max) }, description, (q) => float(q, name, min, max)),
  integer: (name: string, description: string, min = -Infinity, max = Infinity): QueryField<number | undefined> =>
    field(name, { type: 'integer', ...bounds(min, max) }, description, (q) => int(q, name, min, max)),
  /** A parameter of its own kind: its schema, and its parser (400 naming it). */
  param: field,
  /**
   * A parameter and the original client's unbracketed form of it (deprecated): the bracketed one
   * when given, else the other.
   */
  either: <T>(named: QueryField<T>, alias: QueryField<T>): QueryField<T> => ({
    params: [...named.params, ...alias.params.map((p) => ({ ...p, deprecated: true as const }))],
    parse: (q) => (q.has(named.params[0].name) ? named.parse(q) : alias.parse(q)),
  }),
  /** Sparse fieldset `fields[type]` (D16). */
  fields: (type: string, allowed: readonly string[], description: string): QueryField<Set<string> | undefined> =>
    field(`fields[${type}]`, { type: 'string', minLength: 1 }, `${description} (comma-separated)`, (q) => fields(q, type, allowed)),
  /** `page[size]` and `page[number]` (D15). */
  page: (def: number, max: number, description: string): QueryField<Page> => ({
    params: [
      { name: 'page[size]', schema: { type: 'integer', minimum: 1, maximum: max }, description: `Items per page (${description})` },
      { name: 'page[number]', schema: { type: 'integer', minimum: 1 }, description: 'Page, from 1' },
    ],
    parse: (q) => page(q, def, max),
  }),
  /**
   * Fields parsed in order and then checked together (rules between parameters, which come after
   * the values they relate): one field of a declaration.
   */
  group: <F extends Record<string, QueryField<unknown>>, T>(fields: F, rule: (v: QueryOf<F>) => T): QueryField<T> => {
    const s = defineQuery(fields);
    return { params: s.params, parse: (q) => rule(s.parse(q)) };
  },
  /** The field required: absent → 400 `<name> is required`. */
  required: <T>(f: QueryField<T | undefined>): QueryField<T> => {
    const { name } = f.params[0];
    return {
      params: [{ ...f.params[0], required: true }],
      parse: (q) => {
        const v = f.parse(q);
        if (v === undefined) throw badParameter(name, `${name} is required`);
        return v;
      },
    };
  },
};

/** The handler's input of a route's query contract. */
export type QueryInput<S> = S extends QuerySchema<infer T> ? T : never;

/** The typed query of a declaration: each member the result of its field's parser. */
export type QueryOf<F extends Record<string, QueryField<unknown>>> = { [K in keyof F]: ReturnType<F[K]['parse']> };

/**
 * A route's query from its fields: the API description's parameters in declaration order (those
 * named in `listedFirst` first, in its order), and a parser that runs the fields' parsers in
 * declaration order (the first malformed value answers 400).
 */
export function defineQuery<F extends Record<string, QueryField<unknown>>>(fields: F, listedFirst: readonly string[] = []): QuerySchema<QueryOf<F>> {
  const keys = Object.keys(fields);
  const parsers = Object.values(fields);
  const params = parsers.flatMap((f) => f.params);
  const rank = (p: QueryParam): number => (listedFirst.includes(p.name) ? listedFirst.indexOf(p.name) : listedFirst.length);
  return {
    params: [...params].sort((a, b) => rank(a) - rank(b)),
    parse: (q) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) out[keys[i]] = parsers[i].parse(q);
      return out as QueryOf<F>;
    },
  };
}

/** The members of a parsed query that were given (absent parameters leave no member). */
export function given<T extends object>(v: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const k in v) if (v[k] !== undefined) out[k] = v[k];
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
