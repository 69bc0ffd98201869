/**
 * The storage engine port (core/storage/port.ts) over SQLite, written once for every driver: the
 * Node one (better-sqlite3, driver-better-sqlite3.ts) and, next, SQLite compiled to WebAssembly on
 * OPFS in a browser worker. A driver gives synchronous statements and a value codec; this file
 * owns the tables, the SQL and the port's semantics.
 *
 * Layout (layout-sql.ts): a table per store table, `(k, v)` — `k` the primary key, `v` the row in
 * the driver's codec — and a table per declared index, `(k, p)` — the index key in key-codec.ts's
 * byte order and the row's primary key — so every walk the port asks for (equals, anyOf, a range,
 * reversed, a limit) is one indexed range scan in key order, as IndexedDB's. A unique index is
 * checked before a write; auto-increment counters live in `seq`.
 *
 * Transactions run one at a time, in the order they were asked for (a queue, as the in-memory
 * engine's); a read-write one is `BEGIN IMMEDIATE … COMMIT`, rolled back whole when its body throws.
 */
import { MemoryError } from '../../core/errors.ts';
import type { Key, KeyEntry, Query, StorageEngine, StorageTx, TableName } from '../../core/storage/index.ts';
import type { IndexSpec } from '../../core/storage/schema.ts';
import { constraintError, indexKeysOf, keyAt } from '../memory-tables.ts';
import { compareBytes, decodeKey, encodeKey } from './key-codec.ts';
import { bytes, createSchema, indexTable, rowTable, type PrimaryKeys, type TableSql } from './layout-sql.ts';

/** A prepared statement: positional parameters, rows as arrays of column values. */
export interface SqlStatement {
  run(params?: readonly unknown[]): void;
  all(params?: readonly unknown[]): unknown[][];
  /**
   * Each row in turn, its blobs as views into the driver's own memory, valid only until `visit`
   * returns (no copy made); drivers without it are read with `all`.
   */
  each?(params: readonly unknown[], visit: (row: unknown[]) => void): void;
}

/** What a SQLite driver gives the engine. */
export interface SqlDriver {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  /** A row to bytes and back (a structured clone's worth: typed arrays, nested objects). */
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
  close(): void;
  /** The driver's failures as the one error class (disk full → STORAGE_QUOTA). */
  mapError(error: unknown, operation: string): MemoryError;
}

/** Statements are prepared once per SQL text (a driver keeps each one until it closes). */
export function statements(driver: SqlDriver): (sql: string) => SqlStatement {
  const cache = new Map<string, SqlStatement>();
  return (sql) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = driver.prepare(sql)));
    return s;
  };
}

const EMPTY = new Uint8Array(0);

/**
 * Rolls back after a failure, keeping the failure the caller sees: SQLite has already rolled the
 * transaction back itself after some errors (a full disk, an I/O error), and then answers
 * ROLLBACK with "no transaction is active".
 */
export function rollback(run: () => void): void {
  try {
    run();
  } catch {
    // Nothing was left to undo.
  }
}

/** Keys a `getMany` batch names (SQLite allows 32,766 parameters; a recall names a few dozen). */
const IN_BATCH = 512;

/**
 * The WHERE clause and parameters of one key constraint on column `k`: an index key (key-codec
 * bytes) or, given `pk`, a primary key kept as that table keeps it.
 */
function where(q: Pick<Query, 'equals' | 'range'>, k = 'k', pk?: PrimaryKeys): { sql: string; params: unknown[] } {
  const param = pk ? pk.param : encodeKey;
  if (q.equals !== undefined) return { sql: `${k} = ?`, params: [param(q.equals)] };
  const parts: string[] = [];
  const params: unknown[] = [];
  if (q.range?.lower !== undefined) {
    parts.push(`${k} ${q.range.lowerOpen ? '>' : '>='} ?`);
    params.push(param(q.range.lower));
  }
  if (q.range?.upper !== undefined) {
    parts.push(`${k} ${q.range.upperOpen ? '<' : '<='} ?`);
    params.push(param(q.range.upper));
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params };
}

