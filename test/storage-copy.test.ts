/**
 * A store copied between storage engines (core/storage/copy.ts, what moveMemory runs between
 * IndexedDB and OPFS): every table, keys and auto-increment numbering kept, the metadata row
 * last; cancelled, the target holds no store. Over Node's engines here (Dexie on fake-indexeddb,
 * SQLite, in memory); e2e/contracts-opfs.ts moves real stores in Chromium.
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { sqlEngine } from '../src/adapters/sql/engine-sql.ts';
import { openDexieEngine } from '../src/adapters/storage-dexie.ts';
import { createMemoryEngine } from '../src/adapters/storage-memory.ts';
import { copyEngine, holdsPartialCopy, holdsStore } from '../src/core/storage/copy.ts';
import { storageOver, TABLE_NAMES, type StorageEngine } from '../src/core/storage/index.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/names.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-copy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqlite = (): StorageEngine => sqlEngine(betterSqliteDriver(join(dir, `${uniqueName('copy')}.sqlite`)), 'sqlite');

/** Every row of every table, as plain data. */
async function dump(engine: StorageEngine): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLE_NAMES) out[t] = await engine.transaction('r', [t], (tx) => tx.query(t));
  return out;
}

/** A store with a life behind it (rows, vectors, journal, a forget, an undo), on `engine`. */
async function seed(engine: StorageEngine): Promise<void> {
  // The store's close leaves the engine open: the test copies it next.
  const kept: StorageEngine = { id: engine.id, transaction: (mode, names, body) => engine.transaction(mode, names, body), mapError: (e, op) => engine.mapError(e, op), close() {} };
  const memory = await createMemory({ name: uniqueName('seed'), storage: () => storageOver(kept), embedder: createHashEmbedder(), index: 'exact', conflicts: { policy: 'review' } });
  const made = await memory.rememberMany(Array.from({ length: 120 }, (_, i) => ({ text: `fact ${i} about ${['maps', 'tea', 'rain'][i % 3]}`, tags: [`t${i % 4}`] })));
  await memory.remember('Use pnpm, not npm');
  await memory.remember('Use npm, not pnpm');
  await memory.forget(made[3]!.memory.id);
  await memory.undo();
  await memory.forget(made[5]!.memory.id);
  await memory.close();
}

describe('copyEngine', () => {
  for (const [name, from, to] of [
    ['dexie → sqlite', () => openDexieEngine(uniqueName('a')), async () => sqlite()],
    ['sqlite → dexie', async () => sqlite(), () => openDexieEngine(uniqueName('b'))],
    ['memory → sqlite', async () => createMemoryEngine(), async () => sqlite()],
  ] as const) {
    it(`${name}: every table row for row (the metadata last), and the auto-increment numbering goes on`, async () => {
      const source = await from();
      await seed(source);
      const target = await to();
      const progress: number[] = [];
      const rows = await copyEngine(source, target, { batch: 50, onProgress: (done, total) => void progress.push(done / total) });
      expect(await dump(target)).toEqual(await dump(source));
      expect(rows).toBeGreaterThan(250);
      expect(progress.at(-1)).toBe(1);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      // The auto-increment numbering goes on where the source's stopped.
      const [lastSource] = await source.transaction('r', ['journal'], (tx) => tx.keys('journal', { reverse: true, limit: 1 }));
      const [added] = await target.transaction('rw', ['journal'], (tx) => tx.add('journal', [{ ts: 1, op: 'x', actor: 'lib', id: '*', group: 'g' }]));
      expect(added).toBe((lastSource!.primaryKey as number) + 1);
      source.close();
      target.close();
    });
  }

  it('cancelled between batches: ABORTED, and the target holds no store', async () => {
    const source = await openDexieEngine(uniqueName('c'));
    await seed(source);
    const target = sqlite();
    const controller = new AbortController();
    await expect(copyEngine(source, target, { batch: 20, signal: controller.signal, onProgress: (done) => done >= 40 && controller.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await holdsStore(target)).toBe(false);
    expect(await holdsStore(source)).toBe(true);
    // What it left is recognised as a copy cut short (an OPFS store opened over it starts afresh).
    expect(await holdsPartialCopy(target)).toBe(true);
    expect([await holdsPartialCopy(source), await holdsPartialCopy(createMemoryEngine())]).toEqual([false, false]);
    await expect(copyEngine(createMemoryEngine(), target)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    source.close();
    target.close();
  });
});
