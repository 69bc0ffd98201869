/**
 * The catalog of stores (core/catalog.ts) on IndexedDB: each store is a database named
 * `houkai-web:<name>`, listed with `indexedDB.databases()` (or, where a browser lacks it, from
 * the registry of stores), read without opening it as a store (its metadata row gives the model
 * and the memory count), deleted with its index snapshot and registry record, and renamed by
 * copying every table to the new database before deleting the old one. IndexedDB cannot rename a
 * database; the copy writes the metadata table last, so a copy cut short (a closed tab) has no
 * metadata row and is recognised and started over by the next rename.
 *
 * The store databases and the registry are other adapters' (storage-dexie, registry-dexie): the
 * composition root hands their functions in (`CatalogOptions.stores`, `.registry`).
 */
import Dexie from 'dexie';
import { sortStores, storeExists, storeNotFound, type StoreCatalog, type StoreInfo } from '../core/catalog.ts';
import type { DurabilityRegistry, StoreMeta } from '../core/ports.ts';
import { mapStorageError, type IndexedDbOptions as DexieStorageOptions } from './indexeddb-errors.ts';

/** Rows copied per transaction while renaming. */
const COPY_PAGE = 500;

/** How store databases are named, opened at the current schema and deleted (the Dexie storage adapter's). */
export interface StoreDatabases {
  databaseName(name: string): string;
  /** Opens (creating or upgrading) a store's database at the current schema, then closes it. */
  prepare(name: string, options: DexieStorageOptions): Promise<void>;
  delete(name: string, options: DexieStorageOptions): Promise<void>;
}

export interface CatalogOptions extends DexieStorageOptions {
  stores: StoreDatabases;
  /** Opens the registry of stores (null where there is none). */
  registry(options: DexieStorageOptions): Promise<DurabilityRegistry | null>;
  /** Deletes a store's index snapshot (the HNSW adapter's `dropHnswSnapshot`); none by default. */
  dropSnapshot?: (name: string) => Promise<void>;
}

function factory(options: DexieStorageOptions): IDBFactory {
  return options.indexedDB ?? globalThis.indexedDB;
}

/** Opens an existing database as it is (no schema declared, nothing upgraded); null when it does not exist. */
async function openExisting(name: string, options: CatalogOptions): Promise<Dexie | null> {
  const db = new Dexie(options.stores.databaseName(name), {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  });
  try {
    await db.open();
    return db;
  } catch (error) {
    db.close();
    if ((error as { name?: string }).name === 'NoSuchDatabaseError') return null;
    throw mapStorageError(error, 'open store database');
  }
}

async function readInfo(name: string, options: CatalogOptions): Promise<Omit<StoreInfo, 'open'> | null> {
  const db = await openExisting(name, options);
  if (!db) return null;
  try {
    const names = new Set(db.tables.map((t) => t.name));
    const meta = names.has('meta') ? ((await db.table('meta').get('store')) as { value?: StoreMeta } | undefined)?.value : undefined;
    // The rows' table is `memoryRows` from schema v12 on, `memories` before.
    const rowsTable = ['memoryRows', 'memories'].find((table) => names.has(table));
    const memories = meta?.lexicalDocs ?? (rowsTable ? await db.table(rowsTable).count() : null);
    return {
      name,
      memories,
      embedder: meta ? { id: meta.embedderId, dim: meta.dim } : null,
      createdAt: meta?.createdAt ?? null,
      schemaVersion: meta?.schemaVersion ?? null,
    };
  } catch {
    return { name, memories: null, embedder: null, createdAt: null, schemaVersion: null };
  } finally {
    db.close();
  }
}

