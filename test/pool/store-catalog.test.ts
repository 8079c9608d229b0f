/**
 * A pricing worker's catalog catches up by the changed companies only (D176): after company writes
 * and a delete that touches the companies that referred to the deleted one (D49), the caught-up
 * catalog holds exactly the companies a fresh load of the store gives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Company } from '../../src/domain/companies/registry.js';
import { StoreCatalog } from '../../src/pool/catalog.js';
import { deleteCompany, writeCompany } from '../../src/storage/companies.js';
import { openLiveStore } from '../../src/storage/open.js';
import { logChange, nextGeneration } from '../../src/storage/tariffs.js';

const company = (id: string, o: Partial<Company> = {}): Company => ({
  id,
  name: id,
  url: null,
  is_cpo: false,
  is_emp: true,
  version: 1,
  created_at: 0,
  updated_at: 0,
  external_source_mapping: { ext_a_ids: null, ext_b_names: null, ext_b_charge_card_ids: null, sheet_names: null, ext_c_operator_ids: null, evse_operator_ids: [] },
  supported_emps: [],
  cpo_group: null,
  emp_group: null,
  ...o,
});

describe('StoreCatalog catch-up of companies', () => {
  it('applies writes and a delete with the companies it touched, as a fresh load has them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-store-catalog-'));
    const store = await openLiveStore({ dataDir: dir, databaseUrl: null });
    try {
      const write = (fn: (s: Parameters<Parameters<typeof store.tx>[0]>[0], g: number) => Promise<void>) =>
        store.tx(async (s) => {
          const g = await nextGeneration(s);
          await fn(s, g);
          return g;
        });
      await write(async (s, g) => {
        for (const c of [company('emp-x'), company('emp-y'), company('cpo-a', { is_cpo: true, is_emp: false, supported_emps: ['emp-x', 'emp-y'], cpo_group: 'emp-x' })]) {
          await writeCompany(s, c, g);
          await logChange(s, g, 'company', c.id, 'upsert', 0);
        }
      });
      const catalog = await StoreCatalog.open(store);
      const rename = await write(async (s, g) => {
        await writeCompany(s, company('emp-y', { name: 'renamed' }), g);
        await logChange(s, g, 'company', 'emp-y', 'upsert', 0);
      });
      const removal = await write(async (s, g) => {
        const touched = (await deleteCompany(s, 'emp-x', g))!;
        await logChange(s, g, 'company', 'emp-x', 'delete', 0);
        for (const t of touched) await logChange(s, g, 'company', t, 'upsert', 0);
      });
      await catalog.syncTo(Math.max(rename, removal));
      const fresh = await StoreCatalog.open(store);
      const view = (c: StoreCatalog) => Object.fromEntries([...c.catalog.companies].sort());
      expect(view(catalog)).toEqual(view(fresh));
      expect(Object.keys(view(catalog))).toEqual(['cpo-a', 'emp-y']);
      expect(view(catalog)['cpo-a']).toMatchObject({ supported_emp_ids: ['emp-y'], cpo_group_id: null });
      expect(view(catalog)['emp-y']).toMatchObject({ name: 'renamed' });
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
