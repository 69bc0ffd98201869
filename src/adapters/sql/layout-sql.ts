/**
 * The SQL engine's tables and how each keeps its primary key (engine-sql.ts runs the SQL).
 *
 * A store table is `t_<table> (k, v)`, `v` the row in the driver's codec, and each of its indexes
 * `i_<table>_<index> (k, p)` WITHOUT ROWID: the index key in key-codec.ts's bytes and the row's
 * primary key. The primary key (`k` of the row table, `p` of its indexes) is kept one of two ways:
 *
 * - `bytes`: key-codec.ts's bytes, WITHOUT ROWID — any key;
 * - `integer`: SQLite's rowid (`k INTEGER PRIMARY KEY`), for the tables the schema declares
 *   integer-keyed (a label, a counter), in stores created since 2026-11-30. A key takes 1–4 bytes
 *   instead of 9 in the row and in each of its index entries, and rows appended in key order fill
 *   their pages whole (SQLite splits an appended rowid table's last page without rebalancing; a
 *   WITHOUT ROWID table's pages are left about 88 % full): ~200 bytes a memory less on OPFS.
 *
 * A table keeps the layout it was created with: an older store's tables stay `bytes`. The file's
 * `user_version` says which layouts it uses (LAYOUT_VERSION), so a build that predates one refuses
 * the file instead of misreading it (builds from before integer keys do not check).
 */
import { MemoryError } from '../../core/errors.ts';
import { INTEGER_KEYED, parseTable, TABLES, type Key, type TableName, type TableSpec } from '../../core/storage/index.ts';
import { decodeKey, encodeKey } from './key-codec.ts';

const ident = (s: string): string => `"${s.replace(/[^A-Za-z0-9_]/g, '_')}"`;
export const rowTable = (t: string): string => ident(`t_${t}`);
export const indexTable = (t: string, i: string): string => ident(`i_${t}_${i}`);

export const bytes = (value: unknown): Uint8Array => (value instanceof Uint8Array ? value : new Uint8Array(value as ArrayBuffer));

/** An encoded key as a map key. */
function keyString(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}

/** How a table keeps its primary key: the column value of each key, and back. */
export interface PrimaryKeys {
  layout: 'bytes' | 'integer';
  /** The column value of a row's key, being written (a DataError when the layout cannot hold it). */
  write(key: Key): unknown;
  /**
   * The parameter a query compares the column with, in IndexedDB's order. An integer column
   * compared with a number compares numbers; with key bytes (any other kind of key), SQLite
   * orders every number first, as IndexedDB orders numbers below strings and arrays.
   */
  param(key: Key): unknown;
  /** The key a stored column value is. */
  read(column: unknown): Key;
  /** A stored column value, or a parameter from `param`, as a map key. */
  id(column: unknown): string | number;
}

const asBytes: PrimaryKeys = {
  layout: 'bytes',
  write: encodeKey,
  param: encodeKey,
  read: (column) => decodeKey(bytes(column)),
  id: (column) => keyString(bytes(column)),
};

const asInteger: PrimaryKeys = {
  layout: 'integer',
  write(key) {
    if (typeof key === 'number' && Number.isSafeInteger(key)) return key;
    throw Object.assign(new Error(`This table keeps integer keys, not ${JSON.stringify(key)}`), { name: 'DataError' });
  },
  param: (key) => (typeof key === 'number' ? key : encodeKey(key)),
  read: (column) => Number(column as number | bigint),
  id: (column) => (column instanceof Uint8Array ? keyString(column) : Number(column as number | bigint)),
};

export interface TableSql {
  spec: TableSpec;
  name: TableName;
  pk: PrimaryKeys;
}

/**
 * The newest layout a file may use, kept in its `user_version`: 0, key bytes only; 1, integer-keyed
 * tables too. A file of a later version was written by a newer build: SCHEMA_TOO_NEW.
 */
export const LAYOUT_VERSION = 1;

/** What creating the schema needs of a driver (engine-sql.ts `SqlDriver` has it). */
interface SchemaDriver {
  exec(sql: string): void;
  prepare(sql: string): { all(): unknown[][] };
}

/**
 * Creates the tables a store lacks (idempotent) and answers each table's layout: the one its row
 * table was created with, or, for a table created now, `integer` where the schema allows.
 */
export function createSchema(driver: SchemaDriver): Map<TableName, TableSql> {
  const version = Number(driver.prepare('PRAGMA user_version').all()[0]?.[0] ?? 0);
  if (version > LAYOUT_VERSION) {
    throw new MemoryError('SCHEMA_TOO_NEW', `This store's SQLite file was written by a newer version of houkai-web (layout ${version}; this one reads up to ${LAYOUT_VERSION})`, { layout: version, supported: LAYOUT_VERSION });
  }
  const existing = new Map<string, string>();
  for (const [name, sql] of driver.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table'`).all()) existing.set(String(name), String(sql));
  const ddl: string[] = ['CREATE TABLE IF NOT EXISTS "seq" (t TEXT PRIMARY KEY, n REAL NOT NULL)'];
  const tables = new Map<TableName, TableSql>();
  for (const [key, decl] of Object.entries(TABLES)) {
    const name = key as TableName;
    const spec = parseTable(decl);
    const created = existing.get(`t_${name}`);
    const integer = created === undefined ? INTEGER_KEYED.has(name) : !/WITHOUT\s+ROWID/i.test(created);
    tables.set(name, { name, spec, pk: integer ? asInteger : asBytes });
    ddl.push(`CREATE TABLE IF NOT EXISTS ${rowTable(name)} (${integer ? 'k INTEGER PRIMARY KEY' : 'k BLOB PRIMARY KEY'}, v BLOB NOT NULL)${integer ? '' : ' WITHOUT ROWID'}`);
    for (const index of spec.indexes) {
      ddl.push(`CREATE TABLE IF NOT EXISTS ${indexTable(name, index.name)} (k BLOB NOT NULL, p ${integer ? 'INTEGER' : 'BLOB'} NOT NULL, PRIMARY KEY (k, p)) WITHOUT ROWID`);
    }
  }
  const uses = [...tables.values()].some((t) => t.pk.layout === 'integer') ? 1 : 0;
  if (uses > version) ddl.push(`PRAGMA user_version = ${uses}`);
  driver.exec(`BEGIN; ${ddl.join('; ')}; COMMIT`);
  return tables;
}
