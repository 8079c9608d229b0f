// Command-line parsing of the scripts in scripts/, the same rules as the CLIs' `parseCli`
// (src/cli/common.ts), which the scripts cannot import without a build: node:util parseArgs,
// strict; `--help` prints the usage and exits 0, an unknown option prints it and exits 2.
import { parseArgs } from 'node:util';

/**
 * @template {import('node:util').ParseArgsConfig['options']} O
 * @param {O} options boolean or string options (`help` is added)
 * @param {string} usage
 */
export function scriptArgs(options, usage) {
  if (process.argv.includes('--help')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ options, strict: true }).values;
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${usage}`);
    process.exit(2);
  }
}
