/**
 * Admission budgets per route class (D176): while the service is saturated, a class that used
 * more than its share of the recent service refuses its new requests (503, held like D106), so
 * no class can starve another. Price work has its own admission (D106) and is never refused here;
 * `probe` routes (`/health`, `/ready`, the operator's snapshot swap) never are.
 *
 * What a class uses is counted two ways over the last window of 250 ms and the current one:
 * main-thread time of the pipeline's synchronous stages as a share of the clock (what a flood of
 * synchronous requests uses up), and the time its requests were in progress as a share of all
 * classes' (what writes queued on the store hold). A class is over budget when either share is
 * over its budget, and is refused only while another class used the service too or has requests
 * in progress (work-conserving). The caller says what "saturated" is, from whether the event
 * loop was busy for 85 % of the last window (the service: that with 32 requests in progress, or
 * price work saturated).
 */
import { performance } from 'node:perf_hooks';
import { BUDGETED, type BudgetedClass } from '../config.js';

/** The classes of D176; `price` and `probe` are never refused by a budget. */
export type RouteClass = 'price' | 'probe' | 'read' | 'write' | 'cost' | 'ops' | 'preflight' | 'export';

const WINDOW_MS = 250;
/** The event loop's utilization over a window from which it counts as busy. */
const BUSY_ELU = 0.85;
const CLASSES: readonly RouteClass[] = ['price', 'probe', 'read', 'write', 'cost', 'ops', 'preflight', 'export'];
const PROBE = CLASSES.indexOf('probe');

export class AdmissionBudgets {
  /** Per class index: main-thread ms and in-progress ms, this window and the last. */
  private readonly cpu = new Float64Array(CLASSES.length * 2);
  private readonly wall = new Float64Array(CLASSES.length * 2);
  private readonly share = new Float64Array(CLASSES.length).fill(Infinity);
  /** Requests in progress per class (refused ones waiting for their answer excluded). */
  private readonly inProgress = new Int32Array(CLASSES.length);
  private cur = 0;
  private elu = performance.eventLoopUtilization();
  private loopBusy = false;
  private turnedAt = performance.now();
  private lastWindowMs: number;
  private readonly timer: NodeJS.Timeout;
  refused = 0;

  /**
   * `saturated` decides from whether the event loop was busy for at least 85 % of the last window
   * and what the caller knows besides (requests in progress, price work waiting for a worker).
   */
  constructor(
    budgets: Readonly<Record<BudgetedClass, number>>,
    private readonly saturated: (loopBusy: boolean) => boolean,
    windowMs = WINDOW_MS,
  ) {
    for (const c of BUDGETED) this.share[CLASSES.indexOf(c)] = budgets[c];
    this.lastWindowMs = windowMs;
    this.timer = setInterval(() => this.turn(), windowMs);
    this.timer.unref();
  }

  private turn(): void {
    const next = performance.eventLoopUtilization();
    this.loopBusy = performance.eventLoopUtilization(next, this.elu).utilization >= BUSY_ELU;
    this.elu = next;
    const now = performance.now();
    // The timer can fire late (a blocked loop): the last window's real length, not its nominal one.
    this.lastWindowMs = now - this.turnedAt;
    this.turnedAt = now;
    this.cur ^= 1;
    const n = CLASSES.length;
    for (let i = 0; i < n; i++) {
      this.cpu[this.cur * n + i] = 0;
      this.wall[this.cur * n + i] = 0;
    }
  }

  /** Whether a request of class `c` may start now. */
  admit(c: RouteClass): boolean {
    const i = CLASSES.indexOf(c);
    const budget = this.share[i];
    if (budget === Infinity) return true;
    if (!this.saturated(this.loopBusy)) return true;
    const n = CLASSES.length;
    let wallAll = 0;
    let others = 0;
    for (let k = 0; k < 2 * n; k++) {
      wallAll += this.wall[k];
      const j = k % n;
      if (j !== i && j !== PROBE) others += this.wall[k] + this.cpu[k];
    }
    for (let j = 0; j < n; j++) if (j !== i && j !== PROBE) others += this.inProgress[j];
    // Work-conserving: a class alone (a bulk import on an idle service) is never refused; another
    // class counts when it used the service in the window or has requests in progress.
    if (others === 0) return true;
    // Main-thread time against the clock (the last window and this one so far); time in
    // progress against all classes' (requests overlap).
    const cpu = (this.cpu[i] + this.cpu[n + i]) / (this.lastWindowMs + performance.now() - this.turnedAt);
    const wall = this.wall[i] + this.wall[n + i];
    if (cpu > budget || (wallAll > 0 && wall / wallAll > budget)) {
      this.refused++;
      return false;
    }
    return true;
  }

  /** A request of class `c` is in progress after its first stages. */
  enter(c: RouteClass): void {
    this.inProgress[CLASSES.indexOf(c)]++;
  }

  leave(c: RouteClass): void {
    this.inProgress[CLASSES.indexOf(c)]--;
  }

  /** Requests of class `c` in progress now. */
  inProgressOf(c: RouteClass): number {
    return this.inProgress[CLASSES.indexOf(c)];
  }

  /** Main-thread time of one synchronous stage of a request of class `c`. */
  chargeCpu(c: RouteClass, ms: number): void {
    this.cpu[this.cur * CLASSES.length + CLASSES.indexOf(c)] += ms;
  }

  /** Time a request of class `c` was in progress, when it is answered. */
  chargeWall(c: RouteClass, ms: number): void {
    this.wall[this.cur * CLASSES.length + CLASSES.indexOf(c)] += ms;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
