/**
 * Live availability of charge points (D3): how many charge points of each charge point group of a
 * station are ready and not occupied. Empty by default (then `available_count` is null). A status
 * feed fills it with one upsert per (station, group); `group_index` is the position of the group in
 * the station's `charge_points` (stable for a snapshot: groups are ordered DC first, then by power).
 * Rows of stations unknown to the current snapshot are ignored by readers.
 */
export const sql = `
CREATE TABLE station_availability (
  station_id   TEXT NOT NULL,
  group_index  INTEGER NOT NULL CHECK (group_index >= 0),
  available    INTEGER NOT NULL CHECK (available >= 0),
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (station_id, group_index)
) STRICT, WITHOUT ROWID;
`;
