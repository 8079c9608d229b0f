/**
 * Paging links (D235) on every paged list: following `next` from the first page visits every
 * item once, `prev` and `first` lead back, `last` names the last page where the list counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const ALL = keyFor('all');

describe('paging links (D235)', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all' } });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  /** Every page from `first` by `next`: the ids in order, and the pages' links. */
  async function walk(first: string): Promise<{ ids: string[]; pages: any[] }> {
    const ids: string[] = [];
    const pages: any[] = [];
    let url: string | undefined = first;
    while (url !== undefined && pages.length < 50) {
      const r = await call(srv, 'GET', url, { key: ALL });
      expect(r.status, url).toBe(200);
      pages.push(r.json.links);
      ids.push(...r.json.data.map((d: { id: string }) => d.id));
      url = r.json.links.next as string | undefined;
    }
    return { ids, pages };
  }

  it('station search: next while more_available, prev and first back, the query kept and sorted', async () => {
    const q = 'filter[radius]=3000&filter[latitude]=48.8566&filter[longitude]=2.3522&page[size]=7';
    const whole = await call(srv, 'GET', `/v1/charging_stations?${q.replace('page[size]=7', 'page[size]=1000')}`, { key: ALL });
    const { ids, pages } = await walk(`/v1/charging_stations?${q}`);
    expect(ids).toEqual(whole.json.data.map((d: { id: string }) => d.id));
    expect(pages.length).toBe(Math.ceil(ids.length / 7));
    expect(pages[0]).toEqual({
      self: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=7&page[number]=1',
      first: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=7&page[number]=1',
      next: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=7&page[number]=2',
    });
    expect(pages[1].prev).toBe(pages[0].self);
    expect(pages.at(-1).next).toBeUndefined();
    expect(pages.every((l) => l.last === undefined)).toBe(true);
  });

  it('counted lists name their last page; a page past the end points back', async () => {
    const companies = await walk('/v1/companies?page[size]=100');
    const total = (await call(srv, 'GET', '/v1/companies', { key: ALL })).json.meta.overall_count as number;
    expect(companies.ids).toHaveLength(total);
    expect(new Set(companies.ids).size).toBe(total);
    expect(companies.pages[0].last).toBe(`/v1/companies?page[size]=100&page[number]=${Math.ceil(total / 100)}`);
    const past = await call(srv, 'GET', `/v1/companies?page[size]=3&page[number]=${Math.ceil(total / 3) + 2}`, { key: ALL });
    expect(past.json.data).toEqual([]);
    expect(past.json.links.next).toBeUndefined();
    expect(past.json.links.prev).toBe(`/v1/companies?page[size]=3&page[number]=${Math.ceil(total / 3) + 1}`);
    const cars = await walk('/v2/vehicles');
    expect(cars.ids).toHaveLength((await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.meta.overall_count);
    expect(cars.pages.length).toBeGreaterThan(1);
    const stats = await walk('/v1/country_statistics?page[size]=2');
    expect(stats.pages[0].last).toMatch(/^\/v1\/country_statistics\?page\[size\]=2&page\[number\]=\d+$/);
  });

  it('raw tariffs and clusters carry them too, with a text value encoded', async () => {
    const emp = (await call(srv, 'GET', '/v1/companies?filter[is_emp]=true&page[size]=1', { key: ALL })).json.data[0].id as string;
    const t = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&page[size]=1`, { key: ALL });
    expect(t.json.links.self).toBe(`/v2/tariffs?filter[emp.id]=${emp}&page[size]=1&page[number]=1`);
    const box = 'filter[latitude.gte]=48.5&filter[latitude.lte]=49.2&filter[longitude.gte]=1.8&filter[longitude.lte]=2.9&zoom=9&page[size]=2';
    const c = await call(srv, 'GET', `/v1/charging_stations/clusters?${box}`, { key: ALL });
    expect(c.json.links.first).toContain('page[size]=2&zoom=9&page[number]=1');
    const v = await call(srv, 'GET', `/v2/vehicles?q=${encodeURIComponent('model 3')}`, { key: ALL });
    expect(v.json.links.self).toBe('/v2/vehicles?q=model%203&page[number]=1');
  });
});
