/**
 * The key generation: bumped by every key creation and revocation, so that a service can tell
 * cheaply whether its key view is current (the refresh of D151 and the key check of a replica).
 */
export const sql = `
CREATE TABLE key_generation (
  one         INTEGER PRIMARY KEY CHECK (one = 1),
  value       INTEGER NOT NULL
) STRICT;
INSERT INTO key_generation(one, value) VALUES (1, 0);
`;
