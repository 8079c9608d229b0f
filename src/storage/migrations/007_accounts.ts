/**
 * Accounts (D200–D214): users, their settings, refresh-token families, single-use mail tokens,
 * product sources issued by operators and the products granted to users. Secrets (password
 * hashes aside) are stored as SHA-256 hex only. The same tables on both stores: `int` is the
 * integer type of times in milliseconds (INTEGER on SQLite, BIGINT on PostgreSQL).
 */
export function accountsSql(int: 'INTEGER' | 'BIGINT', strict: '' | ' STRICT'): string {
  return `
CREATE TABLE users (
  id             TEXT PRIMARY KEY,
  email          TEXT NOT NULL UNIQUE,
  username       TEXT NOT NULL,
  language       TEXT NOT NULL,
  password_hash  TEXT NOT NULL,
  confirmed_at   ${int},
  created_at     ${int} NOT NULL,
  updated_at     ${int} NOT NULL
)${strict};
CREATE TABLE user_settings (
  user_id     TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  version     ${int} NOT NULL,
  vehicle_id  TEXT NOT NULL,
  tariff_ids  TEXT NOT NULL,
  updated_at  ${int} NOT NULL
)${strict};
CREATE TABLE refresh_tokens (
  hash        TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  family      TEXT NOT NULL,
  created_at  ${int} NOT NULL,
  expires_at  ${int} NOT NULL,
  used_at     ${int},
  revoked_at  ${int}
)${strict};
CREATE INDEX refresh_tokens_family ON refresh_tokens(family);
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
CREATE TABLE mail_tokens (
  hash        TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose     TEXT NOT NULL CHECK (purpose IN ('confirm', 'reset')),
  expires_at  ${int} NOT NULL,
  used_at     ${int}
)${strict};
CREATE INDEX mail_tokens_user ON mail_tokens(user_id);
CREATE TABLE product_sources (
  hash        TEXT PRIMARY KEY,
  type        TEXT NOT NULL,
  products    TEXT NOT NULL,
  created_at  ${int} NOT NULL,
  used_at     ${int},
  used_by     TEXT
)${strict};
CREATE TABLE user_products (
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  product     TEXT NOT NULL,
  granted_at  ${int} NOT NULL,
  PRIMARY KEY (user_id, product)
)${strict};
`;
}

export const sql = accountsSql('INTEGER', ' STRICT');
