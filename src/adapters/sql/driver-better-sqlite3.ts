/**
 * The Node SQLite driver: better-sqlite3 (12.x on Node 20), an optional peer dependency like
 * `@huggingface/transformers` — loaded when a store asks for it, and without it a typed error that
 * names the install. One database file per store, in WAL mode; rows encoded with V8's structured
 * clone serialisation (the same values IndexedDB keeps: typed arrays, nested objects).
 */
import { createRequire } from 'node:module';
import { deserialize, serialize } from 'node:v8';
import { MemoryError } from '../../core/errors.ts';
import type { SqlDriver } from './engine-sql.ts';

export interface BetterStatement {
  run(...params: unknown[]): unknown;
  raw(on: boolean): { all(...params: unknown[]): unknown[][]; get(...params: unknown[]): unknown[] | undefined };
  reader: boolean;
}
export interface BetterDatabase {
  prepare(sql: string): BetterStatement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction(body: () => void): () => void;
  close(): void;
}
type BetterSqlite = new (file: string, options?: { timeout?: number }) => BetterDatabase;

const INSTALL = 'npm install better-sqlite3@12';

/** better-sqlite3's constructor, or STORAGE_FAILURE naming the install. */
export function loadBetterSqlite(): BetterSqlite {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as BetterSqlite;
  } catch (error) {
    throw new MemoryError('STORAGE_FAILURE', `A store in a folder needs better-sqlite3, which is not installed: ${INSTALL}`, {
      operation: 'open',
      install: INSTALL,
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

/** SQLite's "full" family (SQLITE_FULL, disk I/O out of space): the storage is full. */
const FULL = /SQLITE_FULL|database or disk is full|ENOSPC/;

/**
 * SQLite's page cache for a connection that reads and writes in long sequential runs (the index's
 * blocks, a sync replica), in KiB: better-sqlite3 builds SQLite with 16 MiB a connection, which
 * such a connection fills without reading a page twice (a 50,000-memory first sync: BENCHMARKS).
 */
export const SEQUENTIAL_CACHE_KIB = 2048;

/**
 * Opens (creating it if needed) the database file at `file`. `cacheKiB`: the page cache's size
 * (default: SQLite's build default, 16 MiB).
 */
export function betterSqliteDriver(file: string, options: { cacheKiB?: number } = {}): SqlDriver {
  const Database = loadBetterSqlite();
  let db: BetterDatabase;
  try {
    db = new Database(file, { timeout: 10_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`);
  } catch (error) {
    throw new MemoryError('STORAGE_FAILURE', `Could not open the store's database ${file}: ${(error as Error).message}`, { operation: 'open', file });
  }
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      const rows = s.reader ? s.raw(true) : null;
      return {
        run: (params = []) => void s.run(...params),
        all: (params = []) => (rows ? rows.all(...params) : (s.run(...params), [])),
      };
    },
    encode: (value) => serialize(value),
    decode: (bytes) => deserialize(bytes),
    close: () => db.close(),
    mapError(error, operation) {
      if (error instanceof MemoryError) return error;
      const message = (error as Error | null)?.message ?? String(error);
      if (FULL.test(message) || (error as { code?: string } | null)?.code === 'SQLITE_FULL') {
        return new MemoryError('STORAGE_QUOTA', `The disk holding the store is full (${operation}); nothing was written`, { operation });
      }
      return new MemoryError('STORAGE_FAILURE', `SQLite failed during ${operation}: ${message}`, { operation });
    },
  };
}
