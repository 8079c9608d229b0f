/**
 * EVSE statuses shared by replicas (D216): PostgreSQL only. A single SQLite process holds its
 * statuses in memory (D136), so this version adds nothing there; the number keeps both stores'
 * migrations in step.
 */
export const sql = `SELECT 1;`;

/** The PostgreSQL table: one row per EVSE, the newest status wins; UNLOGGED (no WAL: data a feed sends again). */
export const postgresSql = `
CREATE UNLOGGED TABLE evse_statuses (
  evse_id     TEXT PRIMARY KEY,
  state       SMALLINT NOT NULL,
  at          BIGINT NOT NULL
);
`;
