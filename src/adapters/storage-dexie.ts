/**
 * The Dexie (IndexedDB) backend: the storage engine port (core/storage/port.ts) mapped onto
 * Dexie tables, and nothing else — every rule lives in core/storage. One database per named
 * store, so stores are isolated the way AI-Houkai's collections are. Raw IndexedDB failures
 * are mapped to `MemoryError` here and nowhere else.
 */
import Dexie, { type Collection, type IndexableType, type ObservabilitySet, type Table, type Transaction } from 'dexie';
import { mapStorageError } from './indexeddb-errors.ts';
import { databaseName, MemoryDatabase, type DexieStorageOptions } from './dexie-schema.ts';
import { storageOver, TABLES, parseTable, type Key, type Query, type StorageEngine, type StorageTx, type TableName, type TxOptions } from '../core/storage/index.ts';
import type { MemoryStorage } from '../core/ports.ts';

export { databaseName, SCHEMA_VERSION, SCHEMA_VERSIONS, type DexieStorageOptions, type SchemaVersion } from './dexie-schema.ts';

/** Each table's primary key as Dexie names it in `where` and `orderBy`. */
const PRIMARY = Object.fromEntries(Object.entries(TABLES).map(([name, spec]) => {
  const { primaryKey } = parseTable(spec);
  return [name, Array.isArray(primaryKey) ? `[${primaryKey.join('+')}]` : primaryKey];
})) as Record<TableName, string>;

/** Which rows of a table a query means, as a Dexie collection. */
function collection(table: Table, primary: string, q: Query): Collection {
  const index = q.index ?? primary;
  let c: Collection;
  if (q.equals !== undefined) c = table.where(index).equals(q.equals as IndexableType);
  else if (q.anyOf) c = table.where(index).anyOf(q.anyOf as IndexableType[]);
  else if (q.range) {
    const { lower = Dexie.minKey, upper = Dexie.maxKey, lowerOpen = false, upperOpen = false } = q.range;
    c = table.where(index).between(lower, upper, !lowerOpen, !upperOpen);
  } else c = q.index ? table.orderBy(q.index) : table.toCollection();
  if (q.reverse) c = c.reverse();
  if (q.filter) c = c.filter(q.filter);
  if (q.limit !== undefined) c = c.limit(q.limit);
  return c;
}

/**
 * The port's calls over Dexie tables. Inside a transaction every table is taken from the
 * transaction object itself, so a call made after any number of native awaits still lands in it
 * (Dexie's own zone tracking loses it behind nested async functions); a one-call body takes them
 * from the database, and IndexedDB gives its one request a transaction of its own.
 */
function txOver(source: Pick<Transaction, 'table'>): StorageTx {
  const table = (name: TableName): Table => source.table(name);
  const where = (name: TableName, q: Query): Collection => collection(table(name), PRIMARY[name], q);
  return {
    get: (name, key) => table(name).get(key),
    getMany: (name, keys) => table(name).bulkGet(keys as Key[]),
    query: (name, q = {}) => where(name, q as Query).toArray(),
    async keys(name, q = {}) {
      // Primary keys alone where the index key is known (getAllKeys), a key cursor otherwise.
      if (!q.index || q.equals !== undefined) {
        const primary = (await where(name, q).primaryKeys()) as Key[];
        return primary.map((primaryKey) => ({ key: q.index ? q.equals! : primaryKey, primaryKey }));
      }
      const out: { key: Key; primaryKey: Key }[] = [];
      await where(name, q).eachKey((key, cursor) => void out.push({ key: key as Key, primaryKey: cursor.primaryKey as Key }));
      return out;
    },
    count: (name, q = {}) => where(name, q).count(),
    add: async (name, rows) => (rows.length ? ((await table(name).bulkAdd(rows as object[], { allKeys: true })) as Key[]) : []),
    put: async (name, rows) => void (rows.length && (await table(name).bulkPut(rows as object[]))),
    delete: async (name, keys) => void (keys.length && (await table(name).bulkDelete(keys as Key[]))),
  };
}

/** The engine over an open database. */
function dexieEngine(db: MemoryDatabase): StorageEngine {
  // Dexie's overloads, narrowed to the one used (their inference runs too deep for generic bodies).
  const direct = txOver(db);
  const transact = db.transaction.bind(db) as unknown as <T>(mode: 'r' | 'rw', tables: readonly string[], scope: (trans: Transaction) => Promise<T>) => Promise<T>;
  return {
    id: `indexeddb:${db.name}`,
    transaction: <T>(mode: 'r' | 'rw', tables: readonly TableName[], body: (tx: StorageTx) => Promise<T>, options?: TxOptions): Promise<T> =>
      // An explicit transaction costs ~0.05 ms more per read in fake-indexeddb (a few per recall).
      options?.oneCall ? body(direct) : transact(mode, tables, (trans) => body(txOver(trans))),
    mapError: mapStorageError,
    close: () => db.close(),
    watch: (listener) => {
      // Dexie announces every committed write, this realm's at once and other realms' (tabs,
      // workers, any build of this app, which all write through Dexie) over its BroadcastChannel,
      // as the parts it changed: `idb://<database>/<table>/<index>`.
      const ours = `idb://${db.name}/`;
      const heard = (parts: ObservabilitySet): void => {
        const tables = new Set<TableName>();
        for (const part in parts) {
          if (!part.startsWith(ours)) continue;
          const table = part.slice(ours.length, part.indexOf('/', ours.length));
          if (Object.hasOwn(TABLES, table)) tables.add(table as TableName);
        }
        if (tables.size > 0) listener([...tables]);
      };
      Dexie.on.storagemutated.subscribe(heard);
      return () => Dexie.on.storagemutated.unsubscribe(heard);
    },
  };
}

/** The engine alone, over a store's database (the port's contract suite drives it directly). */
export async function openDexieEngine(store: string, options: DexieStorageOptions = {}): Promise<StorageEngine> {
  const db = new MemoryDatabase(databaseName(store), options);
  try {
    await db.open();
  } catch (error) {
    throw mapStorageError(error, 'open');
  }
  return dexieEngine(db);
}

export async function openDexieStorage(store: string, options: DexieStorageOptions = {}): Promise<MemoryStorage> {
  return storageOver(await openDexieEngine(store, options));
}

/** Deletes a store's database (all its memories and vectors). */
export async function deleteDexieStorage(store: string, options: DexieStorageOptions = {}): Promise<void> {
  try {
    await new MemoryDatabase(databaseName(store), options).delete();
  } catch (error) {
    throw mapStorageError(error, 'delete');
  }
}
