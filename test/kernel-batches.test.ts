/**
 * Batch insertion in the int8 kernel (#54): batches searched by helper threads make exactly the
 * graph one thread makes, keep the graph's recall, and over a small graph are the sequential
 * insertion itself. The threaded build runs here on Node's worker_threads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import 'fake-indexeddb/auto';
import { Kernel, type KernelParams } from '../src/adapters/hnsw-i8/kernel.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { createHnswI8IndexFactory } from '../src/adapters/index-hnsw-i8.ts';
import { makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

const DIM = 48;
const base: KernelParams = { dim: DIM, m: 12, efConstruction: 64, seed: 7, capacityHint: 16_384 };
const open: Kernel[] = [];

async function kernel(threads: number): Promise<Kernel> {
  const k = await Kernel.create({ ...base, threads });
  open.push(k);
  return k;
}

afterEach(() => {
  for (const k of open.splice(0)) k.reset();
});

/** Every persisted byte of the graph: vector blocks and link blocks, chunk by chunk. */
function graphBytes(k: Kernel): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let c = 0; c < k.chunks; c++) out.push(k.vectorBlock(c), k.linkBlock(c));
  return out;
}

function addInCalls(k: Kernel, vectors: Float32Array[], call: number, first = 0): void {
  for (let i = 0; i < vectors.length; i += call) {
    const slice = vectors.slice(i, i + call);
    expect(k.addMany(slice.map((_, j) => first + i + j), slice)).toBe(slice.length);
  }
}

/** Adds the first 6,000 (the helpers start past 4,096 slots), waits for them to run, adds the rest. */
async function addWithHelpers(k: Kernel, vectors: Float32Array[], call: number): Promise<void> {
  addInCalls(k, vectors.slice(0, 6000), call);
  if (k.activeThreads > 1) await vi.waitFor(() => expect(k.helpersRunning).toBe(k.activeThreads - 1), { timeout: 10_000 });
  addInCalls(k, vectors.slice(6000), call, 6000);
}

/** Recall@10 of the graph search against the exact scan of the same codes. */
function graphRecall(k: Kernel, queries: Float32Array[]): number {
  let found = 0;
  for (const q of queries) {
    const want = new Set(k.scan(q, 10).labels);
    found += [...k.search(q, 10, 160).labels].filter((l) => want.has(l)).length;
  }
  return found / (10 * queries.length);
}

describe('int8 kernel batches', () => {
  const data = makeClusteredVectors(12_000, DIM, 11, 40);
  const rand = mulberry32(5);
  const queries = Array.from({ length: 150 }, () => perturb(data[Math.floor(rand() * data.length)]!, 0.3, rand));

  it('helper threads make exactly the graph one thread makes, and they do take part', async () => {
    const one = await kernel(1);
    const two = await kernel(2);
    addInCalls(one, data, 2000);
    await addWithHelpers(two, data, 2000);
    expect(one.activeThreads).toBe(1);
    expect(two.activeThreads).toBe(2);
    expect(two.helperItems).toBeGreaterThan(0);
    expect(one.helperItems).toBe(0);
    expect(two.live).toBe(data.length);
    expect([two.entry, two.topLevel, two.rngState]).toEqual([one.entry, one.topLevel, one.rngState]);
    const a = graphBytes(one);
    const b = graphBytes(two);
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) expect(Buffer.from(b[i]!).equals(Buffer.from(a[i]!)), `block ${i}`).toBe(true);
  });

  it('batches keep the graph as good as one insertion at a time', async () => {
    const sequential = await kernel(1);
    for (let i = 0; i < data.length; i++) expect(sequential.add(i, data[i]!)).toBe(true);
    const batched = await kernel(2);
    await addWithHelpers(batched, data, 2000);
    const seq = graphRecall(sequential, queries);
    const bat = graphRecall(batched, queries);
    expect(bat).toBeGreaterThanOrEqual(0.95);
    expect(bat).toBeGreaterThanOrEqual(seq - 0.01);
  });

  it('over a graph too small to share, a batch is the sequential insertion itself', async () => {
    const small = data.slice(0, 3000);
    const sequential = await kernel(1);
    for (let i = 0; i < small.length; i++) sequential.add(i, small[i]!);
    const batched = await kernel(2);
    addInCalls(batched, small, 500);
    expect(batched.activeThreads).toBe(1);
    const a = graphBytes(sequential);
    const b = graphBytes(batched);
    for (let i = 0; i < a.length; i++) expect(Buffer.from(b[i]!).equals(Buffer.from(a[i]!)), `block ${i}`).toBe(true);
  });

  it('a label twice in one batch, or again in a later one: the last vector wins', async () => {
    const k = await kernel(2);
    addInCalls(k, data.slice(0, 6000), 2000);
    // Labels 0..299 again, each twice in the same call: first a stray vector, then its own.
    const labels: number[] = [];
    const vectors: Float32Array[] = [];
    for (let i = 0; i < 300; i++) {
      labels.push(i, i);
      vectors.push(data[6000 + i]!, data[i]!);
    }
    expect(k.addMany(labels, vectors)).toBe(600);
    expect(k.live).toBe(6000);
    for (let i = 0; i < 300; i += 37) expect(k.search(data[i]!, 1, 64).labels[0]).toBe(i);
  });

  it('a reset ends the helpers, and the next batches start them again', async () => {
    const k = await kernel(2);
    await addWithHelpers(k, data.slice(0, 9000), 1000);
    expect(k.helperItems).toBeGreaterThan(0);
    k.reset();
    expect([k.activeThreads, k.helpersRunning, k.helperItems, k.live]).toEqual([1, 0, 0, 0]);
    await addWithHelpers(k, data.slice(0, 9000), 1000);
    expect(k.activeThreads).toBe(2);
    expect(k.helperItems).toBeGreaterThan(0);
    expect(k.live).toBe(9000);
    expect(graphRecall(k, queries.slice(0, 50))).toBeGreaterThan(0.9);
  });

  it("the index's threads option: 1 keeps to one thread, and a value out of range is refused", async () => {
    const blocks = (name: string) => idbBlockStore({ database: `houkai-index:${name}`, create: true });
    expect(() => createHnswI8IndexFactory({ blocks, threads: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => createHnswI8IndexFactory({ blocks, threads: 1.5 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const name = `threads-${Date.now()}`;
    for (const threads of [1, 2]) {
      const index = await createHnswI8IndexFactory({ blocks, threads, m: 12, efConstruction: 64 })({ name: `${name}-${threads}`, dim: DIM, capacity: 8000 });
      const memory = () => (index as unknown as { memory(): { threads: number; helperItems: number } }).memory();
      index.add(data.slice(0, 6000).map((_, i) => i), data.slice(0, 6000));
      expect(memory().threads).toBe(threads);
      // The helper's worker starts in the background; batches after it runs share the work.
      const kernel = (index as unknown as { kernel: Kernel }).kernel;
      if (threads > 1) await vi.waitFor(() => expect(kernel.helpersRunning).toBe(1), { timeout: 10_000 });
      index.add(data.slice(6000, 8000).map((_, i) => 6000 + i), data.slice(6000, 8000));
      expect(memory().helperItems > 0).toBe(threads > 1);
      expect(index.search(data[4321]!, 1)[0]!.label).toBe(4321);
      index.dispose();
    }
  });
});
