/** Shared set-up of the price endpoint tests: companies and tariffs created over HTTP. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { call, type Target } from '../helpers/server.js';

export const ref = (type: string, id: string) => ({ type, id });

export interface CompanyOpts {
  name?: string;
  is_emp?: boolean;
  is_cpo?: boolean;
  url?: string;
  supported_emps?: string[];
  cpo_group?: string | null;
  emp_group?: string | null;
  external_source_mapping?: Record<string, unknown>;
}

export async function putCompany(srv: Target, key: string, o: CompanyOpts = {}, id: string = randomUUID(), version = 1): Promise<string> {
  const r = await call(srv, 'PUT', `/v1/companies/${id}`, {
    key,
    body: {
      data: {
        id,
        type: 'company',
        attributes: {
          name: o.name ?? 'Company ' + id.slice(0, 6),
          version,
          is_cpo: o.is_cpo ?? false,
          is_emp: o.is_emp ?? true,
          ...(o.url ? { url: o.url } : {}),
          external_source_mapping: o.external_source_mapping ?? {},
        },
        relationships: {
          supported_emps: { data: (o.supported_emps ?? []).map((e) => ref('company', e)) },
          ...(o.cpo_group ? { cpo_group: { data: ref('company', o.cpo_group) } } : {}),
          ...(o.emp_group ? { emp_group: { data: ref('company', o.emp_group) } } : {}),
        },
      },
    },
  });
  expect(r.status, r.text).toBe(version === 1 ? 201 : 200);
  return id;
}

export interface TariffOpts {
  type?: 'tariff' | 'sub_tariff';
  attributes?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  version?: number;
}

export async function putTariff(srv: Target, key: string, emp: string, o: TariffOpts = {}, id: string = randomUUID()): Promise<string> {
  const type = o.type ?? 'tariff';
  const r = await call(srv, 'PUT', `/v2/tariffs/${id}`, {
    key,
    body: {
      data: {
        id,
        type,
        attributes: {
          ...(type === 'tariff' ? { name: 'Tariff ' + id.slice(0, 6), currency: 'EUR' } : {}),
          version: o.version ?? 1,
          ...o.attributes,
        },
        relationships: { emp: { data: ref('company', emp) }, ...o.relationships },
      },
    },
  });
  expect(r.status, r.text).toBe((o.version ?? 1) === 1 ? 201 : 200);
  return id;
}

export const seg = (dimension: string, price: number, extra: Record<string, unknown> = {}) => ({ dimension, price, ...extra });
export const comp = (decomposition: unknown[], restrictions: unknown[] = []) => ({ restrictions, decomposition });

/** A charge price request body (Set B by default, network-wide). */
export function chargeBody(o: {
  network: string;
  country?: string;
  charge_points?: { plug: string; power: number }[];
  options?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  latitude?: number;
  longitude?: number;
  adapter?: string;
}): any {
  return {
    data: {
      type: 'charge_price_request',
      attributes: {
        data_adapter: o.adapter ?? 'native',
        station: {
          longitude: o.longitude ?? 0,
          latitude: o.latitude ?? 0,
          country: o.country ?? 'DE',
          network: o.network,
          charge_points: o.charge_points ?? [{ plug: 'type2', power: 22 }],
        },
        options: o.options ?? { energy: 22, duration: 60 },
      },
      ...(o.relationships ? { relationships: o.relationships } : {}),
    },
  };
}

/**
 * Settings under which every charge price request is priced (the answers of repeated requests not
 * served from memory, D287): for tests of the pool's queue, deadlines and shutdown.
 */
export const PRICE_EVERY_REQUEST = { CHARGE_PRICE_CACHE_MB: '0' } as const;

/** 300 tariffs of one EMP at a CPO (written with key `W`), and a 100-charge-point request: a few ms of price work per request. */
export async function heavySetup(srv: Target, W: string): Promise<{ cpo: string; body: unknown }> {
  const emp = await putCompany(srv, W, {});
  const cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
  for (let i = 0; i < 300; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, k) =>
        putTariff(srv, W, emp, {
          attributes: {
            prices: [
              comp([seg('kwh', 0.3 + (i + k) / 1000, { time_of_day_start: 360, time_of_day_end: 1320 }), seg('kwh', 0.25, { time_of_day_start: 1320, time_of_day_end: 360 }), seg('minute', 0.02, { range_gte: 60, billing_increment: 5 })]),
              comp([seg('session', 1)], [{ allowance: 'allow', charge_point_energy_type: 'dc', charge_point_powers: [50, 350], charge_point_power_is_range: true }]),
            ],
          },
        }),
      ),
    );
  }
  const cps = Array.from({ length: 100 }, (_, i) => ({ plug: i % 2 === 0 ? 'ccs' : 'type2', power: 11 + i }));
  return { cpo, body: chargeBody({ network: cpo, charge_points: cps, options: { energy: 40, duration: 600, start_time: 1200 } }) };
}
