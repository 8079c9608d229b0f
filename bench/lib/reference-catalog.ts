/**
 * The live store's companies, tariffs and station-level prices as plain data, with D66 and the
 * power profile written again on plain data, for the two consumers that must not reuse the
 * engine's compiled code: the fastify peer (bench/peer/server.ts) and the HTTP tests' cross-check
 * against the reference evaluator (test/pool/reference-check.ts).
 */
import type { ChargeSession, CompanyInput, PriceComponent, TariffInput } from '../../src/domain/pricing/index.js';
import { loadCompanies } from '../../src/storage/companies.js';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { loadStationPrices, loadTariffs } from '../../src/storage/tariffs.js';

export interface RefCatalog {
  companies: Map<string, CompanyInput>;
  tariffs: Map<string, TariffInput>;
  subsOf: Map<string, TariffInput[]>;
  evse: Map<string, Map<string, PriceComponent[]>>;
}

export async function loadRefCatalog(dataDir: string, databaseUrl: string | null = null): Promise<RefCatalog> {
  const store = await openLiveStoreReadonly({ dataDir, databaseUrl });
  try {
    const loaded = await store.read(async (s) => ({ companies: await loadCompanies(s), tariffs: await loadTariffs(s), stationPrices: await loadStationPrices(s) }));
    const companies = new Map<string, CompanyInput>();
    for (const c of loaded.companies) {
      companies.set(c.id, {
        id: c.id,
        name: c.name,
        url: c.url,
        is_emp: c.is_emp,
        is_cpo: c.is_cpo,
        supported_emp_ids: c.supported_emps,
        cpo_group_id: c.cpo_group,
        emp_group_id: c.emp_group,
      });
    }
    const tariffs = new Map<string, TariffInput>();
    const subsOf = new Map<string, TariffInput[]>();
    for (const t of loaded.tariffs as unknown as TariffInput[]) {
      tariffs.set(t.id, t);
      for (const s of t.super_tariff_ids ?? []) {
        if (!subsOf.has(s)) subsOf.set(s, []);
        subsOf.get(s)!.push(t);
      }
    }
    for (const l of subsOf.values()) l.sort((a, b) => (a.id < b.id ? -1 : 1));
    const evse = new Map<string, Map<string, PriceComponent[]>>();
    for (const sp of loaded.stationPrices) {
      if (!evse.has(sp.tariff_id)) evse.set(sp.tariff_id, new Map());
      evse.get(sp.tariff_id)!.set(sp.station_id, sp.prices as unknown as PriceComponent[]);
    }
    return { companies, tariffs, subsOf, evse };
  } finally {
    await store.close();
  }
}

/** D66 on plain data: direct (own or group tariff), roaming (supported EMP), or none. */
export function usable(cat: RefCatalog, empId: string, cpoId: string): 'direct' | 'roaming' | 'none' {
  const cpo = cat.companies.get(cpoId);
  if (!cpo || !cat.companies.has(empId)) return 'none';
  const g = cpo.cpo_group_id && cat.companies.has(cpo.cpo_group_id) ? cpo.cpo_group_id : null;
  if (empId === cpoId || empId === g) return 'direct';
  const h = cat.companies.get(empId)!.emp_group_id ?? null;
  const s = [...(cpo.supported_emp_ids ?? []), ...(g ? (cat.companies.get(g)!.supported_emp_ids ?? []) : [])];
  return s.some((e) => e === empId || (h !== null && e === h)) ? 'roaming' : 'none';
}

export function profileOf(s: ChargeSession): { steps: { minutes: number; kw: number }[]; consumed_power: number } {
  const steps: { minutes: number; kw: number }[] = [];
  let t = 0;
  for (let i = 0; i < s.steps; i++) {
    steps.push({ minutes: s.tEnd[i] - t, kw: s.power[i] });
    t = s.tEnd[i];
  }
  return { steps, consumed_power: s.consumedPower };
}
