/**
 * Exports what the service collected, for operators (reads DATA_DIR like the keys CLI; works while
 * the server runs, through a read-only connection):
 *
 *   npm run export -- feedback|partner-feedback|devices|user-settings [--since <ISO date>] [--format jsonl|csv]
 *
 * Writes to stdout: JSON Lines (default), one object per record, or CSV with a header row (RFC 4180
 * quoting; lists and objects as JSON; cells of text that starts with = + - @ get a leading ' so
 * spreadsheets do not run them as formulas). `--since` keeps feedback received, and devices
 * created or updated, and user settings updated, at or after that instant (a date alone means 00:00 UTC). Times are ISO 8601
 * UTC. Exit code 2 on a usage or data-directory error.
 */
import { cliConfig, cliStore, fail, parseCli } from './common.js';
import { AccountStore } from '../storage/accounts.js';
import { DeviceStore } from '../storage/devices.js';
import { FeedbackStore } from '../storage/feedback.js';
import type { LiveStore } from '../storage/live.js';
import { csvCell } from '../domain/csv.js';

const USAGE = 'usage: export feedback|partner-feedback|devices|user-settings [--since <ISO date>] [--format jsonl|csv]';
const KINDS = ['feedback', 'partner-feedback', 'devices', 'user-settings'] as const;
type Kind = (typeof KINDS)[number];

const COLUMNS: Record<Kind, readonly string[]> = {
  feedback: ['id', 'received_at', 'type', 'priority', 'language', 'email', 'notes', 'context', 'charging_station_id', 'attributes'],
  'partner-feedback': ['id', 'received_at', 'type', 'content', 'tariff', 'cpo', 'emp', 'language'],
  devices: [
    'id', 'fcm_token', 'country', 'language', 'app_version', 'os_version', 'user_products', 'disabled_notifications',
    'user_id', 'created_at', 'updated_at', 'update_count',
  ],
  // D214: no address, name or secret of the user.
  'user-settings': ['user_id', 'version', 'vehicle_id', 'tariff_ids', 'products', 'updated_at'],
};


/** `YYYY-MM-DD` or a full ISO 8601 date-time (with `Z` or an offset); else null. */
export function parseSince(s: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return null;
  const iso = s.length === 10 ? `${s}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

const iso = (ms: number): string => new Date(ms).toISOString();

async function* records(kind: Kind, store: LiveStore, since: number): AsyncGenerator<Record<string, unknown>> {
  if (kind === 'devices') {
    for await (const d of new DeviceStore(store).devices(since)) {
      yield { ...d, created_at: iso(d.created_at), updated_at: iso(d.updated_at) };
    }
    return;
  }
  if (kind === 'user-settings') {
    for await (const r of new AccountStore(store).allSettings()) if (r.updated_at >= since) yield { ...r, updated_at: iso(r.updated_at) };
    return;
  }
  const fb = new FeedbackStore(store);
  if (kind === 'feedback') {
    for await (const r of fb.userFeedback(since)) yield { ...r, received_at: iso(r.received_at) };
  } else {
    for await (const r of fb.partnerFeedback(since)) yield { ...r, received_at: iso(r.received_at) };
  }
}

/** Writes with backpressure; resolves when stdout took everything. */
async function write(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await new Promise<void>((r) => process.stdout.once('drain', r));
}

async function main(argv: string[]): Promise<void> {
  const [kind, ...rest] = argv;
  if (kind === '--help' || kind === '-h') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (kind === undefined || !(KINDS as readonly string[]).includes(kind)) fail(USAGE);
  const { values } = parseCli(rest, { since: { type: 'string' }, format: { type: 'string' } }, USAGE);
  const config = cliConfig();
  let since = 0;
  let format: 'jsonl' | 'csv' = 'jsonl';
  if (values.since !== undefined) {
    const t = parseSince(values.since);
    if (t === null) fail(`--since must be an ISO 8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T12:00:00Z; got "${values.since}"`);
    since = t;
  }
  if (values.format !== undefined) {
    if (values.format !== 'jsonl' && values.format !== 'csv') fail(`--format must be jsonl or csv\n${USAGE}`);
    format = values.format;
  }
  const store = await cliStore(config, true);
  const where = store.where;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  try {
    let it: AsyncGenerator<Record<string, unknown>>;
    let first: IteratorResult<Record<string, unknown>>;
    try {
      it = records(kind as Kind, store, since);
      // The first page is read on the first step; a store the service never migrated lacks the tables.
      first = await it.next();
    } catch (e) {
      fail(`cannot read ${kind} from ${where} (${(e as Error).message}); start the service once on this store to migrate it`);
    }
    const cols = COLUMNS[kind as Kind];
    let buf = format === 'csv' ? cols.join(',') + '\r\n' : '';
    for (let r = first; !r.done; r = await it.next()) {
      const rec = r.value;
      if (format === 'jsonl') {
        const o: Record<string, unknown> = {};
        for (const c of cols) o[c] = rec[c] ?? null;
        buf += JSON.stringify(o) + '\n';
      } else {
        buf += cols.map((c) => csvCell(rec[c])).join(',') + '\r\n';
      }
      if (buf.length > 65536) {
        await write(buf);
        buf = '';
      }
    }
    if (buf.length > 0) await write(buf);
  } finally {
    await store.close();
  }
}

void main(process.argv.slice(2));
