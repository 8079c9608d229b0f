import { describe, expect, it } from 'vitest';
import { newestPerEvse, PAYLOAD_CHARS, parseStatusPayload, statusPayloads, type StatusRow } from '../../src/storage/evse-statuses.js';

describe('EVSE status announcements (D216)', () => {
  it('cut many statuses into payloads under the NOTIFY limit that parse back to the same rows', () => {
    const rows: StatusRow[] = Array.from({ length: 10_000 }, (_, i) => ({ evse_id: `FR*BNC*E${i}X${i % 4}`, state: (i % 3) - 1, at: 1_795_000_000_000 + i }));
    const payloads = statusPayloads('r1', rows);
    expect(payloads.length).toBeGreaterThan(20);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(PAYLOAD_CHARS);
    const back = payloads.map((p) => parseStatusPayload(p)!);
    expect(back.every((b) => b.origin === 'r1')).toBe(true);
    expect(back.flatMap((b) => b.rows)).toEqual(rows);
    expect(statusPayloads('r1', [])).toEqual([]);
  });

  it('carries ids a snapshot kept as published, separators and all, and keeps eMI3 ids readable', () => {
    const rows = [
      { evse_id: 'FR*ABC*E1', state: 1, at: 5 },
      { evse_id: 'ODD,ID;WITH:SEPARATORS%', state: 0, at: 6 },
    ];
    const [p] = statusPayloads('r1', rows);
    expect(p.startsWith('statuses:r1:FR*ABC*E1,1,5;')).toBe(true);
    expect(parseStatusPayload(p)).toEqual({ origin: 'r1', rows });
    expect(parseStatusPayload('statuses:r1:%E0%A4%A,1,5')).toBeNull();
  });

  it('carries the OCPI uid a PUT named an EVSE by, URI-encoded, and only where there is one (D222)', () => {
    const rows: StatusRow[] = [
      { evse_id: 'DK*FIX*E3', state: 1, at: 5, uid: 'DK*FIX:U,1;x' },
      { evse_id: 'DK*FIX*E1', state: 0, at: 6 },
    ];
    const [p] = statusPayloads('r1', rows);
    expect(p).toBe('statuses:r1:DK*FIX*E3,1,5,DK*FIX%3AU%2C1%3Bx;DK*FIX*E1,0,6');
    expect(parseStatusPayload(p)).toEqual({ origin: 'r1', rows });
    expect(parseStatusPayload('statuses:r1:DK*FIX*E3,1,5,%E0%A4%A')).toBeNull();
  });

  it('refuses payloads of other kinds or with malformed statuses', () => {
    for (const p of ['catalog:7', 'statuses:r1:', 'statuses:r1:DE*A*E1,2,5', 'statuses:r1:DE*A*E1,1', 'statuses:r1:DE*A*E1,1,x', 'statuses', 'statuses:r1:,1,5']) {
      expect(parseStatusPayload(p), p).toBeNull();
    }
    expect(parseStatusPayload('statuses:r1:DE*A*E1,1,5;DE*A*E2,-1,6')).toEqual({ origin: 'r1', rows: [{ evse_id: 'DE*A*E1', state: 1, at: 5 }, { evse_id: 'DE*A*E2', state: -1, at: 6 }] });
  });

  it('keeps the newest status per EVSE (a later one of equal time wins), as one statement must', () => {
    const rows = [
      { evse_id: 'A', state: 1, at: 5 },
      { evse_id: 'B', state: 0, at: 3 },
      { evse_id: 'A', state: 0, at: 4 },
      { evse_id: 'B', state: 1, at: 3 },
    ];
    expect(newestPerEvse(rows)).toEqual([{ evse_id: 'A', state: 1, at: 5 }, { evse_id: 'B', state: 1, at: 3 }]);
  });
});
