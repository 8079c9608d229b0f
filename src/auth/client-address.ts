/**
 * Who the client is (D245): the socket's peer, or — only when that peer is a trusted proxy — the
 * nearest address in `X-Forwarded-For` that is not a trusted proxy itself. Trusted proxies are
 * addresses and CIDR ranges (`TRUST_PROXY`), checked with node:net's BlockList. Per-client
 * limits key an IPv6 client by its /64 (one subscriber's whole prefix), an IPv4 one by its address.
 */
import net from 'node:net';

export { trustedProxies } from '../config.js';

/**
 * An IPv4-mapped IPv6 address as the IPv4 address it is: `::ffff:192.0.2.1`, or the long hex form
 * uWebSockets.js gives for a dual-stack socket (`0000:…:ffff:c000:0201`).
 */
function unmapped(a: string): string {
  if (!a.includes(':')) return a;
  const g = ipv6Groups(a);
  if (g === null || g.slice(0, 5).some((x) => x !== 0) || g[5] !== 0xffff) return a;
  return `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
}

function trusted(list: net.BlockList, a: string): boolean {
  const type = net.isIPv4(a) ? 'ipv4' : net.isIPv6(a) ? 'ipv6' : null;
  return type !== null && list.check(a, type);
}

/** One `X-Forwarded-For` entry as an address (a bracketed or port-suffixed form read too), or null. */
function entryAddress(entry: string): string | null {
  let e = entry.trim();
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(e);
  if (bracket) e = bracket[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(e)) e = e.slice(0, e.lastIndexOf(':'));
  e = unmapped(e);
  return net.isIP(e) !== 0 ? e : null;
}

/**
 * The client of a request whose socket peer is `remote` (D245). Without trusted proxies, or from a
 * peer that is not one, the peer; else `X-Forwarded-For` read from the right, trusted proxies
 * skipped, the first other address being the client (an entry that is no address stops the walk:
 * what lies left of it was not written by a proxy of ours).
 */
export function clientAddress(remote: string, forwardedFor: string, proxies: net.BlockList | null): string {
  const peer = unmapped(remote);
  if (proxies === null || !trusted(proxies, peer)) return peer;
  const list = forwardedFor.split(',');
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].trim() === '') continue;
    const a = entryAddress(list[i]);
    if (a === null) return peer;
    if (!trusted(proxies, a)) return a;
  }
  return peer;
}

/** The eight 16-bit groups of an IPv6 address, or null. */
function ipv6Groups(a: string): number[] | null {
  if (!net.isIPv6(a)) return null;
  let s = a.split('%')[0];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) s = `${s.slice(0, v4.index)}${((+v4[1] << 8) | +v4[2]).toString(16)}:${((+v4[3] << 8) | +v4[4]).toString(16)}`;
  const [head, tail] = s.includes('::') ? s.split('::') : [s, null];
  const h = head === '' ? [] : head.split(':');
  const t = tail === null || tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 ? groups : null;
}

/** The key of a client for per-client limits: an IPv6 address's /64, an IPv4 address itself. */
export function clientKey(address: string): string {
  const g = ipv6Groups(address);
  if (g === null) return address;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
