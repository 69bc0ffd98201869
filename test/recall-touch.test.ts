/**
 * A recall's touch (each returned memory's access time and count) is written behind the answer:
 * the recall does not wait for it, every later call of the store and its close do, and a touch
 * that fails leaves the answer and the store as they were.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../src/adapters/storage-memory.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';

/** A storage whose touches wait for `release()` (or fail, with `fail`). */
function gatedTouches(fail = false): { storage: (name: string) => MemoryStorage; release: () => void; touches: () => number } {
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let touches = 0;
  const storage = (): MemoryStorage => {
    const inner = createMemoryStorage();
    return {
      ...inner,
      touch: async (ids, now) => {
        await gate;
        if (fail) throw new Error('disk full');
        touches++;
        return inner.touch(ids, now);
      },
    };
  };
  return { storage, release: () => release(), touches: () => touches };
}

const TEXTS = ['The staging cluster runs on three nodes.', 'Lunch with the design team on Friday.', 'The release pipeline deploys from main.'];

describe('a recall written behind its touch', () => {
  it('answers before its touch lands; the next call and the close wait for it', async () => {
    const gated = gatedTouches();
    const store = await createMemory({ name: 'touch-behind', embedder: createHashEmbedder({ dim: 16 }), index: 'exact', storage: gated.storage });
    const [id] = (await store.rememberMany(TEXTS)).map((r) => r.memory.id);
    const before = (await store.get(id!))!;
    // The touch waits on the gate, yet the recall answers, with the memory as touched.
    const hits = await store.recall('staging cluster nodes', { k: 1 });
    expect(hits[0]!.memory.id).toBe(id);
    expect(hits[0]!.memory.accessCount).toBe(before.accessCount + 1);
    expect(gated.touches()).toBe(0);
    // The next call waits for the touch: it cannot answer while the gate holds it.
    let read: number | null = null;
    const reading = store.get(id!).then((m) => void (read = m!.accessCount));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(read).toBeNull();
    gated.release();
    await reading;
    expect(read).toBe(before.accessCount + 1);
    expect(gated.touches()).toBe(1);
    // Another recall's touch, then the close: the close lands it first.
    await store.recall('staging cluster nodes', { k: 1 });
    await store.close();
    expect(gated.touches()).toBe(2);
  });

  it('a touch that fails leaves the answer and the store as they were', async () => {
    const gated = gatedTouches(true);
    const store = await createMemory({ name: 'touch-fails', embedder: createHashEmbedder({ dim: 16 }), index: 'exact', storage: gated.storage });
    const [id] = (await store.rememberMany(TEXTS)).map((r) => r.memory.id);
    const hits = await store.recall('staging cluster nodes', { k: 1 });
    expect(hits[0]!.memory.id).toBe(id);
    gated.release();
    expect((await store.get(id!))!.accessCount).toBe(0);
    expect((await store.recall('staging cluster nodes', { k: 1, touch: false }))[0]!.memory.id).toBe(id);
    await store.close();
  });
});
