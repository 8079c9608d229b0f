import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHARGE_PRICE_OPTIONS,
  DEFAULT_DETAIL_DIMENSIONS,
  acPower,
  bulkPreview,
  computeChargePrices,
  energyTypeOfPlug,
  isChargePointUsable,
  localized,
  pickLanguage,
  reasonText,
  selectCandidates,
  tariffDetails,
  visibleTags,
  type VehiclePricing,
} from '../../../src/domain/pricing/index.js';
import { chargePriceEntries } from '../../oracles/charge-price-entries.js';
import type { CandidateQuery } from '../../../src/domain/pricing/request.js';
import { CPO, EMP, RATES, catalogWith, comp, company, priceOf, seg, subTariff, tariff } from './helpers.js';

const car: VehiclePricing = {
  id: 'car',
  brand_id: 'brand-a',
  usable_battery_size: 50,
  ac_phases: 3,
  ac_max_power: 11,
  ac_map: { '2.0': 2, '3.7': 3.7, '11': 11, '22': 11 },
  dc_ports: ['ccs'],
  dc_max_power: 100,
  dc_curve: null,
};

describe('D66 usability and D67 candidates', () => {
  const G = 'group', H = 'emp-group', OTHER = 'other-emp';
  const companies = [
    company(CPO, { cpo_group_id: G, supported_emp_ids: [] }),
    company(G, { supported_emp_ids: [H] }),
    company(EMP, { emp_group_id: H }),
    company(H),
    company(OTHER),
  ];
  it('when the EMP is the CPO or its group it is direct; via the group of supported EMPs it is roaming; else none', () => {
    const c = catalogWith([], companies);
    expect(c.usability(CPO, CPO)).toBe('direct');
    expect(c.usability(G, CPO)).toBe('direct');
    expect(c.usability(EMP, CPO)).toBe('roaming');
    expect(c.usability(H, CPO)).toBe('roaming');
    expect(c.usability(OTHER, CPO)).toBe('none');
  });

  const tariffs = [
    tariff('a-plain', [comp([seg('kwh', 0.3)])]),
    tariff('b-provider', [comp([seg('kwh', 0.3)])], { provider_customer_only: true }),
    tariff('c-foreign', [comp([seg('kwh', 0.3)])], { supported_countries: ['FR'] }),
    tariff('d-brand', [comp([seg('kwh', 0.3)])], { vehicle_brand_ids: ['brand-b'] }),
    tariff('e-fee', [comp([seg('kwh', 0.3)])], { monthly_fee: 10, yearly_service_fee: 12, monthly_min_sales: 1 }),
    tariff('f-other', [comp([seg('kwh', 0.3)])], { emp_id: OTHER }),
  ];
  const c = catalogWith(tariffs, companies);
  const base: CandidateQuery = {
    cpoId: CPO,
    country: 'DE',
    options: { ...DEFAULT_CHARGE_PRICE_OPTIONS, foreign_tariffs: false },
    vehicleBrandId: 'brand-a',
    hasVehicle: true,
    listed: null,
    include: 'filter',
  };
  const ids = (q: Partial<CandidateQuery>) =>
    selectCandidates(c, { ...base, ...q }, RATES).slots.map((s) => c.block(s)!.id).sort();

  it('filters drop provider-customer, foreign, brand-restricted and too expensive tariffs (fee + min sales ≤ X + 1e-9)', () => {
    expect(ids({})).toEqual(['a-plain', 'e-fee']);
    expect(ids({ options: { ...base.options, max_monthly_fees: 12 } })).toEqual(['a-plain', 'e-fee']);
    expect(ids({ options: { ...base.options, max_monthly_fees: 11.99 } })).toEqual(['a-plain']);
    expect(ids({ options: { ...base.options, show_all_brand_restricted_tariffs: true, provider_customer_tariffs: true, foreign_tariffs: true } })).toEqual([
      'a-plain', 'b-provider', 'c-foreign', 'd-brand', 'e-fee',
    ]);
    expect(ids({ hasVehicle: false, vehicleBrandId: null, options: { ...base.options, foreign_tariffs: true } })).toEqual(['a-plain', 'c-foreign', 'e-fee']);
  });

  it('include modes: filter = L ∩ F, always = F ∪ (L ∩ U), exclusive = L ∩ U; unusable listed tariffs never appear', () => {
    const listed = ['b-provider', 'a-plain', 'f-other', 'missing'];
    expect(ids({ listed, include: 'filter' })).toEqual(['a-plain']);
    expect(ids({ listed, include: 'always' })).toEqual(['a-plain', 'b-provider', 'e-fee']);
    expect(ids({ listed, include: 'exclusive' })).toEqual(['a-plain', 'b-provider']);
  });
});

