// A store on OPFS through createMemory, in the contracts worker (e2e/contracts.worker.ts): written,
// closed, reopened from its files (its int8 index from its blocks, not rebuilt), kept apart from
// the IndexedDB store of the same name, deleted; moved from IndexedDB and back (moveMemory); and
// the options it refuses.
import { openOpfsEngine, opfsStoreNames } from '../src/adapters/sql/opfs-store.ts';
import { databaseName } from '../src/adapters/storage-dexie.ts';
import type { ProgressEvent } from '../src/core/types.ts';
import { createMemory, deleteMemory, moveMemory, type CreateMemoryOptions } from '../src/local.ts';
import type { TestApi } from '../test/contracts/api.ts';
import { createHashEmbedder } from '../test/helpers/fake-embedder.ts';
import { uniqueName } from '../test/helpers/names.ts';

export function opfsStoreSuite({ describe, it, expect }: TestApi): void {
  const open = (name: string, options: CreateMemoryOptions = {}) => createMemory({ name, storage: 'opfs', embedder: createHashEmbedder(), ...options });

  describe('a store on OPFS (createMemory)', () => {
    it('keeps its memories and its index across a close and a reopen, apart from the IndexedDB store of its name', async () => {
      const name = uniqueName('opfs-store');
      const texts = Array.from({ length: 300 }, (_, i) => `memory number ${i} about ${['gardens', 'trains', 'tea', 'rivers', 'maps'][i % 5]} and item ${i * 7}`);
      const first = await open(name);
      await first.rememberMany(texts);
      const before = (await first.recall('item 2037 trains', { k: 3, touch: false })).map((h) => h.memory.text);
      expect(before[0]).toBe(texts[291]);
      await first.flush();
      await first.close();
      expect(await opfsStoreNames()).toContain(name);

      // The IndexedDB store of the same name is another store.
      const other = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });
      expect(await other.count()).toBe(0);
      await other.remember('only in IndexedDB');
      await other.close();

      const progress: ProgressEvent[] = [];
      const again = await open(name, { onProgress: (e) => void progress.push(e) });
      expect(await again.count()).toBe(300);
      expect((await again.recall('item 2037 trains', { k: 3, touch: false })).map((h) => h.memory.text)).toEqual(before);
      // The int8 index came back from its blocks in OPFS: nothing was rebuilt.
      expect(progress.filter((e) => e.kind === 'index-rebuild')).toEqual([]);
      expect((await again.stats()).active).toBe(300);
      await again.close();

      await deleteMemory(name, { storage: 'opfs' });
      expect(await opfsStoreNames()).not.toContain(name);
      const empty = await open(name);
      expect(await empty.count()).toBe(0);
      await empty.close();
      await deleteMemory(name, { storage: 'opfs' });
      await deleteMemory(name);
    });

    it('moves from IndexedDB to OPFS and back: the same answers, the index from its snapshot, the old copy gone', async () => {
      const name = uniqueName('move');
      const texts = Array.from({ length: 250 }, (_, i) => `moved memory ${i}: the ${['owl', 'fox', 'hare', 'wren', 'stoat'][i % 5]} of hedge ${i * 3}`);
      const source = await createMemory({ name, embedder: createHashEmbedder(), index: 'hnsw-i8' });
      await source.rememberMany(texts.map((text) => ({ text, tags: ['moved'] })));
      await source.forget((await source.recall('the owl of hedge 0', { k: 1, touch: false }))[0]!.memory.id);
      const ask = async (memory: Awaited<ReturnType<typeof open>>) => ({
        count: await memory.count(),
        top: (await memory.recall('the wren of hedge 39', { k: 5, touch: false })).map((h) => [h.memory.id, h.memory.text]),
        journal: (await memory.journalCalls(5)).map((c) => [c.op, c.memories]),
      });
      const before = await ask(source);
      await source.flush();
      await source.close();

      const progress: number[] = [];
      const moved = await moveMemory(name, 'opfs', { batch: 100, onProgress: (e) => void (e.kind === 'move' && progress.push(e.done / e.total)) });
      expect(moved.index).toBe('copied');
      expect(progress.at(-1)).toBe(1);
      expect(progress.length).toBeGreaterThan(3);
      const events: ProgressEvent[] = [];
      const onOpfs = await open(name, { onProgress: (e) => void events.push(e) });
      expect(await ask(onOpfs)).toEqual(before);
      expect(events.filter((e) => e.kind === 'index-rebuild')).toEqual([]);
      expect(onOpfs.opened).toBe('snapshot');
      await onOpfs.close();
      // The IndexedDB copy is gone: opening that store now finds an empty one.
      const emptied = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });
      expect(await emptied.count()).toBe(0);
      await emptied.close();
      await deleteMemory(name);

      await moveMemory(name, 'indexeddb');
      const back = await createMemory({ name, embedder: createHashEmbedder() });
      expect(await ask(back)).toEqual(before);
      expect(back.opened).toBe('snapshot');
      await back.close();
      expect(await opfsStoreNames()).not.toContain(name);
      await deleteMemory(name);
    });

    it('a move refuses a taken name and a missing store, and a cancelled one keeps the source whole', async () => {
      const name = uniqueName('move-refused');
      const idb = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });
      await idb.rememberMany(Array.from({ length: 120 }, (_, i) => `kept in IndexedDB ${i}`));
      await idb.close();
      const nothing = uniqueName('nothing');
      await expect(moveMemory(nothing, 'opfs')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      // Looking for it left no empty database behind.
      expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(databaseName(nothing));

      const controller = new AbortController();
      await expect(moveMemory(name, 'opfs', { batch: 20, signal: controller.signal, onProgress: (e) => e.kind === 'move' && e.done >= 40 && controller.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
      expect(await opfsStoreNames()).not.toContain(name);
      const still = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });
      expect(await still.count()).toBe(120);
      await still.close();

      const taken = await open(name);
      await taken.remember('already on OPFS');
      await taken.close();
      await expect(moveMemory(name, 'opfs')).rejects.toMatchObject({ code: 'STORE_EXISTS' });
      const both = [await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' }), await open(name)];
      expect(await Promise.all(both.map((m) => m.count()))).toEqual([120, 1]);
      for (const m of both) await m.close();
      await deleteMemory(name);
      await deleteMemory(name, { storage: 'opfs' });
    });

    it('what a move cut short left in OPFS (rows, no metadata row) is not opened as a store', async () => {
      const name = uniqueName('cut-short');
      const engine = await openOpfsEngine(name);
      await engine.transaction('rw', ['journal'], (tx) => tx.put('journal', [{ seq: 1, ts: 1, op: 'remember', actor: 'lib', id: 'm1', group: 'g1' }]));
      engine.close();
      const memory = await open(name);
      expect(await memory.count()).toBe(0);
      expect(await memory.journalCalls(10)).toEqual([]);
      await memory.close();
      await deleteMemory(name, { storage: 'opfs' });
    });

    it('refuses what an OPFS store cannot be, with INVALID_ARGUMENT', async () => {
      await expect(open(uniqueName('opfs-bad'), { index: 'hnsw' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'index' } });
      await expect(createMemory({ name: 'x', storage: 'floppy' as never, embedder: createHashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'storage' } });
    });
  });
}
