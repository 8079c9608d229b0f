/**
 * Station data normalisation shared by every importer (D130): plug names, powers, eMI3 ids,
 * operator names, charge point grouping and station ids. One copy of each rule; the importers in
 * src/import only read their format and call these.
 */
import { v5 as uuidv5 } from 'uuid';
import type { ChargePointRecord } from './model.js';

/** uuid5(NAMESPACE_URL, "urn:charging-price-api:stations-snapshot:v1"), the namespace of the committed station data. */
export const STATION_DATA_NS = uuidv5('urn:charging-price-api:stations-snapshot:v1', uuidv5.URL);

/** uuid5(NS, "station:" + source_id): stable across imports of the same source record. */
export function stationIdOf(sourceId: string): string {
  return uuidv5(`station:${sourceId}`, STATION_DATA_NS);
}

/** uuid5(NS, "operator:" + normalized name). */
export function operatorIdOf(name: string): string {
  return uuidv5(`operator:${normalizeOperatorName(name)}`, STATION_DATA_NS);
}

const LEGAL_FORMS = new Set([
  'gmbh', 'mbh', 'ag', 'aktiengesellschaft', 'kg', 'kgaa', 'ohg', 'gbr', 'ug', 'eg', 'ev', 'aor', 'se', 'co',
  'sas', 'sasu', 'sa', 'sarl', 'eurl', 'sci', 'sem', 'spl', 'ltd', 'bv', 'nv',
]);

/** Lower case, accents and punctuation removed, legal forms (GmbH, AG, SAS, SA, …) dropped. */
export function normalizeOperatorName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w.length > 0 && !LEGAL_FORMS.has(w))
    .join(' ');
}

export interface Plug {
  plug: string;
  energy_type: 'ac' | 'dc';
}

const TYPE2: Plug = { plug: 'type2', energy_type: 'ac' };
const SCHUKO: Plug = { plug: 'schuko', energy_type: 'ac' };
const CCS: Plug = { plug: 'ccs', energy_type: 'dc' };
const CHADEMO: Plug = { plug: 'chademo', energy_type: 'dc' };
const TYPE1: Plug = { plug: 'type1', energy_type: 'ac' };
const TYPE3: Plug = { plug: 'type3', energy_type: 'ac' };
const CCS1: Plug = { plug: 'ccs1', energy_type: 'dc' };
const TESLA_SUC: Plug = { plug: 'tesla_suc', energy_type: 'dc' };
const CEE_RED: Plug = { plug: 'cee_red', energy_type: 'ac' };
const CEE_BLUE: Plug = { plug: 'cee_blue', energy_type: 'ac' };

/**
 * A German register plug name (every layout since 2017: `AC Steckdose Typ 2`, `AC Typ 2
 * Fahrzeugkupplung`, `DC Kupplung Combo`, `DC Fahrzeugkupplung Typ Combo 2 (CCS)`, `DC CHAdeMO`,
 * `AC Schuko`, `AC CEE 5 polig`, …); null when not one of the known plugs.
 */
export function plugFromGerman(text: string): Plug | null {
  const t = text.toLowerCase();
  if (t.includes('chademo')) return CHADEMO;
  if (t.includes('combo') || t.includes('ccs')) return t.includes('combo 1') || t.includes('ccs1') ? CCS1 : CCS;
  if (t.includes('schuko')) return SCHUKO;
  if (t.includes('cee')) return t.includes('5') || t.includes('rot') ? CEE_RED : CEE_BLUE;
  if (t.includes('tesla')) return TESLA_SUC;
  if (/\btyp(e)? ?2\b/.test(t)) return TYPE2;
  if (/\btyp(e)? ?1\b/.test(t)) return TYPE1;
  if (/\btyp(e)? ?3/.test(t)) return TYPE3;
  return null;
}

/** The plugs of one IRVE charge point (schema 2.x flags `prise_type_*`); `autre` is not mapped. */
export function plugsFromIrve(flags: { ef: boolean; t2: boolean; ccs: boolean; chademo: boolean }): Plug[] {
  const out: Plug[] = [];
  if (flags.ccs) out.push(CCS);
  if (flags.chademo) out.push(CHADEMO);
  if (flags.t2) out.push(TYPE2);
  if (flags.ef) out.push(SCHUKO);
  return out;
}

/**
 * An OCPI 2.2.1 connector standard with its power type. A Type 2 connector on DC (Tesla's
 * European Superchargers) is `tesla_suc`; null for standards the service has no plug for.
 */
export function plugFromOcpi(standard: string, powerType: string | undefined): Plug | null {
  switch (standard) {
    case 'IEC_62196_T2':
      return powerType === 'DC' ? TESLA_SUC : TYPE2;
    case 'IEC_62196_T2_COMBO':
      return CCS;
    case 'CHADEMO':
      return CHADEMO;
    case 'DOMESTIC_E':
    case 'DOMESTIC_F':
      return SCHUKO;
    case 'IEC_62196_T1':
      return TYPE1;
    case 'IEC_62196_T1_COMBO':
      return CCS1;
    case 'IEC_62196_T3A':
    case 'IEC_62196_T3C':
      return TYPE3;
    case 'TESLA_S':
      return TESLA_SUC;
    case 'IEC_60309_2_three_16':
    case 'IEC_60309_2_three_32':
    case 'IEC_60309_2_three_64':
      return CEE_RED;
    case 'IEC_60309_2_single_16':
      return CEE_BLUE;
    default:
      return null;
  }
}

