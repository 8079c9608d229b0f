/**
 * User and partner feedback in the live store (tables of migration 4). Each accepted request is
 * one INSERT inside one write transaction, so an acknowledged feedback is durable and a
 * rejected one never reaches the store.
 */
import type { LiveStore } from './live.js';

export interface UserFeedbackInput {
  type: string;
  priority: string;
  language: string;
  email: string;
  notes: string;
  context: string;
  /** The station the feedback is about (`charging_station_id`, else derived from `poi_link`, D45). */
  charging_station_id: string | null;
  /** All accepted attributes of the type, as sent (defaults filled in). */
  attributes: Record<string, unknown>;
}

export interface UserFeedbackRow extends Omit<UserFeedbackInput, 'attributes'> {
  id: number;
  /** Milliseconds since the epoch. */
  received_at: number;
  attributes: Record<string, unknown>;
}

export interface PartnerFeedbackInput {
  type: string;
  content: string;
  tariff: string;
  cpo: string;
  emp: string;
  language: string;
}

export interface PartnerFeedbackRow extends PartnerFeedbackInput {
  id: number;
  received_at: number;
}

type RawUser = Omit<UserFeedbackRow, 'attributes'> & { attributes: string };

/** Rows per page of the export readers (keyset pages, so a large table streams). */
const PAGE = 1000;

export class FeedbackStore {
  constructor(private readonly live: LiveStore) {}

  async addUserFeedback(f: UserFeedbackInput, now = Date.now()): Promise<number> {
    return this.live.tx(async (s) => {
      const r = await s.get<{ id: number }>(
        `INSERT INTO user_feedback(received_at, type, priority, language, email, notes, context, charging_station_id, attributes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [now, f.type, f.priority, f.language, f.email, f.notes, f.context, f.charging_station_id, JSON.stringify(f.attributes)],
      );
      return r!.id;
    });
  }

  async addPartnerFeedback(f: PartnerFeedbackInput, now = Date.now()): Promise<number> {
    return this.live.tx(async (s) => {
      const r = await s.get<{ id: number }>(
        'INSERT INTO partner_feedback(received_at, type, content, tariff, cpo, emp, language) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
        [now, f.type, f.content, f.tariff, f.cpo, f.emp, f.language],
      );
      return r!.id;
    });
  }

  /** User feedback received at or after `sinceMs`, oldest first. */
  async *userFeedback(sinceMs = 0): AsyncGenerator<UserFeedbackRow> {
    for await (const r of this.pages<RawUser>('user_feedback', sinceMs)) {
      yield { ...r, attributes: JSON.parse(r.attributes) as Record<string, unknown> };
    }
  }

  partnerFeedback(sinceMs = 0): AsyncGenerator<PartnerFeedbackRow> {
    return this.pages<PartnerFeedbackRow>('partner_feedback', sinceMs);
  }

  private async *pages<R extends { id: number }>(table: 'user_feedback' | 'partner_feedback', sinceMs: number): AsyncGenerator<R> {
    let after = 0;
    for (;;) {
      const rows = await this.live.read((s) =>
        s.all<R>(`SELECT * FROM ${table} WHERE received_at >= ? AND id > ? ORDER BY id LIMIT ${PAGE}`, [sinceMs, after]),
      );
      yield* rows;
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].id;
    }
  }
}
