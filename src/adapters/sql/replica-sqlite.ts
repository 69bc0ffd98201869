/**
 * The sync replica of a store in a folder (Node), on disk: PouchDB's LevelDB adapter runs over any
 * store with LevelDB's small interface (its `db` option; the memory adapter passes memdown), and
 * this is one over a key-value table in a SQLite file beside the store's own
 * (`<name>.houkai-sync.sqlite`, WAL), through better-sqlite3. So a store in a folder keeps its
 * replica across processes — the next round compares nothing it already has — and a first sync of
 * 50,000 memories no longer holds every document in the heap (#52). A file of its own, not a table
 * in the store's: the store's SQL engine keeps a write transaction open across awaits, and a second
 * connection writing the same file then would wait on it.
 *
 * Keys are kept as bytes (LevelDB orders keys bytewise; SQLite compares BLOBs with memcmp), values
 * as they came (a string as text, bytes as a BLOB). Node only: the browser builds replace the
 * folder store's modules (scripts/node-only.mjs).
 */
import { loadBetterSqlite, SEQUENTIAL_CACHE_KIB, type BetterDatabase, type BetterStatement } from './driver-better-sqlite3.ts';

type Callback<T = void> = (error: Error | null | undefined, value?: T) => void;
type Bytes = Buffer;
type Value = string | Bytes;