/** Estimated power (kW) per plug when the source gives none. */
const ESTIMATE_KW: Readonly<Record<string, number>> = {
  type2: 22, ccs: 50, chademo: 50, schuko: 3.7, type1: 7.4, type3: 22, ccs1: 50, tesla_suc: 150, cee_red: 22, cee_blue: 3.7,
};

/**
 * A connector's power in kW: rounded to 0.1 kW, a Schuko socket capped at 3.7 kW, AC capped at
 * 43 kW; a missing, zero, negative or non-finite value gives the per-plug estimate.
 */
export function normalizePower(p: Plug, kw: number | null): number {
  let v = kw !== null && Number.isFinite(kw) && kw > 0 ? kw : ESTIMATE_KW[p.plug] ?? 22;
  if (p.plug === 'schuko' && v > 3.7) v = 3.7;
  if (p.energy_type === 'ac' && v > 43) v = 43;
  return Math.round(v * 10) / 10;
}

/** A decimal number with a dot or a comma (`52,52979`, `3.7`); null when not one. */
export function parseDecimal(s: string | undefined | null): number | null {
  if (s === undefined || s === null) return null;
  const t = s.trim().replace(',', '.');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

/** Latitude/longitude in range and not the (0, 0) placeholder; optionally inside a box. */
export function validCoordinates(lat: number | null, lon: number | null, box?: readonly [number, number, number, number]): boolean {
  if (lat === null || lon === null || !Number.isFinite(lat) || !Number.isFinite(lon)) return false;
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180 || (lat === 0 && lon === 0)) return false;
  if (box !== undefined && (lat < box[0] || lat > box[2] || lon < box[1] || lon > box[3])) return false;
  return true;
}

/** Boxes (lat_min, lon_min, lat_max, lon_max) a station of a country must lie in, where known. */
export const COUNTRY_BOXES: Readonly<Record<string, readonly [number, number, number, number]>> = {
  DE: [47.2, 5.8, 55.1, 15.1],
  FR: [41.3, -5.2, 51.1, 9.6],
  RE: [-21.4, 55.2, -20.8, 55.9],
};

const EVSE_RE = /^([A-Z]{2})[*\s-]?([A-Z0-9]{3})[*\s-]?E([A-Z0-9][A-Z0-9*\s-]{0,32})$/;

/**
 * An eMI3 EVSE id in its canonical form `CC*PPP*E…` (upper case, separators `*`), or null when the
 * text is not one (`DE CSA 24D 006` without the `E`, six-letter operators, bare digits, keys).
 * Leading and trailing white space (line breaks in register cells) is removed; spaces or dashes
 * used as separators become `*`.
 */
export function normalizeEvseId(raw: string): string | null {
  const t = raw.trim().toUpperCase();
  if (t.length === 0 || t.length > 48) return null;
  const m = EVSE_RE.exec(t);
  if (m === null) return null;
  const rest = m[3].replace(/[\s-]+/g, '*').replace(/\*{2,}/g, '*').replace(/\*$/, '');
  return `${m[1]}*${m[2]}*E${rest}`;
}

/** The eMI3 operator id `CC*PPP` of an EVSE id or station id (`FR*V75*P900101`, `FREBNPBAABR`); null when none. */
export function emi3OperatorOf(id: string): string | null {
  const m = /^([A-Z]{2})[*\s-]?([A-Z0-9]{3})[*\s-]?[EP][A-Z0-9]/.exec(id.trim().toUpperCase());
  return m === null ? null : `${m[1]}*${m[2]}`;
}

export interface Connector extends Plug {
  power: number;
  evse_id: string | null;
}

/** Connectors grouped by (plug, energy type, power): DC first, then by power descending, then by plug. */
export function groupChargePoints(connectors: Iterable<Connector>): ChargePointRecord[] {
  const groups = new Map<string, ChargePointRecord>();
  for (const c of connectors) {
    const k = `${c.plug}|${c.energy_type}|${c.power}`;
    let g = groups.get(k);
    if (g === undefined) {
      g = { plug: c.plug, energy_type: c.energy_type, power: c.power, count: 0, evse_ids: [] };
      groups.set(k, g);
    }
    g.count++;
    if (c.evse_id !== null && !g.evse_ids.includes(c.evse_id)) g.evse_ids.push(c.evse_id);
  }
  const out = [...groups.values()];
  for (const g of out) g.evse_ids.sort();
  return out.sort(
    (a, b) =>
      (a.energy_type === b.energy_type ? 0 : a.energy_type === 'dc' ? -1 : 1) ||
      b.power - a.power ||
      (a.plug < b.plug ? -1 : a.plug > b.plug ? 1 : 0),
  );
}

/** Distance in metres (equirectangular; exact enough below a few kilometres). */
export function metresBetween(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const x = (lon2 - lon1) * r * Math.cos(((lat1 + lat2) / 2) * r);
  const y = (lat2 - lat1) * r;
  return Math.sqrt(x * x + y * y) * 6371008.8;
}

/** Coordinates rounded to 6 decimals (about 0.1 m). */
export const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/** Repairs double-encoded UTF-8 (`MarchÃ©` → `Marché`) when the repair is valid UTF-8. */
export function repairMojibake(s: string): string {
  if (!/[\u00c2-\u00f4][\u0080-\u00bf]/.test(s)) return s;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return s;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'latin1'));
  } catch {
    return s;
  }
}
