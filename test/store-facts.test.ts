/**
 * Issue #30 (recall at a million in Chromium, where every IndexedDB request costs 0.3–0.9 ms):
 * the whole-store facts every recall asks (any positive polarity, which link relations exist,
 * the pending review records) are read once and then kept by the store's own writes
 * (core/storage/store-facts.ts). Kept, they must always say what a fresh read of storage says.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../src/adapters/storage-memory.ts';
import { KEEP_BOTH_REL } from '../src/core/domain/review.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import { storageOver } from '../src/core/storage/index.ts';
import { createMemory } from '../src/local.ts';
import { PhaseLedger, timedEngine } from '../e2e/profiling.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';

async function opened() {
  const engine = createMemoryEngine();
  // Every storage call, by name (`idb query memories.linkTargets`…), counted at the engine.
  const reads = new PhaseLedger();
  const storage = storageOver(timedEngine(engine, reads));
  const store = await createMemory({ name: 'facts', embedder: createHashEmbedder(), index: 'exact', storage: () => storage });
  /** What storage says, read afresh (a new cache over the same data). */
  const fresh = (): MemoryStorage => storageOver(engine);
  return { store, storage, fresh, reads };
}

describe('whole-store facts kept between recalls', () => {
  it('a recall asks storage for none of them once known', async () => {
    const { store, reads } = await opened();
    await store.rememberMany(['The standup is at 9:30', 'We deploy on Fridays', 'Use pnpm in the monorepo']);
    // The first recalls of each mode learn the facts (semantic recall asks about polarity).
    await store.recall('when is the standup?', { touch: false });
    await store.recall('when is the standup?', { touch: false, mode: 'semantic' });
    reads.take();
    await store.recall('what package manager?', { touch: false });
    await store.recall('deploy day', { touch: false, mode: 'semantic' });
    // The link-target index, the positive-polarity index and the review queue: not read again.
    expect(Object.keys(reads.take()).filter((what) => what.startsWith('idb ') && /linkTargets|positive|conflicts/.test(what))).toEqual([]);
    await store.close();
  });

  it('stay what a fresh read says through positive memories, forgets, review and "keep both"', async () => {
    const { store, storage, fresh } = await opened();
    const agree = async (ids: string[]) => {
      const now = fresh();
      expect(await storage.hasPositivePolarity()).toBe(await now.hasPositivePolarity());
      expect(await storage.listConflicts('pending')).toEqual(await now.listConflicts('pending'));
      const byTarget = (m: Map<string, { from: string; rel: string }[]>) => Object.fromEntries([...m].filter(([, l]) => l.length).sort());
      expect(byTarget(await storage.incomingMany!(ids, KEEP_BOTH_REL))).toEqual(byTarget(await now.incomingMany!(ids, KEEP_BOTH_REL)));
    };
    const a = await store.remember('The office is in Berlin');
    await agree([a.memory.id]);
    const good = await store.remember('The new coffee machine is great', { polarity: 1 });
    await agree([a.memory.id]);
    expect(await storage.hasPositivePolarity()).toBe(true);
    // The only positive memory goes: the lift must go with it.
    await store.forget(good.memory.id);
    await agree([a.memory.id]);
    expect(await storage.hasPositivePolarity()).toBe(false);
    // Polarity edited on and off again.
    await store.edit(a.memory.id, { polarity: 1 });
    await agree([a.memory.id]);
    await store.edit(a.memory.id, { polarity: 0 });
    await agree([a.memory.id]);
    // A pair waiting in review, then kept both: contradicts links appear.
    const fridays = await store.remember('We deploy on Fridays', { onConflict: 'review' });
    const never = await store.remember('We never deploy on Fridays', { onConflict: 'review' });
    const ids = [a.memory.id, fridays.memory.id, never.memory.id];
    await agree(ids);
    expect(await storage.listConflicts('pending')).toHaveLength(1);
    const [pending] = await store.listPendingConflicts();
    await store.resolveConflict(pending!.id, 'keep_both');
    await agree(ids);
    expect(await storage.listConflicts('pending')).toHaveLength(0);
    expect((await storage.incomingMany!(ids, KEEP_BOTH_REL)).get(fridays.memory.id)?.map((l) => l.from)).toEqual([never.memory.id]);
    // An undo takes the decision back.
    await store.undo();
    await agree(ids);
    await store.close();
  });

  it('a caller that changes the pending records it got changes nothing kept', async () => {
    const { store, storage } = await opened();
    await store.remember('We deploy on Fridays', { onConflict: 'review' });
    await store.remember('We never deploy on Fridays', { onConflict: 'review' });
    const first = await storage.listConflicts('pending');
    first[0]!.status = 'resolved';
    first.pop();
    const again = await storage.listConflicts('pending');
    expect(again).toHaveLength(1);
    expect(again[0]!.status).toBe('pending');
    await store.close();
  });
});
