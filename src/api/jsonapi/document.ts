/** JSON:API document building blocks shared by every endpoint (D16). */

export interface ResourceIdentifier {
  type: string;
  id: string;
}

export interface ResourceObject extends ResourceIdentifier {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data: ResourceIdentifier | ResourceIdentifier[] | null }>;
  links?: Record<string, string>;
  meta?: Record<string, unknown>;
}

export interface Document {
  data: ResourceObject | ResourceObject[] | ResourceIdentifier;
  included?: ResourceObject[];
  links?: Record<string, string>;
  meta?: Record<string, unknown>;
}

/** To-one relationship; `{data:null}` when empty. */
export function toOne(type: string, id: string | null | undefined): { data: ResourceIdentifier | null } {
  return { data: id ? { type, id } : null };
}

/** To-many relationship; `{data:[]}` when empty. */
export function toMany(type: string, ids: readonly string[]): { data: ResourceIdentifier[] } {
  const data: ResourceIdentifier[] = new Array<ResourceIdentifier>(ids.length);
  for (let i = 0; i < ids.length; i++) data[i] = { type, id: ids[i] };
  return { data };
}

/**
 * Collects `included` records: each (type, id) once, in order of first reference (D16).
 */
export class Included {
  private readonly seen = new Set<string>();
  readonly records: ResourceObject[] = [];

  has(type: string, id: string): boolean {
    return this.seen.has(type + '\u0000' + id);
  }

  /** Adds the record built by `make` unless (type, id) was added before. */
  add(type: string, id: string, make: () => ResourceObject): void {
    const k = type + '\u0000' + id;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.records.push(make());
  }
}

/** Keeps only the named attributes and relationships of a resource (sparse fieldsets, D16). */
export function sparse(r: ResourceObject, fields: ReadonlySet<string> | undefined): ResourceObject {
  if (fields === undefined) return r;
  const out: ResourceObject = { id: r.id, type: r.type };
  if (r.attributes) {
    const a: Record<string, unknown> = {};
    let any = false;
    for (const k of Object.keys(r.attributes)) {
      if (fields.has(k)) {
        a[k] = r.attributes[k];
        any = true;
      }
    }
    if (any) out.attributes = a;
  }
  if (r.relationships) {
    const rel: NonNullable<ResourceObject['relationships']> = {};
    let any = false;
    for (const k of Object.keys(r.relationships)) {
      if (fields.has(k)) {
        rel[k] = r.relationships[k];
        any = true;
      }
    }
    if (any) out.relationships = rel;
  }
  return out;
}

/** Sorts by lower-case UUID string ascending ("by id", D18). */
export function byId<T extends { id: string }>(a: T, b: T): number {
  const x = a.id.toLowerCase();
  const y = b.id.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
