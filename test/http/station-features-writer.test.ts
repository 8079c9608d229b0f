/**
 * The GeoJSON writer of D237 (FeatureWriter, written from the list fragments) against its
 * straightforward twin (`featuresFromPage`: the JSON:API list page parsed and mapped), byte for
 * byte, over every station of the test snapshot in pages of 97: without availability, with values
 * (unknown groups too), with deleted operators (D21) and a renamed one; and the CSV columns of
 * D238 against the list-shape schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StationPageWriter } from '../../src/api/station-page.js';
import { CSV_COLUMNS, FeatureWriter, csvOfFeatures, featuresFromPage } from '../../src/api/station-features.js';
import type { AvailabilityLookup } from '../../src/api/evse-availability.js';
import type { CompanyRegistry } from '../../src/domain/companies/registry.js';
import { StationIndex } from '../../src/domain/stations/index.js';
import { StationListAttributes } from '../../src/api/schemas/stations.js';
import { csvCell, csvRow } from '../../src/domain/csv.js';
import { CsvWriter } from '../../src/api/stations/station-csv.js';
import { FakeCompanies } from '../helpers/fake-companies.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { fixtureSnapshot } from './stations.fixture.js';


let snap: Snapshot;
let index: StationIndex;

beforeAll(() => {
  snap = Snapshot.open(fixtureSnapshot());
  index = new StationIndex(snap.stationColumns());
});
afterAll(() => snap.close());

/** Values for every other station: unknown (-1), zero and counts. */
const someAvailability: AvailabilityLookup = {
  get(i: number): Int32Array | undefined {
    if (i % 2 === 1) return undefined;
    const n = index.c.cpStart[i + 1] - index.c.cpStart[i];
    return Int32Array.from({ length: n }, (_v, k) => (k % 3 === 0 ? -1 : k % 3 === 1 ? 0 : k + 3));
  },
};

function compareAll(companies: FakeCompanies, availability: AvailabilityLookup | null): number {
  const reg = companies as unknown as CompanyRegistry;
  const page = new StationPageWriter(index, reg, [], 'v-test');
  const features = new FeatureWriter(index, reg);
  const members = { meta: { more_available: true, n: 'é' } };
  let compared = 0;
  for (let from = 0; from < index.size; from += 97) {
    const indices = Array.from({ length: Math.min(97, index.size - from) }, (_v, k) => from + k);
    const doc = JSON.parse(page.page({ indices, moreAvailable: true, availability, companyFields: undefined, supportedEmpsFilter: undefined }).toString('utf8'));
    const want = JSON.stringify(featuresFromPage(doc, members));
    const got = features.collection({ indices, availability, members: `,"meta":${JSON.stringify(members.meta)}` }).toString('utf8');
    if (got !== want) expect(got).toBe(want);
    compared += indices.length;
  }
  return compared;
}

describe('FeatureWriter (D237)', () => {
  it('matches the parsed-and-mapped twin for every station, with and without availability', () => {
    const companies = new FakeCompanies(new Map(snap.operators().map((o) => [o.id, { id: o.id, name: o.name }])));
    expect(compareAll(companies, null)).toBe(index.size);
    expect(compareAll(companies, someAvailability)).toBe(index.size);
  });

  it('follows deleted and renamed operators (no stale name)', () => {
    const ops = snap.operators();
    const companies = new FakeCompanies(new Map(ops.map((o) => [o.id, { id: o.id, name: o.name }])));
    compareAll(companies, null);
    ops.forEach((o, k) => k % 2 === 0 && companies.delete(o.id));
    companies.set(ops[1].id, 'Renamed "Operator" é');
    compareAll(companies, null);
  });

  it('puts each point at the station\'s longitude and latitude', () => {
    const reg = new FakeCompanies(new Map()) as unknown as CompanyRegistry;
    const out = JSON.parse(new FeatureWriter(index, reg).collection({ indices: [0, 1, 2], availability: null, members: '' }).toString());
    for (const f of out.features) expect(f.geometry.coordinates).toEqual([f.properties.longitude, f.properties.latitude]);
    expect(out.features.map((f: { id: string }) => f.id)).toEqual([0, 1, 2].map((i) => index.idAt(i)));
  });
});

