/**
 * The representation a request asks for with `Accept` (D236): RFC 9110 §12.5.1 weighting over
 * the route's offers, with JSON:API 1.1's rules for its own media type. The result is kept per
 * distinct header value and offer set, so the common headers cost a map lookup.
 */
import type { Format } from '../api/types.js';

const MEDIA: Readonly<Record<Format, readonly [string, string]>> = {
  json: ['application', 'json'],
  jsonapi: ['application', 'vnd.api+json'],
  geojson: ['application', 'geo+json'],
  csv: ['text', 'csv'],
};

interface Range {
  type: string;
  subtype: string;
  q: number;
  /** A JSON:API range that does not count (a parameter other than `profile`). */
  void: boolean;
}

const CACHE_MAX = 256;
const cache = new Map<string, Format | null>();

/**
 * The chosen representation among `json`, `jsonapi` and the route's `extra` ones; null when the
 * request must be answered 406 (JSON:API asked for only with parameters it forbids). A header that
 * names none of the offers gets `json`, the default (D12).
 */
export function negotiate(accept: string, extra: readonly Format[] | undefined): Format | null {
  if (accept.length === 0 || accept === '*/*' || accept === 'application/json') return 'json';
  const key = extra === undefined || extra.length === 0 ? accept : `${extra.join(',')}\n${accept}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const chosen = choose(parseAccept(accept), extra ?? []);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, chosen);
  return chosen;
}

function choose(ranges: readonly Range[], extra: readonly Format[]): Format | null {
  const api = ranges.filter((r) => r.type === 'application' && r.subtype === 'vnd.api+json');
  if (api.length > 0 && api.every((r) => r.void)) return null;
  const offers: Format[] = ['json', 'jsonapi', ...extra];
  let best: Format = 'json';
  let bestQ = 0;
  for (const f of offers) {
    const q = weight(ranges, f);
    if (q > bestQ) {
      best = f;
      bestQ = q;
    }
  }
  return best;
}

/** The q of the most specific counting range that matches `f` (0 when none does). */
function weight(ranges: readonly Range[], f: Format): number {
  const [type, subtype] = MEDIA[f];
  let q = 0;
  let specificity = -1;
  for (const r of ranges) {
    if (r.void) continue;
    const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (s > specificity) {
      specificity = s;
      q = r.q;
    }
  }
  return q;
}

/** The media ranges of an `Accept` value (malformed members are skipped). */
export function parseAccept(accept: string): Range[] {
  const out: Range[] = [];
  for (const member of splitOutsideQuotes(accept, ',')) {
    const parts = splitOutsideQuotes(member, ';');
    if (parts.length === 0) continue;
    const slash = parts[0].indexOf('/');
    if (slash <= 0) continue;
    const type = parts[0].slice(0, slash).trim().toLowerCase();
    const subtype = parts[0].slice(slash + 1).trim().toLowerCase();
    if (type.length === 0 || subtype.length === 0) continue;
    let q = 1;
    let foreign = false;
    for (let k = 1; k < parts.length; k++) {
      const eq = parts[k].indexOf('=');
      const name = (eq === -1 ? parts[k] : parts[k].slice(0, eq)).trim().toLowerCase();
      if (name === 'q') {
        const v = Number(parts[k].slice(eq + 1).trim());
        q = Number.isFinite(v) && v >= 0 && v <= 1 ? v : 0;
        // Parameters after q are accept-extensions, not the media type's.
        break;
      }
      if (name.length > 0 && name !== 'profile') foreign = true;
    }
    out.push({ type, subtype, q, void: foreign && type === 'application' && subtype === 'vnd.api+json' });
  }
  return out;
}

/** `s` split at `sep` outside quoted strings (RFC 9110 §5.6.4: inside one, a backslash escapes the next character). */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === sep && !quoted) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out.filter((p) => p.length > 0);
}

/**
 * D236, D12: a request body's `Content-Type` of the JSON:API media type may carry `profile` only
 * (`ext` names an extension, and this service supports none).
 */
export function jsonApiParametersAllowed(params: string): boolean {
  for (const p of splitOutsideQuotes(params, ';')) {
    const eq = p.indexOf('=');
    const name = (eq === -1 ? p : p.slice(0, eq)).trim().toLowerCase();
    if (name !== 'profile') return false;
  }
  return true;
}
