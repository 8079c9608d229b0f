/**
 * Company writes and the catalog's candidate lists (D66, D176): a new company that has no tariffs
 * and that no company refers to keeps the cached lists, and every other company write rebuilds
 * what it can change.
 */
import { describe, expect, it } from 'vitest';
import { CPO, EMP, catalogWith, comp, company, seg, tariff } from './helpers.js';

const slotsAt = (c: ReturnType<typeof catalogWith>, cpo: string) => [...c.candidatesAt(cpo).slots];

describe('PricingCatalog company writes', () => {
  it('answers a CPO that did not exist yet, once it is written, with its candidates', () => {
    const c = catalogWith([tariff('t1', [comp([seg('kwh', 0.3)])])]);
    const NEW = 'c0000000-0000-4000-8000-0000000000ff';
    expect(slotsAt(c, NEW)).toEqual([]);
    c.upsertCompany(company(NEW, { is_cpo: true, is_emp: false, supported_emp_ids: [EMP] }));
    expect(slotsAt(c, NEW)).toEqual(slotsAt(c, CPO));
    expect(slotsAt(c, NEW)).toHaveLength(1);
  });

  it('keeps the cached lists for a new unreferenced company without tariffs, and rebuilds them for the rest', () => {
    const c = catalogWith([tariff('t1', [comp([seg('kwh', 0.3)])])]);
    const before = c.candidatesAt(CPO);
    const generation = c.generation;
    c.upsertCompany(company('e0000000-0000-4000-8000-0000000000aa'));
    expect(c.candidatesAt(CPO)).toBe(before);
    expect(c.generation).toBe(generation);
    // An existing company (here the EMP leaves the CPO's list) changes what the CPO can offer.
    c.upsertCompany(company(CPO, { supported_emp_ids: [] }));
    expect(slotsAt(c, CPO)).toEqual([]);
    // A new company that a CPO already names as supported: the lists are rebuilt too.
    const LATE = 'e0000000-0000-4000-8000-0000000000bb';
    c.upsertCompany(company(CPO, { supported_emp_ids: [LATE] }));
    const cached = c.candidatesAt(CPO);
    c.upsertCompany(company(LATE));
    expect(c.candidatesAt(CPO)).not.toBe(cached);
    c.upsertTariff(tariff('t2', [comp([seg('kwh', 0.2)])], { emp_id: LATE }));
    expect(slotsAt(c, CPO)).toHaveLength(1);
    // References of a removed company no longer count.
    const O = 'c0000000-0000-4000-8000-0000000000cc';
    const Z = 'e0000000-0000-4000-8000-0000000000dd';
    c.upsertCompany(company(O, { is_cpo: true, supported_emp_ids: [Z] }));
    c.removeCompany(O);
    const kept = c.candidatesAt(CPO);
    c.upsertCompany(company(Z));
    expect(c.candidatesAt(CPO)).toBe(kept);
  });
});
