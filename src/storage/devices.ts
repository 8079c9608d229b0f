/**
 * Push-notification devices in the live store (table `crm_devices`, migration 4), upserted by the
 * client-generated id in one write transaction (D44).
 */
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

const UPSERT = `INSERT INTO crm_devices(id, fcm_token, country, language, app_version, os_version, user_products,
                               disabled_notifications, user_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET
         fcm_token = excluded.fcm_token, country = excluded.country, language = excluded.language,
         app_version = excluded.app_version, os_version = excluded.os_version,
         user_products = excluded.user_products, disabled_notifications = excluded.disabled_notifications,
         user_id = excluded.user_id, updated_at = excluded.updated_at, update_count = crm_devices.update_count + 1`;

/** Rows per page of the export reader (keyset pages on (updated_at, id)). */
const PAGE = 1000;

export class DeviceStore {
  constructor(private readonly live: LiveStore) {}

  /** Stores the device; true when it was new. */
  upsert(d: DeviceInput, now = Date.now()): Promise<boolean> {
    return this.live.tx(async (s) => {
      const created = (await s.get('SELECT 1 AS one FROM crm_devices WHERE id = ?', [d.id])) === undefined;
      await s.run(UPSERT, [
        d.id, d.fcm_token, d.country, d.language, d.app_version, d.os_version,
        JSON.stringify(d.user_products), JSON.stringify(d.disabled_notifications), d.user_id, now, now,
      ]);
      return created;
    });
  }

  async get(id: string): Promise<DeviceRow | undefined> {
    const r = await this.live.read((s) => s.get<RawDevice>('SELECT * FROM crm_devices WHERE id = ?', [id]));
    return r === undefined ? undefined : decode(r);
  }

  /** Devices created or updated at or after `sinceMs`, least recently updated first. */
  async *devices(sinceMs = 0): AsyncGenerator<DeviceRow> {
    let at = sinceMs;
    let id = '';
    for (;;) {
      const rows = await this.live.read((s) =>
        s.all<RawDevice>(
          `SELECT * FROM crm_devices WHERE updated_at > ? OR (updated_at = ? AND id > ?) ORDER BY updated_at, id LIMIT ${PAGE}`,
          [at, at, id],
        ),
      );
      for (const r of rows) yield decode(r);
      if (rows.length < PAGE) return;
      at = rows[rows.length - 1].updated_at;
      id = rows[rows.length - 1].id;
    }
  }
}
