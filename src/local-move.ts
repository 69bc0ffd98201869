/**
 * Moving a closed store between IndexedDB and OPFS (local.ts's `moveMemory`): the
 * rows through the engine port (core/storage/copy.ts, the metadata row last), the int8 index's
 * saved blocks beside them so the moved store opens from its snapshot, and only then the old copy
 * deleted. A move cut short (cancelled, a full disk, a closed tab) deletes what it wrote, or leaves
 * a copy without its metadata row that the next move starts over; the source is untouched until
 * the target is whole. Runs where OPFS is: a dedicated worker.
 */
import { databaseName, openDexieEngine, type DexieStorageOptions } from './adapters/storage-dexie.ts';
import { checkStoreName } from './core/catalog.ts';
import { invalid, MemoryError } from './core/errors.ts';
import type { IndexBlockStore } from './core/ports.ts';
import { copyBlocks, copyEngine, holdsStore } from './core/storage/copy.ts';
import type { StorageEngine } from './core/storage/index.ts';
import type { LongRunOptions } from './core/types.ts';

export interface MoveMemoryOptions extends LongRunOptions {
  /** Rows a transaction (default 2,000). */
  batch?: number;
  /** The IndexedDB side, as `createMemory` takes it (browsers have their own). */
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

type Place = 'indexeddb' | 'opfs';

interface Side {
  engine: StorageEngine;
  blocks: () => IndexBlockStore;
  /** Deletes this side's copy of the store (engine closed first). */
  drop: () => Promise<void>;
}

async function withBlocks<T>(open: () => IndexBlockStore, use: (b: IndexBlockStore) => Promise<T>): Promise<T> {
  const blocks = open();
  try {
    return await use(blocks);
  } finally {
    blocks.close();
  }
}

/**
 * Moves the closed store `name` to `to` ('opfs' or 'indexeddb'), with `{ kind: 'move' }` progress;
 * `dropIndexedDb` deletes a store from IndexedDB as a whole (local.ts's deleteMemory).
 * @throws MemoryError NOT_FOUND (no store there to move), STORE_EXISTS (`to` already holds a store
 *   of that name), ABORTED (cancelled: the target's copy is deleted, the source kept), STORAGE_QUOTA.
 */
export async function moveStore(
  name: string,
  to: Place,
  options: MoveMemoryOptions,
  dropIndexedDb: (name: string, db: Pick<MoveMemoryOptions, 'indexedDB' | 'IDBKeyRange'>) => Promise<void>,
): Promise<{ rows: number; index: 'copied' | 'rebuilt at next open' }> {
  checkStoreName(name, 'name');
  if (to !== 'opfs' && to !== 'indexeddb') throw invalid("to must be 'opfs' or 'indexeddb'", { field: 'to' });
  const db: DexieStorageOptions = {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  };
  const [{ openOpfsEngine, opfsBlockStore, deleteOpfsStore }, { opfsPool }, { idbBlockStore }] = await Promise.all([
    import('./adapters/sql/opfs-store.ts'),
    import('./adapters/sql/driver-sqlite-wasm.ts'),
    import('./adapters/index-blocks-idb.ts'),
  ]);
  const pool = await opfsPool();
  const open = async (place: Place): Promise<Side> =>
    place === 'opfs'
      ? { engine: await openOpfsEngine(name), blocks: () => opfsBlockStore(pool, name), drop: async () => void (await deleteOpfsStore(name)) }
      : {
          engine: await openDexieEngine(name, db),
          blocks: () => idbBlockStore({ database: databaseName(name), ...db }),
          // The database, its hnswlib snapshot and its registry record, as deleteMemory deletes a store.
          drop: () => dropIndexedDb(name, db),
        };

  const from = await open(to === 'opfs' ? 'indexeddb' : 'opfs');
  let target: Side | null = null;
  /** Whether the target's copy is this move's (to delete if it fails), not a store already there. */
  let ours = false;
  try {
    if (!(await holdsStore(from.engine))) {
      // Opening it made an empty database (or found what a move cut short): not a store, it goes.
      from.engine.close();
      await from.drop().catch(() => undefined);
      throw new MemoryError('NOT_FOUND', `There is no store ${JSON.stringify(name)} in ${to === 'opfs' ? 'IndexedDB' : 'OPFS'} to move`, { name });
    }
    target = await open(to);
    if (await holdsStore(target.engine)) throw new MemoryError('STORE_EXISTS', `${to === 'opfs' ? 'OPFS' : 'IndexedDB'} already holds a store ${JSON.stringify(name)}`, { name });
    // What a move cut short left there (no metadata row): started over.
    target.engine.close();
    ours = true;
    await target.drop();
    target = await open(to);
    const rows = await copyEngine(from.engine, target.engine, {
      ...(options.batch ? { batch: options.batch } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (done, total) => options.onProgress?.({ kind: 'move', done, total }),
    });
    const t = target;
    const copied = await withBlocks(from.blocks, (source) => withBlocks(t.blocks, (dest) => copyBlocks(source, dest)));
    // The target is whole: only now does the source go.
    from.engine.close();
    await from.drop();
    target.engine.close();
    target = null;
    return { rows, index: copied ? 'copied' : 'rebuilt at next open' };
  } catch (error) {
    from.engine.close();
    if (target) {
      target.engine.close();
      // Nothing half-written stays behind; the source was not touched.
      if (ours) await target.drop().catch(() => undefined);
    }
    throw error instanceof MemoryError ? error : from.engine.mapError(error, 'move');
  }
}
