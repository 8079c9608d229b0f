/**
 * Product sources (D212): codes an operator issues, each usable once, granting products such as
 * `web_pro` and `mobile_premium` to the account that activates it (`POST /v1/users/{sub}/products`).
 * Only the SHA-256 of a code is stored; the code is printed once.
 *
 *   npm run products -- create --products <CSV> [--type <type>] [--count <n>]
 *   npm run products -- list
 */
import crypto from 'node:crypto';
import { hashKey } from '../auth/keys.js';
import { AccountStore } from '../storage/accounts.js';
import { cliConfig, cliStore, fail, parseCli, subcommand } from './common.js';

const USAGE = `usage:
  products create --products <CSV> [--type <type>] [--count <n>]   prints one code per line (each usable once)
  products list                                                    type, products, created, used (never the code)
--type: the source type clients send with the code (default "code"); --count: 1–10000 (default 1)`;

const NAME = /^[a-z0-9_]{1,40}$/;

function createArgs(rest: string[]): { type: string; products: string[]; count: number } {
  const { values } = parseCli(rest, { products: { type: 'string' }, type: { type: 'string' }, count: { type: 'string' } }, USAGE);
  const v = values;
  if (v.products === undefined) fail(`--products is required\n${USAGE}`);
  const products = [...new Set(v.products.split(',').map((s) => s.trim()).filter((s) => s.length > 0))].sort();
  if (products.length === 0 || products.some((p) => !NAME.test(p))) fail('--products: product names are 1–40 of a-z, 0-9 and _, comma-separated');
  const type = v.type ?? 'code';
  if (!/^\S{1,40}$/.test(type)) fail('--type: 1–40 characters without spaces');
  const count = Number(v.count ?? '1');
  if (!Number.isInteger(count) || count < 1 || count > 10_000) fail('--count must be an integer from 1 to 10000');
  return { type, products, count };
}

async function main(argv: string[]): Promise<void> {
  const [cmd, rest] = subcommand(argv, USAGE);
  if (cmd !== 'create' && cmd !== 'list') fail(`unknown command ${cmd}\n${USAGE}`);
  const args = cmd === 'create' ? createArgs(rest) : null;
  if (cmd === 'list') parseCli(rest, {}, USAGE);
  const store = await cliStore(cliConfig());
  try {
    const accounts = new AccountStore(store);
    if (args !== null) {
      const codes = Array.from({ length: args.count }, () => crypto.randomBytes(16).toString('base64url'));
      await accounts.createSources(args.type, args.products, codes.map(hashKey));
      process.stdout.write(codes.join('\n') + '\n');
      process.stderr.write(`created ${args.count} product source(s) of type "${args.type}" granting: ${args.products.join(', ')}\n`);
      return;
    }
    const rows = await accounts.sources();
    if (rows.length === 0) process.stdout.write('no product sources\n');
    for (const r of rows) {
      const used = r.used_at === null ? 'unused' : `used ${new Date(r.used_at).toISOString()}`;
      process.stdout.write(`${r.type}\t${r.products.join(',')}\tcreated ${new Date(r.created_at).toISOString()}\t${used}\n`);
    }
  } finally {
    await store.close();
  }
}

void main(process.argv.slice(2));
