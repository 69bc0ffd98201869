/**
 * The stores of an origin, as a whole: which there are (with their size and model), deleting
 * one, renaming one. The storage adapter implements the port (`StoreCatalog`); the worker's host
 * adds the rule that a store open in some other connection is left alone (STORE_IN_USE).
 */
import { MemoryError, invalid } from './errors.ts';
import type { LongRunOptions } from './types.ts';

/** One store, as the catalog reads it without opening it. */
export interface StoreInfo {
  name: string;
  /** Memories in it (its own books: every memory, superseded and expired ones included); null when unreadable. */
  memories: number | null;
  /** The embedding model its vectors come from; null for a store that was never opened to the end. */
  embedder: { id: string; dim: number } | null;
  /** When it was created (Unix seconds), when known. */
  createdAt: number | null;
  /** Its schema version; newer than this build's when written by a newer version. */
  schemaVersion: number | null;
  /** Open in this worker right now (by any tab or connection). */
  open: boolean;
  /**
   * Where it lives: IndexedDB, or SQLite on OPFS. OPFS stores are listed by a worker that holds the
   * origin's OPFS stores (one serving an OPFS store), by name only: their figures are null.
   */
  storage?: StorePlace;
}

export type StorePlace = 'indexeddb' | 'opfs';

/** What a move between storages did (`moveMemory`). */
export interface MoveResult {
  /** Rows copied (memories, vectors, journal and the rest). */
  rows: number;
  /** The int8 index's saved blocks came along, or the index is rebuilt from the vectors at the next open. */
  index: 'copied' | 'rebuilt at next open';
}

/** The adapter side: what storage can do with whole stores. */
export interface StoreCatalog {
  /** Every store, sorted by name. */
  list(): Promise<Omit<StoreInfo, 'open'>[]>;
  /** Whether a store of that name exists. */
  exists(name: string): Promise<boolean>;
  /** Deletes the store's database, its index snapshot and its registry record. */
  delete(name: string): Promise<void>;
  /** Copies the store under the new name (every table), then deletes the old one. */
  rename(from: string, to: string): Promise<void>;
  /** Moves a closed store between IndexedDB and OPFS (only where OPFS is: a dedicated worker). */
  move?(name: string, to: StorePlace, options: LongRunOptions): Promise<MoveResult>;
}

export const MAX_STORE_NAME = 200;

/**
 * A store name: any non-blank string of at most 200 characters (colons, slashes and spaces
 * included: the name is a key, never a path).
 * @throws MemoryError INVALID_ARGUMENT otherwise.
 */
export function checkStoreName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_STORE_NAME) {
    throw invalid(`${field} must be a non-empty store name of at most ${MAX_STORE_NAME} characters`, { field });
  }
  return value;
}

export function storeInUse(name: string, action: 'delete' | 'rename' | 'move'): MemoryError {
  return new MemoryError('STORE_IN_USE', `Store ${JSON.stringify(name)} is open in another tab or connection; close it there to ${action} it`, { name, action });
}

export function storeNotFound(name: string): MemoryError {
  return new MemoryError('NOT_FOUND', `There is no store named ${JSON.stringify(name)}`, { name });
}

export function storeExists(name: string): MemoryError {
  return new MemoryError('STORE_EXISTS', `A store named ${JSON.stringify(name)} already exists`, { name });
}

/** Orders stores by name as a person reads them (case-insensitive, numbers by value). */
export function sortStores<T extends { name: string }>(stores: T[]): T[] {
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return stores.sort((a, b) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
