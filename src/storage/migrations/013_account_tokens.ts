/**
 * Accounts as the web client uses them (D242, D244): each user's token generation (access tokens
 * end with a password reset), the last versions of each user's settings (two quick changes are
 * merged, not lost), and indexes by expiry so expired refresh and mail tokens are deleted with one
 * indexed statement. The same text on both stores (`int` as in migration 7).
 */
export function accountTokensSql(int: 'INTEGER' | 'BIGINT', strict: '' | ' STRICT'): string {
  return `
ALTER TABLE users ADD COLUMN token_gen ${int} NOT NULL DEFAULT 0;
CREATE TABLE user_settings_history (
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  version     ${int} NOT NULL,
  vehicle_id  TEXT NOT NULL,
  tariff_ids  TEXT NOT NULL,
  PRIMARY KEY (user_id, version)
)${strict};
INSERT INTO user_settings_history(user_id, version, vehicle_id, tariff_ids) SELECT user_id, version, vehicle_id, tariff_ids FROM user_settings;
CREATE INDEX refresh_tokens_expires ON refresh_tokens(expires_at);
CREATE INDEX mail_tokens_expires ON mail_tokens(expires_at);
`;
}

export const sql = accountTokensSql('INTEGER', ' STRICT');