describe('D68 matching and D76–D78 charging', () => {
  it('maps plugs to energy types', () => {
    expect(['ccs', 'CCS1', 'chademo', 'tesla_ccs', 'tesla_suc', 'nacs'].map(energyTypeOfPlug)).toEqual(Array(6).fill('dc'));
    expect(['type1', 'type2', 'type3', 'schuko'].map(energyTypeOfPlug)).toEqual(Array(4).fill('ac'));
    expect(energyTypeOfPlug('unknown')).toBeNull();
  });

  it('AC power uses the nearest lower map key, caps at the station power and at 4.5 kW for one phase', () => {
    expect(acPower(car, 16, 3, false)).toBe(11);
    expect(acPower(car, 7.4, 3, false)).toBe(3.7);
    expect(acPower(car, 1.5, 3, false)).toBe(1.5);
    expect(acPower(car, 22, 1, false)).toBe(4.5);
    expect(acPower(car, 22, 1, true)).toBe(11);
  });

  it('DC points need the plug among the DC ports; unusable points are left out of prices and meta', () => {
    expect(isChargePointUsable(car, 'dc', 'chademo')).toBe(false);
    expect(isChargePointUsable({ ...car, ac_max_power: 0 }, 'ac', 'type2')).toBe(false);
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.3)])])]);
    const r = priceOf(c, 't', {
      input: { kind: 'vehicle', vehicle: car, battery_range: [10, 20] },
      chargePoints: [{ plug: 'chademo', power: 50 }, { plug: 'type2', power: 22 }],
    });
    expect(r.meta.map((m) => m.plug)).toEqual(['type2']);
    expect(r.prices.map((p) => p.plug)).toEqual(['type2']);
  });

  it('power restrictions: ranges and lists within 1e-6; deny; consumed power for DC = E/(D/60)', () => {
    const c = catalogWith([
      tariff('t', [
        comp([seg('session', 1)], [{ allowance: 'allow', charge_point_powers: [11, 22], charge_point_power_is_range: true }]),
        comp([seg('kwh', 1)], [{ allowance: 'deny', charge_point_powers: [15] }]),
        comp([seg('minute', 1)], [{ allowance: 'allow', charge_point_powers: [30], use_consumed_charging_power: true }]),
      ], { no_price_policy: 'show_reason' }),
    ]);
    const r = priceOf(c, 't', {
      input: { kind: 'energy', energy: 30, duration: 60 },
      chargePoints: [{ plug: 'type2', power: 15 }, { plug: 'type2', power: 22.0000001 }, { plug: 'ccs', power: 50 }],
    });
    // Set B 30 kWh / 60 min: consumed power 30 kW matches the minute component everywhere.
    expect(r.prices.map((p) => p.price)).toEqual([1 + 60, 1 + 30 + 60, 30 + 60]);
    expect(r.prices.map((p) => Object.keys(p.price_distribution).sort())).toEqual([
      ['minute', 'session'],
      ['kwh', 'minute', 'session'],
      ['kwh', 'minute'],
    ]);
  });
});

