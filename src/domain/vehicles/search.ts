/**
 * Fuzzy vehicle search for `GET /v2/vehicles?q=` (D63): case- and accent-insensitive, over brand
 * name, model and variant. Pure.
 *
 * The query and each vehicle's text are folded (NFKD without marks, lower case, ß → ss, …) and
 * split into words at anything that is not a letter or digit. Every query word must match the
 * vehicle's text, best first:
 *   1.0  equals a word                     ("tesla")
 *   0.9  is a prefix of a word             ("volks" → volkswagen)
 *   0.8  occurs in the text with spaces removed ("model3" → "model 3", "id3" → "id.3")
 *   0.7 - 0.1·d  within d edits (Damerau, adjacent transposition = 1) of a word or of a word's
 *        prefix of about its length; d ≤ 1 for words of 3–5 characters, ≤ 2 from 6 ("porshe",
 *        "volkwagen", "tesal")
 * A vehicle's score is the mean over the query words; results are ordered by score descending,
 * then brand and name (case-insensitive), then id, and cut at `limit`.
 */
import type { Vehicle } from './vehicle.js';

const FOLD = new Map<string, string>(Object.entries({ ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' }));

/** Case- and accent-folded text: lower case, marks removed, a few ligatures spelled out. */
export function fold(s: string): string {
  const base = s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  return base.replace(/[ßæœøđðłþı]/g, (c) => FOLD.get(c) ?? c);
}

/** Folded words (runs of letters/digits). */
export function words(s: string): string[] {
  return fold(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * Optimal-string-alignment distance (adjacent transposition = 1 edit) between `a` and the closest
 * prefix of `b` (b itself included), stopping early once every cell exceeds `max`; returns
 * `max + 1` when above `max`. With `prefix` false, the distance to the whole of `b`.
 */
export function editDistance(a: string, b: string, max: number, prefix = false): number {
  const n = a.length;
  const m = b.length;
  if (!prefix && Math.abs(n - m) > max) return max + 1;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = new Array<number>(m + 1);
  let cur = new Array<number>(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        v = Math.min(v, prev2[j - 2] + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  if (!prefix) return Math.min(prev[m], max + 1);
  // Closest prefix of b: prefixes of about a's length (at least n - max characters).
  let best = max + 1;
  for (let j = Math.max(1, n - max); j <= m; j++) if (prev[j] < best) best = prev[j];
  return best;
}

const allowedEdits = (len: number): number => (len < 3 ? 0 : len <= 5 ? 1 : 2);

interface Entry {
  vehicle: Vehicle;
  words: string[];
  compact: string;
  sortKey: string;
}

/** Typo score of a folded query word against one word (0.7 - 0.1·d, or 0); cached per search. */
function typoScore(q: string, w: string, k: number, cache: Map<string, number>): number {
  let s = cache.get(w);
  if (s === undefined) {
    const d = editDistance(q, w, k, true);
    s = d <= k ? 0.7 - 0.1 * d : 0;
    cache.set(w, s);
  }
  return s;
}

/** Scores one folded query word against one vehicle; 0 = no match. */
function wordScore(q: string, e: Entry, cache: Map<string, number>): number {
  let best = 0;
  for (const w of e.words) {
    if (w === q) return 1;
    if (best < 0.9 && w.startsWith(q)) best = 0.9;
  }
  if (best > 0) return best;
  if (q.length >= 2 && e.compact.includes(q)) return 0.8;
  const k = allowedEdits(q.length);
  if (k === 0) return 0;
  for (const w of e.words) {
    const s = typoScore(q, w, k, cache);
    if (s > best) best = s;
  }
  return best;
}

/** The search index over all vehicles, built once. */
export class VehicleSearch {
  private readonly entries: Entry[];

  constructor(vehicles: readonly Vehicle[]) {
    this.entries = vehicles.map((v) => {
      const text = `${v.brand} ${v.model} ${v.variant}`;
      const ws = words(text);
      return { vehicle: v, words: ws, compact: ws.join(''), sortKey: fold(`${v.brand} ${v.name}`) };
    });
  }

  /** Vehicles matching every word of `q`, best first, at most `limit`; none when `q` has no words. */
  search(q: string, limit: number): Vehicle[] {
    const qs = words(q);
    if (qs.length === 0 || limit <= 0) return [];
    const hits: { e: Entry; score: number }[] = [];
    const caches = qs.map(() => new Map<string, number>());
    for (const e of this.entries) {
      let sum = 0;
      let ok = true;
      for (let i = 0; i < qs.length; i++) {
        const s = wordScore(qs[i], e, caches[i]);
        if (s === 0) {
          ok = false;
          break;
        }
        sum += s;
      }
      if (ok) hits.push({ e, score: sum / qs.length });
    }
    hits.sort(
      (a, b) =>
        b.score - a.score ||
        (a.e.sortKey < b.e.sortKey ? -1 : a.e.sortKey > b.e.sortKey ? 1 : 0) ||
        (a.e.vehicle.id < b.e.vehicle.id ? -1 : a.e.vehicle.id > b.e.vehicle.id ? 1 : 0),
    );
    const out: Vehicle[] = [];
    for (let i = 0; i < hits.length && i < limit; i++) out.push(hits[i].e.vehicle);
    return out;
  }
}
