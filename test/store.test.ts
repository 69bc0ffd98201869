import { describe, expect, it } from 'vitest';
import 'fake-indexeddb/auto';
import { createMemory, MemoryError } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { manualClock, openTestStore, uniqueName } from './helpers/store.ts';

describe('remember / get / forget', () => {
  it('stores a memory with every field and its defaults', async () => {
    const clock = manualClock(1_700_000_000.5);
    const store = await openTestStore({ clock });
    const { memory, conflicts, action } = await store.remember('  Deploys go through the staging cluster first.\n', {
      type: 'procedural',
      tags: ['deploy', 'infra'],
      importance: 0.8,
      source: 'user',
    });
    expect(action).toBe('stored');
    expect(conflicts).toEqual([]);
    expect(memory).toMatchObject({
      text: 'Deploys go through the staging cluster first.',
      type: 'procedural',
      tags: ['deploy', 'infra'],
      importance: 0.8,
      createdAt: 1_700_000_000.5,
      lastAccessed: 1_700_000_000.5,
      accessCount: 0,
      source: 'user',
      links: [],
      supersededBy: '',
      supersededAt: 0,
      polarity: 0,
      expiresAt: 0,
      pinned: false,
      trust: 'trusted',
      validFrom: 0,
      validUntil: 0,
    });
    expect(memory.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // sha256("deploys go through the staging cluster first.")[:32], as AI-Houkai computes it
    expect(memory.contentHash).toMatch(/^[0-9a-f]{32}$/);
    expect(await store.get(memory.id)).toEqual(memory);
    expect(await store.count()).toBe(1);
    expect(await store.forget(memory.id)).toBe(true);
    expect(await store.forget(memory.id)).toBe(false);
    expect(await store.get(memory.id)).toBeNull();
    expect(await store.count()).toBe(0);
    await store.close();
  });

  it('clamps importance and defaults type, importance and source', async () => {
    const store = await openTestStore();
    const hi = await store.remember('too important', { importance: 7 });
    const lo = await store.remember('not important', { importance: -1 });
    const plain = await store.remember('plain');
    expect(hi.memory.importance).toBe(1);
    expect(lo.memory.importance).toBe(0);
    expect(plain.memory).toMatchObject({ type: 'semantic', importance: 0.5, source: null, tags: [] });
    await store.close();
  });

  it('computes the content hash AI-Houkai records', async () => {
    const store = await openTestStore();
    const { memory } = await store.remember('Hello   WORLD');
    // python: hashlib.sha256(" ".join("Hello   WORLD".lower().split()).encode()).hexdigest()[:32]
    expect(memory.contentHash).toBe('b94d27b9934d3e08a52e52d7da7dabfa');
    await store.close();
  });
});

describe('recall', () => {
  it('ranks by cosine, touches hits and respects filters', async () => {
    const clock = manualClock();
    const store = await openTestStore({ clock });
    const a = (await store.remember('the cat sat on the mat', { type: 'episodic', tags: ['pets'], importance: 0.9 })).memory;
    const b = (await store.remember('the cat chased a dog in the park', { tags: ['pets'], importance: 0.2 })).memory;
    await store.remember('quarterly revenue grew by ten percent', { type: 'episodic' });
    clock.advance(60);
    const hits = await store.recall('cat mat', { k: 2 });
    expect(hits.map((h) => h.memory.id)).toEqual([a.id, b.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.score).toBeLessThanOrEqual(1.000001);
    expect(hits[0]!.memory.accessCount).toBe(1);
    expect(hits[0]!.memory.lastAccessed).toBe(clock.now());
    expect((await store.get(a.id))!.accessCount).toBe(1);

    expect((await store.recall('cat', { type: 'semantic' })).map((h) => h.memory.id)).toEqual([b.id]);
    expect((await store.recall('cat', { tag: 'pets', k: 10 })).length).toBe(2);
    expect((await store.recall('cat', { minImportance: 0.5, k: 10 })).map((h) => h.memory.id)).not.toContain(b.id);
    const untouched = await store.recall('cat', { touch: false });
    expect((await store.get(untouched[0]!.memory.id))!.accessCount).toBe(untouched[0]!.memory.accessCount);
    await store.close();
  });

  it('finds a filtered memory even when it ranks far below the over-fetch pool', async () => {
    const store = await openTestStore();
    await store.rememberMany(Array.from({ length: 300 }, (_, i) => `alpha beta gamma note ${i}`));
    const rare = (await store.remember('completely different words here', { type: 'feedback' })).memory;
    const hits = await store.recall('alpha beta gamma', { k: 1, type: 'feedback' });
    expect(hits.map((h) => h.memory.id)).toEqual([rare.id]);
    await store.close();
  });

  it('returns [] on an empty store and hides expired memories unless asked', async () => {
    const clock = manualClock();
    const store = await openTestStore({ clock });
    expect(await store.recall('anything')).toEqual([]);
    await store.remember('short lived fact', { expiresAt: clock.now() + 10 });
    expect(await store.recall('short lived fact')).toHaveLength(1);
    clock.advance(11);
    expect(await store.recall('short lived fact')).toHaveLength(0);
    expect(await store.recall('short lived fact', { includeExpired: true })).toHaveLength(1);
    await store.close();
  });
});

describe('edit', () => {
  it('keeps id and access tracking, re-embeds only when the text changes, and a no-op writes nothing', async () => {
    const clock = manualClock();
    const embedder = createHashEmbedder();
    const store = await openTestStore({ clock, embedder });
    const { memory } = await store.remember('we deploy on fridays');
    await store.recall('deploy fridays');
    const callsBefore = embedder.calls;
    const tagged = await store.edit(memory.id, { tags: ['deploy'], importance: 0.9 });
    expect(embedder.calls).toBe(callsBefore);
    expect(tagged).toMatchObject({ id: memory.id, tags: ['deploy'], importance: 0.9, accessCount: 1, createdAt: memory.createdAt });

    const same = await store.edit(memory.id, { tags: ['deploy'] });
    expect(same).toEqual(await store.get(memory.id));
    expect(embedder.calls).toBe(callsBefore);

    const retexted = await store.edit(memory.id, { text: 'we never deploy on fridays' });
    expect(embedder.calls).toBe(callsBefore + 1);
    expect(retexted.contentHash).not.toBe(memory.contentHash);
    const hits = await store.recall('never deploy', { k: 1 });
    expect(hits[0]!.memory.id).toBe(memory.id);
    expect(await store.count()).toBe(1);
    expect((await store.stats()).index.size).toBe(1);
    await store.close();
  });
});

describe('rememberMany', () => {
  it('writes in batches with ordered progress and returns one result per item', async () => {
    const store = await openTestStore();
    const events: string[] = [];
    const items = Array.from({ length: 25 }, (_, i) => (i % 2 ? `note number ${i}` : { text: `tagged note ${i}`, tags: ['t'] }));
    const results = await store.rememberMany(items, { batchSize: 10, onProgress: (e) => e.kind === 'write' && events.push(`${e.done}/${e.total}`) });
    expect(results).toHaveLength(25);
    expect(events).toEqual(['0/25', '10/25', '20/25', '25/25']);
    expect(await store.count()).toBe(25);
    expect(results[0]!.memory.tags).toEqual(['t']);
    await store.close();
  });

  it('stops between batches when cancelled, keeping what was written whole', async () => {
    const store = await openTestStore();
    const controller = new AbortController();
    const items = Array.from({ length: 40 }, (_, i) => `item ${i}`);
    const run = store.rememberMany(items, {
      batchSize: 10,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.kind === 'write' && e.done === 20) controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await store.count()).toBe(20);
    expect((await store.stats()).index.size).toBe(20);
    await store.close();
  });
});

describe('listRecent, count, stats', () => {
  it('lists newest first with a keyset cursor and hides superseded or expired rows', async () => {
    const clock = manualClock(1000);
    const store = await openTestStore({ clock });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await store.remember(`memory ${i}`, { type: i % 2 ? 'episodic' : 'semantic' })).memory.id);
      clock.advance(1);
    }
    expect((await store.listRecent()).map((m) => m.id)).toEqual([...ids].reverse());
    expect((await store.listRecent({ limit: 2 })).map((m) => m.id)).toEqual([ids[4], ids[3]]);
    expect((await store.listRecent({ before: 1002 })).map((m) => m.id)).toEqual([ids[1], ids[0]]);
    expect(await store.listRecent({ limit: 0 })).toEqual([]);
    // Ties: a batch shares one createdAt; paging by (createdAt, label) visits every row once, in write order, newest first.
    const batch = (await store.rememberMany(Array.from({ length: 7 }, (_, i) => `tied ${i}`))).map((r) => r.memory.id);
    const seen: string[] = [];
    let page = await store.listRecent({ limit: 3 });
    while (page.length) {
      seen.push(...page.map((m) => m.id));
      const last = page[page.length - 1]!;
      page = await store.listRecent({ limit: 3, before: last.createdAt, beforeId: last.id });
    }
    expect(seen).toEqual([...batch].reverse().concat([...ids].reverse()));
    const stats = await store.stats();
    expect(stats).toMatchObject({ count: 12, active: 12, superseded: 0, byType: { semantic: 10, episodic: 2, procedural: 0, feedback: 0 } });
    expect(stats.embedder).toEqual({ id: 'hash-128', dim: 128 });
    expect(stats.index.kind).toBe('exact');
    await store.close();
  });
});