describe('D69–D73 levels, precedence and eligibility', () => {
  it('D71: an empty sub tariff for the CPO means no price there; D69 resolves policy and reason from it', () => {
    const c = catalogWith([
      tariff('t', [comp([seg('kwh', 0.5)])], { no_price_policy: 'hide', no_price_reason: 'not_public' }),
      subTariff('s', 't', CPO, [], { no_price_policy: 'show_reason' }),
    ]);
    const [p] = priceOf(c, 't').prices;
    expect(p.price).toBeNull();
    expect(p.no_price_reason).toBe('not_public');
  });

  it('D70: apply_prices_to_sub_tariff copies the prices into the empty sub tariff', () => {
    const c = catalogWith([
      tariff('t', [comp([seg('kwh', 0.5)])], { apply_prices_to_sub_tariff: true }),
      subTariff('s', 't', CPO, []),
    ]);
    expect(priceOf(c, 't').prices[0].price).toBe(11);
  });

  it('D69: hide tariffs without price never appear; inherit = hide', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.5)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])])]);
    expect(priceOf(c, 't').entry).toBeUndefined();
  });

  it('D65: evse beats cpo (cpo_ids restriction) beats country, per dimension', () => {
    const c = catalogWith(
      [
        tariff('t', [
          comp([seg('kwh', 0.5), seg('session', 2)]),
          comp([seg('kwh', 0.4)], [{ allowance: 'allow', cpo_ids: [CPO] }]),
        ]),
      ],
      undefined,
      [{ tariff_id: 't', station_id: 'st', prices: [comp([seg('kwh', 0.3)])] }],
    );
    expect(priceOf(c, 't').prices[0].price).toBeCloseTo(2 + 0.4 * 22, 12);
    expect(priceOf(c, 't', { stationId: 'st' }).prices[0].price).toBeCloseTo(2 + 0.3 * 22, 12);
  });

  it('D72: occupancy segments are skipped and parking_minute costs 0; D73: average segments only network-wide with average_prices', () => {
    const c = catalogWith([
      tariff('t', [
        comp([
          seg('kwh', 0.5),
          seg('kwh', 9, { occupancy_gte: 80 }),
          seg('parking_minute', 1),
          seg('minute', 0.1, { is_average_price: true }),
        ]),
      ]),
    ]);
    const plain = priceOf(c, 't').prices[0];
    expect(plain.price).toBe(11);
    expect(plain.is_average_price).toBe(false);
    const avg = priceOf(c, 't', { options: { average_prices: true } }).prices[0];
    expect(avg.price).toBeCloseTo(11 + 6, 12);
    expect(avg.is_average_price).toBe(true);
    expect(priceOf(c, 't', { options: { average_prices: true }, stationId: 'st' }).prices[0].price).toBe(11);
  });
});

describe('D79–D88 segment cost', () => {
  it('D80: a minute window over several days counts every occurrence', () => {
    const c = catalogWith([tariff('t', [comp([seg('minute', 1, { time_of_day_start: 1380, time_of_day_end: 60 })])])]);
    // 72 hours from 12:00: three nights of 120 minutes.
    const [p] = priceOf(c, 't', { input: { kind: 'energy', energy: 10, duration: 4320 } }).prices;
    expect(p.price).toBe(360);
  });

  it('D80: a session fee is charged when the start lies in the window; start = end = whole day', () => {
    const c = catalogWith([
      tariff('t', [comp([seg('session', 1, { time_of_day_start: 1320, time_of_day_end: 360 }), seg('session', 2, { time_of_day_start: 5, time_of_day_end: 5 })])]),
    ]);
    expect(priceOf(c, 't', { options: { start_time: 0 } }).prices[0].price).toBe(3);
    expect(priceOf(c, 't', { options: { start_time: 720 } }).prices[0].price).toBe(2);
  });

  it('D81/D83: kWh ranges are cumulative energy and increments round each segment up', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 1, { range_gte: 10, billing_increment: 5 })])])]);
    expect(priceOf(c, 't', { input: { kind: 'energy', energy: 21, duration: 60 } }).prices[0].price).toBe(15);
    expect(priceOf(c, 't', { input: { kind: 'energy', energy: 20, duration: 60 } }).prices[0].price).toBe(10);
  });

  it('D86: flat rate prices 0 with an empty distribution; fees are converted but never added', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.5)])], { is_flat_rate: true, monthly_fee: 30 })]);
    const { entry } = priceOf(c, 't');
    expect(entry.chargePointPrices[0]).toMatchObject({ price: 0, price_distribution: {}, blocking_fee_start: null });
    expect(entry.totalMonthlyFee).toBe(30);
  });

  it('D87: a zero price gives {}', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0)])])]);
    expect(priceOf(c, 't').prices[0]).toMatchObject({ price: 0, price_distribution: {} });
  });

  it('D85: segment currencies convert per segment into the requested currency', () => {
    const c = catalogWith([tariff('t', [comp([seg('session', 1.23, { currency: 'CHF' })]), comp([seg('session', 1)])])]);
    expect(priceOf(c, 't').prices[0].price).toBe(2);
    expect(priceOf(c, 't', { options: { currency: 'CHF' } }).prices[0].price).toBe(2.46);
  });
});

