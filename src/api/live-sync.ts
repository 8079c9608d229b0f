/**
 * Keeps this process's in-memory view of the live store (companies, tariffs, keys) current with
 * the store (D151), whoever wrote it.
 *
 * - Own writes: after its commit a write applies its change directly when it is the next
 *   generation, else the catalog catches up from the store's change log (another replica wrote
 *   in between). Every apply goes through one queue, so a catch-up never interleaves with a direct
 *   apply and a row read before a newer write can never replace it.
 * - Other replicas' writes (a shared store): NOTIFY starts a catch-up at once; and before work
 *   whose answer depends on the catalog or on the keys, `fresh()` reads the store's counters, so a
 *   write acknowledged anywhere before the request started is in its answer (read-your-writes).
 *   Concurrent requests share one counter query: a request waits for a query that started after
 *   it arrived (at most one running and one queued), so the database sees at most one such query
 *   per round trip however many requests arrive.
 */
import type { Logger } from 'pino';
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { TariffCatalog } from '../domain/tariffs/catalog.js';
import type { KeyRegistry } from '../auth/keys.js';
import type { LiveStore, StoreVersions } from '../storage/live.js';
import { readCatalogDelta } from '../storage/tariffs.js';

export class LiveSync {
  private queue: Promise<unknown> = Promise.resolve();
  private running: Promise<StoreVersions> | null = null;
  private queued: Promise<StoreVersions> | null = null;
  /** Counter queries made by `fresh()` (metrics, benches). */
  checks = 0;
  /** Catch-ups that found changes of other writers. */
  catchUps = 0;

  constructor(
    private readonly store: LiveStore,
    private readonly companies: CompanyRegistry,
    private readonly tariffs: TariffCatalog,
    private readonly keys: KeyRegistry,
    private readonly logger: Logger,
  ) {}

  /** Subscribes to the store's change notifications (a shared store; SQLite never calls). */
  start(): void {
    this.store.listen((change) => {
      const done = change === 'catalog' ? this.catchUp() : this.keys.refresh();
      done.catch(() => {
        // The store's fault log says what failed; the next notification or request retries.
      });
    });
  }

  /** Runs `fn` after every apply queued before it. */
  private serial<T>(fn: () => Promise<T> | T): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => {});
    return p;
  }

  /**
   * After a committed catalog write of `generation`: `apply` it when it is the next generation,
   * skip it when a catch-up applied it already, else catch up from the store.
   */
  afterWrite(generation: number, apply: () => void): Promise<void> {
    return this.serial(async () => {
      const local = this.tariffs.generation;
      if (generation <= local) return;
      if (generation === local + 1) apply();
      else await this.applyChanges();
    });
  }

  /** Applies every change of the store after the local catalog generation. */
  catchUp(): Promise<void> {
    return this.serial(() => this.applyChanges());
  }

  private async applyChanges(): Promise<void> {
    const since = this.tariffs.generation;
    const d = await this.store.read((s) => readCatalogDelta(s, since));
    if (d.generation <= since) return;
    if (d.changes.length > 0) this.catchUps++;
    const top = d.generation;
    if (d.companies !== null) {
      for (const c of d.companies.upserts) this.companies.upsert(c);
      for (const id of d.companies.removed) this.companies.remove(id);
    }
    for (const id of d.removed) this.tariffs.remove(id, top);
    for (const t of d.upserts) this.tariffs.upsert(t, top);
    const companyIds = new Set<string>();
    for (const c of d.changes) if (c.kind === 'company') companyIds.add(c.id);
    for (const id of companyIds) this.tariffs.companyChanged(id, this.companies.has(id) ? 'upsert' : 'delete', top);
    // A generation with nothing to apply here (taken without a logged change, or station prices,
    // which only the seed writes) still moves, so the workers load it from the store.
    this.tariffs.advance(top);
    this.logger.debug({ from: since, to: top, changes: d.changes.length }, 'catalog caught up from the live store');
  }

  /** The store's counters, from a query that started after this call (shared by concurrent callers). */
  private counters(): Promise<StoreVersions> {
    if (this.running === null) return (this.running = this.launch());
    return (this.queued ??= this.running
      .then(
        () => {},
        () => {},
      )
      .then(() => {
        this.queued = null;
        return (this.running = this.launch());
      }));
  }

  private launch(): Promise<StoreVersions> {
    this.checks++;
    const p: Promise<StoreVersions> = this.store.versions().finally(() => {
      if (this.running === p) this.running = null;
    });
    return p;
  }

  /**
   * Read-your-writes before catalog- or key-dependent work (D151): null when nothing else writes
   * the store (SQLite: free), else a promise that settles once the local view is at least as new
   * as the store was when the call was made (rejects with StorageUnavailableError when it cannot
   * be checked).
   */
  fresh(): Promise<void> | null {
    if (!this.store.shared) return null;
    return this.counters().then((v) => {
      const waits: Promise<void>[] = [];
      if (v.catalog > this.tariffs.generation) waits.push(this.catchUp());
      if (v.keys !== this.keys.version) waits.push(this.keys.reload());
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
    });
  }
}
