import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { asBuffer, availableDrivers, driverName, openDatabase, sqliteErrorCode, type DriverName } from '../../src/storage/sqlite-driver.js';

// D281: one interface over node:sqlite (Node 22.16+) and better-sqlite3 (Node 20).
const [major, minor] = process.versions.node.split('.').map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 16);

describe('the SQLite driver by runtime (D281)', () => {
  it('chooses node:sqlite from Node 22.16 and better-sqlite3 below; never better-sqlite3 12 on Node 24', () => {
    const drivers = availableDrivers();
    expect(driverName()).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    expect(drivers.includes('node:sqlite')).toBe(hasNodeSqlite);
    if (major >= 24 && drivers.includes('better-sqlite3')) {
      expect(Number((JSON.parse(fs.readFileSync(path.join(process.cwd(), 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version.split('.')[0])).toBeGreaterThanOrEqual(13);
    }
  });

  for (const driver of ['node:sqlite', 'better-sqlite3'] as DriverName[]) {
    it.runIf(availableDrivers().includes(driver))(`${driver}: rows, BLOBs as Buffers, first-column statements, pragmas, transactions, named error codes`, () => {
      const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'sqlite-driver-'));
      const file = path.join(dir, 'x.sqlite');
      const db = openDatabase(file, {}, driver);
      expect(db.driver).toBe(driver);
      expect(db.readonly).toBe(false);
      db.pragma('journal_mode = WAL');
      expect(db.pragmaValue('journal_mode')).toBe('wal');
      db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, b BLOB)');
      const put = db.prepare('INSERT INTO t VALUES (?, ?, ?)');
      db.transaction(() => {
        for (let i = 0; i < 3; i++) expect(Number(put.run(`k${i}`, i, Buffer.from([i, 255])).changes)).toBe(1);
      }, 'BEGIN IMMEDIATE');
      expect(db.inTransaction).toBe(false);
      expect(() =>
        db.transaction(() => {
          put.run('k9', 9, null);
          throw new Error('undo');
        }),
      ).toThrow('undo');
      expect(db.inTransaction).toBe(false);
      expect(db.prepare<{ n: number }>('SELECT count(*) AS n FROM t').get()!.n).toBe(3);
      const row = db.prepare<{ k: string; n: number; b: Uint8Array }>('SELECT * FROM t WHERE k = ?').get('k2')!;
      expect({ k: row.k, n: row.n }).toEqual({ k: 'k2', n: 2 });
      const b = asBuffer(row.b);
      expect(Buffer.isBuffer(b)).toBe(true);
      expect([...b]).toEqual([2, 255]);
      expect([...db.preparePluck<string>('SELECT k FROM t ORDER BY k').iterate()]).toEqual(['k0', 'k1', 'k2']);
      expect(db.preparePluck<number>('SELECT n FROM t WHERE k = ?').get('k1')).toBe(1);
      expect(db.prepare('SELECT k FROM t ORDER BY k').all().map((r) => r.k)).toEqual(['k0', 'k1', 'k2']);
      // A constraint failure and a held write lock keep SQLite's names.
      let err: unknown;
      try {
        put.run('k0', 0, null);
      } catch (e) {
        err = e;
      }
      expect(sqliteErrorCode(err)).toMatch(/^SQLITE_CONSTRAINT/);
      const other = openDatabase(file, {}, driver);
      other.pragma('busy_timeout = 0');
      db.exec('BEGIN IMMEDIATE');
      expect(db.inTransaction).toBe(true);
      try {
        other.exec('BEGIN IMMEDIATE');
        err = null;
      } catch (e) {
        err = e;
      }
      expect(sqliteErrorCode(err)).toBe('SQLITE_BUSY');
      db.exec('ROLLBACK');
      other.close();
      db.close();
      expect(db.open).toBe(false);
      db.close();
      const ro = openDatabase(file, { readonly: true, fileMustExist: true }, driver);
      expect(ro.readonly).toBe(true);
      expect(() => ro.exec("INSERT INTO t VALUES ('x', 1, NULL)")).toThrow();
      ro.close();
      expect(() => openDatabase(path.join(dir, 'missing.sqlite'), { readonly: true, fileMustExist: true }, driver)).toThrow();
      expect(fs.existsSync(path.join(dir, 'missing.sqlite'))).toBe(false);
    });
  }
});
