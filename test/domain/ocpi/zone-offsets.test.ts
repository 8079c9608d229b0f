// D224: the zones' offset tables give what Intl gives, at random instants and around every change.
import { describe, expect, it } from 'vitest';
import { intlOffset, offsetChangesIn, zoneOffset } from '../../../src/domain/ocpi/zone-offsets.js';
import { mulberry32 } from '../../../src/domain/random.js';

const ZONES = ['UTC', 'Europe/Paris', 'Europe/London', 'America/New_York', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'Africa/Casablanca', 'Europe/Dublin'];

describe('zone offset tables (D224)', () => {
  it('equal Intl at 2,000 random instants of 1990–2035 in zones with whole, half and quarter hour offsets and changes', () => {
    const rnd = mulberry32(224);
    for (const tz of ZONES) {
      const off = zoneOffset(tz);
      for (let i = 0; i < 2000 / ZONES.length; i++) {
        const ms = Date.UTC(1990, 0, 1) + Math.floor(rnd() * 46 * 365.25 * 86_400_000);
        expect(off(ms), `${tz} ${new Date(ms).toISOString()}`).toBe(intlOffset(tz, ms));
      }
    }
  });

  it('change at the very second Intl changes, both ways, each year of 2024–2026', () => {
    for (const tz of ZONES) {
      const off = zoneOffset(tz);
      for (let d = Date.UTC(2024, 0, 1); d < Date.UTC(2027, 0, 1); d += 86_400_000) {
        if (intlOffset(tz, d) === intlOffset(tz, d + 86_400_000)) continue;
        let lo = d;
        let hi = d + 86_400_000;
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (intlOffset(tz, mid) === intlOffset(tz, d)) lo = mid;
          else hi = mid;
        }
        for (const ms of [hi - 1001, hi - 1, hi, hi + 999]) expect(off(ms), `${tz} ${new Date(ms).toISOString()}`).toBe(intlOffset(tz, ms));
      }
    }
  });

  it('reads every year it is asked for, in any order, including before 1970 and across the year boundary', () => {
    const off = zoneOffset('Europe/Paris');
    for (const ms of [Date.UTC(2030, 5, 1), Date.UTC(1950, 5, 1), Date.UTC(2024, 11, 31, 23, 30), Date.UTC(2025, 0, 1, 0, 30), Date.UTC(1890, 0, 1)]) {
      expect(off(ms)).toBe(intlOffset('Europe/Paris', ms));
    }
  });
});

describe('offset changes inside a window', () => {
  it('lists the instants the offset changes, across years, each where Intl changes it', () => {
    const at = (s: string) => Date.parse(s);
    expect(offsetChangesIn('Europe/Berlin', at('2024-01-01T00:00:00Z'), at('2025-04-01T00:00:00Z'))).toEqual([at('2024-03-31T01:00:00Z'), at('2024-10-27T01:00:00Z'), at('2025-03-30T01:00:00Z')]);
    expect(offsetChangesIn('Australia/Adelaide', at('2024-03-01T00:00:00Z'), at('2024-12-01T00:00:00Z'))).toEqual([at('2024-04-06T16:30:00Z'), at('2024-10-05T16:30:00Z')]);
    for (const u of offsetChangesIn('America/New_York', at('2024-01-01T00:00:00Z'), at('2025-01-01T00:00:00Z'))) {
      expect(intlOffset('America/New_York', u)).not.toBe(intlOffset('America/New_York', u - 1000));
    }
    // Open window, UTC, and an empty window: none.
    expect(offsetChangesIn('Europe/Berlin', at('2024-03-31T01:00:00Z'), at('2024-03-31T01:00:00Z'))).toEqual([]);
    expect(offsetChangesIn('UTC', 0, at('2030-01-01T00:00:00Z'))).toEqual([]);
  });
});

describe('day numbers of restriction dates (D224)', () => {
  it('equal Date.UTC for every day of 1900–2100', async () => {
    const { dayOf } = await import('../../../src/domain/ocpi/cdr-cost.js');
    for (let t = Date.UTC(1900, 0, 1); t <= Date.UTC(2100, 11, 31); t += 86_400_000) {
      const iso = new Date(t).toISOString().slice(0, 10);
      if (dayOf(iso) !== t / 86_400_000) expect(dayOf(iso), iso).toBe(t / 86_400_000);
    }
  });
});
