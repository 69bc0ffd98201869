/**
 * Imports reach the HNSW graph in the background: the rows are searchable (exactly) as soon as
 * `importArchive` returns, the graph catches up afterwards, and a store closed before it has
 * caught up loses nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory, type CreateMemoryOptions, type LocalMemory, type Memory } from '../src/local.ts';
import { pythonArchive } from './fixtures/make-archives.ts';
import { makeMemory } from './helpers/memory.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb, randomUnitVector } from './helpers/prng.ts';
import { uniqueName } from './helpers/store.ts';

const DIM = 32;
const MODEL = 'Xenova/all-MiniLM-L6-v2';

interface Corpus {
  memories: Memory[];
  vectors: Float32Array[];
  archive: Uint8Array;
}

function corpus(prefix: string, n: number, seed: number, startAt = 1_700_000_000): Corpus {
  const vectors = makeClusteredVectors(n, DIM, seed, 20);
  const memories = vectors.map((_, i) => makeMemory(`${prefix}-${i}`, `${prefix} memory number ${i}`, { createdAt: startAt + i, lastAccessed: startAt + i }));
  return { memories, vectors, archive: pythonArchive({ memories, vectors, dim: DIM }) };
}

/** Queries near the data, each with its own text; every other text gets a seeded random vector. */
function tableEmbedder(corpora: Corpus[], queries: Map<string, Float32Array>): Embedder {
  const table = new Map(queries);
  for (const c of corpora) c.memories.forEach((m, i) => table.set(m.text, c.vectors[i]!));
  return {
    id: MODEL,
    dim: DIM,
    embed: async (texts) =>
      texts.map((t) => {
        const known = table.get(t);
        if (known) return known;
        let h = 2166136261;
        for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
        return randomUnitVector(DIM, gaussian(mulberry32(h >>> 0)));
      }),
  };
}

function queriesNear(c: Corpus, n: number): Map<string, Float32Array> {
  const normal = gaussian(mulberry32(77));
  return new Map(Array.from({ length: n }, (_, i) => [`query ${i}`, perturb(c.vectors[(i * 53) % c.vectors.length]!, 0.3 / Math.sqrt(DIM), normal)]));
}

/** A slow background drain, so a test can act while the graph is still being built. */
const SLOW: CreateMemoryOptions['indexDrain'] = { chunkSize: 25, sliceMs: 0, pauseMs: 15 };

async function answers(store: LocalMemory, queries: Map<string, Float32Array>): Promise<{ id: string; score: number }[][]> {
  const out: { id: string; score: number }[][] = [];
  for (const q of queries.keys()) out.push((await store.recall(q, { k: 10, touch: false })).map((h) => ({ id: h.memory.id, score: h.score })));
  return out;
}

/** Same ids in the same order; scores equal up to float32 rounding (the graph computes in float32). */
async function expectSameAnswers(store: LocalMemory, oracle: LocalMemory, queries: Map<string, Float32Array>): Promise<void> {
  const got = await answers(store, queries);
  const want = await answers(oracle, queries);
  expect(got.map((hits) => hits.map((h) => h.id))).toEqual(want.map((hits) => hits.map((h) => h.id)));
  got.forEach((hits, i) => hits.forEach((h, j) => expect(Math.abs(h.score - want[i]![j]!.score)).toBeLessThan(1e-5)));
}

