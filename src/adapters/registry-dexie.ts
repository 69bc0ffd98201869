/**
 * The registry of stores (the `DurabilityRegistry` port) on Dexie: one small IndexedDB database
 * per origin, apart from every store's own database, with one record per store (its canary,
 * when it was last seen and with how many memories, when it was last exported). It survives the
 * deletion or clearing of a store's database; it does not survive whole-origin eviction.
 */
import Dexie, { type Table } from 'dexie';
import type { DurabilityRegistry, StoreRecord } from '../core/ports.ts';
import { mapStorageError, type IndexedDbOptions } from './indexeddb-errors.ts';

/** Not `houkai-web:<name>`, so no store can be named like it and store lists do not show it. */
export const REGISTRY_DATABASE = 'houkai-web-registry';

class RegistryDatabase extends Dexie {
  stores!: Table<StoreRecord, string>;

  constructor(options: IndexedDbOptions) {
    super(REGISTRY_DATABASE, {
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    });
    this.version(1).stores({ stores: 'name' });
  }
}

export async function openDexieRegistry(options: IndexedDbOptions = {}): Promise<DurabilityRegistry> {
  const db = new RegistryDatabase(options);
  try {
    await db.open();
  } catch (error) {
    throw mapStorageError(error, 'open registry');
  }
  return {
    get: async (name) => {
      try {
        return await db.stores.get(name);
      } catch (error) {
        throw mapStorageError(error, 'registry get');
      }
    },
    list: async () => {
      try {
        return await db.stores.toArray();
      } catch (error) {
        throw mapStorageError(error, 'registry list');
      }
    },
    update: async (name, next) => {
      try {
        return await db.transaction('rw', db.stores, async () => {
          const record = next(await db.stores.get(name));
          if (record === null) await db.stores.delete(name);
          else await db.stores.put({ ...record, name });
          return record;
        });
      } catch (error) {
        throw mapStorageError(error, 'registry update');
      }
    },
    close: () => db.close(),
  };
}