/** Names of the store databases: the browser's list when it has one, else the registry's records. */
async function storeNames(options: CatalogOptions): Promise<string[]> {
  const idb = factory(options);
  const PREFIX = options.stores.databaseName('');
  if (typeof idb.databases === 'function') {
    const dbs = await idb.databases();
    return dbs.map((d) => d.name ?? '').filter((n) => n.startsWith(PREFIX) && n.length > PREFIX.length).map((n) => n.slice(PREFIX.length));
  }
  const registry = await options.registry(options).catch(() => null);
  if (!registry) return [];
  try {
    return (await registry.list()).map((r) => r.name);
  } finally {
    registry.close();
  }
}

/** Copies every row of every table of `from` into `to` (created at the current schema), the metadata table last. */
async function copyStore(from: string, to: string, options: CatalogOptions): Promise<void> {
  // Both at the current schema: upgrade the source in place, create the target.
  await options.stores.prepare(from, options);
  await options.stores.prepare(to, options);
  const source = await openExisting(from, options);
  const target = await openExisting(to, options);
  if (!source || !target) throw storeNotFound(source ? to : from);
  try {
    const tables = source.tables.map((t) => t.name).sort((a, b) => (a === 'meta' ? 1 : b === 'meta' ? -1 : 0));
    for (const table of tables) {
      const keys = await source.table(table).toCollection().primaryKeys();
      for (let i = 0; i < keys.length; i += COPY_PAGE) {
        const slice = keys.slice(i, i + COPY_PAGE);
        const rows = (await source.table(table).bulkGet(slice)).filter((r) => r !== undefined);
        // Inbound keys (seq, id, label…) travel inside the rows, so they are kept as they were.
        await target.table(table).bulkPut(rows);
      }
    }
  } catch (error) {
    throw mapStorageError(error, 'rename');
  } finally {
    source.close();
    target.close();
  }
}

/** Whether a database holds a complete store (a rename cut short leaves one without its metadata row). */
async function isComplete(name: string, options: CatalogOptions): Promise<boolean> {
  const db = await openExisting(name, options);
  if (!db) return false;
  try {
    return db.tables.some((t) => t.name === 'meta') && (await db.table('meta').get('store')) !== undefined;
  } finally {
    db.close();
  }
}

export function createDexieCatalog(options: CatalogOptions): StoreCatalog {
  const db: CatalogOptions = {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    stores: options.stores,
    registry: options.registry,
  };
  const deleteDexieStorage = (name: string, o: DexieStorageOptions): Promise<void> => options.stores.delete(name, o);

  async function exists(name: string): Promise<boolean> {
    return (await storeNames(db)).includes(name);
  }

  async function dropRecord(name: string, move?: string): Promise<void> {
    const registry = await options.registry(db).catch(() => null);
    if (!registry) return;
    try {
      if (move !== undefined) {
        const record = await registry.get(name);
        if (record) await registry.update(move, () => ({ ...record, name: move }));
      }
      await registry.update(name, () => null);
    } finally {
      registry.close();
    }
  }

  const catalog: StoreCatalog = {
    async list() {
      const infos = await Promise.all((await storeNames(db)).map((name) => readInfo(name, db)));
      return sortStores(infos.filter((i): i is Omit<StoreInfo, 'open'> => i !== null));
    },

    exists,

    async delete(name) {
      if (!(await exists(name))) throw storeNotFound(name);
      await deleteDexieStorage(name, db);
      await dropRecord(name);
      await options.dropSnapshot?.(name);
    },

    async rename(from, to) {
      if (!(await exists(from))) throw storeNotFound(from);
      if (await exists(to)) {
        if (await isComplete(to, db)) throw storeExists(to);
        await deleteDexieStorage(to, db); // what an interrupted rename left
      }
      try {
        await copyStore(from, to, db);
      } catch (error) {
        await deleteDexieStorage(to, db).catch(() => undefined);
        throw error;
      }
      // The registry record (canary, last export) follows the store; the old name's is gone.
      await dropRecord(from, to);
      await deleteDexieStorage(from, db);
      // The index snapshot is keyed by name: the renamed store rebuilds its index at its first open.
      await options.dropSnapshot?.(from);
    },
  };
  return catalog;
}