/** The distinct keys of an `anyOf`, in key order, as single-key constraints. */
function eachOf(q: Pick<Query, 'equals' | 'anyOf' | 'range' | 'reverse'>): Pick<Query, 'equals' | 'range'>[] {
  if (!q.anyOf) return [q];
  const distinct = new Map<string, { key: Key; bytes: Uint8Array }>();
  for (const key of q.anyOf) {
    const b = encodeKey(key);
    distinct.set(b.join(','), { key, bytes: b });
  }
  const sorted = [...distinct.values()].sort((a, b) => compareBytes(a.bytes, b.bytes));
  if (q.reverse) sorted.reverse();
  return sorted.map((k) => ({ equals: k.key }));
}

export function sqlEngine(driver: SqlDriver, id: string): StorageEngine {
  let specs: Map<TableName, TableSql>;
  try {
    specs = createSchema(driver);
  } catch (error) {
    driver.close();
    throw error instanceof MemoryError ? error : driver.mapError(error, 'open');
  }
  const stmt = statements(driver);
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const spec = (name: TableName): TableSql => specs.get(name)!;
  const indexOf = (t: TableSql, name: string): IndexSpec => {
    const index = t.spec.indexes.find((i) => i.name === name);
    if (!index) throw new Error(`No index ${JSON.stringify(name)} on ${t.name}`);
    return index;
  };

  /** Index entries (or primary keys) of a query, in order, before any filter or limit. */
  function entries(name: TableName, q: Omit<Query, 'filter'>, withRows: boolean, limit?: number): { entry: KeyEntry; value?: unknown }[] {
    const t = spec(name);
    const dir = q.reverse ? 'DESC' : 'ASC';
    const out: { entry: KeyEntry; value?: unknown }[] = [];
    for (const c of eachOf(q)) {
      if (limit !== undefined && out.length >= limit) break;
      const left = limit === undefined ? '' : ` LIMIT ${limit - out.length}`;
      const w = q.index ? where(c, withRows ? 'i.k' : 'k') : where(c, 'k', t.pk);
      if (q.index) {
        indexOf(t, q.index);
        const sql = withRows
          ? `SELECT i.k, i.p, r.v FROM ${indexTable(t.name, q.index)} i JOIN ${rowTable(t.name)} r ON r.k = i.p WHERE ${w.sql} ORDER BY i.k ${dir}, i.p ${dir}${left}`
          : `SELECT k, p FROM ${indexTable(t.name, q.index)} WHERE ${w.sql} ORDER BY k ${dir}, p ${dir}${left}`;
        for (const [k, p, v] of stmt(sql).all(w.params)) {
          out.push({ entry: { key: decodeKey(bytes(k)), primaryKey: t.pk.read(p) }, ...(withRows ? { value: driver.decode(bytes(v)) } : {}) });
        }
      } else {
        const sql = `SELECT k${withRows ? ', v' : ''} FROM ${rowTable(t.name)} WHERE ${w.sql} ORDER BY k ${dir}${left}`;
        for (const [k, v] of stmt(sql).all(w.params)) {
          const key = t.pk.read(k);
          out.push({ entry: { key, primaryKey: key }, ...(withRows ? { value: driver.decode(bytes(v)) } : {}) });
        }
      }
    }
    return out;
  }

  function readRow(name: TableName, key: Key): unknown {
    const t = spec(name);
    const [row] = stmt(`SELECT v FROM ${rowTable(t.name)} WHERE k = ?`).all([t.pk.param(key)]);
    return row ? driver.decode(bytes(row[0])) : undefined;
  }

  /**
   * Rows by key in one indexed query a batch (`k IN (…)`), not one a key: a recall's rows and its
   * rescoring vectors are one read each. The list is padded to a power of two (with its first key)
   * so a few statements serve every size; each position gets its own copy.
   */
  function readRows(name: TableName, keys: readonly Key[]): unknown[] {
    if (keys.length < 2) return keys.map((k) => readRow(name, k));
    const t = spec(name);
    const table = rowTable(t.name);
    const encoded = keys.map(t.pk.param);
    const found = new Map<string | number, Uint8Array>();
    for (let i = 0; i < encoded.length; i += IN_BATCH) {
      const part = encoded.slice(i, i + IN_BATCH);
      let size = 2;
      while (size < part.length) size *= 2;
      while (part.length < size) part.push(part[0]!);
      for (const [k, v] of stmt(`SELECT k, v FROM ${table} WHERE k IN (${'?,'.repeat(size - 1)}?)`).all(part)) found.set(t.pk.id(k), bytes(v));
    }
    return encoded.map((k) => {
      const v = found.get(t.pk.id(k));
      return v === undefined ? undefined : driver.decode(v);
    });
  }

  /**
   * The primary keys of rows about to be written, each from the row or, in an auto-increment table,
   * the next counter value when it has none. The counter is read once a call and saved when the
   * call ends, whether or not a row failed (a caller may catch the failure and go on writing).
   */
  function keysFor(t: TableSql): { of(row: Record<string, unknown>): Key; done(): void } {
    const path = t.spec.primaryKey;
    if (!t.spec.autoIncrement) {
      return {
        of(row) {
          const key = keyAt(row, path);
          if (key === undefined) throw Object.assign(new Error('A row has no valid primary key'), { name: 'DataError' });
          return key;
        },
        done() {},
      };
    }
    const [current] = stmt('SELECT n FROM "seq" WHERE t = ?').all([t.name]);
    const start = (current?.[0] as number | undefined) ?? 0;
    let n = start;
    return {
      of(row) {
        let key = keyAt(row, path);
        if (key === undefined) row[path as string] = key = n + 1;
        if (typeof key === 'number' && key > n) n = Math.floor(key);
        return key;
      },
      done() {
        if (n > start) stmt('INSERT OR REPLACE INTO "seq" (t, n) VALUES (?, ?)').run([t.name, n]);
      },
    };
  }

  /**
   * Removes a stored row's index entries, found from the row itself (the keys it was indexed
   * under), so the index tables need no second index by primary key.
   */
  function removeEntries(t: TableSql, pk: unknown, stored: Uint8Array): void {
    if (t.spec.indexes.length === 0) return;
    const row = driver.decode(stored) as Record<string, unknown>;
    for (const index of t.spec.indexes) {
      for (const k of indexKeysOf(index, row)) stmt(`DELETE FROM ${indexTable(t.name, index.name)} WHERE k = ? AND p = ?`).run([encodeKey(k), pk]);
    }
  }

  /** The stored bytes of a row (undefined when there is none). */
  function storedRow(t: TableSql, pk: unknown): Uint8Array | undefined {
    const [row] = stmt(`SELECT v FROM ${rowTable(t.name)} WHERE k = ?`).all([pk]);
    return row ? bytes(row[0]) : undefined;
  }

  function write(name: TableName, rows: readonly object[], insert: boolean): Key[] {
    const t = spec(name);
    const keys = keysFor(t);
    try {
      return rows.map((value) => writeRow(t, structuredClone(value) as Record<string, unknown>, keys.of, insert));
    } finally {
      keys.done();
    }
  }

  /** Writes one row and its index entries (an `add` refuses a key or a unique index key already held). */
  function writeRow(t: TableSql, row: Record<string, unknown>, keyOf: (row: Record<string, unknown>) => Key, insert: boolean): Key {
    const key = keyOf(row);
    const pk = t.pk.write(key);
    // A table without indexes needs only to know whether the row exists; one with them, what it held.
    const stored = t.spec.indexes.length ? storedRow(t, pk) : stmt(`SELECT 1 FROM ${rowTable(t.name)} WHERE k = ?`).all([pk]).length ? EMPTY : undefined;
    if (insert && stored !== undefined) throw constraintError(`Table ${t.name} already holds key ${JSON.stringify(key)}`);
    const keys = t.spec.indexes.map((index) => ({ index, keys: indexKeysOf(index, row).map(encodeKey) }));
    for (const { index, keys: ks } of keys) {
      if (!index.unique) continue;
      for (const k of ks) {
        const holders = stmt(`SELECT p FROM ${indexTable(t.name, index.name)} WHERE k = ? AND p <> ?`).all([k, pk]);
        if (holders.length) throw constraintError(`Index ${index.name} already holds ${JSON.stringify(decodeKey(k))}`);
      }
    }
    if (stored) removeEntries(t, pk, stored);
    stmt(`INSERT OR REPLACE INTO ${rowTable(t.name)} (k, v) VALUES (?, ?)`).run([pk, driver.encode(row)]);
    for (const { index, keys: ks } of keys) for (const k of ks) stmt(`INSERT OR IGNORE INTO ${indexTable(t.name, index.name)} (k, p) VALUES (?, ?)`).run([k, pk]);
    return key;
  }

  function txFor(allowed: ReadonlySet<TableName>, writable: boolean): StorageTx {
    const check = (name: TableName, writing = false): void => {
      if (!allowed.has(name)) throw Object.assign(new Error(`Table ${name} is not part of this transaction`), { name: 'NotFoundError' });
      if (writing && !writable) throw Object.assign(new Error('A read-only transaction cannot write'), { name: 'ReadOnlyError' });
    };
    return {
      async get(name, key) {
        check(name);
        return readRow(name, key) as never;
      },
      async getMany(name, keys) {
        check(name);
        return readRows(name, keys) as never;
      },
      async query(name, q = {}) {
        check(name);
        const limit = q.limit ?? Number.POSITIVE_INFINITY;
        if (limit <= 0) return [];
        const { filter, ...rest } = q;
        const found = entries(name, rest, true, filter || !Number.isFinite(limit) ? undefined : limit);
        const out: unknown[] = [];
        for (const { value } of found) {
          if (filter && !filter(value as never)) continue;
          out.push(value);
          if (out.length >= limit) break;
        }
        return out as never;
      },
      async keys(name, q = {}) {
        check(name);
        const limit = q.limit ?? Number.POSITIVE_INFINITY;
        if (limit <= 0) return [];
        return entries(name, q, false, Number.isFinite(limit) ? limit : undefined).map((e) => e.entry);
      },
      async count(name, q = {}) {
        check(name);
        const t = spec(name);
        let n = 0;
        for (const c of eachOf(q)) {
          const w = q.index ? where(c) : where(c, 'k', t.pk);
          const table = q.index ? (indexOf(t, q.index), indexTable(t.name, q.index)) : rowTable(t.name);
          n += Number(stmt(`SELECT COUNT(*) FROM ${table} WHERE ${w.sql}`).all(w.params)[0]![0]);
        }
        return n;
      },
      async add(name, rows) {
        check(name, true);
        return write(name, rows, true);
      },
      async put(name, rows) {
        check(name, true);
        write(name, rows, false);
      },
      async delete(name, keys) {
        check(name, true);
        const t = spec(name);
        for (const key of keys) {
          const pk = t.pk.param(key);
          const stored = storedRow(t, pk);
          if (!stored) continue;
          removeEntries(t, pk, stored);
          stmt(`DELETE FROM ${rowTable(t.name)} WHERE k = ?`).run([pk]);
        }
      },
    };
  }

  return {
    id,
    transaction(mode, names, body) {
      const run = async () => {
        if (closed) throw new MemoryError('STORAGE_FAILURE', 'This SQLite storage is closed', { operation: 'use' });
        const writable = mode === 'rw';
        stmt(writable ? 'BEGIN IMMEDIATE' : 'BEGIN').run();
        try {
          const result = await body(txFor(new Set(names), writable));
          stmt('COMMIT').run();
          return result;
        } catch (error) {
          rollback(() => stmt('ROLLBACK').run());
          throw error;
        }
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
    mapError: (error, operation) => driver.mapError(error, operation),
    close() {
      if (closed) return;
      closed = true;
      void queue.finally(() => driver.close());
    },
  };
}
