/** One schema migration of a live store: runs once, in its own transaction, in version order. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
