/**
 * Issues a bearer token for device registration (D4), signed with the service's HS256 secret
 * (JWT_SECRET, else the secret stored in the live store, created on first use):
 *
 *   npm run token -- --sub <user> --ttl <seconds>
 *
 * A negative --ttl issues an already expired token (for testing clients).
 */
import { cliConfig, cliStore, fail, parseCli } from './common.js';
import { hs256Secret, issueToken } from '../auth/token.js';

const USAGE = 'usage: token --sub <user> [--ttl <seconds, default 3600>]';


async function main(argv: string[]): Promise<void> {
  const { values } = parseCli(argv, { sub: { type: 'string' }, ttl: { type: 'string' } }, USAGE);
  const config = cliConfig();
  if (config.jwtAlgorithm !== 'HS256') fail(`the service verifies ${config.jwtAlgorithm} tokens; issue them with the user-auth service's private key`);
  const sub = values.sub;
  let ttl = 3600;
  if (values.ttl !== undefined) {
    const v = Number(values.ttl);
    if (!Number.isInteger(v) || values.ttl.trim() === '') fail(`--ttl must be an integer number of seconds\n${USAGE}`);
    ttl = v;
  }
  if (!sub) fail(`--sub is required\n${USAGE}`);
  if (ttl > config.tokenMaxLifetimeS) fail(`--ttl must be at most TOKEN_MAX_LIFETIME_S (${config.tokenMaxLifetimeS} s): the service refuses longer-lived tokens (D103)`);
  const store = await cliStore(config);
  try {
    process.stdout.write(`${await issueToken(await hs256Secret(config, store), sub, ttl)}\n`);
  } finally {
    await store.close();
  }
}

void main(process.argv.slice(2));
