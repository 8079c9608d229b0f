import * as m001 from './001_foundation.js';
import * as m002 from './002_availability.js';
import * as m003 from './003_catalog.js';
import * as m004 from './004_feedback_devices.js';
import * as m005 from './005_key_generation.js';
import * as m006 from './006_price_profiles.js';
import * as m007 from './007_accounts.js';
import * as m008 from './008_evse_statuses.js';
import * as m009 from './009_rate_counts.js';
import * as m010 from './010_attempts.js';
import * as m011 from './011_snapshot_swaps.js';
import * as m012 from './012_evse_uids.js';
import * as m013 from './013_account_tokens.js';
import * as m014 from './014_account_limits.js';
import * as pg from './postgres.js';

import type { Migration } from './migration.js';

export type { Migration };

/** Ordered schema migrations of the SQLite live store; each runs once, in its own transaction. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'foundation', sql: m001.sql },
  { version: 2, name: 'availability', sql: m002.sql },
  { version: 3, name: 'catalog', sql: m003.sql },
  { version: 4, name: 'feedback_devices', sql: m004.sql },
  { version: 5, name: 'key_generation', sql: m005.sql },
  { version: 6, name: 'price_profiles', sql: m006.sql },
  { version: 7, name: 'accounts', sql: m007.sql },
  { version: 8, name: 'evse_statuses', sql: m008.sql },
  { version: 9, name: 'rate_counts', sql: m009.sql },
  { version: 10, name: 'attempts', sql: m010.sql },
  { version: 11, name: 'snapshot_swaps', sql: m011.sql },
  { version: 12, name: 'evse_uids', sql: m012.sql },
  { version: 13, name: 'account_tokens', sql: m013.sql },
  { version: 14, name: 'account_limits', sql: m014.sql },
];

/** The same schema for PostgreSQL (same versions and names, PostgreSQL types; postgres.ts). */
export const POSTGRES_MIGRATIONS: readonly Migration[] = pg.MIGRATIONS;