/** A key or value as LevelDB callers hand them (strings, Buffers; anything else as its string). */
const keyBytes = (key: unknown): Bytes => (Buffer.isBuffer(key) ? key : Buffer.from(String(key), 'utf8'));
const valueOf = (value: unknown): Value => (Buffer.isBuffer(value) ? value : String(value));
const asked = (value: Value, asBuffer: boolean): Value => (asBuffer && typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
const later = (fn: () => void): void => void setImmediate(fn);

interface RangeOptions {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
  reverse?: boolean;
  limit?: number;
  keys?: boolean;
  values?: boolean;
  keyAsBuffer?: boolean;
  valueAsBuffer?: boolean;
}

/** The WHERE clause and parameters of a key range (LevelDB's gt/gte/lt/lte; `start`/`end` are not used by PouchDB). */
function rangeWhere(options: RangeOptions): { sql: string; params: Bytes[] } {
  const parts: string[] = [];
  const params: Bytes[] = [];
  const bound = (op: string, key: unknown): void => {
    if (key === undefined || key === null || (typeof key === 'string' && key === '')) return;
    parts.push(`k ${op} ?`);
    params.push(keyBytes(key));
  };
  if (options.gt !== undefined) bound('>', options.gt);
  else bound('>=', options.gte);
  if (options.lt !== undefined) bound('<', options.lt);
  else bound('<=', options.lte);
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}

/** Rows an iterator reads at a time. */
const PAGE = 128;

class SqliteIterator {
  private rows: [Bytes, Value][] = [];
  private at = 0;
  private after: Bytes | null = null;
  private left: number;
  private done = false;
  private ended = false;

  constructor(
    private readonly down: SqliteDown,
    private readonly options: RangeOptions,
  ) {
    this.left = options.limit === undefined || options.limit < 0 ? Infinity : options.limit;
  }

  next(callback: (error?: Error | null, key?: Value, value?: Value) => void): void {
    if (this.ended) return later(() => callback(new Error('iterator has ended')));
    try {
      if (this.at >= this.rows.length && !this.done) this.fill();
    } catch (error) {
      return later(() => callback(error as Error));
    }
    if (this.at >= this.rows.length || this.left <= 0) return later(() => callback());
    const [key, value] = this.rows[this.at++]!;
    this.left -= 1;
    const k = this.options.keys === false ? undefined : this.options.keyAsBuffer === false ? key.toString('utf8') : key;
    const v = this.options.values === false ? undefined : asked(value, this.options.valueAsBuffer !== false);
    later(() => callback(null, k, v));
  }

  end(callback: Callback): void {
    this.ended = true;
    this.rows = [];
    later(() => callback(null));
  }

  /** The next page after the last key read (a live read: writes between pages are seen, as LevelDB's snapshot would not — PouchDB does not rely on either). */
  private fill(): void {
    const reverse = this.options.reverse === true;
    const range = rangeWhere(this.options);
    const more = this.after === null ? '' : reverse ? ' AND k < ?' : ' AND k > ?';
    const params = this.after === null ? range.params : [...range.params, this.after];
    const page = Math.min(PAGE, this.left);
    this.rows = this.down.select(`${range.sql}${more} ORDER BY k ${reverse ? 'DESC' : 'ASC'} LIMIT ${Number.isFinite(page) ? page : PAGE}`, params);
    this.at = 0;
    if (this.rows.length < PAGE) this.done = true;
    if (this.rows.length) this.after = this.rows[this.rows.length - 1]![0];
  }
}

/** One replica's slice of the table, with LevelDB's callback interface as levelup 4 calls it. */
class SqliteDown {
  status = 'new';
  private db: BetterDatabase | null = null;
  private readonly statements = new Map<string, BetterStatement>();

  constructor(
    private readonly file: string,
    private readonly name: string,
  ) {}

  private statement(sql: string): BetterStatement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.connection().prepare(sql)));
    return s;
  }

  private connection(): BetterDatabase {
    if (!this.db) throw new Error(`The sync replica ${this.file} is not open`);
    return this.db;
  }

  open(options: unknown, callback?: Callback): void {
    const cb = (typeof options === 'function' ? options : callback) as Callback;
    try {
      const Database = loadBetterSqlite();
      this.status = 'opening';
      const db = new Database(this.file, { timeout: 10_000 });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`cache_size = -${SEQUENTIAL_CACHE_KIB}`);
      db.exec('CREATE TABLE IF NOT EXISTS replica (db TEXT NOT NULL, k BLOB NOT NULL, v, PRIMARY KEY (db, k)) WITHOUT ROWID');
      this.db = db;
      this.status = 'open';
    } catch (error) {
      this.status = 'new';
      return later(() => cb(error as Error));
    }
    later(() => cb(null));
  }

  close(callback: Callback): void {
    this.status = 'closing';
    try {
      this.statements.clear();
      this.db?.close();
    } catch {
      /* closing what failed to open */
    }
    this.db = null;
    this.status = 'closed';
    later(() => callback(null));
  }

  get(key: unknown, options: { asBuffer?: boolean } | Callback<Value>, callback?: Callback<Value>): void {
    const cb = (typeof options === 'function' ? options : callback) as Callback<Value>;
    const asBuffer = typeof options === 'function' ? true : options.asBuffer !== false;
    let row: unknown[] | undefined;
    try {
      row = this.statement('SELECT v FROM replica WHERE db = ? AND k = ?').raw(true).get(this.name, keyBytes(key));
    } catch (error) {
      return later(() => cb(error as Error));
    }
    if (!row) {
      const missing = Object.assign(new Error('NotFound'), { notFound: true, status: 404, type: 'NotFoundError' });
      return later(() => cb(missing));
    }
    const value = asked(valueOf(row[0]), asBuffer);
    later(() => cb(null, value));
  }

  put(key: unknown, value: unknown, options: unknown, callback?: Callback): void {
    this.batch([{ type: 'put', key, value }], options, callback);
  }

  del(key: unknown, options: unknown, callback?: Callback): void {
    this.batch([{ type: 'del', key }], options, callback);
  }

  /** Every operation in one SQLite transaction: all or nothing, as LevelDB's write batch. */
  batch(ops: { type: 'put' | 'del'; key: unknown; value?: unknown }[], options: unknown, callback?: Callback): void {
    const cb = (typeof options === 'function' ? options : callback) as Callback;
    try {
      const put = this.statement('INSERT OR REPLACE INTO replica (db, k, v) VALUES (?, ?, ?)');
      const del = this.statement('DELETE FROM replica WHERE db = ? AND k = ?');
      this.connection().transaction(() => {
        for (const op of ops) {
          if (!op) continue;
          if (op.type === 'del') del.run(this.name, keyBytes(op.key));
          else put.run(this.name, keyBytes(op.key), valueOf(op.value));
        }
      })();
    } catch (error) {
      return later(() => cb(error as Error));
    }
    later(() => cb(null));
  }

  clear(options: RangeOptions, callback: Callback): void {
    try {
      const range = rangeWhere(options);
      this.statement(`DELETE FROM replica WHERE db = ?${range.sql}`).run(this.name, ...range.params);
    } catch (error) {
      return later(() => callback(error as Error));
    }
    later(() => callback(null));
  }

  iterator(options: RangeOptions = {}): SqliteIterator {
    return new SqliteIterator(this, options);
  }

  /** Rows of this replica matching a clause that follows `WHERE db = ?`. */
  select(clause: string, params: Bytes[]): [Bytes, Value][] {
    return this.statement(`SELECT k, v FROM replica WHERE db = ?${clause}`).raw(true).all(this.name, ...params) as [Bytes, Value][];
  }
}

/** The replica file beside a store's database file. */
export const replicaFile = (storeFile: string): string => storeFile.replace(/\.houkai\.sqlite$/, '.houkai-sync.sqlite');

/**
 * A LevelDB constructor for PouchDB's `db` option, keeping every replica of one store in `file`.
 * PouchDB caches open databases by this function's name and the database's name, so the name
 * carries the file: two stores of the same name in two folders never share a replica.
 */
export function sqliteLevelDown(file: string): ((name: string) => SqliteDown) & { destroy(name: string, callback: Callback): void } {
  const down = (name: string): SqliteDown => new SqliteDown(file, name);
  Object.defineProperty(down, 'name', { value: `houkai-sqlite:${file}` });
  return Object.assign(down, {
    destroy(name: string, callback: Callback): void {
      const db = down(name);
      db.open({}, (error) => {
        if (error) return callback(error);
        db.clear({}, (cleared) => db.close(() => callback(cleared ?? null)));
      });
    },
  });
}
