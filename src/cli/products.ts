/**
 * Product sources (D212, D239): what users present to unlock products such as `web_pro` and
 * `mobile_premium` (`POST /v1/users/{sub}/products`), each usable once. Operators issue codes
 * (printed once) or import the memberships the web client sends; only hashes are stored.
 *
 *   npm run products -- create --products <CSV> [--type code] [--count <n>]
 *   npm run products -- import --type emc_membership|carbonify_thg --products <CSV> <file.csv>
 *   npm run products -- list
 */
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { SOURCE_FIELDS, isSourceType, sourceHash, sourceIdentity, type SourceType } from '../auth/product-sources.js';
import { AccountStore } from '../storage/accounts.js';
import { cliConfig, cliStore, fail, parseCli, subcommand } from './common.js';

const USAGE = `usage:
  products create --products <CSV> [--type code] [--count <n>]      prints one code per line (each usable once)
  products import --type <type> --products <CSV> <file.csv>          stores the memberships of a CSV file (each usable once)
  products list                                                     type, products, created, used (never the code)
--products: product names (a-z, 0-9, _), comma-separated; --count: 1–10000 (default 1)
import types and their CSV columns (a header row names them; other columns are ignored):
  emc_membership   member_number, card_number
  carbonify_thg    email, country, quota_year`;

const NAME = /^[a-z0-9_]{1,40}$/;

function productsArg(v: string | undefined): string[] {
  if (v === undefined) fail(`--products is required\n${USAGE}`);
  const products = [...new Set(v.split(',').map((s) => s.trim()).filter((s) => s.length > 0))].sort();
  if (products.length === 0 || products.some((p) => !NAME.test(p))) fail('--products: product names are 1–40 of a-z, 0-9 and _, comma-separated');
  return products;
}

function createArgs(rest: string[]): { products: string[]; count: number } {
  const { values: v } = parseCli(rest, { products: { type: 'string' }, type: { type: 'string' }, count: { type: 'string' } }, USAGE);
  if (v.type !== undefined && v.type !== 'code') fail('--type: create issues codes (type "code"); memberships are loaded with import');
  const count = Number(v.count ?? '1');
  if (!Number.isInteger(count) || count < 1 || count > 10_000) fail('--count must be an integer from 1 to 10000');
  return { products: productsArg(v.products), count };
}

/** The identities of a membership CSV (D239); any row that fits not its type refuses the whole file. */
function importIdentities(type: Exclude<SourceType, 'code'>, text: string): string[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, bom: true, trim: true });
  } catch (e) {
    fail(`the file is not CSV: ${(e as Error).message}`);
  }
  const fields = SOURCE_FIELDS[type];
  if (rows.length === 0) fail('the file has no rows');
  const missing = fields.filter((f) => !(f in rows[0]));
  if (missing.length > 0) fail(`the header lacks ${missing.join(', ')} (a ${type} file has ${fields.join(', ')})`);
  const bad: number[] = [];
  const identities = rows.map((row, i) => {
    const id = sourceIdentity({ ...row, type });
    if (id === null) bad.push(i + 2);
    return id?.identity ?? '';
  });
  if (bad.length > 0) fail(`nothing imported: ${bad.length} row(s) do not fit ${type} (${fields.join(', ')}), on line(s) ${bad.slice(0, 20).join(', ')}${bad.length > 20 ? ', …' : ''}`);
  return [...new Set(identities)];
}

function importArgs(rest: string[]): { type: Exclude<SourceType, 'code'>; products: string[]; file: string } {
  const { values: v, positionals } = parseCli(rest, { products: { type: 'string' }, type: { type: 'string' } }, USAGE, true);
  const type = v.type ?? '';
  if (!isSourceType(type) || type === 'code') fail(`--type must be ${Object.keys(SOURCE_FIELDS).filter((t) => t !== 'code').join(' or ')}\n${USAGE}`);
  if (positionals.length !== 1) fail(`import takes one CSV file\n${USAGE}`);
  return { type, products: productsArg(v.products), file: positionals[0] };
}

async function list(accounts: AccountStore): Promise<void> {
  const rows = await accounts.sources();
  if (rows.length === 0) process.stdout.write('no product sources\n');
  for (const r of rows) {
    const used = r.used_at === null ? 'unused' : `used ${new Date(r.used_at).toISOString()}`;
    process.stdout.write(`${r.type}\t${r.products.join(',')}\tcreated ${new Date(r.created_at).toISOString()}\t${used}\n`);
  }
}

async function main(argv: string[]): Promise<void> {
  const [cmd, rest] = subcommand(argv, USAGE);
  if (cmd !== 'create' && cmd !== 'import' && cmd !== 'list') fail(`unknown command ${cmd}\n${USAGE}`);
  const created = cmd === 'create' ? createArgs(rest) : null;
  const imported = cmd === 'import' ? importArgs(rest) : null;
  if (cmd === 'list') parseCli(rest, {}, USAGE);
  let text = '';
  if (imported !== null) {
    try {
      text = readFileSync(imported.file, 'utf8');
    } catch (e) {
      fail(`cannot read ${imported.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const identities = imported === null ? [] : importIdentities(imported.type, text);
  const store = await cliStore(cliConfig());
  try {
    const accounts = new AccountStore(store);
    if (created !== null) {
      const codes = Array.from({ length: created.count }, () => crypto.randomBytes(16).toString('base64url'));
      await accounts.createSources('code', created.products, codes.map((c) => sourceHash('code', `code\n${c}`, Buffer.alloc(0))));
      process.stdout.write(codes.join('\n') + '\n');
      process.stderr.write(`created ${created.count} product source(s) of type "code" granting: ${created.products.join(', ')}\n`);
    } else if (imported !== null) {
      const key = await accounts.productSourceKey();
      const added = await accounts.createSources(imported.type, imported.products, identities.map((id) => sourceHash(imported.type, id, key)));
      const skipped = identities.length - added;
      process.stdout.write(`imported ${added} ${imported.type} source(s) granting ${imported.products.join(', ')}${skipped > 0 ? ` (${skipped} already stored, left as they were)` : ''}\n`);
    } else await list(accounts);
  } finally {
    await store.close();
  }
}

void main(process.argv.slice(2));
