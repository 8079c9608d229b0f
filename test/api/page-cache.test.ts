/**
 * The page cache of GeoJSON and CSV answers (D262): stamped with the answer's validator, kept
 * as a copy of the written bytes, bounded in entries and in bytes of bodies and compressed copies.
 */
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/api/body-cache.js';

describe('PageCache (D262)', () => {
  it('answers a page while its stamp holds, from a copy of the bytes it was given', () => {
    const pages = new PageCache({ hit: 0, miss: 0 }, 4, 1 << 20, 1 << 16, 64);
    const scratch = Buffer.from('id,name\r\n1,a\r\n');
    expect(pages.get('csv|q', 's1')).toBeUndefined();
    pages.set('csv|q', 's1', scratch, { 'X-More-Available': 'false' });
    scratch.fill(0x20);
    const hit = pages.get('csv|q', 's1')!;
    expect([hit.body.toString(), hit.headers['X-More-Available']]).toEqual(['id,name\r\n1,a\r\n', 'false']);
    expect(pages.get('csv|q', 's2')).toBeUndefined();
    expect(pages.counts).toEqual({ hit: 1, miss: 2 });
  });

  it('holds at most its entries and bytes, compressed copies counted, oldest out first; too large is not kept', () => {
    const pages = new PageCache({ hit: 0, miss: 0 }, 3, 1000, 400, 64);
    for (let i = 0; i < 5; i++) pages.set(`k${i}`, 's', Buffer.alloc(100), {});
    expect(pages.size.entries).toBe(3);
    expect(pages.get('k1', 's')).toBeUndefined();
    expect(pages.get('k4', 's')).toBeDefined();
    expect(pages.set('big', 's', Buffer.alloc(401), {})).toBeNull();
    expect(pages.set('x'.repeat(65), 's', Buffer.alloc(10), {})).toBeNull();
    const a = new PageCache({ hit: 0, miss: 0 }, 10, 1000, 400, 64);
    const p = a.set('a', 's', Buffer.alloc(300), {})!;
    a.set('b', 's', Buffer.alloc(300), {});
    a.set('c', 's', Buffer.alloc(300), {});
    p.keep('gzip', Buffer.alloc(50));
    expect(p.get('gzip')?.length).toBe(50);
    // 'a' with its copy makes 953 bytes; a br copy of 'c' over 1000 sends the oldest ('a') out.
    a.get('c', 's')!.keep('br', Buffer.alloc(100));
    expect(a.size.bytes).toBeLessThanOrEqual(1000);
    expect(a.get('a', 's')).toBeUndefined();
    expect(a.get('c', 's')?.get('br')?.length).toBe(100);
  });

  it('with recentKept, a page found is kept over pages written after it (least recently used out first)', () => {
    const lru = new PageCache({ hit: 0, miss: 0 }, 3, 1 << 20, 1 << 16, 64, true);
    const fifo = new PageCache({ hit: 0, miss: 0 }, 3, 1 << 20, 1 << 16, 64);
    for (const c of [lru, fifo]) {
      for (const k of ['a', 'b', 'c']) c.set(k, 's', Buffer.alloc(10), {});
      expect(c.get('a', 's')).toBeDefined();
      c.set('d', 's', Buffer.alloc(10), {});
    }
    expect(['a', 'b', 'c', 'd'].map((k) => lru.get(k, 's') !== undefined)).toEqual([true, false, true, true]);
    expect(['a', 'b', 'c', 'd'].map((k) => fifo.get(k, 's') !== undefined)).toEqual([false, true, true, true]);
  });
});
