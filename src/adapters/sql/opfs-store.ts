/**
 * A store in the origin-private file system (browsers, in a dedicated worker):
 * `createMemory({ name, storage: 'opfs' })` keeps its rows in one SQLite file through the shared
 * SQL engine (engine-sql.ts) and the int8 index's blocks in a second one (blocks-sql.ts) — a file
 * of their own, because the pool's VFS has no locks for two connections to one file to wait on —
 * both in the worker's OPFS pool (driver-sqlite-wasm.ts).
 */
import type { SAHPoolUtil } from '@sqlite.org/sqlite-wasm';
import type { IndexBlockStore, MemoryStorage } from '../../core/ports.ts';
import { holdsPartialCopy } from '../../core/storage/copy.ts';
import { storageOver, type StorageEngine } from '../../core/storage/index.ts';
import { sqlBlockStore } from './blocks-sql.ts';
import { installedOpfsPool, opfsPool, sqliteWasmDriver } from './driver-sqlite-wasm.ts';
import { sqlEngine } from './engine-sql.ts';

export interface OpfsStore {
  /** The rows' file, inside the pool. */
  file: string;
  storage: MemoryStorage;
  /** A connection to the blocks' file for the int8 index. */
  blocks: () => IndexBlockStore;
}

/** A page cache for the blocks' connection, which reads and writes in long sequential runs. */
const BLOCKS_CACHE_KIB = 2048;
/** Pool files a store may take: two databases, each with its rollback journal. */
const FILES_A_STORE = 4;

const encoded = (name: string): string => encodeURIComponent(name).replace(/\./g, '%2E');

/** The files a store's name maps to, inside the pool (any name: `a/b`, `..` stay one file name). */
export function opfsFiles(name: string): { rows: string; blocks: string } {
  const base = `/stores/${encoded(name)}`;
  return { rows: `${base}.houkai.sqlite`, blocks: `${base}.blocks.sqlite` };
}

export async function openOpfsStore(name: string): Promise<OpfsStore> {
  const util = await opfsPool();
  let engine = await openOpfsEngine(name);
  // A move into OPFS cut short (a closed tab) left rows without their metadata row; its source
  // still holds the store. Opened as it is, it would become a store of part of the rows: it goes.
  if (await holdsPartialCopy(engine)) {
    engine.close();
    await deleteOpfsStore(name);
    engine = await openOpfsEngine(name);
  }
  const storage = storageOver(engine);
  return { file: opfsFiles(name).rows, storage, blocks: () => opfsBlockStore(util, name) };
}

/** The storage engine of a store's rows file (created when missing), below the storage rules. */
export async function openOpfsEngine(name: string): Promise<StorageEngine> {
  const util = await opfsPool();
  await util.reserveMinimumCapacity(util.getFileCount() + FILES_A_STORE + 2);
  return sqlEngine(sqliteWasmDriver(util, opfsFiles(name).rows), `opfs:${name}`);
}

/** A connection to a store's blocks file (the pool installed: `await opfsPool()`). */
export function opfsBlockStore(util: SAHPoolUtil, name: string): IndexBlockStore {
  return sqlBlockStore(sqliteWasmDriver(util, opfsFiles(name).blocks, { cacheKiB: BLOCKS_CACHE_KIB }));
}

/** The names of the OPFS stores of this origin (those with a rows file). */
export async function opfsStoreNames(): Promise<string[]> {
  return storeNamesIn(await opfsPool());
}

/** The OPFS stores' names, when this worker holds the pool already (else none: listing does not take the origin's files). */
export function heldOpfsStoreNames(): string[] {
  const util = installedOpfsPool();
  return util ? storeNamesIn(util) : [];
}

function storeNamesIn(util: SAHPoolUtil): string[] {
  const out: string[] = [];
  for (const file of util.getFileNames()) {
    const m = /^\/stores\/(.+)\.houkai\.sqlite$/.exec(file);
    if (m) out.push(decodeURIComponent(m[1]!));
  }
  return out.sort();
}

/** Deletes a closed OPFS store's files (rows, blocks, their journals). Answers whether it existed. */
export async function deleteOpfsStore(name: string): Promise<boolean> {
  const util = await opfsPool();
  const files = opfsFiles(name);
  let existed = false;
  for (const file of [files.rows, files.blocks]) {
    for (const f of [file, `${file}-journal`]) if (util.unlink(f) && f === files.rows) existed = true;
  }
  return existed;
}
