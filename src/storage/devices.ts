/**
 * Push-notification devices in the live store (table `crm_devices`, migration 4), upserted by the
 * client-generated id in one IMMEDIATE transaction (D44).
 */
import type Database from 'better-sqlite3';
import type { LiveStore } from './live.js';

export interface DeviceInput {
  /** Lower-case UUID v4. */
  id: string;
  fcm_token: string;
  country: string;
  language: string;
  app_version: string;
  os_version: string;
  user_products: string[];
  disabled_notifications: string[];
  /** Subject of the verified bearer token, or null when the request carried none. */
  user_id: string | null;
}

export interface DeviceRow extends DeviceInput {
  created_at: number;
  updated_at: number;
  /** How many times the device was registered again after its creation. */
  update_count: number;
}

type RawDevice = Omit<DeviceRow, 'user_products' | 'disabled_notifications'> & {
  user_products: string;
  disabled_notifications: string;
};

const decode = (r: RawDevice): DeviceRow => ({
  ...r,
  user_products: JSON.parse(r.user_products) as string[],
  disabled_notifications: JSON.parse(r.disabled_notifications) as string[],
});

export class DeviceStore {
  private readonly exists: Database.Statement<[string], { one: number }>;
  private readonly upsertStmt: Database.Statement;
  private readonly getStmt: Database.Statement<[string], RawDevice>;
  private readonly listStmt: Database.Statement<[number], RawDevice>;

  constructor(private readonly live: LiveStore) {
    const db = live.db;
    this.exists = db.prepare('SELECT 1 AS one FROM crm_devices WHERE id = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO crm_devices(id, fcm_token, country, language, app_version, os_version, user_products,
                               disabled_notifications, user_id, created_at, updated_at)
       VALUES (@id, @fcm_token, @country, @language, @app_version, @os_version, @user_products,
               @disabled_notifications, @user_id, @now, @now)
       ON CONFLICT(id) DO UPDATE SET
         fcm_token = excluded.fcm_token, country = excluded.country, language = excluded.language,
         app_version = excluded.app_version, os_version = excluded.os_version,
         user_products = excluded.user_products, disabled_notifications = excluded.disabled_notifications,
         user_id = excluded.user_id, updated_at = excluded.updated_at, update_count = update_count + 1`,
    );
    this.getStmt = db.prepare('SELECT * FROM crm_devices WHERE id = ?');
    this.listStmt = db.prepare('SELECT * FROM crm_devices WHERE updated_at >= ? ORDER BY updated_at, id');
  }

  /** Creates or replaces the device (one transaction); true when it was created. */
  upsert(d: DeviceInput, now = Date.now()): boolean {
    return this.live.tx(() => {
      const created = this.exists.get(d.id) === undefined;
      this.upsertStmt.run({
        ...d,
        user_products: JSON.stringify(d.user_products),
        disabled_notifications: JSON.stringify(d.disabled_notifications),
        now,
      });
      return created;
    });
  }

  get(id: string): DeviceRow | undefined {
    const r = this.getStmt.get(id);
    return r === undefined ? undefined : decode(r);
  }

  /** Devices created or updated at or after `sinceMs`, least recently updated first. */
  *devices(sinceMs = 0): IterableIterator<DeviceRow> {
    for (const r of this.listStmt.iterate(sinceMs)) yield decode(r);
  }
}
