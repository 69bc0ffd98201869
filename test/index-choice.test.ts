/**
 * A store keeps its vector index (#30 item 6): opened without `index` it stays on the index it
 * has; opened with another it moves — rebuilt from the stored vectors with progress — and the
 * old index's files are deleted, not left behind. A store from before the record is recognised
 * by its int8 blocks.
 */
import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { INDEX_SETTING, keptIndex, settleIndex } from '../src/adapters/index-choice.ts';
import { databaseName } from '../src/adapters/storage-dexie.ts';
import { snapshotFileName } from '../src/adapters/index-hnsw.ts';
import { createMemory, type CreateMemoryOptions, type LocalMemory, type ProgressEvent } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const texts = Array.from({ length: 60 }, (_, i) => `note ${i} about ${['deploys', 'reviews', 'lunch', 'the office'][i % 4]}`);

const open = (name: string, extra: Partial<CreateMemoryOptions> = {}): Promise<LocalMemory> =>
  createMemory({ name, embedder: createHashEmbedder({ id: 'hash', dim: 64 }), snapshotDelayMs: 20, maintenance: { enabled: false }, ...extra });

async function countRows(database: string, table: string): Promise<number> {
  const raw = new Dexie(database);
  await raw.open();
  try {
    return raw.tables.some((t) => t.name === table) ? await raw.table(table).count() : 0;
  } finally {
    raw.close();
  }
}

/** Records of hnswlib's snapshot file in its own IndexedDB file system (emscripten's IDBFS). */
async function hnswRecords(name: string): Promise<number> {
  const file = snapshotFileName(name);
  const dbs = (await indexedDB.databases()).map((d) => d.name!).filter((n) => n.includes('hnsw') || n.startsWith('/'));
  let found = 0;
  for (const db of dbs) {
    const raw = new Dexie(db);
    await raw.open();
    try {
      for (const table of raw.tables) found += (await table.toCollection().primaryKeys()).filter((k) => String(k).includes(file)).length;
    } finally {
      raw.close();
    }
  }
  return found;
}

async function recallsItself(store: LocalMemory): Promise<void> {
  for (const text of [texts[0]!, texts[41]!]) expect((await store.recall(text, { k: 1, touch: false }))[0]!.memory.text).toBe(text);
}

describe('a store keeps its vector index', () => {
  it('opened without `index`, stays on the one it has; moved, rebuilds with progress and deletes the old files; moved back, the same', async () => {
    const name = uniqueName('index-choice');
    const first = await open(name, { index: 'hnsw-i8' });
    await first.rememberMany(texts);
    await first.close();
    expect(await countRows(databaseName(name), 'indexBlocks')).toBeGreaterThan(0);

    // No `index`: the store stays on int8, from its snapshot (the new-store default would be hnswlib),
    // and says how much of the snapshot's blocks it has read (the app's "Loading the search index: n %").
    const loads: ProgressEvent[] = [];
    const kept = await open(name, { onProgress: (e) => void (e.kind === 'index-load' && loads.push(e)) });
    expect(kept.opened).toBe('snapshot');
    const blocks = (await countRows(databaseName(name), 'indexBlocks')) - 1; // the manifest is not a block
    expect(loads[0]).toEqual({ kind: 'index-load', done: 0, total: blocks });
    expect(loads.at(-1)).toEqual({ kind: 'index-load', done: blocks, total: blocks });
    expect((await kept.stats()).index.kind).toBe('hnsw-i8');
    await kept.close();

    // Moved to hnswlib: rebuilt from the stored vectors with progress; the int8 blocks are gone.
    const progress: ProgressEvent[] = [];
    const moved = await open(name, { index: 'hnsw', onProgress: (e) => progress.push(e) });
    expect(moved.opened).toBe('rebuilt');
    expect(progress).toContainEqual({ kind: 'index-rebuild', done: texts.length, total: texts.length });
    expect(await countRows(databaseName(name), 'indexBlocks')).toBe(0);
    await recallsItself(moved);
    await moved.close();
    expect(await hnswRecords(name)).toBeGreaterThan(0);

    // It stays there: the next open without `index` loads hnswlib's snapshot.
    const again = await open(name);
    expect(again.opened).toBe('snapshot');
    expect((await again.stats()).index.kind).toBe('hnsw');
    await again.close();

    // And back: hnswlib's file goes, the int8 index is rebuilt.
    const back = await open(name, { index: 'hnsw-i8' });
    expect(back.opened).toBe('rebuilt');
    expect(await hnswRecords(name)).toBe(0);
    await recallsItself(back);
    await back.close();
  }, 60_000);

  it('a store from before the record: its int8 blocks say hnsw-i8; a new store gets the default', async () => {
    const name = uniqueName('index-choice-old');
    const first = await open(name, { index: 'hnsw-i8' });
    await first.rememberMany(texts.slice(0, 10));
    await first.close();
    // Take the record away, as a store written before it has none.
    const raw = new Dexie(databaseName(name));
    await raw.open();
    const meta = raw.table('meta');
    const keys = (await meta.toCollection().primaryKeys()).filter((k) => String(k).includes(INDEX_SETTING));
    expect(keys).toHaveLength(1);
    await meta.bulkDelete(keys);
    raw.close();
    const reopened = await open(name);
    expect(reopened.opened).toBe('snapshot');
    expect((await reopened.stats()).index.kind).toBe('hnsw-i8');
    await reopened.close();

    const fresh = await open(uniqueName('index-choice-new'));
    expect((await fresh.stats()).index.kind).toBe('hnsw');
    await fresh.close();
  }, 60_000);

  it('a deletion that fails does not fail the open: it is owed, and done at the next open', async () => {
    const settings = new Map<string, unknown>();
    const store = { getSetting: async (k: string) => settings.get(k), putSetting: async (k: string, v: unknown) => void settings.set(k, v) };
    const dropped: string[] = [];
    let fail = true;
    const drop = async (kind: string) => {
      if (fail) throw new Error('disk');
      dropped.push(kind);
    };
    await settleIndex(store, { kind: 'hnsw' }, 'hnsw-i8', drop);
    expect(await keptIndex(store, null)).toEqual({ kind: 'hnsw-i8', drop: 'hnsw' });
    fail = false;
    await settleIndex(store, await keptIndex(store, null), 'hnsw-i8', drop);
    expect(dropped).toEqual(['hnsw']);
    expect(await keptIndex(store, null)).toEqual({ kind: 'hnsw-i8' });
  });
});
