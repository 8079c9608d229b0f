/**
 * User feedback, partner feedback and push-notification devices (spec endpoints 4–6, D43–D45).
 * Feedback rows are append-only; `attributes` holds the accepted attributes of the type as JSON
 * (unknown and other types' attributes left out). Devices are upserted by their client id.
 */
export const sql = `
CREATE TABLE user_feedback (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at          INTEGER NOT NULL,
  type                 TEXT NOT NULL,
  priority             TEXT NOT NULL,
  language             TEXT NOT NULL,
  email                TEXT NOT NULL,
  notes                TEXT NOT NULL,
  context              TEXT NOT NULL,
  charging_station_id  TEXT,
  attributes           TEXT NOT NULL
) STRICT;
CREATE INDEX user_feedback_received ON user_feedback(received_at);

CREATE TABLE partner_feedback (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at  INTEGER NOT NULL,
  type         TEXT NOT NULL,
  content      TEXT NOT NULL,
  tariff       TEXT NOT NULL,
  cpo          TEXT NOT NULL,
  emp          TEXT NOT NULL,
  language     TEXT NOT NULL
) STRICT;
CREATE INDEX partner_feedback_received ON partner_feedback(received_at);

CREATE TABLE crm_devices (
  id                      TEXT PRIMARY KEY,
  fcm_token               TEXT NOT NULL,
  country                 TEXT NOT NULL,
  language                TEXT NOT NULL,
  app_version             TEXT NOT NULL,
  os_version              TEXT NOT NULL,
  user_products           TEXT NOT NULL,
  disabled_notifications  TEXT NOT NULL,
  user_id                 TEXT,
  created_at              INTEGER NOT NULL,
  updated_at              INTEGER NOT NULL,
  update_count            INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX crm_devices_updated ON crm_devices(updated_at);
CREATE INDEX crm_devices_user ON crm_devices(user_id) WHERE user_id IS NOT NULL;
`;
