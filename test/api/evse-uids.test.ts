// D175: the OCPI uid map holds at most one uid per EVSE, and a swap drops EVSEs that are gone.
import { describe, expect, it } from 'vitest';
import { EvseUids } from '../../src/api/availability/availability.handler.js';

describe('EvseUids (D175)', () => {
  it('stays bounded by the EVSEs however many uids arrive', () => {
    const m = new EvseUids();
    for (let i = 0; i < 300_000; i++) m.set(`DE*ABC:uid-${i}`, `DE*ABC*E${i % 10}`);
    expect(m.size).toBe(10);
    expect(m.get('DE*ABC:uid-299999')).toBe('DE*ABC*E9');
    expect(m.get('DE*ABC:uid-0')).toBeUndefined();
  });

  it('moves a uid to another EVSE and drops EVSEs a new snapshot does not have', () => {
    const m = new EvseUids();
    m.set('k1', 'E1');
    m.set('k2', 'E2');
    m.set('k1', 'E3');
    expect([m.get('k1'), m.get('k2'), m.size]).toEqual(['E3', 'E2', 2]);
    // E1 lost its uid when k1 moved: setting a uid for E1 again does not disturb k1.
    m.set('k9', 'E1');
    expect(m.get('k1')).toBe('E3');
    m.retain((id) => id !== 'E2');
    expect([m.get('k2'), m.size]).toEqual([undefined, 2]);
  });
});
