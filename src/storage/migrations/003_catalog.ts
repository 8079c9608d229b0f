/**
 * Companies and tariffs catalog: raw tariffs and sub tariffs, the sub tariff → super tariff links,
 * EVSE-level (station-specific) prices seeded from the snapshot, and the catalog generation with
 * its change log. Every committed catalog write takes the next generation number; the rows it
 * changed carry that number (`generation` columns) and are listed in `catalog_changes`, deletions
 * included, so a reader that knows generation g can apply exactly the changes after g.
 */
export const sql = `
CREATE TABLE tariffs (
  id          TEXT PRIMARY KEY,
  type        TEXT NOT NULL CHECK (type IN ('tariff', 'sub_tariff')),
  emp_id      TEXT NOT NULL,
  cpo_id      TEXT,
  version     INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  data        TEXT NOT NULL,
  generation  INTEGER NOT NULL
) STRICT;
CREATE INDEX tariffs_emp ON tariffs(emp_id, id);
CREATE INDEX tariffs_generation ON tariffs(generation);

CREATE TABLE tariff_super_links (
  sub_id      TEXT NOT NULL REFERENCES tariffs(id) ON DELETE CASCADE,
  super_id    TEXT NOT NULL,
  position    INTEGER NOT NULL,
  PRIMARY KEY (sub_id, super_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX tariff_super_links_super ON tariff_super_links(super_id);

CREATE TABLE station_prices (
  tariff_id   TEXT NOT NULL,
  station_id  TEXT NOT NULL,
  prices      TEXT NOT NULL,
  generation  INTEGER NOT NULL,
  PRIMARY KEY (tariff_id, station_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE catalog_changes (
  generation  INTEGER NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('company', 'tariff', 'station_prices')),
  id          TEXT NOT NULL,
  op          TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
  at          INTEGER NOT NULL,
  PRIMARY KEY (generation, kind, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE catalog_generation (
  one         INTEGER PRIMARY KEY CHECK (one = 1),
  value       INTEGER NOT NULL
) STRICT;
INSERT INTO catalog_generation(one, value) VALUES (1, 0);
CREATE INDEX companies_generation ON companies(generation);
`;
