import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { createHnswIndexFactory } from '../src/adapters/index-hnsw.ts';
import { DeferredIndex, type DeferredIndexOptions } from '../src/core/services/deferred-index.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { IndexHit, VectorIndex } from '../src/core/ports.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

const DIM = 16;
let counter = 0;
const hnsw = (): Promise<VectorIndex> => createHnswIndexFactory()({ name: `deferred-${process.pid}-${++counter}`, dim: DIM, capacity: 64 });
const slow: DeferredIndexOptions = { chunkSize: 16, sliceMs: 0, pauseMs: 5 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function queriesNear(data: Float32Array[], n: number, seed = 5): Float32Array[] {
  const normal = gaussian(mulberry32(seed));
  return Array.from({ length: n }, (_, i) => perturb(data[(i * 37) % data.length]!, 0.2 / Math.sqrt(DIM), normal));
}

/** The same answer as the oracle: labels in order, similarities to float precision. */
function expectSame(got: IndexHit[], want: IndexHit[]): void {
  expect(got.map((h) => h.label)).toEqual(want.map((h) => h.label));
  got.forEach((h, i) => expect(h.similarity).toBeCloseTo(want[i]!.similarity, 5));
}

describe('DeferredIndex', () => {
  it('answers what an exact index answers while vectors are pending, and after the background drain', async () => {
    const data = makeClusteredVectors(800, DIM, 21, 12);
    const labels = data.map((_, i) => i);
    const index = new DeferredIndex(await hnsw(), slow);
    const oracle = createExactIndex({ dim: DIM });
    oracle.add(labels, data);
    index.add(labels.slice(0, 200), data.slice(0, 200));
    index.addDeferred(labels.slice(200), data.slice(200));
    expect(index.pendingCount).toBe(600);
    expect(index.size()).toBe(800);
    expect(index.inner.size()).toBe(200);
    expect(index.has(799)).toBe(true);

    const queries = queriesNear(data, 30);
    const odd = (label: number): boolean => label % 2 === 1;
    for (const q of queries) {
      expectSame(index.search(q, 10), oracle.search(q, 10));
      expectSame(index.search(q, 5, odd), oracle.search(q, 5, odd));
    }
    // Removal reaches pending and graph vectors alike.
    const gone = [3, 150, 250, 799];
    index.remove(gone);
    oracle.remove(gone);
    expect(index.size()).toBe(796);
    expect(index.has(799)).toBe(false);
    for (const q of queries) expectSame(index.search(q, 10), oracle.search(q, 10));

    expect(index.pendingCount).toBeGreaterThan(0);
    await index.whenDrained();
    expect(index.pendingCount).toBe(0);
    expect(index.inner.size()).toBe(796);
    for (const q of queries) expectSame(index.search(q, 10), oracle.search(q, 10));
    index.dispose();
  });

  it("a hold may raise the pending cap (a sync's first pull) until it is released", async () => {
    const data = makeClusteredVectors(120, DIM, 4, 6);
    const index = new DeferredIndex(await hnsw(), { ...slow, maxPending: 50 });
    const release = index.hold(100 * 4 * DIM); // room for 100 vectors
    index.addDeferred(data.slice(0, 90).map((_, i) => i), data.slice(0, 90));
    expect(index.pendingCount).toBe(90);
    expect(index.inner.size()).toBe(0);
    index.addDeferred(data.slice(90).map((_, i) => 90 + i), data.slice(90));
    expect(index.pendingCount).toBe(100); // over the raised cap, the oldest go into the graph
    expect(index.inner.size()).toBe(20);
    release();
    const again = index.hold(); // a plain hold: the cap is the index's own again
    index.addDeferred([0], [data[0]!]);
    expect(index.pendingCount).toBe(50);
    again();
    await index.whenDrained();
    expect(index.inner.size()).toBe(120);
    index.dispose();
  });

  it('drains only when not held, persists no snapshot while anything is pending, and caps what is pending', async () => {
    const data = makeClusteredVectors(120, DIM, 4, 6);
    const index = new DeferredIndex(await hnsw(), { ...slow, maxPending: 50 });
    const release = index.hold();
    index.addDeferred(
      data.slice(0, 40).map((_, i) => i),
      data.slice(0, 40),
    );
    await sleep(40);
    expect(index.pendingCount).toBe(40);
    expect(await index.saveSnapshot(1)).toBe(false);
    // Over the cap, the oldest go into the graph at once.
    index.addDeferred(
      data.slice(40).map((_, i) => 40 + i),
      data.slice(40),
    );
    expect(index.pendingCount).toBe(50);
    expect(index.inner.size()).toBe(70);
    expect(index.inner.has(0)).toBe(true);
    expect(index.inner.has(119)).toBe(false);
    let drained = 0;
    index.onDrained = () => void (drained += 1);
    release();
    await index.whenDrained();
    expect(index.pendingCount).toBe(0);
    expect(drained).toBe(1);
    expect(await index.saveSnapshot(1)).toBe(true);
    index.dispose();
  });

  it('stop keeps pending vectors searchable and un-snapshotted; a bad batch adds nothing', async () => {
    const data = makeClusteredVectors(60, DIM, 8, 4);
    const index = new DeferredIndex(await hnsw(), { chunkSize: 8, sliceMs: 0, pauseMs: 20 });
    index.addDeferred(
      data.map((_, i) => i),
      data,
    );
    index.stop();
    await index.whenDrained(); // resolves: the drain ended, nothing more will be inserted
    await sleep(50);
    expect(index.pendingCount).toBeGreaterThan(0);
    expect(index.size()).toBe(60);
    expect(index.search(data[59]!, 1)[0]!.label).toBe(59);
    expect(await index.saveSnapshot(1)).toBe(false);

    const fresh = new DeferredIndex(await hnsw(), slow);
    const code = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return MemoryError.isMemoryError(error) ? error.code : 'not-a-MemoryError';
      }
      return undefined;
    };
    expect(code(() => fresh.addDeferred([1, 2], [data[0]!, new Float32Array(3)]))).toBe('DIMENSION_MISMATCH');
    expect(code(() => fresh.addDeferred([1, -2], [data[0]!, data[1]!]))).toBe('INVALID_ARGUMENT');
    expect(code(() => fresh.addDeferred([1], [new Float32Array(DIM).fill(Number.NaN)]))).toBe('INVALID_ARGUMENT');
    expect(fresh.size()).toBe(0);
    index.dispose();
    fresh.dispose();
  });

  it('adds to an exact index at once: there is no graph to wait for', () => {
    const data = makeClusteredVectors(10, DIM, 2, 2);
    const index = new DeferredIndex(createExactIndex({ dim: DIM }));
    index.addDeferred(
      data.map((_, i) => i),
      data,
    );
    expect(index.pendingCount).toBe(0);
    expect(index.inner.size()).toBe(10);
  });
});
