/**
 * The in-memory backend: the storage engine port (core/storage/port.ts) over tables held in
 * maps (memory-tables.ts), and nothing else — every rule lives in core/storage, so this backend
 * and the Dexie one answer alike (test/storage.contract.test.ts runs both). For tests that need
 * no IndexedDB, short-lived agent stores, and Node. Nothing survives the process.
 *
 * Transactions run one at a time, in the order they were asked for. A read-write one keeps the
 * first previous value of every row it touches and puts them back if its body throws: a write
 * lands whole or not at all. Values are copied in and out (structured clone), as IndexedDB's are.
 */
import { MemoryError } from '../core/errors.ts';
import type { MemoryStorage } from '../core/ports.ts';
import { parseTable, storageOver, TABLES, type Key, type StorageEngine, type StorageTx, type TableName } from '../core/storage/index.ts';
import { constraintError, MemTable, slotOf } from './memory-tables.ts';

type Row = Record<string, unknown>;
const copy = <T>(value: T): T => structuredClone(value);

/** What a read-write transaction changed, to put back if it fails. */
class Undo {
  private readonly previous = new Map<MemTable, Map<unknown, { key: Key; row: Row | undefined }>>();
  private readonly counters = new Map<MemTable, number>();

  /** Remembers a row's value before its first change in this transaction. */
  before(table: MemTable, key: Key): void {
    let rows = this.previous.get(table);
    if (!rows) {
      this.previous.set(table, (rows = new Map()));
      this.counters.set(table, table.autoIncrement);
    }
    const slot = slotOf(key);
    if (!rows.has(slot)) rows.set(slot, { key, row: table.get(key) });
  }

  restore(): void {
    for (const [table, rows] of this.previous) {
      // Removals first, so a unique key an undone write took is free for the row that had it.
      const entries = [...rows.values()];
      for (const { key, row } of entries) if (!row) table.write(key, undefined);
      for (const { key, row } of entries) if (row) table.write(key, row);
      table.autoIncrement = this.counters.get(table)!;
    }
  }
}

/** The port's calls on the tables, inside one transaction (`undo` set when it may write). */
function txOver(tables: Map<TableName, MemTable>, allowed: ReadonlySet<TableName>, undo: Undo | null): StorageTx {
  const table = (name: TableName, write = false): MemTable => {
    if (!allowed.has(name)) throw Object.assign(new Error(`Table ${name} is not part of this transaction`), { name: 'NotFoundError' });
    if (write && !undo) throw Object.assign(new Error('A read-only transaction cannot write'), { name: 'ReadOnlyError' });
    return tables.get(name)!;
  };
  const store = (name: TableName, rows: readonly object[], insert: boolean): Key[] => {
    const t = table(name, true);
    return rows.map((value) => {
      const row = copy(value) as Row;
      const key = t.keyFor(row);
      if (insert && t.get(key)) throw constraintError(`Table ${name} already holds key ${JSON.stringify(key)}`);
      undo!.before(t, key);
      t.write(key, row);
      return key;
    });
  };
  return {
    get: async (name, key) => copy(table(name).get(key)) as never,
    getMany: async (name, keys) => keys.map((key) => copy(table(name).get(key))) as never,
    async query(name, q = {}) {
      const t = table(name);
      const out: Row[] = [];
      const limit = q.limit ?? Number.POSITIVE_INFINITY;
      if (limit <= 0) return [];
      for (const entry of t.entries(q)) {
        const row = t.get(entry.primaryKey)!;
        if (q.filter && !q.filter(row as never)) continue;
        out.push(row);
        if (out.length >= limit) break;
      }
      return copy(out) as never;
    },
    async keys(name, q = {}) {
      const out = [];
      const limit = q.limit ?? Number.POSITIVE_INFINITY;
      if (limit <= 0) return [];
      for (const entry of table(name).entries(q)) if (out.push(entry) >= limit) break;
      return out;
    },
    count: async (name, q = {}) => table(name).count(q),
    add: async (name, rows) => store(name, rows, true),
    put: async (name, rows) => void store(name, rows, false),
    async delete(name, keys) {
      const t = table(name, true);
      for (const key of keys) {
        if (!t.get(key)) continue;
        undo!.before(t, key);
        t.write(key, undefined);
      }
    },
  };
}

/** A store's tables, and the queue its transactions wait in (shared by every handle on it). */
interface Shared {
  tables: Map<TableName, MemTable>;
  queue: Promise<unknown>;
  /** Names these tables for the engine port's `id` (every handle on them shares it). */
  id: string;
}

let stores = 0;

/** The engine over a store's tables; `isClosed` says whether this handle may still use them. */
function memoryEngine(shared: Shared, isClosed: () => boolean, close: () => void): StorageEngine {
  const { tables } = shared;
  return {
    id: shared.id,
    transaction(mode, names, body) {
      const run = async () => {
        if (isClosed()) throw new MemoryError('STORAGE_FAILURE', 'This in-memory storage is closed', { operation: 'use' });
        const undo = mode === 'rw' ? new Undo() : null;
        try {
          return await body(txOver(tables, new Set(names), undo));
        } catch (error) {
          undo?.restore();
          throw error;
        }
      };
      const result = shared.queue.then(run, run);
      shared.queue = result.catch(() => undefined);
      return result;
    },
    mapError(error, operation) {
      if (error instanceof MemoryError) return error;
      const message = (error as Error | null)?.message ?? String(error);
      return new MemoryError('STORAGE_FAILURE', `In-memory storage failed during ${operation}: ${message}`, { operation });
    },
    close,
  };
}

function freshStore(): Shared {
  return { tables: new Map(Object.entries(TABLES).map(([name, spec]) => [name as TableName, new MemTable(parseTable(spec))])), queue: Promise.resolve(), id: `memory:${++stores}` };
}

/** The engine alone, over fresh tables (the port's contract suite drives it directly). */
export function createMemoryEngine(): StorageEngine {
  let closed = false;
  return memoryEngine(freshStore(), () => closed, () => void (closed = true));
}

/** A fresh, empty in-memory storage. */
export function createMemoryStorage(): MemoryStorage {
  return storageOver(createMemoryEngine());
}

/**
 * Named in-memory storages for `createMemory({ storage })`: they last as long as this factory's
 * memory: closing a store and opening the same name again finds its memories, as a database
 * would; another factory (or another process) does not see them.
 */
export function memoryStorages(): (name: string) => MemoryStorage {
  const stores = new Map<string, Shared>();
  return (name) => {
    let shared = stores.get(name);
    if (!shared) stores.set(name, (shared = freshStore()));
    // Each opening is a handle of its own: closing it closes this handle only.
    let closed = false;
    return storageOver(memoryEngine(shared, () => closed, () => void (closed = true)));
  };
}
