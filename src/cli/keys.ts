/**
 * API key management (works on a fresh DATA_DIR or DATABASE_URL, before or while the service runs;
 * running services pick up changes within KEY_REFRESH_MS, replicas on PostgreSQL at once):
 *
 *   npm run keys -- create --groups <CSV|all|none> [--key <value>] [--name <label>]
 *   npm run keys -- list
 *   npm run keys -- revoke <name>
 */
import { GROUPS, parseGroupList } from '../auth/groups.js';
import { KeyError, createKey } from '../auth/keys.js';
import { cliConfig, cliStore, fail, parseCli, subcommand } from './common.js';
import { allKeys, revokeKey } from '../storage/keys.js';

const USAGE = `usage:
  keys create --groups <CSV|all|none> [--key <value>] [--name <label>]
  keys list
  keys revoke <name>
groups: ${GROUPS.join(', ')}`;


async function main(argv: string[]): Promise<void> {
  const [cmd, rest] = subcommand(argv, USAGE);
  const parsed =
    cmd === 'create'
      ? parseCli(rest, { groups: { type: 'string' }, key: { type: 'string' }, name: { type: 'string' } }, USAGE)
      : parseCli(rest, {}, USAGE, true);
  const config = cliConfig();
  const store = await cliStore(config);
  try {
    if (cmd === 'create') {
      const { groups, key, name } = parsed.values as { groups?: string; key?: string; name?: string };
      for (const [flag, v] of [['--groups', groups], ['--key', key], ['--name', name]] as const) {
        if (v !== undefined && v.startsWith('--')) fail(`${flag} needs a value\n${USAGE}`);
      }
      if (groups === undefined) fail(`--groups is required\n${USAGE}`);
      let list;
      try {
        list = parseGroupList(groups);
      } catch (e) {
        fail((e as Error).message);
      }
      try {
        const k = await createKey(store, { groups: list, key, name });
        process.stdout.write(`${k.key}\n`);
        process.stderr.write(`created key "${k.name}" with groups: ${k.groups.join(', ') || '(none)'}\n`);
      } catch (e) {
        if (e instanceof KeyError) fail(e.message);
        throw e;
      }
    } else if (cmd === 'list') {
      if (parsed.positionals.length > 0) fail(`list takes no arguments\n${USAGE}`);
      const rows = await store.read(allKeys);
      if (rows.length === 0) process.stdout.write('no keys\n');
      for (const r of rows) {
        const state = r.revoked_at === null ? 'active' : `revoked ${new Date(r.revoked_at).toISOString()}`;
        process.stdout.write(
          `${r.name}\t${state}\tcreated ${new Date(r.created_at).toISOString()}\tgroups ${r.groups || '(none)'}\n`,
        );
      }
    } else if (cmd === 'revoke') {
      const name = parsed.positionals[0];
      if (name === undefined || parsed.positionals.length !== 1) fail(`revoke needs exactly one key name\n${USAGE}`);
      if (!(await store.tx((s) => revokeKey(s, name)))) fail(`no active key named "${name}"`);
      process.stderr.write(`revoked key "${name}"\n`);
    } else {
      fail(`unknown command ${cmd}\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

void main(process.argv.slice(2));
