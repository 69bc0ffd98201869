/**
 * A SQLite file laid out as stores were before integer keys (2026-11-30): every table's primary
 * key in key-codec bytes, WITHOUT ROWID. The SQL engine opened on it must keep that layout.
 */
import Database from 'better-sqlite3';
import { parseTable, TABLES } from '../../src/core/storage/index.ts';

export function legacySqlFile(file: string): string {
  const db = new Database(file);
  for (const [name, decl] of Object.entries(TABLES)) {
    db.exec(`CREATE TABLE "t_${name}" (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID`);
    for (const index of parseTable(decl).indexes) {
      db.exec(`CREATE TABLE "i_${name}_${index.name.replace(/[^A-Za-z0-9_]/g, '_')}" (k BLOB NOT NULL, p BLOB NOT NULL, PRIMARY KEY (k, p)) WITHOUT ROWID`);
    }
  }
  db.close();
  return file;
}
