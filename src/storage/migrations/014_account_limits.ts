/**
 * Accounts that are never confirmed expire, and the guessing limits survive a database restart
 * (D248, D249): an index of unconfirmed accounts by creation time, so each signup deletes the
 * expired ones with one indexed statement; on PostgreSQL the attempts table becomes a logged one
 * (PostgreSQL empties an UNLOGGED table after a crash). SQLite counts attempts in memory (D207).
 */
const unconfirmed = `CREATE INDEX users_unconfirmed ON users(created_at) WHERE confirmed_at IS NULL;`;

export const sql = unconfirmed;

export const postgresSql = `${unconfirmed}
ALTER TABLE attempts SET LOGGED;`;
