import { describe, expect, it } from 'vitest';
import {
  emi3OperatorOf,
  groupChargePoints,
  normalizeEvseId,
  normalizeOperatorName,
  normalizePower,
  parseDecimal,
  plugFromGerman,
  plugFromOcpi,
  repairMojibake,
} from '../../../src/domain/stations/normalize.js';

describe('station data normalisation', () => {
  it('canonicalises eMI3 EVSE ids and refuses what is not one', () => {
    expect(normalizeEvseId('DEAEWE002501')).toBe('DE*AEW*E002501');
    expect(normalizeEvseId('\nDE*COC*E159*01')).toBe('DE*COC*E159*01');
    expect(normalizeEvseId('de-aco-e10202-u2-01-1')).toBe('DE*ACO*E10202*U2*01*1');
    expect(normalizeEvseId('FR*TSL*EA4QY2C')).toBe('FR*TSL*EA4QY2C');
    for (const bad of ['DE CSA 24D 006', 'DEALLEGO003422_1', 'DE*GMS*123456', '1234567', 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE', '', 'FRA68P680210015']) {
      expect(normalizeEvseId(bad)).toBeNull();
    }
    expect(emi3OperatorOf('FR*V75*P900101')).toBe('FR*V75');
    expect(emi3OperatorOf('FREBNPBAABR')).toBe('FR*EBN');
    expect(emi3OperatorOf('12345')).toBeNull();
  });

  it('maps plug names of every register layout and OCPI standards', () => {
    const g = (s: string) => plugFromGerman(s)?.plug ?? null;
    expect(['AC Steckdose Typ 2', 'AC Kupplung Typ 2', 'AC Typ 2 Fahrzeugkupplung', 'AC Typ 2 Steckdose'].map(g)).toEqual(Array(4).fill('type2'));
    expect(['DC Kupplung Combo', 'DC Fahrzeugkupplung Typ Combo 2 (CCS)'].map(g)).toEqual(['ccs', 'ccs']);
    expect(['DC CHAdeMO', 'AC Schuko', 'Steckdose Typ 1', 'AC CEE 5 polig', 'AC CEE 3 polig', 'Sonstiger'].map(g)).toEqual([
      'chademo', 'schuko', 'type1', 'cee_red', 'cee_blue', null,
    ]);
    expect(plugFromOcpi('IEC_62196_T2', 'AC_3_PHASE')).toEqual({ plug: 'type2', energy_type: 'ac' });
    expect(plugFromOcpi('IEC_62196_T2', 'DC')).toEqual({ plug: 'tesla_suc', energy_type: 'dc' });
    expect(plugFromOcpi('IEC_62196_T2_COMBO', 'DC')).toEqual({ plug: 'ccs', energy_type: 'dc' });
    expect(plugFromOcpi('PANTOGRAPH_BOTTOM_UP', 'DC')).toBeNull();
  });

  it('normalises powers: caps, rounding, estimates', () => {
    const t2 = { plug: 'type2', energy_type: 'ac' as const };
    expect(normalizePower(t2, 22.08)).toBe(22.1);
    expect(normalizePower(t2, 50)).toBe(43);
    expect(normalizePower(t2, null)).toBe(22);
    expect(normalizePower(t2, 0)).toBe(22);
    expect(normalizePower({ plug: 'schuko', energy_type: 'ac' }, 22)).toBe(3.7);
    expect(normalizePower({ plug: 'ccs', energy_type: 'dc' }, 350)).toBe(350);
    expect(parseDecimal('52,52979')).toBe(52.52979);
    expect(parseDecimal('8291302')).toBe(8291302);
    expect(parseDecimal('abc')).toBeNull();
    expect(parseDecimal('1,2,3')).toBeNull();
  });

  it('groups connectors DC first, then by power, and normalises operator names', () => {
    const cps = groupChargePoints([
      { plug: 'type2', energy_type: 'ac', power: 22, evse_id: 'DE*X*E2' },
      { plug: 'ccs', energy_type: 'dc', power: 50, evse_id: null },
      { plug: 'ccs', energy_type: 'dc', power: 150, evse_id: null },
      { plug: 'type2', energy_type: 'ac', power: 22, evse_id: 'DE*X*E1' },
    ]);
    expect(cps.map((c) => [c.plug, c.power, c.count, c.evse_ids])).toEqual([
      ['ccs', 150, 1, []], ['ccs', 50, 1, []], ['type2', 22, 2, ['DE*X*E1', 'DE*X*E2']],
    ]);
    expect(normalizeOperatorName('Freshmile SAS')).toBe(normalizeOperatorName('FRESHMILE'));
    expect(normalizeOperatorName('N-ERGIE Aktiengesellschaft')).toBe('n ergie');
    expect(repairMojibake('MarchÃ© couvert')).toBe('Marché couvert');
    expect(repairMojibake('Marché')).toBe('Marché');
  });
});
