/**
 * The bulk calculation (D91) over stations of the station index, on the pricing pool: area and
 * route price search (D113) and price tiles (D198) hand it station indices and read one row per
 * priced station. More than 300 stations are split into one task per worker, run side by side.
 */
import type { AppContext } from './context.js';
import type { StationPricesTask } from '../pool/protocol.js';

/** A priced station's cheapest pair (D91). */
export interface StationPrice {
  price: number;
  energy: number;
  duration: number;
  plug: string;
  power: number;
  tariffId: string;
}

/** The task's rows: [position, price, energy, duration, plug, power, tariff id]. */
type Row = [number, number, number, number, string, number, string];

/** Prices the stations `indices` (of ctx.stations); `found` is called once per priced station. */
export async function priceStations(
  ctx: AppContext,
  base: Omit<StationPricesTask, 'stations'>,
  indices: readonly number[],
  found: (i: number, p: StationPrice) => void,
): Promise<void> {
  if (indices.length === 0) return;
  const index = ctx.stations;
  const plan = ctx.prices.plan({ task: 'stationPrices', stations: indices.length, tariffs: base.tariffIds.length });
  const size = Math.ceil(indices.length / plan.parts);
  const runs = [];
  const current = ctx.prices.dispatchesStations(index.c.ids);
  for (let k = 0; k < plan.parts; k++) {
    const part = indices.slice(k * size, (k + 1) * size);
    const stations = current ? { indices: Int32Array.from(part) } : { ids: part.map((i) => index.idAt(i)) };
    runs.push(ctx.prices.run(plan, { ...base, stations }));
  }
  // Every answer's output slot is freed, also when another part failed (503 overloaded, 500).
  const settled = await Promise.allSettled(runs);
  const texts: string[] = [];
  for (const r of settled) {
    if (r.status !== 'fulfilled') continue;
    texts.push(typeof r.value.body === 'string' ? r.value.body : r.value.body.toString('utf8'));
    r.value.release?.();
  }
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  texts.forEach((text, k) => {
    for (const [pos, price, energy, duration, plug, power, tariffId] of (JSON.parse(text) as { p: Row[] }).p) {
      found(indices[k * size + pos], { price, energy, duration, plug, power, tariffId });
    }
  });
}
