/**
 * The browser SQLite driver: SQLite's own WebAssembly build (`@sqlite.org/sqlite-wasm`, pinned in
 * package.json) on the origin-private file system through its `opfs-sahpool` VFS — synchronous
 * access handles, so statements run at file speed in place, without cross-origin isolation. Those
 * handles exist in dedicated workers only (not in a SharedWorker, not on a page): an OPFS store is
 * owned by one dedicated worker of the origin (connectMemory elects it).
 *
 * The pool is installed once a worker, in its own OPFS folder; it holds every file of every OPFS
 * store of the origin, and one worker holds it at a time (a second one gets STORE_IN_USE). Rows are
 * encoded with value-codec.ts (there is no `node:v8` here).
 */
import type { Database, PreparedStatement, SAHPoolUtil, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { MemoryError } from '../../core/errors.ts';
import type { SqlDriver } from './engine-sql.ts';
import { decodeValue, encodeValue } from './value-codec.ts';

/** The pool's folder in OPFS and its VFS name: the format of every OPFS store (do not change). */
export const OPFS_POOL = { name: 'houkai-opfs', directory: '/.houkai-web-sqlite' } as const;

let pool: Promise<SAHPoolUtil> | null = null;
/** SQLite's module once loaded (its C API reads a blob where it lies). */
let sqlite: Sqlite3Static | null = null;
/** The pool once installed in this worker (listing its stores must not install it: that would take the origin's OPFS files). */
let installed: SAHPoolUtil | null = null;

/** The pool, when this worker has installed it already; null otherwise. */
export function installedOpfsPool(): SAHPoolUtil | null {
  return installed;
}

/** The version the OPFS stores are tested with (package.json pins it; its `latest` tag is an old 3.41). */
const INSTALL = 'npm install @sqlite.org/sqlite-wasm@3.54.1-build1';

/**
 * The last error the pool's VFS met (it answers SQLite with a bare I/O error code and logs the
 * browser's own error (at the quota, a short write or a QuotaExceededError) through SQLite's
 * configured error logger: that logger keeps it here).
 */
let vfsError: unknown;

function keepVfsErrors(): void {
  const g = globalThis as { sqlite3ApiConfig?: Record<string, unknown> };
  g.sqlite3ApiConfig = {
    ...g.sqlite3ApiConfig,
    error: (...args: unknown[]) => {
      const found = args.find((a) => a instanceof Error || (typeof a === 'object' && a !== null && 'name' in a));
      if (found) vfsError = found;
      console.error(...args);
    },
  };
}

/**
 * The VFS failures that mean the origin's storage is full: the browser's QuotaExceededError, or a
 * write that wrote less than asked (what a synchronous access handle does at the quota in
 * Chromium; the VFS reports it as "Unknown write() failure.").
 */
const QUOTA_CAUSE = /QuotaExceeded|Unknown write\(\) failure/;

/** A failed statement's error, marked when the VFS's own failure behind it was the storage quota. */
function withVfsCause(error: unknown): unknown {
  const cause = vfsError as { name?: string; message?: string } | undefined;
  vfsError = undefined;
  if (cause && QUOTA_CAUSE.test(`${cause.name}: ${cause.message}`) && error !== null && typeof error === 'object') Object.assign(error, { storageFull: true });
  return error;
}

/** SQLite's module, an optional peer (the app and the prebuilt worker carry it), or STORAGE_FAILURE naming the install. */
async function loadSqliteWasm(): Promise<typeof import('@sqlite.org/sqlite-wasm').default> {
  keepVfsErrors();
  try {
    return (await import('@sqlite.org/sqlite-wasm')).default;
  } catch (error) {
    throw new MemoryError('STORAGE_FAILURE', `A store on OPFS needs @sqlite.org/sqlite-wasm, which could not be loaded: ${INSTALL}`, {
      operation: 'open',
      install: INSTALL,
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Whether this context can hold synchronous access handles (a dedicated worker with OPFS). */
export function opfsAvailable(): boolean {
  const g = globalThis as { FileSystemFileHandle?: { prototype: object }; navigator?: { storage?: { getDirectory?: unknown } } };
  return typeof g.navigator?.storage?.getDirectory === 'function' && g.FileSystemFileHandle !== undefined && 'createSyncAccessHandle' in g.FileSystemFileHandle.prototype;
}

/** The worker's pool (installed on first use). @throws MemoryError STORAGE_FAILURE / STORE_IN_USE. */
export function opfsPool(): Promise<SAHPoolUtil> {
  if (!opfsAvailable()) {
    return Promise.reject(
      new MemoryError('STORAGE_FAILURE', "OPFS storage needs a dedicated worker with the origin-private file system (connectMemory({ storage: 'opfs' }) starts one); this context has none", { operation: 'open', storage: 'opfs' }),
    );
  }
  pool ??= (async () => {
    const sqlite3 = (sqlite = await (await loadSqliteWasm())());
    try {
      return (installed = await sqlite3.installOpfsSAHPoolVfs({ ...OPFS_POOL, preserveOnInitFailure: true, forceReinitIfPreviouslyFailed: true } as never));
    } catch (error) {
      const message = (error as Error | null)?.message ?? String(error);
      // Another worker of the origin holds the pool's access handles.
      if (/NoModificationAllowed|Access Handles cannot be created|locked|in use/i.test(`${(error as Error | null)?.name} ${message}`)) {
        throw new MemoryError('STORE_IN_USE', 'Another worker of this origin holds the OPFS stores; close it (or its tab) first', { operation: 'open', storage: 'opfs' });
      }
      throw new MemoryError('STORAGE_FAILURE', `Could not open OPFS storage: ${message}`, { operation: 'open', storage: 'opfs' });
    }
  })();
  const mine = pool;
  // A failed install can be retried (the tab holding the pool may close).
  mine.catch(() => {
    if (pool === mine) pool = null;
  });
  return mine;
}

/**
 * A statement's rows one at a time, a blob column as a view of SQLite's own memory where the row
 * lies (`sqlite3_column_blob`), valid until the next step: the oo1 API's `get` copies every blob
 * twice on its way out.
 */
function eachOf(sqlite3: Sqlite3Static, s: PreparedStatement, bind: (params: readonly unknown[]) => void, failed: (error: unknown) => unknown) {
  const { capi, wasm } = sqlite3;
  return (params: readonly unknown[], visit: (row: unknown[]) => void): void => {
    bind(params);
    try {
      while (s.step()) {
        const row: unknown[] = [];
        for (let i = 0; i < s.columnCount; i++) {
          if (capi.sqlite3_column_type(s.pointer!, i) !== capi.SQLITE_BLOB) {
            row.push(s.get(i));
            continue;
          }
          const at = Number(capi.sqlite3_column_blob(s.pointer!, i));
          const n = capi.sqlite3_column_bytes(s.pointer!, i);
          // The heap's view is taken after the calls: a grown heap detaches an older one.
          row.push(wasm.heap8u().subarray(at, at + n));
        }
        visit(row);
      }
    } catch (error) {
      throw failed(error);
    }
    s.reset();
  };
}

/** SQLite's "full" results and OPFS's quota error: the storage is full. */
const FULL = /SQLITE_FULL|database or disk is full|QuotaExceeded|quota/i;
const SQLITE_FULL = 13;

/**
 * A connection to `file` (an absolute name inside the pool, e.g. `/stores/x.sqlite`), created when
 * missing. Rollback journal (the pool has no shared memory for WAL), temporary tables in memory
 * (they would take pool files), full synchronous writes.
 */
export function sqliteWasmDriver(util: SAHPoolUtil, file: string, options: { cacheKiB?: number } = {}): SqlDriver {
  let db: Database;
  try {
    db = new util.OpfsSAHPoolDb(file);
    db.exec('PRAGMA journal_mode = TRUNCATE; PRAGMA temp_store = MEMORY');
    if (options.cacheKiB !== undefined) db.exec(`PRAGMA cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`);
  } catch (error) {
    throw new MemoryError('STORAGE_FAILURE', `Could not open the store's database ${file} in OPFS: ${(error as Error).message}`, { operation: 'open', file });
  }
  const statements = new Set<PreparedStatement>();
  return {
    exec(sql) {
      try {
        db.exec(sql);
      } catch (error) {
        throw withVfsCause(error);
      }
    },
    prepare(sql) {
      const s = db.prepare(sql);
      statements.add(s);
      const bind = (params: readonly unknown[]): void => {
        s.reset(true);
        if (params.length) s.bind(params as never);
      };
      // After a failed step SQLite's reset reports the step's error again: the step's own error
      // (marked with its cause) is the one thrown, and the statement is left reset for the next call.
      const failed = (error: unknown): unknown => {
        try {
          s.reset();
        } catch {
          // The same failure, already in hand.
        }
        return withVfsCause(error);
      };
      return {
        run(params = []) {
          bind(params);
          try {
            s.step();
          } catch (error) {
            throw failed(error);
          }
          s.reset();
        },
        all(params = []) {
          bind(params);
          const rows: unknown[][] = [];
          try {
            while (s.step()) rows.push(s.get([]));
          } catch (error) {
            throw failed(error);
          }
          s.reset();
          return rows;
        },
        ...(sqlite ? { each: eachOf(sqlite, s, bind, failed) } : {}),
      };
    },
    encode: (value) => encodeValue(value),
    decode: (bytes) => decodeValue(bytes),
    close() {
      for (const s of statements) s.finalize();
      statements.clear();
      db.close();
    },
    mapError(error, operation) {
      if (error instanceof MemoryError) return error;
      const message = (error as Error | null)?.message ?? String(error);
      const marked = error as { resultCode?: number; storageFull?: boolean } | null;
      if (FULL.test(message) || marked?.resultCode === SQLITE_FULL || marked?.storageFull) {
        return new MemoryError('STORAGE_QUOTA', `The browser's storage for this origin is full (${operation}); nothing was written`, { operation });
      }
      return new MemoryError('STORAGE_FAILURE', `SQLite failed during ${operation}: ${message}`, { operation });
    },
  };
}
