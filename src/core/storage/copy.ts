/**
 * A store copied from one storage engine to another (IndexedDB to OPFS and back), over the engine
 * port alone: every table in primary-key order, a batch a transaction, the metadata row last — so a
 * copy cut short (a closed tab, a cancel, a full disk) has no metadata row and is not a store: the
 * caller deletes it, or the next move finds it incomplete and starts over. Rows travel as stored
 * (the engine's packed rows), keys as they are (an auto-increment table keeps its numbering).
 */
import { MemoryError, throwIfAborted } from '../errors.ts';
import type { IndexBlock, IndexBlockStore } from '../ports.ts';
import type { Key, StorageEngine } from './port.ts';
import { TABLES, type TableName } from './schema.ts';

export interface CopyOptions {
  /** Rows a transaction (default 2,000). */
  batch?: number;
  /** Rows copied of all, after each batch. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

const META: TableName = 'meta';
const STORE_KEY = 'store';

/** Whether an engine holds a complete store (its metadata row). */
export async function holdsStore(engine: StorageEngine): Promise<boolean> {
  return (await engine.transaction('r', [META], (tx) => tx.get(META, STORE_KEY))) !== undefined;
}

/**
 * Whether an engine holds what a copy cut short leaves (rows without the metadata row): not a
 * store, and nothing of it is lost when it goes (the move it came from had not deleted its source).
 */
export async function holdsPartialCopy(engine: StorageEngine): Promise<boolean> {
  if (await holdsStore(engine)) return false;
  const tables = Object.keys(TABLES) as TableName[];
  const counts = await engine.transaction('r', tables, (tx) => Promise.all(tables.map((t) => tx.count(t))));
  return counts.some((n) => n > 0);
}

/** A page of `table` after `after` in primary-key order: its keys and rows. */
async function readPage(engine: StorageEngine, table: TableName, after: Key | undefined, batch: number): Promise<{ rows: object[]; keys: Key[] }> {
  return engine.transaction('r', [table], async (tx) => {
    const range = after === undefined ? undefined : { lower: after, lowerOpen: true };
    const keys = (await tx.keys(table, { ...(range ? { range } : {}), limit: batch })).map((e) => e.primaryKey);
    const rows = (await tx.getMany<object>(table, keys)).filter((r): r is object => r !== undefined);
    return { rows, keys };
  });
}

/**
 * Copies every table of `from` into `to` (which should be empty), the metadata row last. Answers
 * the rows copied. @throws MemoryError ABORTED when `signal` fires (between batches), or the
 * engines' own errors; either way `to` has no metadata row.
 */
export async function copyEngine(from: StorageEngine, to: StorageEngine, options: CopyOptions = {}): Promise<number> {
  const batch = Math.max(1, options.batch ?? 2_000);
  if (!(await holdsStore(from))) throw new MemoryError('NOT_FOUND', 'There is no store to copy', {});
  const tables = (Object.keys(TABLES) as TableName[]).filter((t) => t !== META);
  const counts = await from.transaction('r', [...tables, META], async (tx) => Promise.all([...tables, META].map((t) => tx.count(t))));
  const total = counts.reduce((a, b) => a + b, 0);
  let done = 0;
  for (const table of [...tables, META]) {
    let after: Key | undefined;
    for (;;) {
      throwIfAborted(options.signal, { operation: 'move' });
      const { rows, keys } = await readPage(from, table, after, batch);
      if (keys.length === 0) break;
      await to.transaction('rw', [table], (tx) => tx.put(table, rows));
      done += rows.length;
      after = keys[keys.length - 1];
      options.onProgress?.(done, total);
      if (keys.length < batch) break;
    }
  }
  return done;
}

/**
 * Copies an index's saved blocks (the int8 index's snapshot) from one block store to another in one
 * write, so the moved store opens from its snapshot instead of rebuilding its index. The blocks are
 * held in memory for the write (as the index itself is while the store is open). Answers whether
 * there was a snapshot.
 */
export async function copyBlocks(from: IndexBlockStore, to: IndexBlockStore): Promise<boolean> {
  const manifest = (await from.readManifest()) as ({ tag: string } & Record<string, unknown>) | undefined;
  if (!manifest) return false;
  const blocks: IndexBlock[] = [];
  await from.readBlocks((batch) => void blocks.push(...batch));
  const current = (await to.readManifest()) as { tag?: string } | undefined;
  if (!(await to.write({ manifest, expectTag: current?.tag ?? null, replaceAll: true, blocks }))) {
    throw new MemoryError('STORE_IN_USE', 'Another writer saved an index for this store during the move', {});
  }
  return true;
}
