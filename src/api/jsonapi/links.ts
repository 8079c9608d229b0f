/**
 * Paging links of a list (D235): `self`, `first`, `prev` after the first page, `next` while more
 * items follow, and `last` where the list knows its total. Relative URLs: the request's path and
 * its query parameters sorted by name (one list, one set of links, as the answer caches key it),
 * `page[number]` set; brackets and commas left readable.
 */
import type { Query } from './query.js';

export interface PageLinks {
  self: string;
  first: string;
  prev?: string;
  next?: string;
  last?: string;
}

const enc = (s: string): string => encodeURIComponent(s).replace(/%5B/g, '[').replace(/%5D/g, ']').replace(/%2C/g, ',');

export function pageLinks(path: string, query: Query, page: { number: number; size: number }, more: boolean, total?: number): PageLinks {
  const rest: string[] = [];
  for (const k of [...query.keys()].sort()) if (k !== 'page[number]') rest.push(`${enc(k)}=${enc(query.get(k)!)}`);
  const at = (n: number): string => `${path}?${[...rest, `page[number]=${n}`].join('&')}`;
  const links: PageLinks = { self: at(page.number), first: at(1) };
  if (page.number > 1) links.prev = at(page.number - 1);
  if (more) links.next = at(page.number + 1);
  if (total !== undefined) links.last = at(Math.max(1, Math.ceil(total / page.size)));
  return links;
}

/** The longest `Link` header a CSV page carries (D283): with the other headers, a head under 12 KiB. */
export const LINK_HEADER_MAX = 10_240;
/** Which links a bounded `Link` header keeps first (D283): the one a client pages on, then back. */
const LINK_PRIORITY = ['next', 'prev', 'first', 'self', 'last'] as const;
const LINK_ORDER = ['self', 'first', 'prev', 'next', 'last'] as const;

/**
 * The links as an RFC 8288 `Link` field (the CSV answers of D238), at most `max` bytes: links are
 * taken in LINK_PRIORITY while they fit and written in D238's order; empty when none fits (D283).
 * A URI reference may not hold the brackets and commas the JSON links leave readable, so they are
 * encoded here.
 */
export function linkHeader(links: PageLinks, max = LINK_HEADER_MAX): string {
  const kept = new Map<string, string>();
  let used = 0;
  for (const rel of LINK_PRIORITY) {
    const url = links[rel];
    if (url === undefined) continue;
    const part = `<${url.replace(/\[/g, '%5B').replace(/\]/g, '%5D').replace(/,/g, '%2C')}>; rel="${rel}"`;
    const cost = part.length + (kept.size > 0 ? 2 : 0);
    if (used + cost > max) continue;
    kept.set(rel, part);
    used += cost;
  }
  return LINK_ORDER.filter((rel) => kept.has(rel)).map((rel) => kept.get(rel)).join(', ');
}

/** `,"links":{…}` to splice before a document's closing brace. */
export const linksMember = (links: PageLinks): string => `,"links":${JSON.stringify(links)}`;
