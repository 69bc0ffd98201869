// A store on OPFS through createMemory, in the contracts worker (e2e/contracts.worker.ts): written,
// closed, reopened from its files (its int8 index from its blocks, not rebuilt), kept apart from
// the IndexedDB store of the same name, deleted; and the options it refuses.
import { opfsStoreNames } from '../src/adapters/sql/opfs-store.ts';
import type { ProgressEvent } from '../src/core/types.ts';
import { createMemory, deleteMemory, type CreateMemoryOptions } from '../src/local.ts';
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

    it('refuses what an OPFS store cannot be, with INVALID_ARGUMENT', async () => {
      await expect(open(uniqueName('opfs-bad'), { index: 'hnsw' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'index' } });
      await expect(createMemory({ name: 'x', storage: 'floppy' as never, embedder: createHashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'storage' } });
    });
  });
}
