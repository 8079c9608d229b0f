/** What the command-line tools share: usage errors (exit code 2) and the service's configuration. */
import { ConfigError, loadConfig, type Config } from '../config.js';

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
