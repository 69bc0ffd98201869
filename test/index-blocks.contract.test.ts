/**
 * The index block store's contract (test/contracts/index-blocks.cases.ts) in Node: IndexedDB
 * (fake-indexeddb) and SQLite through better-sqlite3. Chromium runs the same cases on IndexedDB
 * and on SQLite in OPFS, whose driver lends blobs from SQLite's memory (e2e/contracts.spec.ts).
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { sqlBlockStore } from '../src/adapters/sql/blocks-sql.ts';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { indexBlocksContract } from './contracts/index-blocks.cases.ts';
import { uniqueName } from './helpers/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

indexBlocksContract({ describe, it, expect }, [
  { name: 'IndexedDB', open: async () => idbBlockStore({ database: uniqueName('blocks'), create: true }) },
  { name: 'SQLite (better-sqlite3)', open: async () => sqlBlockStore(betterSqliteDriver(join(dir, `${uniqueName('blocks')}.db`))) },
]);
