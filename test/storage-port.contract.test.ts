/**
 * The storage engine port's contract (core/storage/port.ts; the cases: test/contracts/
 * storage-port.cases.ts) in Node: Dexie over IndexedDB (fake-indexeddb here), the in-memory
 * tables and SQLite through better-sqlite3 (Chromium runs the same cases on IndexedDB and OPFS:
 * e2e/contracts.spec.ts). Everything a store keeps is written once over this port (core/storage/),
 * so a backend that passes this suite gets every rule; test/storage.contract.test.ts then checks
 * the rules themselves.
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlEngine } from '../src/adapters/sql/engine-sql.ts';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { openDexieEngine, SCHEMA_VERSIONS } from '../src/adapters/storage-dexie.ts';
import { compareKeys } from '../src/adapters/memory-tables.ts';
import { createMemoryEngine } from '../src/adapters/storage-memory.ts';
import { MAX_KEY, MIN_KEY, parseTable, TABLES, type Key } from '../src/core/storage/index.ts';
import { storagePortContract, type EngineCase } from './contracts/storage-port.cases.ts';
import { legacySqlFile } from './helpers/sql-layout.ts';
import { uniqueName } from './helpers/store.ts';

const sqliteDir = mkdtempSync(join(tmpdir(), 'houkai-port-'));
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));

const ENGINES: EngineCase[] = [
  { name: 'dexie', open: () => openDexieEngine(uniqueName('port')) },
  { name: 'memory', open: async () => createMemoryEngine() },
  { name: 'sqlite (better-sqlite3)', open: async () => sqlEngine(betterSqliteDriver(join(sqliteDir, `${uniqueName('port')}.db`)), 'sqlite') },
  { name: 'sqlite, a store from before integer keys', open: async () => sqlEngine(betterSqliteDriver(legacySqlFile(join(sqliteDir, `${uniqueName('port')}.db`))), 'sqlite') },
];

storagePortContract({ describe, it, expect }, ENGINES);

describe('the declared tables', () => {
  it('are where the Dexie schema history ends (the index block store keeps its own table)', () => {
    const latest: Record<string, string | null> = {};
    for (const { stores } of SCHEMA_VERSIONS) Object.assign(latest, stores);
    delete latest['indexBlocks'];
    // A table a version dropped (null) is gone.
    for (const [name, spec] of Object.entries(latest)) if (spec === null) delete latest[name];
    const norm = (spec: string) => parseTable(spec);
    expect(Object.fromEntries(Object.entries(latest).map(([k, v]) => [k, norm(v!)]))).toEqual(Object.fromEntries(Object.entries(TABLES).map(([k, v]) => [k, norm(v)])));
  });

  it('keys order as IndexedDB orders them', () => {
    const keys: Key[] = [MAX_KEY, ['a', 2], ['a'], 'b', 'a', '', 10, -1, MIN_KEY, ['a', 'b'], [1], []];
    expect([...keys].sort(compareKeys)).toEqual([MIN_KEY, -1, 10, '', 'a', 'b', [], [1], ['a'], ['a', 2], ['a', 'b'], MAX_KEY]);
    expect(keys.map((k) => indexedDB.cmp(k, 'a'))).toEqual(keys.map((k) => Math.sign(compareKeys(k, 'a'))));
  });
});
