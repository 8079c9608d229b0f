/**
 * Snapshot swaps across the replicas of a PostgreSQL live store (D220): PostgreSQL only. A single
 * SQLite process has no other replica to tell, so this version adds nothing there; the number
 * keeps both stores' migrations in step.
 */
export const sql = `SELECT 1;`;

/** The replicas alive (a row each, refreshed every few seconds), the swaps recorded and each replica's outcome. */
export const postgresSql = `
CREATE TABLE replicas (
  id                TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  started_at        BIGINT NOT NULL,
  seen_at           BIGINT NOT NULL,
  snapshot_version  TEXT NOT NULL
);
CREATE TABLE snapshot_swaps (
  id          BIGSERIAL PRIMARY KEY,
  version     TEXT NOT NULL,
  file        TEXT,
  url         TEXT,
  sha256      TEXT,
  by_replica  TEXT NOT NULL,
  at          BIGINT NOT NULL
);
CREATE TABLE snapshot_outcomes (
  swap_id     BIGINT NOT NULL REFERENCES snapshot_swaps(id) ON DELETE CASCADE,
  replica     TEXT NOT NULL,
  name        TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  version     TEXT NOT NULL,
  detail      TEXT,
  at          BIGINT NOT NULL,
  PRIMARY KEY (swap_id, replica)
);
`;
