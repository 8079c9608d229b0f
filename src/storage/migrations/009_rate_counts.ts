/**
 * Rate-limit counts shared by replicas (D218): PostgreSQL only. A single SQLite process counts in
 * memory (D109), so this version adds nothing there; the number keeps both stores' migrations in
 * step.
 */
export const sql = `SELECT 1;`;

/** Requests per key name, window (0 all keyed routes, 1 price work) and bucket start (ms); UNLOGGED. */
export const postgresSql = `
CREATE UNLOGGED TABLE rate_counts (
  key_name    TEXT NOT NULL,
  policy      SMALLINT NOT NULL,
  bucket      BIGINT NOT NULL,
  count       INTEGER NOT NULL,
  PRIMARY KEY (key_name, policy, bucket)
);
CREATE INDEX rate_counts_bucket ON rate_counts(bucket);
`;
