import * as m001 from './001_foundation.js';
import * as m002 from './002_availability.js';
import * as m003 from './003_catalog.js';
import * as m004 from './004_feedback_devices.js';

/** Ordered schema migrations of the live store; each runs once, in its own transaction. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: 'foundation', sql: m001.sql },
  { version: 2, name: 'availability', sql: m002.sql },
  { version: 3, name: 'catalog', sql: m003.sql },
  { version: 4, name: 'feedback_devices', sql: m004.sql },
];
