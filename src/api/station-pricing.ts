/**
 * The bulk calculation (D91) over stations of the station index, on the pricing pool: area and
 * route price search (D113) and price tiles (D198) hand it station indices and read one row per
 * priced station. More than 300 stations are split into one task per worker, run side by side.
 */
import type { AppContext } from './context.js';
import type { StationPricesTask } from '../pool/protocol.js';
import { decodeStationPriceRows, type StationPriceRows } from '../pool/price-rows.js';

/** A priced station's cheapest pair (D91) in the rows of one task's answer (D288). */
export type { StationPriceRows } from '../pool/price-rows.js';

/**
 * Called once per priced station: `j` its position in the `indices` priced, its pair in row `r`
 * of `rows` (valid only during the call: the rows may lie in a shared output slot).
 */
export type FoundPrice = (j: number, rows: StationPriceRows, r: number) => void;

/** Prices the stations `indices` (of ctx.stations); `found` is called once per priced station. */
export async function priceStations(
  ctx: AppContext,
  base: Omit<StationPricesTask, 'stations'>,
  indices: readonly number[],
  found: FoundPrice,
): Promise<void> {
  if (indices.length === 0) return;
  const index = ctx.stations;
  const plan = ctx.prices.plan({ task: 'stationPrices', stations: indices.length, tariffs: base.tariffIds.length });
  const size = Math.ceil(indices.length / plan.parts);
  const runs = [];
  const current = ctx.prices.dispatchesStations(index.c.ids);
  const text = JSON.stringify(base);
  for (let k = 0; k < plan.parts; k++) {
    const part = indices.slice(k * size, (k + 1) * size);
    const stations = current ? { indices: Int32Array.from(part) } : { ids: part.map((i) => index.idAt(i)) };
    runs.push(ctx.prices.run(plan, { base: text, stations }));
  }
  // Every answer's output slot is freed, also when another part failed (503 overloaded, 500).
  const settled = await Promise.allSettled(runs);
  try {
    // A failed part fails the request before any part's prices are taken.
    for (const r of settled) if (r.status === 'rejected') throw r.reason;
    settled.forEach((r, k) => {
      if (r.status === 'rejected') return;
      const body = r.value.body;
      if (typeof body === 'string') throw new Error('station prices answered as text');
      const rows = decodeStationPriceRows(body);
      const at = k * size;
      for (let q = 0; q < rows.n; q++) found(at + rows.position[q], rows, q);
    });
  } finally {
    for (const r of settled) if (r.status === 'fulfilled') r.value.release?.();
  }
}
