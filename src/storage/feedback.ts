/**
 * User and partner feedback in the live store (tables of migration 4). Each accepted request is
 * one INSERT inside one IMMEDIATE transaction, so an acknowledged feedback is durable and a
 * rejected one never reaches the store.
 */
import type Database from 'better-sqlite3';
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

export class FeedbackStore {
  private readonly insertUser: Database.Statement;
  private readonly insertPartner: Database.Statement;
  private readonly listUser: Database.Statement<[number], RawUser>;
  private readonly listPartner: Database.Statement<[number], PartnerFeedbackRow>;

  constructor(private readonly live: LiveStore) {
    const db = live.db;
    this.insertUser = db.prepare(
      `INSERT INTO user_feedback(received_at, type, priority, language, email, notes, context, charging_station_id, attributes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertPartner = db.prepare(
      'INSERT INTO partner_feedback(received_at, type, content, tariff, cpo, emp, language) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.listUser = db.prepare('SELECT * FROM user_feedback WHERE received_at >= ? ORDER BY id');
    this.listPartner = db.prepare('SELECT * FROM partner_feedback WHERE received_at >= ? ORDER BY id');
  }

  /** Stores one user feedback in its own transaction; returns its row id. */
  addUserFeedback(f: UserFeedbackInput, now = Date.now()): number {
    return this.live.tx(
      () =>
        this.insertUser.run(
          now, f.type, f.priority, f.language, f.email, f.notes, f.context, f.charging_station_id, JSON.stringify(f.attributes),
        ).lastInsertRowid as number,
    );
  }

  addPartnerFeedback(f: PartnerFeedbackInput, now = Date.now()): number {
    return this.live.tx(
      () => this.insertPartner.run(now, f.type, f.content, f.tariff, f.cpo, f.emp, f.language).lastInsertRowid as number,
    );
  }

  /** User feedback received at or after `sinceMs`, oldest first. */
  *userFeedback(sinceMs = 0): IterableIterator<UserFeedbackRow> {
    for (const r of this.listUser.iterate(sinceMs)) {
      yield { ...r, attributes: JSON.parse(r.attributes) as Record<string, unknown> };
    }
  }

  partnerFeedback(sinceMs = 0): IterableIterator<PartnerFeedbackRow> {
    return this.listPartner.iterate(sinceMs);
  }
}
