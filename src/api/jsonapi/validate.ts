/**
 * AJV validators, compiled once per schema on its first use (never per request). AJV errors
 * become JSON:API errors with `source.pointer` (D5, D8).
 *
 * Compiling on first use rather than at module load: the request schemas took 112 ms of CPU at
 * every start (about a tenth of a test server's start), while a service usually meets only some
 * of them soon; the first request of a route pays its schema once (≤ 27 ms, the charge-price
 * body). `declaredSchemas()` lists every declared schema, and a test compiles them all.
 */
import { Ajv, type ErrorObject as AjvError, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { ApiError, type ErrorObject, pointerError } from './errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats?: string[]) => Ajv;

export const ajv = new Ajv({
  allErrors: false,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  // `discriminator` on a oneOf of tagged objects: only the branch the tag names is checked (Type.Tagged).
  discriminator: true,
  // Unknown attributes are ignored (D8): schemas do not set additionalProperties: false.
  removeAdditional: false,
  useDefaults: false,
  coerceTypes: false,
});
addFormats(ajv, ['uuid', 'date-time']);

/** UUID in any version (D8: malformed UUIDs in write bodies → 400). */
export const UUID = { type: 'string', format: 'uuid' } as const;

export interface Validator<T> {
  (data: unknown): data is T;
  readonly fn: ValidateFunction<T>;
}

/**
 * Compiles a JSON Schema once; the returned function throws an ApiError (400) naming the first
 * failure (D170: `allErrors` off, so a body of 100,000 wrong items costs one error, not 100,000).
 */
export function compile<T>(schema: object): SchemaValidator<T> {
  declared.push(schema);
  let fn: ValidateFunction<T> | null = null;
  const validate = (data: unknown): T => {
    fn ??= ajv.compile<T>(schema);
    if (fn(data)) return data;
    throw ApiError.many(400, toErrors(fn.errors ?? [], schema));
  };
  return Object.defineProperties(Object.assign(validate, { schema }), { compiled: { get: () => fn !== null } }) as SchemaValidator<T>;
}

/**
 * The validator of a TypeBox schema: what it hands over is the schema's `Static` type, so the
 * handler's input and the validated JSON Schema are one definition.
 */
export function validatorOf<S extends TSchema>(schema: S): SchemaValidator<Static<S>, S> {
  return compile<Static<S>>(schema) as SchemaValidator<Static<S>, S>;
}

/**
 * A compiled body validator and the JSON Schema it checks (the OpenAPI description shows the same
 * schema); `compiled` says whether its schema was compiled yet.
 */
export type SchemaValidator<T, S extends object = object> = ((data: unknown) => T) & { readonly schema: S; readonly compiled: boolean };

const declared: object[] = [];

/** Every schema passed to `compile` by the modules loaded so far. */
export function declaredSchemas(): readonly object[] {
  return declared;
}

/** The discriminator error's parameters: the tag's name, and whether it was not a string (`tag`) or no branch's value (`mapping`). */
interface TagError { error: 'tag' | 'mapping'; tag: string }

/** The values a discriminator's tag may take: its branches' `const`s, found at the error's schema path in `root`. */
function tagValues(e: AjvError, root: object | undefined): string {
  let at: unknown = root;
  for (const seg of e.schemaPath.split('/').slice(1, -1)) at = (at as Record<string, unknown> | undefined)?.[decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~')];
  const tag = (e.params as TagError).tag;
  const branches = (at as { oneOf?: { properties: Record<string, { const?: unknown; enum?: unknown[] }> }[] } | undefined)?.oneOf ?? [];
  return branches.flatMap((b) => b.properties[tag].enum ?? [b.properties[tag].const]).map(String).join(', ');
}

function pointerOf(e: AjvError): string {
  if (e.keyword === 'required') {
    return `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
  }
  if (e.keyword === 'discriminator') return `${e.instancePath}/${(e.params as TagError).tag}`;
  return e.instancePath === '' ? '/' : e.instancePath;
}

function titleOf(e: AjvError, pointer: string, root: object | undefined): string {
  const where = pointer === '/' ? 'body' : pointer;
  switch (e.keyword) {
    case 'discriminator':
      // A tag that is no string, or names no branch: as `{"type": "string", "enum": [the branches' values]}` would say.
      return (e.params as TagError).error === 'tag' ? `${where} must be of type string` : `${where} must be one of ${tagValues(e, root)}`;
    case 'required':
      return `${where} is required`;
    case 'type':
      return `${where} must be of type ${(e.params as { type: string }).type}`;
    case 'enum':
      return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    case 'const':
      return `${where} must be ${String((e.params as { allowedValue: unknown }).allowedValue)}`;
    case 'format':
      return `${where} must be a valid ${(e.params as { format: string }).format}`;
    case 'maxLength':
      return `${where} must have at most ${(e.params as { limit: number }).limit} characters`;
    case 'minLength':
      return (e.params as { limit: number }).limit === 1
        ? `${where} must not be empty`
        : `${where} must have at least ${(e.params as { limit: number }).limit} characters`;
    case 'maxItems':
      return `${where} must have at most ${(e.params as { limit: number }).limit} items`;
    case 'minItems':
      return `${where} must have at least ${(e.params as { limit: number }).limit} items`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/** Maps AJV errors to JSON:API errors; `null` counts as missing for required fields (D8). */
export function toErrors(errors: readonly AjvError[], root?: object): ErrorObject[] {
  const seen = new Set<string>();
  const out: ErrorObject[] = [];
  for (const e of errors) {
    // anyOf/oneOf wrappers repeat their branches' errors; the branches are more precise.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const pointer = pointerOf(e);
    const title = titleOf(e, pointer, root);
    const key = `${pointer}|${title}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(pointerError(pointer, title));
  }
  if (out.length === 0) out.push({ status: '400', code: 'BAD_REQUEST', title: 'invalid request body' });
  return out;
}

/**
 * Removes `null` values of optional members before validation, so that `null` means "default"
 * for optional fields and "missing" for required ones (D8). Mutates and returns `value`.
 */
export function dropNulls<T>(value: T): T {
  // Iterative: the body's structure comes from the client (D100).
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const x = o[k];
        if (x === null) delete o[k];
        else if (typeof x === 'object') stack.push(x);
      }
    }
  }
  return value;
}
