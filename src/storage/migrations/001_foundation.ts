/** API keys, settings (token secret, seed markers) and the companies seeded from the snapshot. */
export const sql = `
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
  name        TEXT PRIMARY KEY,
  key_hash    TEXT NOT NULL UNIQUE,
  groups      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
) STRICT;

CREATE TABLE companies (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  url         TEXT,
  is_cpo      INTEGER NOT NULL,
  is_emp      INTEGER NOT NULL,
  version     INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  external_source_mapping TEXT NOT NULL,
  cpo_group   TEXT,
  emp_group   TEXT,
  generation  INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE company_supported_emps (
  company_id  TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  emp_id      TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  PRIMARY KEY (company_id, emp_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX company_supported_emps_emp ON company_supported_emps(emp_id);
`;
