/**
 * Writes made elsewhere (another realm: a tab, a worker, a build that writes the same database)
 * reach a store's read cache through the metadata row, which a search reads only when it may
 * have changed unseen: after the engine announced a write (Dexie announces every commit, other
 * realms' over its BroadcastChannel), or once the last look is older than the unannounced bound.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openDexieEngine } from '../src/adapters/storage-dexie.ts';
import { createMemoryEngine } from '../src/adapters/storage-memory.ts';
import { roundToHalf } from '../src/core/domain/half-float.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import type { JournalContext, MemoryStorage } from '../src/core/ports.ts';
import { storageOver, type StorageEngine, type TableName } from '../src/core/storage/index.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { uniqueName } from './helpers/store.ts';

const DIM = 8;
const META = { schemaVersion: 10, embedderId: 'test-embedder', dim: DIM, generation: 0, nextLabel: 0, createdAt: NOW };
const vec = (seed: number): Float32Array => roundToHalf(Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7 + i)));
let groups = 0;
const ctx = (): JournalContext => ({ ts: NOW, op: 'remember', actor: 'lib', group: `g${++groups}`, meta: {} });

/** What a search asks of storage: the statistics and the candidates, side by side, as recall does. */
async function search(storage: MemoryStorage, text: string): Promise<string[]> {
  const [, { candidates }] = await Promise.all([storage.lexicalStats(), storage.lexicalCandidates(lexicalTerms(text), 10)]);
  return candidates.map((c) => c.memory.id);
}

/** `engine` as another realm would hold it: no id shared with this realm's handles, and counting reads of the metadata row. */
function elsewhere(engine: StorageEngine, announce: boolean): { engine: StorageEngine; metaReads: () => number } {
  let reads = 0;
  return {
    engine: {
      transaction: (mode, tables, body, options) => {
        if (mode === 'r' && tables.length === 1 && tables[0] === 'meta') reads++;
        return engine.transaction(mode, tables, body, options);
      },
      mapError: (error, operation) => engine.mapError(error, operation),
      close: () => undefined,
      ...(announce && engine.watch ? { watch: (listener: (tables: readonly TableName[]) => void) => engine.watch!(listener) } : {}),
    },
    metaReads: () => reads,
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('writes made elsewhere', () => {
  it('a search reads the metadata row only when it may have changed unseen, not before every search', async () => {
    const quiet = elsewhere(createMemoryEngine(), false);
    const s = storageOver(quiet.engine, { unannouncedWritesSeenWithin: 60_000 });
    await s.initMeta(META);
    await s.insert([makeMemory('a', 'the staging cluster'), makeMemory('b', 'production cluster')], [vec(1), vec(2)], ctx());
    for (let i = 0; i < 20; i++) expect(await search(s, 'staging cluster')).toEqual(['a', 'b']);
    // Its own commits told it what the row holds.
    expect(quiet.metaReads()).toBe(0);
    // Bound 0: read before every search, as before the bound existed.
    const every = elsewhere(createMemoryEngine(), false);
    const t = storageOver(every.engine, { unannouncedWritesSeenWithin: 0 });
    await t.initMeta(META);
    await t.insert([makeMemory('a', 'the staging cluster')], [vec(1)], ctx());
    for (let i = 0; i < 20; i++) await search(t, 'staging');
    expect(every.metaReads()).toBe(20);
  });

  it('an announced write elsewhere is seen by the next search, whatever the bound', async () => {
    const name = uniqueName('foreign-announced');
    const engine = await openDexieEngine(name);
    const here = elsewhere(engine, true);
    const one = storageOver(here.engine, { unannouncedWritesSeenWithin: 60_000 });
    const two = storageOver(elsewhere(engine, true).engine);
    await one.initMeta(META);
    await one.insert([makeMemory('a', 'the staging cluster')], [vec(1)], ctx());
    expect(await search(one, 'staging cluster')).toEqual(['a']);
    const before = here.metaReads();
    for (let i = 0; i < 5; i++) await search(one, 'staging cluster');
    // Nothing announced since the first search's read: no more reads.
    expect(here.metaReads()).toBe(before);
    // A write that leaves the metadata row alone (a recall's touch) cannot change what the read compares.
    await two.touch(['a'], NOW + 5);
    await search(one, 'staging cluster');
    expect(here.metaReads()).toBe(before);
    await two.insert([makeMemory('b', 'staging cluster two')], [vec(2)], ctx());
    expect(await search(one, 'two')).toEqual(['b']);
    expect(here.metaReads()).toBe(before + 1);
    engine.close();
  });

  it('a writer it never hears from is seen within the bound', async () => {
    const name = uniqueName('foreign-silent');
    const engine = await openDexieEngine(name);
    const one = storageOver(elsewhere(engine, false).engine, { unannouncedWritesSeenWithin: 40 });
    const at = storageOver(elsewhere(engine, false).engine, { unannouncedWritesSeenWithin: 0 });
    const two = storageOver(elsewhere(engine, false).engine);
    await one.initMeta(META);
    await one.insert([makeMemory('a', 'the staging cluster')], [vec(1)], ctx());
    expect(await search(one, 'staging cluster')).toEqual(['a']);
    expect(await search(at, 'staging cluster')).toEqual(['a']);
    await two.insert([makeMemory('b', 'staging cluster two')], [vec(2)], ctx());
    // Bound 0 reads the row before every search: seen at once.
    expect(await search(at, 'two')).toEqual(['b']);
    await pause(60);
    expect(await search(one, 'two')).toEqual(['b']);
    engine.close();
  });

  it("Dexie's announcements from another realm reach the engine's watch, for its own database only", async () => {
    const name = uniqueName('foreign-channel');
    const engine = await openDexieEngine(name);
    const heard: (readonly TableName[])[] = [];
    const stop = engine.watch!((tables) => heard.push(tables));
    // Another realm's Dexie posts the parts its commit changed on this channel (dexie.mjs).
    const channel = new BroadcastChannel('x-storagemutated-1');
    channel.postMessage({ [`idb://houkai-some-other-store/meta/`]: {} });
    await pause(50);
    expect(heard).toHaveLength(0);
    const database = (engine.id ?? '').replace(/^indexeddb:/, '');
    channel.postMessage({ [`idb://${database}/meta/`]: {}, [`idb://${database}/meta/:dels`]: {}, [`idb://${database}/memoryRows/label`]: {} });
    await pause(50);
    expect(heard).toEqual([['meta', 'memoryRows']]);
    stop();
    channel.postMessage({ [`idb://${database}/meta/`]: {} });
    await pause(50);
    expect(heard).toHaveLength(1);
    channel.close();
    engine.close();
  });
});
