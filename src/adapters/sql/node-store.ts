/**
 * A store in a folder (Node): `createMemory({ name, dir })` keeps it in one SQLite file under
 * `dir` — its rows through the shared SQL engine (engine-sql.ts), the int8 index's blocks beside
 * them (blocks-sql.ts) — with better-sqlite3, and its sync replicas in a file beside it
 * (replica-sqlite.ts). Node only: the browser builds replace this module
 * (scripts/node-only.mjs).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MemoryError } from '../../core/errors.ts';
import type { IndexBlockStore, MemoryStorage } from '../../core/ports.ts';
import { storageOver } from '../../core/storage/index.ts';
import { sqlBlockStore } from './blocks-sql.ts';
import { betterSqliteDriver, SEQUENTIAL_CACHE_KIB } from './driver-better-sqlite3.ts';
import { sqlEngine } from './engine-sql.ts';
import { replicaFile, sqliteLevelDown } from './replica-sqlite.ts';
import { pouchReplicas } from '../sync-pouchdb.ts';
import type { SyncReplicaFactory } from '../../core/sync/ports.ts';

export interface DirStore {
  /** The database file. */
  file: string;
  storage: MemoryStorage;
  /** A connection to the same file for the int8 index's blocks. */
  blocks: () => IndexBlockStore;
  /** Sync replicas in a file beside the store's (`<name>.houkai-sync.sqlite`), kept across processes. */
  replicas: () => SyncReplicaFactory;
}

/** The file a store's name maps to (any name: `a:b`, `../x` stay inside the folder). */
export function storeFile(dir: string, name: string): string {
  return join(resolve(dir), `${encodeURIComponent(name).replace(/^\./, '%2E')}.houkai.sqlite`);
}

export function openDirStore(dir: string, name: string): DirStore {
  try {
    mkdirSync(resolve(dir), { recursive: true });
  } catch (error) {
    throw new MemoryError('STORAGE_FAILURE', `Could not create the store folder ${dir}: ${(error as Error).message}`, { operation: 'open', dir });
  }
  const file = storeFile(dir, name);
  const storage = storageOver(sqlEngine(betterSqliteDriver(file), `sqlite:${file}`));
  return { file, storage, blocks: () => sqlBlockStore(betterSqliteDriver(file, { cacheKiB: SEQUENTIAL_CACHE_KIB })), replicas: () => pouchReplicas({ levelDown: sqliteLevelDown(replicaFile(file)) }) };
}
