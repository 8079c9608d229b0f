/** What the command-line tools share: usage errors (exit code 2) and the service's configuration. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { LiveStore } from '../storage/live.js';
import { openLiveStore, openLiveStoreReadonly } from '../storage/open.js';

/** Prints `msg` to stderr and exits with code 2 (usage or configuration error). */
export function fail(msg: string): never {
  process.stderr.write(`${msg}\n`);
  process.exit(2);
}

/** The service's configuration from the environment; a configuration error exits with code 2. */
export function cliConfig(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) fail(`configuration error: ${e.message}`);
    throw e;
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The subcommand of a `<tool> <command> …` line and its arguments; without one the usage is
 * printed and the tool exits 2, with `--help` / `-h` it is printed and the tool exits 0.
 */
export function subcommand(argv: string[], usage: string): [string, string[]] {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h') {
    process.stdout.write(usage + '\n');
    process.exit(cmd === undefined ? 2 : 0);
  }
  return [cmd, rest];
}

/**
 * Parses a command line with `node:util` parseArgs (strict: unknown options and missing values are
 * usage errors, exit code 2). `--help` / `-h` prints `usage` and exits 0.
 */
export function parseCli<O extends Options>(args: string[], options: O, usage: string, allowPositionals = false) {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage + '\n');
    process.exit(0);
  }
  // A negative number after a string option is its value (`--ttl -5`), not an option.
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : null;
    if (name !== null && options[name]?.type === 'string' && /^-\d/.test(args[i + 1] ?? '')) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]);
  }
  try {
    return parseArgs({ args: joined, options, strict: true, allowPositionals });
  } catch (e) {
    fail(`${(e as Error).message}\n${usage}`);
  }
}

/**
 * The live store the configuration names (DATABASE_URL, else DATA_DIR's SQLite file); exits with
 * the reason when it cannot be opened. `readonly`: never created or migrated.
 */
export async function cliStore(config: Config, readonly = false): Promise<LiveStore> {
  try {
    return readonly ? await openLiveStoreReadonly(config, 1) : await openLiveStore({ ...config, dbPoolMax: 1, sharedStateUrl: null });
  } catch (e) {
    fail(`cannot open the live store: ${(e as Error).message}`);
  }
}
