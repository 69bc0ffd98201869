/**
 * One storage core: the nine roles a store's storage plays, each written once over the narrow
 * `StorageEngine` port (port.ts). A backend maps the port (adapters/storage-dexie.ts,
 * adapters/storage-memory.ts) and gets every rule — BUSY for rows an import holds, import
 * leases, label and generation counters, the journal written in the same transaction, the
 * trash, staged re-embedding — from here.
 */
import type { MemoryStorage } from '../ports.ts';
import { graphStore } from './graph.ts';
import { importLog } from './imports.ts';
import { journalStore } from './journal.ts';
import { lexicalPostings } from './lexical.ts';
import { lexicalRederivation } from './lexical-rederive.ts';
import { memoryRows } from './memory-rows.ts';
import type { StorageEngine } from './port.ts';
import { ReadCache } from './read-cache.ts';
import { packedRows } from './row-codec.ts';
import { metaStore, settingsStore } from './settings.ts';
import { trashStore } from './trash.ts';
import { runner } from './tx.ts';
import { vectorLog } from './vector-log.ts';

export type { Key, KeyEntry, KeyRange, Query, StorageEngine, StorageTx, TxMode, TxOptions } from './port.ts';
export { MAX_KEY, MIN_KEY } from './port.ts';
export { INTEGER_KEYED, TABLES, TABLE_NAMES, parseTable, type IndexSpec, type TableName, type TableSpec } from './schema.ts';

export interface StorageOptions {
  /**
   * Up to this many memories, the first recall waits while the lexical index is read into memory
   * (default 20,000, about a second); a larger store's recalls use the postings in storage meanwhile.
   */
  lexicalIndexWaitUpTo?: number;
  /** Bytes of memory rows kept in memory at most (default 128 MiB; 0 keeps none). */
  rowCacheBytes?: number;
  /** Bytes of stored vectors kept in memory at most (default 96 MiB: 131,072 at 384-d; 0 keeps none). */
  vectorCacheBytes?: number;
  /**
   * A write the backend does not announce (its `watch`) is seen by searches within this many
   * milliseconds (default 1,000; 0 reads the metadata row before every search).
   */
  unannouncedWritesSeenWithin?: number;
}

/**
 * The store's storage over a backend, with recall's reads served from memory where it can
 * (read-cache.ts: the lexical index, and recently used rows and vectors, kept current by this
 * store's writes), and memory rows stored without their default-valued fields (row-codec.ts).
 */
export function storageOver(backend: StorageEngine, options: StorageOptions = {}): MemoryStorage {
  const cache = new ReadCache(packedRows(backend), { rows: options.rowCacheBytes, vectors: options.vectorCacheBytes, unannouncedWithin: options.unannouncedWritesSeenWithin });
  const engine = cache.wrap();
  const run = runner(engine);
  return {
    ...metaStore(run),
    ...memoryRows(engine, run, cache),
    ...vectorLog(run, cache),
    ...lexicalPostings(engine, run, cache, options.lexicalIndexWaitUpTo),
    ...lexicalRederivation(run),
    ...graphStore(run, cache),
    ...journalStore(run),
    ...trashStore(run),
    ...importLog(run),
    ...settingsStore(run),
    close: () => engine.close(),
  };
}
