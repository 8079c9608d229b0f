/**
 * EVSE statuses shared by the replicas of one PostgreSQL live store (D216): each write is one
 * statement that stores the statuses (the newest per EVSE wins) and announces them, in the same
 * transaction, as NOTIFY payloads on the live channel; every replica applies what it hears to its
 * memory (D136) and loads the stored statuses when it starts or its listening connection is back.
 */

/** One EVSE status as stored: `state` 1 available, 0 another known status, -1 UNKNOWN; `at` in ms. */
export interface StatusRow {
  evse_id: string;
  state: number;
  at: number;
  /** D222: the OCPI `CC*PPP:uid` a PUT named this EVSE by, when it gave an `evse_id` (other replicas learn it too). */
  uid?: string | null;
}

export interface SharedStatuses {
  /** Stores the statuses and announces them to every replica; resolves once committed. */
  write(rows: readonly StatusRow[]): Promise<void>;
  /** The stored statuses whose time is at or after `sinceAt` (ms). */
  load(sinceAt: number): Promise<StatusRow[]>;
  /**
   * `rows`: statuses written by another replica; `reset`: the listening connection is (again)
   * open, statuses may have been missed meanwhile: load them.
   */
  subscribe(rows: (r: StatusRow[]) => void, reset: () => void): void;
}

/** NOTIFY payloads are limited to 8,000 bytes: statuses go out in pieces of at most this many characters. */
export const PAYLOAD_CHARS = 7_000;

/** Payload kind on the live channel (`catalog:`, `keys:` are the others). */
export const STATUS_KIND = 'statuses';

/**
 * The payloads announcing `rows` from replica `origin`: `statuses:<origin>:<id>,<state>,<at>[,<uid>];…`
 * (the OCPI uid key a PUT named the EVSE by, D222), ids and uids URI-encoded: canonical eMI3 ids (letters, digits, `*`) stay as they are, and an id a
 * snapshot kept as published (D130) cannot break the separators.
 */
export function statusPayloads(origin: string, rows: readonly StatusRow[]): string[] {
  const head = `${STATUS_KIND}:${origin}:`;
  const out: string[] = [];
  let cur = head;
  for (const r of rows) {
    const item = `${encodeURIComponent(r.evse_id)},${r.state},${r.at}${r.uid != null ? `,${encodeURIComponent(r.uid)}` : ''}`;
    if (cur.length > head.length && cur.length + 1 + item.length > PAYLOAD_CHARS) {
      out.push(cur);
      cur = head;
    }
    cur += (cur.length > head.length ? ';' : '') + item;
  }
  if (cur.length > head.length) out.push(cur);
  return out;
}

/** The origin and statuses of a payload of `statusPayloads`, or null when it is not one. */
export function parseStatusPayload(payload: string): { origin: string; rows: StatusRow[] } | null {
  const a = payload.indexOf(':');
  const b = payload.indexOf(':', a + 1);
  if (a < 0 || b < 0 || payload.slice(0, a) !== STATUS_KIND) return null;
  const rows: StatusRow[] = [];
  for (const item of payload.slice(b + 1).split(';')) {
    const [id, state, at, uid] = item.split(',');
    const s = Number(state);
    const t = Number(at);
    if (id === undefined || id === '' || !Number.isInteger(s) || s < -1 || s > 1 || !Number.isFinite(t)) return null;
    let evse_id: string;
    let uidKey: string | null = null;
    try {
      evse_id = decodeURIComponent(id);
      if (uid !== undefined) uidKey = decodeURIComponent(uid);
    } catch {
      return null;
    }
    rows.push(uidKey === null ? { evse_id, state: s, at: t } : { evse_id, state: s, at: t, uid: uidKey });
  }
  return { origin: payload.slice(a + 1, b), rows };
}

/**
 * The newest status per EVSE of `rows` (a later one of equal time wins, as it would in memory),
 * by EVSE id: one statement cannot update a row twice, and concurrent writes that lock their rows
 * in one order cannot deadlock.
 */
export function newestPerEvse(rows: readonly StatusRow[]): StatusRow[] {
  const by = new Map<string, StatusRow>();
  for (const r of rows) {
    const held = by.get(r.evse_id);
    if (held === undefined || r.at >= held.at) by.set(r.evse_id, r);
  }
  return [...by.values()].sort((a, b) => (a.evse_id < b.evse_id ? -1 : a.evse_id > b.evse_id ? 1 : 0));
}