describe('imports and the background HNSW drain', () => {
  it('an imported row is found as soon as importArchive returns, while the graph is still being built; once built, results equal the exact index', async () => {
    const data = corpus('imp', 1200, 31);
    const queries = queriesNear(data, 25);
    const embedder = tableEmbedder([data], queries);
    const store = await createMemory({ name: uniqueName('drain'), embedder, index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: SLOW });
    expect(await store.importArchive(new Blob([data.archive as BlobPart]))).toMatchObject({ imported: 1200, vectorsRegenerated: false });

    const last = data.memories[1199]!;
    const [hit] = await store.recall(last.text, { k: 1, touch: false });
    expect(hit!.memory.id).toBe(last.id);
    expect(hit!.cosine).toBeCloseTo(1, 5);
    // The drain is first-in first-out: while anything is pending, the last row is.
    const during = (await store.stats()).index;
    expect(during.size).toBe(1200);
    expect(during.pending).toBeGreaterThan(0);
    expect(during.snapshotGeneration).toBeNull();

    await store.flush(); // waits for the drain, then persists the snapshot
    const after = (await store.stats()).index;
    expect(after.pending).toBe(0);
    expect(after.snapshotGeneration).toBe(after.generation);

    const exact = await createMemory({ name: uniqueName('drain-exact'), embedder, index: 'exact' });
    await exact.importArchive(data.archive);
    await expectSameAnswers(store, exact, queries);
    await store.close();
    await exact.close();
  });

  it('closing while the graph is being built loses nothing: the next open replays what the snapshot lacks', async () => {
    const first = corpus('first', 100, 41);
    const second = corpus('second', 1200, 43, 1_800_000_000);
    const queries = queriesNear(second, 20);
    const embedder = tableEmbedder([first, second], queries);
    const name = uniqueName('drain-close');
    const open = (): Promise<LocalMemory> => createMemory({ name, embedder, index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: SLOW });

    const store = await open();
    await store.importArchive(first.archive);
    await store.flush();
    const snapshot = (await store.stats()).index.snapshotGeneration;
    expect(snapshot).not.toBeNull();
    await store.importArchive(second.archive);
    expect((await store.stats()).index.pending).toBeGreaterThan(0);
    await store.close();

    const reopened = await open();
    expect(reopened.opened).toBe('snapshot+replay');
    const replay = (await reopened.stats()).index;
    expect(replay.size).toBe(1300);
    expect(replay.snapshotGeneration).toBe(snapshot);
    expect(replay.pending).toBeGreaterThan(0); // the replay itself goes through the background drain
    const last = second.memories[1199]!;
    expect((await reopened.recall(last.text, { k: 1, touch: false }))[0]!.memory.id).toBe(last.id);
    await reopened.flush();
    expect((await reopened.stats()).index.pending).toBe(0);

    const exact = await createMemory({ name: uniqueName('drain-close-exact'), embedder, index: 'exact' });
    await exact.importArchive(first.archive);
    await exact.importArchive(second.archive);
    await expectSameAnswers(reopened, exact, queries);
    await reopened.close();
    await exact.close();

    const again = await open();
    expect(again.opened).toBe('snapshot');
    expect((await again.stats()).index).toMatchObject({ size: 1300, pending: 0 });
    await again.close();
  });

  it('a store closed before its first snapshot opens at once: its vectors are searched exactly while the graph is rebuilt behind, and the snapshot follows the drain', async () => {
    const data = corpus('cold', 1200, 61);
    const queries = queriesNear(data, 20);
    const embedder = tableEmbedder([data], queries);
    const name = uniqueName('drain-cold');
    // A 60 s snapshot debounce: the snapshot below can only come from the drain's end.
    const options = { name, embedder, index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: SLOW } as const;

    const store = await createMemory(options);
    await store.importArchive(data.archive);
    expect((await store.stats()).index).toMatchObject({ snapshotGeneration: null });
    expect((await store.stats()).index.pending).toBeGreaterThan(0);
    await store.close(); // the tab closes soon after the import: no snapshot yet

    const progress: { done: number; total: number }[] = [];
    const reopened = await createMemory({ ...options, onProgress: (e) => void (e.kind === 'index-rebuild' && progress.push({ done: e.done, total: e.total })) });
    expect(reopened.opened).toBe('rebuilt');
    const opened = (await reopened.stats()).index;
    expect(opened.size).toBe(1200);
    // The open waited for the reads only, not for the graph.
    expect(opened.pending).toBeGreaterThan(1000);
    expect(progress.at(-1)).toEqual({ done: 1200, total: 1200 });
    const last = data.memories[1199]!;
    expect((await reopened.recall(last.text, { k: 1, touch: false }))[0]!.memory.id).toBe(last.id);
    const exact = await createMemory({ name: uniqueName('drain-cold-exact'), embedder, index: 'exact' });
    await exact.importArchive(data.archive);
    await expectSameAnswers(reopened, exact, queries);

    await expect.poll(async () => (await reopened.stats()).index, { timeout: 60_000, interval: 50 }).toMatchObject({ pending: 0, snapshotGeneration: opened.generation });
    await expectSameAnswers(reopened, exact, queries);
    await reopened.close();
    await exact.close();

    const again = await createMemory(options);
    expect(again.opened).toBe('snapshot');
    expect((await again.stats()).index).toMatchObject({ size: 1200, pending: 0 });
    await again.close();
  });

  it('a cancelled import takes its vectors back out of the pending set', async () => {
    const kept = corpus('kept', 50, 51);
    const dropped = corpus('dropped', 600, 53, 1_800_000_000);
    const embedder = tableEmbedder([kept, dropped], new Map());
    const store = await createMemory({ name: uniqueName('drain-cancel'), embedder, index: 'hnsw', snapshotDelayMs: 60_000, indexDrain: SLOW });
    await store.importArchive(kept.archive);
    await store.flush();
    const controller = new AbortController();
    await expect(
      store.importArchive(dropped.archive, {
        batchSize: 100,
        signal: controller.signal,
        onProgress: (e) => void (e.kind === 'import' && e.phase === 'write' && e.rowsWritten >= 300 && controller.abort()),
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await store.stats()).index).toMatchObject({ size: 50, pending: 0 });
    const probe = dropped.memories[10]!;
    expect((await store.recall(probe.text, { k: 1, touch: false }))[0]!.memory.id).not.toBe(probe.id);
    await store.close();
  });
});
