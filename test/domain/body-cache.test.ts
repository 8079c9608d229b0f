import { describe, expect, it } from 'vitest';
import { BodyCache } from '../../src/api/body-cache.js';

describe('BodyCache bounds (D101)', () => {
  it('keeps at most max entries and maxBytes, drops the oldest first, never keeps oversized bodies or keys', () => {
    const c = new BodyCache(4, 10_000, 3_000, 100);
    for (let i = 0; i < 10; i++) c.set(`k${i}`, 's', 'x'.repeat(1000));
    expect(c.size.entries).toBe(4);
    expect(c.get('k9', 's')?.length).toBe(1000);
    expect(c.get('k5', 's')).toBeUndefined();
    for (let i = 0; i < 40; i++) c.set(`big${i}`, 's', 'y'.repeat(2900));
    expect(c.size.bytes).toBeLessThanOrEqual(10_000);
    expect(c.set('huge', 's', 'z'.repeat(3001)).length).toBe(3001);
    expect(c.get('huge', 's')).toBeUndefined();
    c.set('q'.repeat(101), 's', 'small');
    expect(c.get('q'.repeat(101), 's')).toBeUndefined();
    // 40,000 distinct queries stay within the byte budget.
    const d = new BodyCache();
    for (let i = 0; i < 40_000; i++) d.set(`filter=${i}`, 's', 'b'.repeat(2000));
    expect(d.size.entries).toBe(256);
    expect(d.size.bytes).toBeLessThan(32 * 1024 * 1024);
  });
});