describe('CSV (D238)', () => {
  it('has a column for id, every list-shape attribute in the order of the JSON answers, and the operator', () => {
    expect([...CSV_COLUMNS].sort()).toEqual(['id', ...Object.keys(StationListAttributes.properties), 'operator_id', 'operator_name'].sort());
    const reg = new FakeCompanies(new Map()) as unknown as CompanyRegistry;
    const page = JSON.parse(new StationPageWriter(index, reg, [], 'v').page({ indices: [0, 7], moreAvailable: false, availability: null, companyFields: undefined, supportedEmpsFilter: undefined }).toString());
    for (const s of page.data) expect(['id', ...Object.keys(s.attributes), 'operator_id', 'operator_name']).toEqual([...CSV_COLUMNS]);
  });

  it('writes a header and a row per feature with CRLF line ends', () => {
    const reg = new FakeCompanies(new Map(snap.operators().map((o) => [o.id, { id: o.id, name: o.name }]))) as unknown as CompanyRegistry;
    const csv = csvOfFeatures(new FeatureWriter(index, reg).collection({ indices: [0, 1, 2, 3], availability: null, members: '' }));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines.at(-1)).toBe('');
    expect(csv.match(/\r\n/g)!.length).toBeGreaterThanOrEqual(5);
  });

  it('the byte writer matches the parse-and-map twin for every station, with availability', () => {
    const reg = new FakeCompanies(new Map(snap.operators().map((o) => [o.id, { id: o.id, name: o.name }]))) as unknown as CompanyRegistry;
    const features = new FeatureWriter(index, reg);
    const csv = new CsvWriter();
    for (const availability of [null, someAvailability]) {
      for (let from = 0; from < index.size; from += 97) {
        const indices = Array.from({ length: Math.min(97, index.size - from) }, (_v, k) => from + k);
        const collection = features.collection({ indices, availability, members: ',"meta":{"more_available":false},"links":{"self":"/x?a=1,2"}' });
        const want = csvOfFeatures(collection);
        const got = csv.write(collection).toString('utf8');
        if (got !== want) expect(got).toBe(want);
      }
    }
  });

  it('the byte writer matches the twin on escapes, commas, quotes, formulas and odd values', () => {
    const odd = ['=SUM(A1)', '+49 30', '-x', '@home', '\tTab', 'a,b', 'say "hi"', 'line\nbreak', 'é, ü', '', "'quoted'", 'back\\slash', '日本'];
    const feature = (k: number) => ({
      type: 'Feature',
      id: `s-${odd[k % odd.length]}`,
      geometry: { type: 'Point', coordinates: [-0.5, 1e-7] },
      properties: Object.fromEntries(
        CSV_COLUMNS.filter((c) => c !== 'id').map((c, n) => [
          c,
          n % 5 === 0 ? odd[(k + n) % odd.length] : n % 5 === 1 ? [odd[k % odd.length], { a: 'x,"y"' }] : n % 5 === 2 ? null : n % 5 === 3 ? -k * 1.25 : k % 2 === 0,
        ]),
      ),
    });
    const doc = { type: 'FeatureCollection', features: Array.from({ length: 40 }, (_v, k) => feature(k)), meta: { a: [1, 2] } };
    const bytes = Buffer.from(JSON.stringify(doc));
    expect(new CsvWriter().write(bytes).toString('utf8')).toBe(csvOfFeatures(bytes));
    expect(new CsvWriter().write(Buffer.from('{"type":"FeatureCollection","features":[]}')).toString()).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });

  it('quotes, doubles quotes, writes lists as JSON, and defuses formulas', () => {
    expect(csvRow(['a,b', 'say "hi"', 'line\nbreak', null, 3.5, false, ['x', 'y']])).toBe('"a,b","say ""hi""","line\nbreak",,3.5,false,"[""x"",""y""]"');
    expect(csvRow(['=HYPERLINK("x")', '+1', '-SUM(A1)', '@cmd', '\tx', 'plain'])).toBe(`"'=HYPERLINK(""x"")",'+1,'-SUM(A1),'@cmd,'\tx,plain`);
    // Numbers are numbers, not formulas.
    expect(csvCell(-12.5)).toBe('-12.5');
  });
});
