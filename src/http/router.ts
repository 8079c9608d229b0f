import type { Method, RouteDef } from '../api/types.js';

export interface Match {
  route: RouteDef;
  params: Record<string, string>;
}

interface PatternEntry {
  segments: string[];
  /** Per segment: its parameter name, or null for a literal segment. */
  names: (string | null)[];
  byMethod: Map<string, RouteDef>;
}

/**
 * The route table: static paths by exact lookup first (so `/v1/charging_stations/statistics` wins
 * over `/v1/charging_stations/:id`), then parameterised patterns. Distinguishes an unknown path
 * (404) from a known path with a method it lacks (405 with `Allow`).
 */
export class Router {
  private readonly exact = new Map<string, Map<string, RouteDef>>();
  private readonly patterns: PatternEntry[] = [];
  /** The patterns by segment count, in table order (a path is matched against its count's only). */
  private readonly bySegments = new Map<number, PatternEntry[]>();

  constructor(routes: readonly RouteDef[]) {
    for (const r of routes) this.add(r);
  }

  private add(r: RouteDef): void {
    if (!r.path.includes(':')) {
      let m = this.exact.get(r.path);
      if (!m) this.exact.set(r.path, (m = new Map<string, RouteDef>()));
      if (m.has(r.method)) throw new Error(`duplicate route ${r.method} ${r.path}`);
      m.set(r.method, r);
      return;
    }
    const segments = r.path.split('/');
    let entry = this.patterns.find((p) => p.segments.join('/') === r.path);
    if (!entry) {
      entry = { segments, names: segments.map((x) => (x.startsWith(':') ? x.slice(1) : null)), byMethod: new Map() };
      this.patterns.push(entry);
      let same = this.bySegments.get(segments.length);
      if (same === undefined) this.bySegments.set(segments.length, (same = []));
      same.push(entry);
    }
    if (entry.byMethod.has(r.method)) throw new Error(`duplicate route ${r.method} ${r.path}`);
    entry.byMethod.set(r.method, r);
  }

  /** The methods of a known path and its route template (CORS preflight), or null for an unknown path. */
  methodsAt(path: string): { allow: Method[]; template: string } | null {
    const m = this.match('\u0000', path);
    return m !== null && 'allow' in m ? m : null;
  }

  /** A route, or `{allow}` for a known path with another method, or null for an unknown path. */
  match(method: string, path: string): Match | { allow: Method[]; template: string } | null {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const ex = this.exact.get(p);
    if (ex) {
      const r = ex.get(method);
      return r ? { route: r, params: {} } : { allow: [...ex.keys()] as Method[], template: p };
    }
    const segs = p.split('/');
    const candidates = this.bySegments.get(segs.length);
    if (candidates === undefined) return null;
    for (const e of candidates) {
      const names = e.names;
      let ok = true;
      for (let i = 0; i < segs.length; i++) {
        if (names[i] !== null ? segs[i].length === 0 : e.segments[i] !== segs[i]) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const r = e.byMethod.get(method);
      if (!r) return { allow: [...e.byMethod.keys()] as Method[], template: e.segments.join('/') };
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (name !== null) params[name] = safeDecode(segs[i]);
      }
      return { route: r, params };
    }
    return null;
  }
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
