/**
 * Issue #30 (ingest at the index's pace): a rememberMany of several batches hands each batch's
 * vectors to the graph in the background (core/services/deferred-index.ts), so in a browser the
 * graph insertion overlaps the next batch's writes. What is pending is found at once, by exact
 * scan; a flush waits for the graph and snapshots everything; a reopen finds it all.
 */
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';

const texts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} note ${i}: the ${['red', 'green', 'blue', 'amber'][i % 4]} ticket ${i * 7} moved to lane ${i % 9}`);

describe('bulk rememberMany', () => {
  it('defers the graph insertion of a call of several batches; everything is found at once and after reopening', async () => {
    const name = uniqueName('bulk');
    // A slow drain (8 vectors every 20 ms), so that what is pending can be seen.
    const store = await openTestStore({ name, index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: { chunkSize: 8, sliceMs: 0, pauseMs: 20 } });
    const written = await store.rememberMany(texts(400, 'bulk'), { batchSize: 100 });
    const stats = await store.stats();
    // The last batch at least is still pending, yet counted and searchable.
    expect(stats.index.pending).toBeGreaterThan(0);
    expect(stats.index.size).toBe(400);
    for (const i of [0, 150, 399]) {
      const [top] = await store.recall(written[i]!.memory.text, { k: 1, touch: false, mode: 'semantic' });
      expect(top!.memory.id).toBe(written[i]!.memory.id);
    }
    await store.flush();
    const flushed = await store.stats();
    expect(flushed.index.pending).toBe(0);
    expect(flushed.index.snapshotGeneration).toBe(flushed.index.generation);
    await store.close();
    const reopened = await openTestStore({ name, index: 'hnsw', embedder: createHashEmbedder() });
    const again = await reopened.stats();
    expect(again.index.size).toBe(400);
    expect(again.index.pending).toBe(0);
    const [top] = await reopened.recall(written[250]!.memory.text, { k: 1, touch: false, mode: 'semantic' });
    expect(top!.memory.id).toBe(written[250]!.memory.id);
    await reopened.close();
  });

  it('writes no snapshot each time the graph catches up while writes go on: the debounced one follows', async () => {
    const store = await openTestStore({ index: 'hnsw', snapshotDelayMs: 60_000 });
    for (let call = 0; call < 3; call++) await store.rememberMany(texts(300, `call${call}`), { batchSize: 100 });
    for (let i = 0; i < 200 && (await store.stats()).index.pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const drained = await store.stats();
    expect(drained.index.pending).toBe(0);
    // Each batch drained before the next came; none of those moments wrote a snapshot.
    expect(drained.index.snapshotGeneration).toBeNull();
    await store.flush();
    expect((await store.stats()).index.snapshotGeneration).toBe(drained.index.generation);
    await store.close();
  });

  it('adds a call of one batch to the graph at once', async () => {
    const store = await openTestStore({ index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: { chunkSize: 8, sliceMs: 0, pauseMs: 20 } });
    await store.rememberMany(texts(100, 'small'), { batchSize: 100 });
    expect((await store.stats()).index.pending).toBe(0);
    await store.close();
  });
});