describe('D41 entries and D92 order', () => {
  it('sorts by lowest price, null-only entries last, then provider, name and ID', () => {
    const c = catalogWith([
      tariff('t3', [comp([seg('kwh', 0.2)])], { name: 'b' }),
      tariff('t1', [comp([seg('kwh', 0.2)])], { name: 'a' }),
      tariff('t2', [comp([seg('kwh', 0.1)])]),
      tariff('t0', [comp([seg('kwh', 0.1)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])], { no_price_policy: 'show_reason' }),
    ]);
    const computation = computeChargePrices(
      c,
      {
        station: { id: null, country: 'DE', cpo_id: CPO, charge_points: [{ plug: 'type2', power: 22 }] },
        input: { kind: 'energy', energy: 10, duration: 60 },
        options: DEFAULT_CHARGE_PRICE_OPTIONS,
        listed: null,
        include: 'filter',
      },
      RATES,
    );
    expect(chargePriceEntries(c, computation, true, RATES).map((e) => e.tariff.id)).toEqual(['t2', 't1', 't3', 't0']);
    expect(chargePriceEntries(c, computation, false, RATES).map((e) => e.tariff.id)).toEqual(['t2', 't1', 't3']);
    expect(chargePriceEntries(c, computation, true, RATES)[3].chargePointPrices[0]).toMatchObject({ price: null, no_price_reason: 'not_yet_listed' });
  });
});

describe('D91 bulk preview', () => {
  it('takes the cheapest pair; ties go to the shorter duration, then the earlier charge point, then the smaller ID', () => {
    const c = catalogWith([
      tariff('b', [comp([seg('session', 5)])]),
      tariff('a', [comp([seg('session', 5)])]),
      tariff('dp', [comp([seg('session', 1)])], { is_direct_payment: true }),
    ]);
    const station = { id: 's1', country: 'DE', cpo_id: CPO, charge_points: [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 50 }, { plug: 'ccs', power: 150 }] };
    const req = {
      stations: [station, { ...station, id: 's2', cpo_id: 'unknown' }],
      tariffIds: ['b', 'a'],
      vehicle: car,
      batteryRange: [20, 80] as [number, number],
      currency: 'EUR',
      startTime: 720,
      allowUnbalancedLoad: false,
      includeDirectPayment: false,
      chargePointsPowerLte: null,
    };
    const [r] = bulkPreview(c, req, RATES);
    expect(bulkPreview(c, req, RATES)).toHaveLength(1);
    // Both DC points cost 5 with either tariff: the 150 kW point charges faster (car DC max 100 kW).
    expect(r).toMatchObject({ station: 0, price: 5, tariffId: 'a', chargePoint: 2, energy: 33 });
    expect(bulkPreview(c, { ...req, includeDirectPayment: true }, RATES)[0]).toMatchObject({ price: 1, tariffId: 'dp' });
    expect(bulkPreview(c, { ...req, chargePointsPowerLte: 22 }, RATES)[0]).toMatchObject({ chargePoint: 0 });
  });
});

