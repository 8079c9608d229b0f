import * as m001 from './001_foundation.js';

/** Ordered schema migrations of the live store; each runs once, in its own transaction. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: 'foundation', sql: m001.sql },
];
