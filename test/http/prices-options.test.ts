import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sessionForVehicle, vehicleFromEvData } from '../../src/domain/pricing/index.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');

const priceOf = (doc: any, tariff: string, i = 0): number | null | undefined =>
  doc.data.find((d: any) => d.relationships.tariff.data.id === tariff)?.attributes.charge_point_prices[i]?.price;
const ids = (doc: any): string[] => doc.data.map((d: any) => d.relationships.tariff.data.id);

describe('charge prices: options, include modes, texts, sorting, vehicles', () => {
  let srv: TestApp;
  let snap: Snapshot;
  let brandA: string;
  let brandB: string;
  let vehicle: { id: string; brand_id: string; data: Record<string, unknown> };
  const post = (body: unknown, headers: Record<string, string> = {}) => call(srv, 'POST', '/v1/charge_prices', { key: C, body, headers });
  const newEmp = () => putCompany(srv, W, { name: 'EMP ' + randomUUID().slice(0, 6) });
  const listed = (ts: string[], include?: string) => ({ tariffs: { data: ts.map((t) => ref('tariff', t)), ...(include ? { meta: { include } } : {}) } });

  beforeAll(async () => {
    // Requests estimated at one evaluation run on the main thread, all others in the pool.
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts' }, env: { PRICING_INLINE_MAX_EVALUATIONS: '1' } });
    snap = Snapshot.open(inject('testSnapshot'));
    const vs = snap.vehicles();
    vehicle = vs.find((v) => {
      const d = v.data as any;
      return d.dc_charger?.ports?.includes?.('ccs') && !d.dc_charger.ports.includes('chademo') && d.ac_charger?.max_power > 0;
    })!;
    brandA = vehicle.brand_id;
    brandB = snap.brands().find((b) => b.id !== brandA)!.id;
  });
  afterAll(async () => {
    snap.close();
    await srv.stop();
  });

  it('include modes filter / always / exclusive and no relationship (D67)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const outsider = await putCompany(srv, W, {});
    const plain = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.3)])] } });
    const other = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.31)])] } });
    const pco = await putTariff(srv, W, emp, { attributes: { provider_customer_only: true, prices: [comp([seg('kwh', 0.2)])] } });
    const unusable = await putTariff(srv, W, outsider, { attributes: { prices: [comp([seg('kwh', 0.1)])] } });
    const body = (rel?: Record<string, unknown>) => chargeBody({ network: cpoX, ...(rel ? { relationships: rel } : {}) });
    expect(ids((await post(body())).json).sort()).toEqual([plain, other].sort());
    expect(ids((await post(body(listed([plain, pco, unusable])))).json)).toEqual([plain]);
    expect(ids((await post(body(listed([plain, pco, unusable], 'filter')))).json)).toEqual([plain]);
    expect(ids((await post(body(listed([pco, unusable], 'always')))).json).sort()).toEqual([plain, other, pco].sort());
    expect(ids((await post(body(listed([pco, plain, unusable, randomUUID()], 'exclusive')))).json).sort()).toEqual([plain, pco].sort());
    // provider_customer_tariffs true lets the provider-customer tariff through the filters.
    const r = await post(chargeBody({ network: cpoX, options: { energy: 22, duration: 60, provider_customer_tariffs: true } }));
    expect(ids(r.json).sort()).toEqual([plain, other, pco].sort());
  });

  it('foreign_tariffs false drops tariffs supported elsewhere; max_monthly_fees compares fee + min sales in the requested currency', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const fr = await putTariff(srv, W, emp, { attributes: { supported_countries: ['FR'], prices: [comp([seg('kwh', 0.3)])] } });
    const de = await putTariff(srv, W, emp, { attributes: { supported_countries: ['de'], prices: [comp([seg('kwh', 0.3)])] } });
    const fee = await putTariff(srv, W, emp, {
      attributes: { monthly_fee: 4, yearly_service_fee: 12, monthly_min_sales: 1, prices: [comp([seg('kwh', 0.2)])] },
    });
    const opts = (o: Record<string, unknown>) => chargeBody({ network: cpoX, options: { energy: 22, duration: 60, ...o } });
    expect(ids((await post(opts({}))).json).sort()).toEqual([fr, de, fee].sort());
    expect(ids((await post(opts({ foreign_tariffs: false }))).json).sort()).toEqual([de, fee].sort());
    expect(ids((await post(opts({ max_monthly_fees: 6 }))).json).sort()).toEqual([fr, de, fee].sort());
    expect(ids((await post(opts({ max_monthly_fees: 5.99 }))).json).sort()).toEqual([fr, de].sort());
    const feeDoc = (await post(opts({}))).json.data.find((d: any) => d.relationships.tariff.data.id === fee);
    expect(feeDoc.attributes.total_monthly_fee).toBe(5);
    expect(feeDoc.attributes.monthly_min_sales).toBe(1);
  });

  it('brand-restricted tariffs: only for a matching vehicle unless show_all_brand_restricted_tariffs (D67)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const a = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('kwh', 0.3)])] },
      relationships: { vehicle_brands: { data: [ref('brand', brandA)] } },
    });
    const b = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('kwh', 0.3)])] },
      relationships: { vehicle_brands: { data: [ref('brand', brandB)] } },
    });
    const setA = (o: Record<string, unknown> = {}) =>
      chargeBody({
        network: cpoX,
        options: { battery_range: [20, 80], ...o },
        relationships: { vehicle: { data: ref('car', vehicle.id) } },
      });
    expect(ids((await post(setA())).json)).toEqual([a]);
    expect(ids((await post(setA({ show_all_brand_restricted_tariffs: true }))).json).sort()).toEqual([a, b].sort());
    expect(ids((await post(chargeBody({ network: cpoX }))).json)).toEqual([]);
    expect(ids((await post(chargeBody({ network: cpoX, options: { energy: 1, duration: 1, show_all_brand_restricted_tariffs: true } }))).json).sort()).toEqual([a, b].sort());
  });

  it('Set A: meta.charge_points from the vehicle model, unusable charge points omitted, phases and unbalanced load (D75–D78, D90)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const t = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.5), seg('minute', 0.01)])] } });
    const v = vehicleFromEvData({ id: vehicle.id, brand_id: vehicle.brand_id, ...(vehicle.data as any) } as any);
    const cps = [
      { plug: 'type2', power: 22 },
      { plug: 'CCS', power: 150 },
      { plug: 'chademo', power: 50 },
    ];
    const body = (o: Record<string, unknown> = {}) =>
      chargeBody({
        network: cpoX,
        charge_points: cps,
        options: { battery_range: [10, 80], ...o },
        relationships: { vehicle: { data: ref('car', vehicle.id) } },
      });
    const r = await post(body());
    expect(r.status, r.text).toBe(200);
    const ac = sessionForVehicle(v, 'ac', 22, [10, 80], { carAcPhases: 3, allowUnbalancedLoad: false });
    const dc = sessionForVehicle(v, 'dc', 150, [10, 80], { carAcPhases: 3, allowUnbalancedLoad: false });
    expect(r.json.meta.charge_points).toEqual([
      { plug: 'type2', power: 22, duration: ac.duration, energy: ac.energy },
      { plug: 'CCS', power: 150, duration: dc.duration, energy: dc.energy },
    ]);
    const prices = r.json.data[0].attributes.charge_point_prices;
    expect(prices.map((p: any) => p.plug)).toEqual(['type2', 'CCS']);
    expect(prices[0].price).toBeCloseTo(ac.energy * 0.5 + ac.duration * 0.01, 9);
    const one = await post(body({ car_ac_phases: 1 }));
    const ac1 = sessionForVehicle(v, 'ac', 22, [10, 80], { carAcPhases: 1, allowUnbalancedLoad: false });
    expect(one.json.meta.charge_points[0].duration).toBe(ac1.duration);
    const unb = await post(body({ car_ac_phases: 1, allow_unbalanced_load: true }));
    const ac2 = sessionForVehicle(v, 'ac', 22, [10, 80], { carAcPhases: 1, allowUnbalancedLoad: true });
    expect(unb.json.meta.charge_points[0].duration).toBe(ac2.duration);
    expect(ac1.duration).toBeGreaterThan(ac.duration);
    expect(ids(r.json)).toEqual([t]);
  });

  it('start_time shifts time windows and is echoed (D79, D80, X5)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const t = await putTariff(srv, W, emp, {
      attributes: {
        prices: [comp([seg('kwh', 0.4, { time_of_day_start: 360, time_of_day_end: 1320 }), seg('kwh', 0.3, { time_of_day_start: 1320, time_of_day_end: 360 })])],
      },
    });
    const at = async (start: number) =>
      (await post(chargeBody({ network: cpoX, options: { energy: 30, duration: 120, start_time: start } }))).json.data[0].attributes;
    const a = await at(1260);
    expect(a.start_time).toBe(1260);
    expect(a.charge_point_prices[0].price).toBeCloseTo(10.5, 12);
    expect((await at(1380)).charge_point_prices[0].price).toBeCloseTo(9, 12);
    expect(t).toBeTruthy();
  });

  it('show_price_unavailable: translated reasons for show_reason tariffs only; hide tariffs never appear unpriced (D41, D22, D23)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const dcOnly = [comp([seg('kwh', 0.5)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])];
    const show = await putTariff(srv, W, emp, {
      attributes: { name: 'Show', no_price_policy: 'show_reason', no_price_reason: 'not_public', prices: dcOnly },
    });
    const hide = await putTariff(srv, W, emp, { attributes: { name: 'Hide', prices: dcOnly } });
    const nowhere = await putTariff(srv, W, emp, { attributes: { name: 'Nowhere', no_price_policy: 'show_reason', prices: [] } });
    const hiddenNowhere = await putTariff(srv, W, emp, { attributes: { name: 'Hidden nowhere', prices: [] } });
    const cps = [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 50 }];
    const body = (o: Record<string, unknown>) => chargeBody({ network: cpoX, charge_points: cps, options: { energy: 10, duration: 30, ...o } });
    const off = await post(body({}));
    expect(ids(off.json).sort()).toEqual([show, hide].sort());
    for (const d of off.json.data) expect(d.attributes.charge_point_prices.map((p: any) => p.plug)).toEqual(['ccs']);
    const on = await post(body({ show_price_unavailable: true }), { 'Accept-Language': 'fr;q=0.5, de-AT;q=0.9, en;q=0.1' });
    expect(ids(on.json)).toEqual([show, hide, nowhere].filter((x) => x !== hiddenNowhere).sort((x, y) => ids(on.json).indexOf(x) - ids(on.json).indexOf(y)));
    const s = on.json.data.find((d: any) => d.relationships.tariff.data.id === show).attributes.charge_point_prices;
    expect(s).toEqual([
      { plug: 'type2', power: 22, price: null, price_distribution: {}, blocking_fee_start: null, no_price_reason: 'Die Preise sind nicht öffentlich.', is_average_price: false },
      { plug: 'ccs', power: 50, price: 5, price_distribution: { kwh: 1 }, blocking_fee_start: null, no_price_reason: null, is_average_price: false },
    ]);
    const h = on.json.data.find((d: any) => d.relationships.tariff.data.id === hide).attributes.charge_point_prices;
    expect(h.map((p: any) => p.plug)).toEqual(['ccs']);
    const n = on.json.data.find((d: any) => d.relationships.tariff.data.id === nowhere).attributes.charge_point_prices;
    expect(n.map((p: any) => [p.price, p.no_price_reason])).toEqual([
      [null, 'Dieser Preis ist in unserem System noch nicht erfasst.'],
      [null, 'Dieser Preis ist in unserem System noch nicht erfasst.'],
    ]);
    // The only-null entry sorts last (D92).
    expect(ids(on.json)[2]).toBe(nowhere);
    for (const [lang, text] of [
      ['en', 'Prices are not public.'],
      ['fr-CA', 'Les prix ne sont pas publics.'],
      ['nl', 'De prijzen zijn niet openbaar.'],
      ['da', 'Priserne er ikke offentlige.'],
      ['es', 'Prices are not public.'],
    ]) {
      const r = await post(body({ show_price_unavailable: true }), { 'Accept-Language': lang });
      const p = r.json.data.find((d: any) => d.relationships.tariff.data.id === show).attributes.charge_point_prices[0];
      expect(p.no_price_reason, lang).toBe(text);
    }
  });

  it('tags are localized, expired tags and hide_for_owners tags of listed tariffs dropped; system_tags, branding, card payment copied (D40, D42)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const branding = { background_color: '#000000', text_color: '#ffffff', logo_url: 'https://emp.example/logo.png' };
    const t = await putTariff(srv, W, emp, {
      attributes: {
        is_card_payment: true,
        system_tags: ['x-one'],
        branding,
        prices: [comp([seg('kwh', 0.3)])],
        tags: [
          { kind: 'info', localized_text: { en: 'Cheap', nl: 'Goedkoop' }, url: 'https://emp.example/{locale}/info' },
          { kind: 'alert', localized_text: { de: 'Nur Deutsch' } },
          { kind: 'star', localized_text: { en: 'Old' }, show_until: Date.now() - 1000 },
          { kind: 'lock', localized_text: { en: 'Owners know' }, hide_for_owners: true },
        ],
      },
    });
    const r = await post(chargeBody({ network: cpoX }), { 'Accept-Language': 'nl' });
    const a = r.json.data[0].attributes;
    expect(a.tags).toEqual([
      { kind: 'info', text: 'Goedkoop', url: 'https://emp.example/{locale}/info' },
      { kind: 'alert', text: 'Nur Deutsch', url: null },
      { kind: 'lock', text: 'Owners know', url: null },
    ]);
    expect(a.system_tags).toEqual(['x-one']);
    expect(a.branding).toEqual(branding);
    expect(a.is_card_payment).toBe(true);
    const owners = await post(chargeBody({ network: cpoX, relationships: listed([t]) }));
    expect(owners.json.data[0].attributes.tags.map((x: any) => x.kind)).toEqual(['info', 'alert']);
  });

  it('sorts by lowest price, then provider, then tariff name (null last), then id (D92); roaming vs direct (D66)', async () => {
    const e1 = await putCompany(srv, W, { name: 'beta' });
    const e2 = await putCompany(srv, W, { name: 'Alpha' });
    const cpoX = await putCompany(srv, W, { name: 'Direct CPO', is_cpo: true, supported_emps: [e1, e2] });
    const cheap = await putTariff(srv, W, e1, { attributes: { name: 'Z', prices: [comp([seg('session', 1)])] } });
    const b1 = await putTariff(srv, W, e1, { attributes: { name: 'b', prices: [comp([seg('session', 2)])] } });
    const aNull = await putTariff(srv, W, e2, { attributes: { name: 'x', prices: [comp([seg('session', 2)])] } });
    const bA = await putTariff(srv, W, e1, { attributes: { name: 'A', prices: [comp([seg('session', 2)])] } });
    const direct = await putTariff(srv, W, cpoX, { attributes: { name: 'own', prices: [comp([seg('session', 3)])] } });
    const r = await post(chargeBody({ network: cpoX }));
    expect(ids(r.json)).toEqual([cheap, aNull, bA, b1, direct]);
    const roaming = Object.fromEntries(r.json.data.map((d: any) => [d.relationships.tariff.data.id, d.attributes.is_roaming]));
    expect(roaming[direct]).toBe(false);
    expect(roaming[cheap]).toBe(true);
    const own = r.json.data.find((d: any) => d.relationships.tariff.data.id === direct).attributes;
    expect(own.provider).toBe('Direct CPO');
    expect(own.url).toBeNull();
  });

  it('a flat rate prices every usable charge point at 0 with an empty distribution (D86)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    await putTariff(srv, W, emp, { attributes: { is_flat_rate: true, is_direct_payment: true, monthly_fee: 50, prices: [] } });
    const r = await post(chargeBody({ network: cpoX }));
    expect(r.json.data[0].attributes).toMatchObject({ flat_rate: true, direct_payment: true, total_monthly_fee: 50 });
    expect(r.json.data[0].attributes.charge_point_prices[0]).toMatchObject({ price: 0, price_distribution: {}, blocking_fee_start: null });
  });

  it('average prices only on network-wide requests with average_prices (D73)', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const t = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('kwh', 0.5), seg('kwh', 0.4, { is_average_price: true })], [{ allowance: 'allow', cpo_ids: [cpoX] }])] },
    });
    const plain = await post(chargeBody({ network: cpoX }));
    expect(priceOf(plain.json, t)).toBeCloseTo(11, 12);
    expect(plain.json.data[0].attributes.charge_point_prices[0].is_average_price).toBe(false);
    const avg = await post(chargeBody({ network: cpoX, options: { energy: 22, duration: 60, average_prices: true } }));
    expect(avg.json.data[0].attributes.charge_point_prices[0].is_average_price).toBe(true);
    const notWide = await post(chargeBody({ network: cpoX, latitude: 48.1, longitude: 2.3, options: { energy: 22, duration: 60, average_prices: true } }));
    expect(notWide.json.data[0].attributes.charge_point_prices[0].is_average_price).toBe(false);
  });

  it('ext_b: network by ext_b_names, country by name, plugs mapped; ext_c by operator id; unresolved → empty (D38)', async () => {
    const emp = await newEmp();
    await putCompany(srv, W, {
      is_cpo: true,
      is_emp: false,
      supported_emps: [emp],
      external_source_mapping: { ext_b_names: ['Stadtwerke Nord'], ext_c_operator_ids: ['4711'] },
    });
    const t = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('kwh', 0.3)], [{ allowance: 'allow', countries: ['DE'], charge_point_energy_type: 'ac' }])] },
    });
    const r = await post(
      chargeBody({ adapter: 'ext_b', network: 'stadtwerke nord', country: 'Deutschland', charge_points: [{ plug: 'Typ2', power: 22 }] }),
    );
    expect(r.status, r.text).toBe(200);
    expect(ids(r.json)).toEqual([t]);
    expect(r.json.data[0].attributes.charge_point_prices[0]).toMatchObject({ plug: 'Typ2', price: 0.3 * 22 });
    const unmapped = await post(chargeBody({ adapter: 'ext_b', network: 'Stadtwerke Nord', country: 'Atlantis', charge_points: [{ plug: 'Typ2', power: 22 }] }));
    expect(ids(unmapped.json)).toEqual([]);
    const c = await post(chargeBody({ adapter: 'ext_c', network: '4711', country: 'DE', charge_points: [{ plug: '25,10', power: 22 }] }));
    expect(ids(c.json)).toEqual([t]);
    const none = await post(chargeBody({ adapter: 'ext_b', network: 'Nobody', country: 'Deutschland', charge_points: [{ plug: 'Typ2', power: 22 }] }));
    expect(none.json.data).toEqual([]);
  });

  it('ext_c DC charge points need no vehicle port match; mapped plug names still do (D38, D78)', async () => {
    const emp = await newEmp();
    await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp], external_source_mapping: { ext_c_operator_ids: ['4712'], ext_b_names: ['Nordstrom DC'] } });
    const t = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.5)])] } });
    // Aiways U5: DC port ccs only, 95 kW.
    const vehicle = { vehicle: { data: { type: 'car', id: '72475a6a-aae2-da13-1d17-94cc07e5104f' } } };
    const options = { battery_range: [20, 80] };
    const c = await post(chargeBody({ adapter: 'ext_c', network: '4712', country: 'DE', charge_points: [{ plug: '33,30', power: 50 }], options, relationships: vehicle }));
    expect(c.status, c.text).toBe(200);
    expect(ids(c.json)).toEqual([t]);
    expect(c.json.meta.charge_points).toHaveLength(1);
    expect(c.json.data[0].attributes.charge_point_prices[0].price).toBeGreaterThan(0);
    const chademo = await post(chargeBody({ adapter: 'ext_b', network: 'Nordstrom DC', country: 'Deutschland', charge_points: [{ plug: 'CHAdeMO', power: 50 }], options, relationships: vehicle }));
    expect(chademo.status, chademo.text).toBe(200);
    expect(chademo.json.meta.charge_points).toEqual([]);
    const ccs = await post(chargeBody({ adapter: 'ext_b', network: 'Nordstrom DC', country: 'Deutschland', charge_points: [{ plug: 'CCS', power: 50 }], options, relationships: vehicle }));
    expect(ccs.json.meta.charge_points).toHaveLength(1);
  });

  it('a tariff or company write acknowledged before a request is reflected in its answer, in the pool and on the main thread', async () => {
    const emp = await newEmp();
    const cpoX = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [] });
    // Two charge points: at least two evaluations, so a worker prices it; one listed tariff at
    // one charge point is one evaluation, priced on the main thread.
    const pooled = () => post(chargeBody({ network: cpoX, charge_points: [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 22 }] }));
    const inline = (t: string) => post(chargeBody({ network: cpoX, relationships: listed([t]) }));
    const t = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.3)])] } });
    expect(ids((await pooled()).json)).toEqual([]);
    await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] }, cpoX, 2);
    expect(priceOf((await pooled()).json, t)).toBeCloseTo(6.6, 12);
    expect(priceOf((await inline(t)).json, t)).toBeCloseTo(6.6, 12);
    await putTariff(srv, W, emp, { version: 2, attributes: { prices: [comp([seg('kwh', 0.5)])] } }, t);
    expect(priceOf((await pooled()).json, t)).toBe(11);
    expect(priceOf((await inline(t)).json, t)).toBe(11);
    expect((await call(srv, 'DELETE', `/v2/tariffs/${t}`, { key: W })).status).toBe(204);
    expect(ids((await pooled()).json)).toEqual([]);
    // Many writes and reads interleaved: each read sees the write acknowledged just before it.
    const t2 = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('session', 1)])] } });
    for (let v = 2; v <= 8; v++) {
      await putTariff(srv, W, emp, { version: v, attributes: { prices: [comp([seg('session', v)])] } }, t2);
      expect(priceOf((await pooled()).json, t2)).toBe(v);
      expect(priceOf((await pooled()).json, t2, 1)).toBe(v);
      expect(priceOf((await inline(t2)).json, t2)).toBe(v);
    }
  });
});
