/**
 * The evaluator's caller-owned working memory: the packed plan of one tariff (PlanScratch) and the
 * result arrays of a computation (PriceResults). In a module of their own so that both evaluators
 * (src/domain/pricing/evaluate.ts and first-match.ts) use them without importing each other.
 */
/**
 * A plan: the components of one tariff that can apply at a station, with their levels, and the
 * segments that can take part, packed into one Int32Array (`data`, [0, length)) so that an
 * evaluation reads the plan from one place. Per planned component with at least one segment:
 *
 *   [n, rStart, rEnd, then n × (segment offset, level | average << 3)]
 *
 * rStart/rEnd: the component's restrictions to check per charge point, as offsets of
 * `CompiledTariff.evalData` (rStart = rEnd without charge point criteria); segment offset: of
 * the segment's record in `evalData`; level after D73. Parking and occupancy segments, average
 * segments without `average_prices` and country-level segments under the D71 exception are left
 * out already. `planTariff` writes a plan into a reusable scratch plan or returns a cached copy.
 */
export class PlanScratch {
  data: Int32Array;
  length = 0;
  /** Planned components and their levels, [0, count): working memory while planning. */
  comp: Int32Array;
  level: Int8Array;
  count = 0;
  averagePrices = false;
  /** D71 exception: the sub tariff for the CPO is empty, so the country level is not used. */
  noPriceAtCpo = false;
  /** Index of the sub tariff for the CPO, or −1. */
  subIndex = -1;
  /** Resolved D69 policy (1 hide, 2 show_reason) and reason code (1..4). */
  policy = 1;
  reason = 1;
  /** The charge point power handed from `evaluateInto` to `evaluateAt`. */
  readonly power = new Float64Array(1);
  /**
   * For a caller that reuses the prices of a cached plan within one computation (bulk previews):
   * the stamp of the computation that last used the plan, and the plan's row there.
   */
  memoStamp = 0;
  memoRow = 0;

  /** Room for `components` planned components and `ints` packed entries. */
  constructor(components = 64, ints = 512) {
    this.comp = new Int32Array(components);
    this.level = new Int8Array(components);
    this.data = new Int32Array(ints);
  }

  /** Room for n planned components with m segments in all. */
  ensure(n: number, m: number): void {
    if (n > this.comp.length) {
      const cap = Math.max(n, this.comp.length * 2);
      this.comp = new Int32Array(cap);
      this.level = new Int8Array(cap);
    }
    const ints = 3 * n + 2 * m;
    if (ints > this.data.length) this.data = new Int32Array(Math.max(ints, this.data.length * 2));
  }

  /** An exact-size copy of the plan (same class, so the evaluator's loads stay monomorphic). */
  copy(): PlanScratch {
    const p = new PlanScratch(0, this.length);
    p.data.set(this.data.subarray(0, this.length));
    p.length = this.length;
    p.averagePrices = this.averagePrices;
    p.noPriceAtCpo = this.noPriceAtCpo;
    p.subIndex = this.subIndex;
    p.policy = this.policy;
    p.reason = this.reason;
    return p;
  }
}

/** Caller-owned result arrays; entry i = one (tariff, charge point) pair. */
export class PriceResults {
  /** NaN = no price. */
  price: Float64Array;
  /** Three fractions per entry: session, kwh, minute; NaN = key absent. */
  distribution: Float64Array;
  /** NaN = null. */
  blockingFeeStart: Float64Array;
  isAverage: Uint8Array;
  /** 0 when priced, else the resolved reason code (REASONS index). */
  reason: Uint8Array;

  constructor(capacity = 64) {
    this.price = new Float64Array(capacity);
    this.distribution = new Float64Array(capacity * 3);
    this.blockingFeeStart = new Float64Array(capacity);
    this.isAverage = new Uint8Array(capacity);
    this.reason = new Uint8Array(capacity);
  }

  ensure(n: number): void {
    if (n <= this.price.length) return;
    const cap = Math.max(n, this.price.length * 2);
    this.price = new Float64Array(cap);
    this.distribution = new Float64Array(cap * 3);
    this.blockingFeeStart = new Float64Array(cap);
    this.isAverage = new Uint8Array(cap);
    this.reason = new Uint8Array(cap);
  }

  /** The `price_distribution` object of entry i (D87), built outside the hot loop. */
  distributionOf(i: number): Record<string, number> {
    const out: Record<string, number> = {};
    const d = this.distribution;
    if (!Number.isNaN(d[3 * i])) out.session = d[3 * i];
    if (!Number.isNaN(d[3 * i + 1])) out.kwh = d[3 * i + 1];
    if (!Number.isNaN(d[3 * i + 2])) out.minute = d[3 * i + 2];
    return out;
  }
}

