/**
 * A store always opens (issue #31): a row whose stored vector nothing can be searched with — as a
 * version that did not check what a sync brought could write (3e38 components, zeros) — is left
 * out of the index on every open, whatever the index kind, and the store answers.
 */
import { describe, expect, it } from 'vitest';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { makeMemory } from './helpers/memory.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';

describe('a stored vector nothing can search with', () => {
  it('does not keep the store from opening with any index', async () => {
    const name = uniqueName('unusable');
    const embedder = createHashEmbedder();
    const first = await openTestStore({ name, embedder, index: 'hnsw' });
    await first.remember('a good memory about deploys');
    await first.close();
    // What the old sync path could commit: rows whose vectors are huge or zero.
    const storage = await openDexieStorage(name);
    const bad = (id: string, fill: number) => ({ memory: makeMemory(id, `the ${id} memory`), vector: new Float32Array(embedder.dim).fill(fill) });
    const rows = [bad('huge', 3e38), bad('zero', 0)];
    await storage.insert(rows.map((r) => r.memory), rows.map((r) => r.vector), { actor: 'test', op: 'remember' } as never);
    storage.close();
    for (const index of ['hnsw', 'hnsw-i8', 'exact'] as const) {
      const store = await openTestStore({ name, embedder, index });
      try {
        expect(await store.count()).toBe(3);
        expect((await store.get('huge'))?.text).toBe('the huge memory');
        const [hit] = await store.recall('a good memory about deploys', { k: 1, mode: 'semantic', touch: false });
        expect(hit!.memory.text).toBe('a good memory about deploys');
      } finally {
        await store.close();
      }
    }
  });
});
