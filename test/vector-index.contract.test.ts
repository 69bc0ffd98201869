import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import type { IndexHit, VectorIndex, VectorIndexFactory } from '../src/core/ports.ts';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { createHnswIndexFactory } from '../src/adapters/index-hnsw.ts';
import { createHnswI8IndexFactory } from '../src/adapters/index-hnsw-i8.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

/**
 * One behavioural contract for every VectorIndex: the store must not care which one it got.
 * HNSW is approximate, so these use corpora small enough that it is exact in practice.
 */
const implementations: [string, VectorIndexFactory][] = [
  ['exact', async ({ dim, capacity }) => createExactIndex({ dim, capacity })],
  ['hnsw', createHnswIndexFactory()],
  ['hnsw-i8', createHnswI8IndexFactory({ blocks: (name) => idbBlockStore({ database: `houkai-index:${name}`, create: true }) })],
];

let counter = 0;
const uniqueName = (kind: string): string => `contract-${kind}-${++counter}`;

function vec(...xs: number[]): Float32Array {
  return Float32Array.from(xs);
}

function labelsOf(hits: { label: number }[]): number[] {
  return hits.map((h) => h.label);
}

describe.each(implementations)('VectorIndex contract: %s', (kind, factory) => {
  const make = (dim: number, capacity = 16): Promise<VectorIndex> => factory({ name: uniqueName(kind), dim, capacity });
  /**
   * Digits of cosine an index reports exactly: a quantised index (`approximate`) is within
   * 0.005 (int8 codes; the store rescores its best hits from the stored vectors), others 5.
   */
  const digits = (index: VectorIndex): number => (index.approximate ? 2 : 5);
  /**
   * The hits exact search gives (`ranked`: every candidate, best first). A quantised index may
   * swap near-ties, so there each hit must be within 0.01 of the exact k-th similarity.
   */
  const sameHits = (index: VectorIndex, got: IndexHit[], ranked: IndexHit[]): void => {
    const want = ranked.slice(0, got.length);
    expect(got).toHaveLength(want.length);
    if (!index.approximate) return void expect(labelsOf(got)).toEqual(labelsOf(want));
    const exactSim = new Map(ranked.map((h) => [h.label, h.similarity]));
    const kth = want[want.length - 1]!.similarity;
    for (const h of got) expect(exactSim.get(h.label)!).toBeGreaterThanOrEqual(kth - 0.01);
  };

  it('starts empty and searches to nothing', async () => {
    const index = await make(4);
    expect(index.kind).toBe(kind);
    expect(index.dim).toBe(4);
    expect(index.size()).toBe(0);
    expect(index.has(0)).toBe(false);
    expect(index.search(vec(1, 0, 0, 0), 5)).toEqual([]);
    expect(index.search(vec(1, 0, 0, 0), 5, () => true)).toEqual([]);
    index.remove([1, 2, 3]);
    expect(index.size()).toBe(0);
    index.dispose();
  });

  it('adds and finds by cosine similarity, best first', async () => {
    const index = await make(4);
    index.add([10, 11, 12], [vec(1, 0, 0, 0), vec(1, 1, 0, 0), vec(0, 0, 0, 3)]);
    expect(index.size()).toBe(3);
    expect(index.has(11)).toBe(true);
    const hits = index.search(vec(2, 0, 0, 0), 3);
    expect(labelsOf(hits)).toEqual([10, 11, 12]);
    expect(hits[0]!.similarity).toBeCloseTo(1, 5);
    expect(hits[1]!.similarity).toBeCloseTo(Math.SQRT1_2, 5);
    expect(hits[2]!.similarity).toBeCloseTo(0, 5);
    // Scale does not matter for cosine.
    expect(labelsOf(index.search(vec(0, 0, 0, 0.001), 1))).toEqual([12]);
    index.dispose();
  });

  it('removes labels and ignores unknown or repeated removals', async () => {
    const index = await make(4);
    index.add([1, 2, 3], [vec(1, 0, 0, 0), vec(0, 1, 0, 0), vec(0, 0, 1, 0)]);
    index.remove([2, 99]);
    index.remove([2]);
    expect(index.size()).toBe(2);
    expect(index.has(2)).toBe(false);
    expect(labelsOf(index.search(vec(0, 1, 0, 0), 3))).not.toContain(2);
    expect(index.search(vec(0, 1, 0, 0), 3)).toHaveLength(2);
    // A removed label can come back with a new vector.
    index.add([2], [vec(0, 0, 0, 1)]);
    expect(index.size()).toBe(3);
    expect(labelsOf(index.search(vec(0, 0, 0, 1), 1))).toEqual([2]);
    index.dispose();
  });

  it('replaces the vector of an existing label', async () => {
    const index = await make(4);
    index.add([1, 2], [vec(1, 0, 0, 0), vec(0, 1, 0, 0)]);
    index.add([1], [vec(0, 0, 1, 0)]);
    expect(index.size()).toBe(2);
    expect(labelsOf(index.search(vec(0, 0, 1, 0), 1))).toEqual([1]);
    expect(index.search(vec(1, 0, 0, 0), 2)[0]!.similarity).toBeCloseTo(0, 5);
    // Within one batch the last vector for a label wins.
    index.add([3, 3], [vec(1, 0, 0, 0), vec(0, 0, 0, 1)]);
    expect(index.size()).toBe(3);
    expect(labelsOf(index.search(vec(0, 0, 0, 1), 1))).toEqual([3]);
    index.dispose();
  });

  it('does not mutate the caller’s vectors', async () => {
    const index = await make(3);
    const v = vec(3, 4, 0);
    const q = vec(0, 5, 0);
    index.add([1], [v]);
    index.search(q, 1);
    expect(Array.from(v)).toEqual([3, 4, 0]);
    expect(Array.from(q)).toEqual([0, 5, 0]);
    index.dispose();
  });

  it('honours the filter', async () => {
    const index = await make(8);
    const data = makeClusteredVectors(200, 8, 3, 5);
    index.add(
      data.map((_, i) => i),
      data,
    );
    const even = (label: number): boolean => label % 2 === 0;
    const hits = index.search(data[7]!, 10, even);
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => h.label % 2 === 0)).toBe(true);
    const exact = createExactIndex({ dim: 8 });
    exact.add(
      data.map((_, i) => i),
      data,
    );
    sameHits(index, hits, exact.search(data[7]!, 200, even));
    expect(index.search(data[7]!, 10, () => false)).toEqual([]);
    // A filter admitting only a few labels still finds all of them.
    const few = new Set([3, 77, 150]);
    expect(labelsOf(index.search(data[0]!, 10, (l) => few.has(l))).sort((a, b) => a - b)).toEqual([3, 77, 150]);
    index.dispose();
  });

  it('grows past its initial capacity', async () => {
    const index = await make(16, 16);
    const data = makeClusteredVectors(1000, 16, 11, 20);
    // Mixed batch sizes: singletons, then larger batches.
    for (let i = 0; i < 10; i++) index.add([i], [data[i]!]);
    for (let i = 10; i < 1000; i += 330) {
      const end = Math.min(1000, i + 330);
      index.add(
        Array.from({ length: end - i }, (_, j) => i + j),
        data.slice(i, end),
      );
    }
    expect(index.size()).toBe(1000);
    for (let i = 0; i < 1000; i += 37) {
      const [top] = index.search(data[i]!, 1);
      expect(top!.label).toBe(i);
      expect(top!.similarity).toBeCloseTo(1, digits(index));
    }
    index.dispose();
  });

  it('returns at most the live count when k exceeds it', async () => {
    const index = await make(4, 16);
    index.add([1, 2, 3], [vec(1, 0, 0, 0), vec(0, 1, 0, 0), vec(0, 0, 1, 0)]);
    expect(index.search(vec(1, 1, 1, 0), 50)).toHaveLength(3);
    expect(index.search(vec(1, 1, 1, 0), 10_000)).toHaveLength(3);
    index.remove([1]);
    expect(index.search(vec(1, 1, 1, 0), 50)).toHaveLength(2);
    expect(index.search(vec(1, 1, 1, 0), 0)).toEqual([]);
    index.dispose();
  });

  it('orders exact ties by label', async () => {
    const index = await make(4);
    const same = vec(1, 2, 3, 4);
    index.add([9, 3, 5], [same, same, same]);
    index.add([1], [vec(-1, 0, 0, 0)]);
    expect(labelsOf(index.search(same, 4))).toEqual([3, 5, 9, 1]);
    index.dispose();
  });

  it('gives deterministic results for a seeded corpus', async () => {
    const dim = 32;
    const data = makeClusteredVectors(600, dim, 1234, 12);
    const labels = data.map((_, i) => i * 3 + 1);
    const normal = gaussian(mulberry32(99));
    const queries = Array.from({ length: 20 }, (_, i) => perturb(data[i * 29]!, 0.3 / Math.sqrt(dim), normal));
    const run = async (): Promise<string> => {
      const index = await make(dim, 64);
      index.add(labels, data);
      const out = JSON.stringify(queries.map((q) => index.search(q, 10)));
      index.dispose();
      return out;
    };
    const first = await run();
    expect(await run()).toBe(first);
    // And it agrees with brute force on this easy corpus.
    const exact = createExactIndex({ dim });
    exact.add(labels, data);
    const parsed = JSON.parse(first) as { label: number }[][];
    queries.forEach((q, i) => expect(parsed[i]![0]!.label).toBe(exact.search(q, 1)[0]!.label));
  });

  it('clears to empty and stays usable', async () => {
    const index = await make(4);
    index.add([1, 2], [vec(1, 0, 0, 0), vec(0, 1, 0, 0)]);
    index.clear();
    expect(index.size()).toBe(0);
    expect(index.has(1)).toBe(false);
    expect(index.search(vec(1, 0, 0, 0), 3)).toEqual([]);
    index.add([2], [vec(0, 1, 0, 0)]);
    expect(labelsOf(index.search(vec(0, 1, 0, 0), 3))).toEqual([2]);
    index.dispose();
  });

  it('rejects wrong dimensions and bad labels with MemoryError', async () => {
    const index = await make(4);
    const code = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return MemoryError.isMemoryError(error) ? error.code : 'not-a-MemoryError';
      }
      return undefined;
    };
    expect(code(() => index.add([1], [vec(1, 2, 3)]))).toBe('DIMENSION_MISMATCH');
    expect(code(() => index.search(vec(1, 2, 3), 1))).toBe('DIMENSION_MISMATCH');
    expect(code(() => index.add([1, 2], [vec(1, 2, 3, 4)]))).toBe('INVALID_ARGUMENT');
    expect(code(() => index.add([-1], [vec(1, 2, 3, 4)]))).toBe('INVALID_ARGUMENT');
    expect(code(() => index.add([1.5], [vec(1, 2, 3, 4)]))).toBe('INVALID_ARGUMENT');
    expect(code(() => index.add([1], [vec(1, Number.NaN, 3, 4)]))).toBe('INVALID_ARGUMENT');
    expect(index.size()).toBe(0);
    index.dispose();
    expect(code(() => index.search(vec(1, 2, 3, 4), 1))).toBe('CLOSED');
  });

  it('snapshots only where it has them', async () => {
    const index = await make(4);
    index.add([1], [vec(1, 0, 0, 0)]);
    const saved = await index.saveSnapshot(1);
    expect(saved).toBe(kind !== 'exact');
    expect(await index.loadSnapshot()).toBe(kind !== 'exact' ? 1 : null);
    await index.dropSnapshot();
    expect(await index.loadSnapshot()).toBeNull();
    index.dispose();
  });
});
