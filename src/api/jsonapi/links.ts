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

/**
 * The links as an RFC 8288 `Link` field (the CSV answers of D238): a URI reference may not hold
 * the brackets and commas the JSON links leave readable, so they are encoded here.
 */
export function linkHeader(links: PageLinks): string {
  const out: string[] = [];
  for (const rel of ['self', 'first', 'prev', 'next', 'last'] as const) {
    const url = links[rel];
    if (url !== undefined) out.push(`<${url.replace(/\[/g, '%5B').replace(/\]/g, '%5D').replace(/,/g, '%2C')}>; rel="${rel}"`);
  }
  return out.join(', ');
}

/** `,"links":{…}` to splice before a document's closing brace. */
export const linksMember = (links: PageLinks): string => `,"links":${JSON.stringify(links)}`;
