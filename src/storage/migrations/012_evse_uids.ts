/**
 * The OCPI uid each EVSE was last PUT by, shared by replicas with its status (D222): PostgreSQL
 * only. A single SQLite process keeps the uids in memory (D175), so this version adds nothing
 * there; the number keeps both stores' migrations in step.
 */
export const sql = `SELECT 1;`;

export const postgresSql = `ALTER TABLE evse_statuses ADD COLUMN uid_key TEXT;`;
