/**
 * The SQL engine's layouts (layout-sql.ts): a new store keys its integer-keyed tables by SQLite's
 * rowid, so their pages fill whole as memories append; a store from before keeps its tables as
 * they are and goes on working; a key an integer-keyed table cannot hold is refused, whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { sqlEngine } from '../src/adapters/sql/engine-sql.ts';
import { storeFile } from '../src/adapters/sql/node-store.ts';
import { LAYOUT_VERSION } from '../src/adapters/sql/layout-sql.ts';
import { MemoryError } from '../src/core/errors.ts';
import { INTEGER_KEYED, TABLE_NAMES } from '../src/core/storage/index.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { legacySqlFile } from './helpers/sql-layout.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-layout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each store table's row-table DDL, by table name. */
function rowTables(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name LIKE 't\\_%' ESCAPE '\\'`).all() as { name: string; sql: string }[];
    return Object.fromEntries(rows.map((r) => [r.name.slice(2), r.sql]));
  } finally {
    db.close();
  }
}

const rowid = (sql: string): boolean => !/WITHOUT ROWID/i.test(sql);

describe('the SQL engine layout', () => {
  it('a new store keys labels and counters by rowid, every other table by key bytes', () => {
    const file = join(dir, 'new.db');
    sqlEngine(betterSqliteDriver(file), 'sqlite').close();
    const tables = rowTables(file);
    expect(Object.keys(tables).sort()).toEqual([...TABLE_NAMES].sort());
    for (const name of TABLE_NAMES) expect([name, rowid(tables[name]!)]).toEqual([name, INTEGER_KEYED.has(name)]);
    expect(tables.vectors).toMatch(/k INTEGER PRIMARY KEY/);
  });

  it('a store from before keeps its layout, and its rows, across opens', async () => {
    const file = legacySqlFile(join(dir, 'legacy.db'));
    let engine = sqlEngine(betterSqliteDriver(file), 'sqlite');
    await engine.transaction('rw', ['vectors', 'journal'], async (tx) => {
      await tx.put('vectors', [{ label: 4, vector: new Float32Array([4]), gen: 1 }]);
      await tx.add('journal', [{ ts: 1, id: 'a', group: 'g' }]);
    });
    engine.close();
    engine = sqlEngine(betterSqliteDriver(file), 'sqlite');
    const read = await engine.transaction('r', ['vectors', 'journal'], async (tx) => ({
      vector: (await tx.get<{ label: number }>('vectors', 4))?.label,
      journal: (await tx.query<{ seq: number }>('journal', { index: 'group', equals: 'g' })).map((e) => e.seq),
    }));
    engine.close();
    expect(read).toEqual({ vector: 4, journal: [1] });
    expect(Object.values(rowTables(file)).some(rowid)).toBe(false);
  });

  it("the file says which layouts it uses; one from a newer build is refused with SCHEMA_TOO_NEW, untouched", async () => {
    const version = (file: string): number => {
      const db = new Database(file, { readonly: true });
      try {
        return db.pragma('user_version', { simple: true }) as number;
      } finally {
        db.close();
      }
    };
    const fresh = join(dir, 'versioned.db');
    sqlEngine(betterSqliteDriver(fresh), 'sqlite').close();
    expect(version(fresh)).toBe(LAYOUT_VERSION);
    const legacy = legacySqlFile(join(dir, 'legacy-version.db'));
    sqlEngine(betterSqliteDriver(legacy), 'sqlite').close();
    expect(version(legacy)).toBe(0);

    const folder = join(dir, 'newer');
    const newer = storeFile(folder, 'later');
    await (await createMemory({ name: 'later', dir: folder, embedder: createHashEmbedder() })).close();
    const db = new Database(newer);
    db.pragma(`user_version = ${LAYOUT_VERSION + 1}`);
    const before = db.prepare('SELECT count(*) AS n FROM sqlite_schema').get();
    db.close();
    expect(() => sqlEngine(betterSqliteDriver(newer), 'sqlite')).toThrow(expect.objectContaining({ code: 'SCHEMA_TOO_NEW' }));
    const error = await createMemory({ name: 'later', dir: folder, embedder: createHashEmbedder() }).then(() => null, (e: MemoryError) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect(error?.code).toBe('SCHEMA_TOO_NEW');
    const after = new Database(newer, { readonly: true });
    expect(after.prepare('SELECT count(*) AS n FROM sqlite_schema').get()).toEqual(before);
    after.close();
  });

  it('a key an integer-keyed table cannot hold is a DataError, and the transaction writes nothing', async () => {
    const engine = sqlEngine(betterSqliteDriver(join(dir, 'refused.db')), 'sqlite');
    for (const label of ['seven', 2.5, [1]]) {
      const error = await engine
        .transaction('rw', ['vectors'], (tx) => tx.put('vectors', [{ label: 1, vector: new Float32Array([1]), gen: 0 }, { label, vector: new Float32Array([2]), gen: 0 }]))
        .then(() => null, (e: Error) => e);
      expect(error?.name).toBe('DataError');
    }
    expect(await engine.transaction('r', ['vectors'], (tx) => tx.count('vectors'))).toBe(0);
    engine.close();
  });

  it('an auto-increment counter, read once a call, still covers the rows of a call that failed part-way', async () => {
    const engine = sqlEngine(betterSqliteDriver(join(dir, 'counter.db')), 'sqlite');
    const keys = await engine.transaction('rw', ['trash'], async (tx) => {
      const first = await tx.add('trash', [{ id: 'a', deletedAt: 1 }]);
      const failed = await tx.add('trash', [{ id: 'b', deletedAt: 2 }, { seq: 1, id: 'again', deletedAt: 3 }]).then(() => null, (e: Error) => e.name);
      return { first, failed, next: await tx.add('trash', [{ id: 'c', deletedAt: 4 }]) };
    });
    expect(keys).toEqual({ first: [1], failed: 'ConstraintError', next: [3] });
    engine.close();
  });

  it("memories appended fill their vectors' pages whole (a WITHOUT ROWID table leaves about a fifth of each empty)", async () => {
    const memory = await createMemory({ name: 'pages', dir, embedder: createHashEmbedder({ dim: 384 }) });
    await memory.rememberMany(Array.from({ length: 1_500 }, (_, i) => `note ${i}: the parcel for flat ${i} waits at desk ${i % 9}`));
    await memory.close();
    const db = new Database(storeFile(dir, 'pages'), { readonly: true });
    const used = (table: string): number => {
      const { unused, size } = db.prepare(`SELECT sum(unused) AS unused, sum(pgsize) AS size FROM dbstat WHERE name = ? AND pagetype = 'leaf'`).get(table) as { unused: number; size: number };
      return 1 - unused / size;
    };
    const fill = { vectors: used('t_vectors'), memoryRows: used('t_memoryRows'), journal: used('t_journal') };
    db.close();
    expect(fill.vectors).toBeGreaterThan(0.95);
    expect(fill.memoryRows).toBeGreaterThan(0.95);
    expect(fill.journal).toBeGreaterThan(0.95);
  });
});
