/**
 * Attempts of the accounts' guessing limits shared by replicas (D219): PostgreSQL only. A single
 * SQLite process counts them in memory (D207, D209, D212), so this version adds nothing there;
 * the number keeps both stores' migrations in step.
 */
export const sql = `SELECT 1;`;

/** One row per attempt, by the SHA-256 of its limit and key (never an address or a client address); UNLOGGED here, logged since migration 14 (D248). */
export const postgresSql = `
CREATE UNLOGGED TABLE attempts (
  key_hash    TEXT NOT NULL,
  at          BIGINT NOT NULL
);
CREATE INDEX attempts_key ON attempts(key_hash, at);
CREATE INDEX attempts_at ON attempts(at);
`;
