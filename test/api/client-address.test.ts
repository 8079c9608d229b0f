// D245: the client behind trusted proxies, and the keys of per-client limits.
import { describe, expect, it } from 'vitest';
import { clientAddress, clientKey, trustedProxies } from '../../src/auth/client-address.js';
import { loadConfig } from '../../src/config.js';

describe('clientAddress (D245)', () => {
  const nginx = trustedProxies(['127.0.0.1']);
  it('reads X-Forwarded-For only from a trusted proxy', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', nginx)).toBe('203.0.113.7');
    expect(clientAddress('198.51.100.9', '203.0.113.7', nginx)).toBe('198.51.100.9'); // reached directly: ignored
    expect(clientAddress('127.0.0.1', '203.0.113.7', null)).toBe('127.0.0.1'); // no proxies trusted
  });

  it('walks from the right past trusted proxies; a spoofed left part does not count', () => {
    const chain = trustedProxies(['10.0.0.0/8', '127.0.0.1']);
    expect(clientAddress('127.0.0.1', '1.2.3.4, 203.0.113.7, 10.1.2.3', chain)).toBe('203.0.113.7');
    expect(clientAddress('127.0.0.1', 'not-an-ip, 203.0.113.7', nginx)).toBe('203.0.113.7');
    expect(clientAddress('127.0.0.1', '203.0.113.7, garbage', nginx)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '', nginx)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '10.1.1.1, 10.2.2.2', chain)).toBe('127.0.0.1'); // only proxies: the peer
    expect(clientAddress('127.0.0.1', '[2001:db8::1]:443', nginx)).toBe('2001:db8::1');
    expect(clientAddress('127.0.0.1', '203.0.113.7:5555', nginx)).toBe('203.0.113.7');
    expect(clientAddress('::ffff:127.0.0.1', '::ffff:203.0.113.7', nginx)).toBe('203.0.113.7');
    // uWebSockets.js names a peer of a dual-stack socket in long hex form.
    expect(clientAddress('0000:0000:0000:0000:0000:ffff:7f00:0001', '203.0.113.7', nginx)).toBe('203.0.113.7');
    expect(clientAddress('0000:0000:0000:0000:0000:ffff:c633:6409', '', nginx)).toBe('198.51.100.9');
  });

  it('keys IPv6 clients by their /64, IPv4 ones by the address', () => {
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::ffff')).toBe(clientKey('2001:0db8:0001:0002:0:0:0:1'));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('TRUST_PROXY: off, loopback (on), or addresses and CIDRs; anything else stops the start', () => {
    const cfg = (v: string) => loadConfig({ TRUST_PROXY: v }).trustProxy;
    expect(cfg('off')).toBeNull();
    expect(cfg('on')).toEqual(['127.0.0.0/8', '::1/128']);
    expect(cfg('127.0.0.1, 172.30.80.0/24,::1')).toEqual(['127.0.0.1', '172.30.80.0/24', '::1']);
    for (const bad of ['nginx', '10.0.0.0/33', '1.2.3.4/8/1', '::1/129']) expect(() => cfg(bad), bad).toThrow(/TRUST_PROXY/);
  });
});