describe('isolation and lifecycle', () => {
  it('keeps named stores apart', async () => {
    const a = await openTestStore();
    const b = await openTestStore();
    await a.remember('only in a');
    expect(await a.count()).toBe(1);
    expect(await b.count()).toBe(0);
    expect(await b.recall('only in a')).toEqual([]);
    await a.close();
    await b.close();
  });

  it('refuses calls after close with CLOSED', async () => {
    const store = await openTestStore();
    await store.close();
    await expect(store.count()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('records the embedder and refuses another one unless asked to reindex', async () => {
    const name = uniqueName();
    const first = await createMemory({ name, embedder: createHashEmbedder({ dim: 32, id: 'model-a' }), index: 'exact' });
    await first.rememberMany(['red apples', 'green pears', 'yellow bananas']);
    await first.close();

    const other = createHashEmbedder({ dim: 48, id: 'model-b' });
    const refused = createMemory({ name, embedder: other, index: 'exact' });
    await expect(refused).rejects.toBeInstanceOf(MemoryError);
    await expect(createMemory({ name, embedder: other, index: 'exact' })).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
    await expect(createMemory({ name, embedder: createHashEmbedder({ dim: 16, id: 'model-a' }), index: 'exact' })).rejects.toMatchObject({
      code: 'DIMENSION_MISMATCH',
    });

    const pending = await createMemory({ name, embedder: other, index: 'exact', onEmbedderChange: 'reindex' });
    await expect(pending.recall('apples')).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
    expect(await pending.count()).toBe(3);

    // Cancel after the first staged batch: nothing is lost, the old vectors stay in force, and
    // a rerun resumes where it stopped instead of starting over.
    await pending.close();
    const seeded = await createMemory({ name, embedder: createHashEmbedder({ dim: 32, id: 'model-a' }), index: 'exact' });
    await seeded.rememberMany(Array.from({ length: 97 }, (_, i) => `filler memory ${i}`));
    await seeded.close();
    const resumable = await createMemory({ name, embedder: other, index: 'exact', onEmbedderChange: 'reindex' });
    const controller = new AbortController();
    const progress: number[] = [];
    await expect(
      resumable.reindex({
        signal: controller.signal,
        onProgress: (e) => {
          if (e.kind !== 'reindex') return;
          progress.push(e.done);
          if (e.done >= 64) controller.abort();
        },
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(progress).toEqual([0, 64]);
    await expect(resumable.recall('apples')).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
    expect(await resumable.count()).toBe(100);
    const done = await resumable.reindex();
    expect(done.reembedded).toBe(36);
    const pendingStore = resumable;
    expect((await pendingStore.recall('red apples', { k: 1 }))[0]!.memory.text).toBe('red apples');
    expect((await pendingStore.stats()).embedder).toEqual({ id: 'model-b', dim: 48 });
    expect((await pendingStore.stats()).index.size).toBe(100);
    await pendingStore.close();

    const reopened = await createMemory({ name, embedder: createHashEmbedder({ dim: 48, id: 'model-b' }), index: 'exact' });
    expect((await reopened.recall('green pears', { k: 1 }))[0]!.memory.text).toBe('green pears');
    await reopened.close();
  });
});
