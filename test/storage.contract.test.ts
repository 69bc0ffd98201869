/**
 * The `MemoryStorage` contract (the cases: test/contracts/storage.cases.ts) in Node: Dexie over
 * IndexedDB (fake-indexeddb here), the in-memory storage and SQLite through better-sqlite3; the
 * scripted life of a store must give the same answers on all three. Chromium runs the same cases
 * on IndexedDB and OPFS (e2e/contracts.spec.ts).
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlEngine } from '../src/adapters/sql/engine-sql.ts';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { storageOver } from '../src/core/storage/index.ts';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { createMemoryStorage, memoryStorages } from '../src/adapters/storage-memory.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import { storageContract, type StorageCase } from './contracts/storage.cases.ts';
import { legacySqlFile } from './helpers/sql-layout.ts';
import { uniqueName } from './helpers/store.ts';

const sqliteDir = mkdtempSync(join(tmpdir(), 'houkai-contract-'));
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));
/** A store's SQLite file in the test folder, through the same storage rules (storageOver). */
const sqliteStorage = (name: string): MemoryStorage => storageOver(sqlEngine(betterSqliteDriver(join(sqliteDir, `${name}.db`)), `sqlite:${name}`));

const BACKENDS: StorageCase[] = [
  { name: 'dexie', open: () => openDexieStorage(uniqueName('contract')) },
  { name: 'memory', open: async () => createMemoryStorage() },
  { name: 'sqlite', open: async () => sqliteStorage(uniqueName('contract')) },
  { name: 'sqlite, a store from before integer keys', open: async () => storageOver(sqlEngine(betterSqliteDriver(legacySqlFile(join(sqliteDir, `${uniqueName('legacy')}.db`))), 'sqlite:legacy')) },
];

storageContract({ describe, it, expect }, BACKENDS, [(name: string) => openDexieStorage(name), memoryStorages(), sqliteStorage]);