describe('D33–D34 tariff details', () => {
  const c = catalogWith([
    tariff('t', [comp([seg('kwh', 0.5), seg('session', 1)]), comp([seg('kwh', 0.7)], [{ allowance: 'allow', charge_point_energy_type: 'dc', charge_point_powers: [50, 350], charge_point_power_is_range: true }])], {
      no_price_reason: 'prices_per_station',
    }),
    subTariff('s', 't', CPO, [comp([seg('kwh', 0.4)], [{ allowance: 'allow', charge_point_energy_type: 'ac' }])]),
  ]);
  const q = { cpoId: CPO, country: 'DE', stationId: null, chargePoint: null, averagePrices: false, dimensions: DEFAULT_DETAIL_DIMENSIONS, groups: [] };

  it('without a charge point lists a less specific segment only where some probe lacks a more specific one', () => {
    const d = tariffDetails(c, 't', q)!;
    expect(d.restrictedSegments.map((s) => [s.dimension, s.price, s.charge_point_energy_type])).toEqual([
      ['kwh', 0.4, 'ac'],
      ['kwh', 0.5, null],
      ['session', 1, null],
      ['kwh', 0.7, 'dc'],
    ]);
    expect(d.tariffLevel).toBe('cpo');
    expect(d.restrictedSegments[0]).toMatchObject({ currency: 'EUR', range_gte: null, billing_increment: null, is_average_price: false });
  });

  it('with a charge point lists exactly the segments used for it', () => {
    const ac = tariffDetails(c, 't', { ...q, chargePoint: { plug: 'type2', power: 22 } })!;
    expect(ac.restrictedSegments.map((s) => [s.dimension, s.price])).toEqual([['kwh', 0.4], ['session', 1]]);
    const dc = tariffDetails(c, 't', { ...q, chargePoint: { plug: 'ccs', power: 150 } })!;
    expect(dc.restrictedSegments.map((s) => [s.dimension, s.price])).toEqual([['kwh', 0.5], ['session', 1], ['kwh', 0.7]]);
    expect(dc.noPriceReason).toBeNull();
  });

  it('reports the resolved reason when a checked group has no price', () => {
    const only = catalogWith([tariff('t', [comp([seg('kwh', 0.7)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])])]);
    const d = tariffDetails(only, 't', { ...q, groups: [{ plug: 'type2', power: 11 }] })!;
    expect(d.noPriceReason).toBe('not_yet_listed');
    expect(d.tariffLevel).toBe('country');
  });
});

describe('catalog writes are incremental', () => {
  it('recompiles one tariff, reuses freed slots and follows sub tariff changes', () => {
    const c = catalogWith([tariff('a', [comp([seg('kwh', 0.5)])]), tariff('b', [comp([seg('kwh', 0.6)])])]);
    const blockB = c.blockById('b');
    const slotA = c.blockById('a')!.slot;
    c.upsertTariff(tariff('a', [comp([seg('kwh', 0.4)])]));
    expect(c.blockById('b')).toBe(blockB);
    expect(priceOf(c, 'a').prices[0].price).toBeCloseTo(8.8, 12);
    c.removeTariff('a');
    c.upsertTariff(tariff('c', [comp([seg('kwh', 0.1)])]));
    expect(c.blockById('c')!.slot).toBe(slotA);
    c.upsertTariff(subTariff('s', 'b', CPO, [comp([seg('kwh', 0.2)])]));
    expect(priceOf(c, 'b').prices[0].price).toBeCloseTo(4.4, 12);
    c.removeTariff('s');
    expect(priceOf(c, 'b').prices[0].price).toBeCloseTo(13.2, 12);
  });
});

describe('D22, D23, D42 texts', () => {
  it('picks the highest supported language and translates reasons and tags', () => {
    expect(pickLanguage('fr-CH;q=0.5, de-AT;q=0.9, xx')).toBe('de');
    expect(pickLanguage('xx, es')).toBe('en');
    expect(reasonText('prices_per_station', 'da')).toBe('Priser pr. station');
    expect(localized({ fr: 'bonjour', de: 'hallo' }, 'nl')).toBe('hallo');
    expect(
      visibleTags(
        [
          { kind: 'info', localized_text: { en: 'a' }, show_until: 10 },
          { kind: 'info', localized_text: { en: 'b' }, hide_for_owners: true },
          { kind: 'alert', localized_text: { en: 'c', de: 'C' }, url: 'https://x/{locale}' },
        ],
        'de',
        20,
        true,
      ),
    ).toEqual([{ kind: 'alert', text: 'C', url: 'https://x/{locale}' }]);
  });
});
