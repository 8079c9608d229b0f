/**
 * Price profiles of the map (D196): what a client prices its price tiles with, stored in its
 * normalised JSON form under the id derived from it, with the time of its last use (profiles
 * expire when unused).
 */
export const sql = `
CREATE TABLE price_profiles (
  id            TEXT PRIMARY KEY,
  body          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX price_profiles_last_used ON price_profiles(last_used_at);
`;
