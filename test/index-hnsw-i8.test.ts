import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { createHnswI8IndexFactory, EF_GROWS_FROM, EF_MAX, searchBreadth } from '../src/adapters/index-hnsw-i8.ts';
import type { IndexBlock, IndexBlockStore, VectorIndex } from '../src/core/ports.ts';
import { rescoreHits } from '../src/core/services/rescore.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

let counter = 0;
const standalone = (name: string): IndexBlockStore => idbBlockStore({ database: `houkai-index:${name}`, create: true });

/** A block store that records what each write carried (and can fail a write part-way). */
function recording(inner: IndexBlockStore): IndexBlockStore & { byteSize(): Promise<number>; writes: { keys: number[]; replaceAll: boolean }[]; failAfter: number | null } {
  const self = {
    writes: [] as { keys: number[]; replaceAll: boolean }[],
    failAfter: null as number | null,
    readManifest: () => inner.readManifest(),
    readBlocks: (visit: (b: IndexBlock[]) => void | Promise<void>, o?: { batchSize?: number }) => inner.readBlocks(visit, o),
    clear: () => inner.clear(),
    close: () => inner.close(),
    byteSize: () => inner.byteSize!(),
    write(options: Parameters<IndexBlockStore['write']>[0]) {
      const keys: number[] = [];
      const failAfter = self.failAfter;
      function* tap(): Generator<IndexBlock> {
        for (const block of options.blocks) {
          if (failAfter !== null && keys.length >= failAfter) throw new Error('the tab died mid-write');
          keys.push(block.key);
          yield block;
        }
      }
      self.writes.push({ keys, replaceAll: options.replaceAll });
      return inner.write({ ...options, blocks: tap() });
    },
  };
  return self;
}

async function make(dim: number, blocks?: IndexBlockStore, name = `i8-${++counter}`): Promise<VectorIndex> {
  const store = blocks ?? standalone(name);
  return createHnswI8IndexFactory({ blocks: () => store })({ name, dim, capacity: 1024 });
}

function recallAt10(index: VectorIndex, exact: VectorIndex, queries: Float32Array[]): number {
  let found = 0;
  for (const q of queries) {
    const want = new Set(exact.search(q, 10).map((h) => h.label));
    found += index.search(q, 10).filter((h) => want.has(h.label)).length;
  }
  return found / (10 * queries.length);
}

describe('int8 HNSW index', () => {
  it('recall@10 against exact float32 search is at least 0.95 on seeded clustered corpora (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom(64, 384), async (seed, dim) => {
        const n = 3000;
        const data = makeClusteredVectors(n + 60, dim, seed, 30);
        const normal = gaussian(mulberry32(seed ^ 0x5bd1e995));
        const queries = data.slice(n).map((q, i) => (i % 2 ? q : perturb(data[(i * 37) % n]!, 0.05 / Math.sqrt(dim), normal)));
        const index = await make(dim);
        const exact = createExactIndex({ dim, capacity: n });
        const labels = data.slice(0, n).map((_, i) => i * 2 + 1);
        index.add(labels, data.slice(0, n));
        exact.add(labels, data.slice(0, n));
        const recall = recallAt10(index, exact, queries);
        // The store rescores the fetched hits from float32: over-fetching 4× and rescoring gives the exact top 10.
        let rescored = 0;
        const vectors = new Map(labels.map((l, i) => [l, data[i]!]));
        const storage = { vectorsOf: async (ls: number[]) => new Map(ls.map((l) => [l, vectors.get(l)!])) };
        for (const q of queries) {
          const want = new Set(exact.search(q, 10).map((h) => h.label));
          const hits = (await rescoreHits(index, storage, q, index.search(q, 40))).slice(0, 10);
          rescored += hits.filter((h) => want.has(h.label)).length;
        }
        index.dispose();
        expect(recall).toBeGreaterThanOrEqual(0.95);
        expect(rescored / (10 * queries.length)).toBeGreaterThanOrEqual(0.99);
      }),
      { numRuns: 4, seed: 19 },
    );
  }, 120_000);

  it('persists only the blocks a write changed, and reopens to the same answers', async () => {
    const dim = 32;
    const name = `i8-blocks-${++counter}`;
    const blocks = recording(standalone(name));
    const data = makeClusteredVectors(5000, dim, 7, 20);
    const index = await make(dim, blocks, name);
    index.add(data.map((_, i) => i), data);
    expect(await index.saveSnapshot(1)).toBe(true);
    // The first write has everything: 5 chunks of 1,024 slots, a vector and a link block each.
    expect(blocks.writes[0]).toEqual({ keys: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], replaceAll: true });

    // One more vector: its own chunk's vector block, and the link blocks of the lists it joined.
    const extra = perturb(data[42]!, 0.01, gaussian(mulberry32(3)));
    index.add([9000], [extra]);
    expect(await index.saveSnapshot(2)).toBe(true);
    const second = blocks.writes[1]!;
    expect(second.replaceAll).toBe(false);
    expect(second.keys).toContain(8); // chunk 4's vectors (slot 5000)
    expect(second.keys.filter((k) => k % 2 === 0)).toEqual([8]);
    expect(second.keys.length).toBeLessThan(10);
    // A removal rewrites only the vector block that holds the deleted flag.
    index.remove([3]);
    expect(await index.saveSnapshot(3)).toBe(true);
    expect(blocks.writes[2]!.keys).toEqual([0]);
    // Nothing changed: nothing but the manifest is written.
    expect(await index.saveSnapshot(4)).toBe(true);
    expect(blocks.writes[3]!.keys).toEqual([]);

    const queries = data.slice(0, 30).map((q) => perturb(q, 0.02, gaussian(mulberry32(5))));
    const before = queries.map((q) => index.search(q, 10));
    const reopened = await make(dim, blocks, name);
    expect(await reopened.loadSnapshot()).toBe(4);
    expect(reopened.size()).toBe(5000);
    expect(reopened.has(3)).toBe(false);
    expect(reopened.has(9000)).toBe(true);
    expect(queries.map((q) => reopened.search(q, 10))).toEqual(before);
    // Inserting after a reopen continues the same graph (same level generator state).
    index.add([9001], [data[7]!]);
    reopened.add([9001], [data[7]!]);
    expect(reopened.search(data[7]!, 5)).toEqual(index.search(data[7]!, 5));
    index.dispose();
    reopened.dispose();
  });

  it('a write that dies part-way leaves the previous snapshot whole', async () => {
    const dim = 16;
    const name = `i8-crash-${++counter}`;
    const blocks = recording(standalone(name));
    const data = makeClusteredVectors(4000, dim, 11, 10);
    const index = await make(dim, blocks, name);
    index.add(data.slice(0, 2000).map((_, i) => i), data.slice(0, 2000));
    expect(await index.saveSnapshot(1)).toBe(true);
    const bytesBefore = await blocks.byteSize();
    index.add(data.slice(2000).map((_, i) => 2000 + i), data.slice(2000));
    blocks.failAfter = 2;
    expect(await index.saveSnapshot(2)).toBe(false);
    expect(blocks.writes[1]!.keys.length).toBe(2);
    expect(await blocks.byteSize()).toBe(bytesBefore);
    const reopened = await make(dim, blocks, name);
    expect(await reopened.loadSnapshot()).toBe(1);
    expect(reopened.size()).toBe(2000);
    // The failed write's blocks are still dirty: the next write carries them.
    blocks.failAfter = null;
    expect(await index.saveSnapshot(2)).toBe(true);
    const again = await make(dim, blocks, name);
    expect(await again.loadSnapshot()).toBe(2);
    expect(again.size()).toBe(4000);
    for (const i of [0, 1999, 2000, 3999]) expect(again.search(data[i]!, 1)[0]!.label).toBe(i);
    index.dispose();
    reopened.dispose();
    again.dispose();
  });

  it('writes made while a snapshot is being written wait, stay searchable, and land after it', async () => {
    const dim = 16;
    const name = `i8-queue-${++counter}`;
    const data = makeClusteredVectors(3000, dim, 13, 10);
    const index = await make(dim, undefined, name);
    index.add(data.slice(0, 2500).map((_, i) => i), data.slice(0, 2500));
    const saving = index.saveSnapshot(1);
    index.add([2500, 2501], [data[2500]!, data[2501]!]);
    index.remove([0]);
    index.add([1], [data[2600]!]); // replaces label 1's vector
    expect(index.size()).toBe(2501);
    expect(index.has(0)).toBe(false);
    expect(index.search(data[2500]!, 1)[0]!.label).toBe(2500);
    expect(index.search(data[2600]!, 1)[0]!.label).toBe(1);
    expect(index.search(data[0]!, 10).map((h) => h.label)).not.toContain(0);
    expect(await saving).toBe(true);
    expect(index.size()).toBe(2501);
    expect(index.search(data[2501]!, 1)[0]!.label).toBe(2501);
    expect(index.search(data[2600]!, 1)[0]!.label).toBe(1);
    // The snapshot holds the state when it began.
    const reopened = await make(dim, undefined, name);
    expect(await reopened.loadSnapshot()).toBe(1);
    expect(reopened.size()).toBe(2500);
    expect(reopened.has(0)).toBe(true);
    expect(reopened.has(2500)).toBe(false);
    index.dispose();
    reopened.dispose();
  });

  it('a second writer of the same store makes the next write a full one', async () => {
    const dim = 8;
    const name = `i8-two-${++counter}`;
    const blocks = recording(standalone(name));
    const data = makeClusteredVectors(1500, dim, 17, 5);
    const a = await make(dim, blocks, name);
    a.add(data.slice(0, 1000).map((_, i) => i), data.slice(0, 1000));
    expect(await a.saveSnapshot(1)).toBe(true);
    const b = await make(dim, blocks, name);
    expect(await b.loadSnapshot()).toBe(1);
    b.add([5000], [data[1200]!]);
    expect(await b.saveSnapshot(2)).toBe(true);
    a.add([6000], [data[1300]!]);
    expect(await a.saveSnapshot(3)).toBe(true);
    // a's dirty blocks alone would have mixed two graphs: it wrote everything instead.
    expect(blocks.writes.slice(-2).map((w) => w.replaceAll)).toEqual([false, true]);
    const c = await make(dim, blocks, name);
    expect(await c.loadSnapshot()).toBe(3);
    expect(c.has(6000)).toBe(true);
    expect(c.has(5000)).toBe(false);
    for (const index of [a, b, c]) index.dispose();
  });

  it('fails closed on damaged or foreign snapshots', async () => {
    const dim = 8;
    const name = `i8-bad-${++counter}`;
    const blocks = standalone(name);
    const data = makeClusteredVectors(1200, dim, 19, 5);
    const index = await make(dim, blocks, name);
    index.add(data.map((_, i) => i), data);
    expect(await index.saveSnapshot(5)).toBe(true);
    index.dispose();
    // Another dimension.
    const other = await createHnswI8IndexFactory({ blocks: () => standalone(name) })({ name, dim: 9, capacity: 16 });
    expect(await other.loadSnapshot()).toBeNull();
    other.dispose();
    // A link pointing past the last slot.
    const raw = standalone(name);
    let link: IndexBlock | undefined;
    await raw.readBlocks((b) => void (link ??= b.find((x) => x.key === 1)));
    const bytes = link!.bytes.slice();
    new DataView(bytes.buffer).setUint32(4, 999_999, true);
    const manifest = (await raw.readManifest()) as { tag: string } & Record<string, unknown>;
    await raw.write({ manifest, expectTag: manifest.tag, replaceAll: false, blocks: [{ key: 1, bytes }] });
    const damaged = await make(dim, standalone(name), name);
    expect(await damaged.loadSnapshot()).toBeNull();
    // Two live slots with one label (chunk 0's vector block: codes, then scales, then labels).
    await raw.write({ manifest, expectTag: manifest.tag, replaceAll: false, blocks: [{ key: 1, bytes: link!.bytes }] });
    const whole = await make(dim, standalone(name), name);
    expect(await whole.loadSnapshot()).toBe(5); // whole again
    whole.dispose();
    let vectors: IndexBlock | undefined;
    await raw.readBlocks((b) => void (vectors ??= b.find((x) => x.key === 0)));
    const twice = vectors!.bytes.slice();
    const labels = new DataView(twice.buffer, twice.byteLength - 1024 * 10 + 1024 * 4);
    labels.setUint32(4, labels.getUint32(0, true), true);
    await raw.write({ manifest, expectTag: manifest.tag, replaceAll: false, blocks: [{ key: 0, bytes: twice }] });
    expect(await damaged.loadSnapshot()).toBeNull();
    // A missing block.
    await raw.write({ manifest, expectTag: manifest.tag, replaceAll: true, blocks: [{ key: 0, bytes: new Uint8Array(10) }] });
    expect(await damaged.loadSnapshot()).toBeNull();
    // After a failed load the next write replaces everything.
    damaged.add([1], [data[1]!]);
    expect(await damaged.saveSnapshot(6)).toBe(true);
    const fresh = await make(dim, standalone(name), name);
    expect(await fresh.loadSnapshot()).toBe(6);
    expect(fresh.size()).toBe(1);
    raw.close();
    damaged.dispose();
    fresh.dispose();
  });
});

describe('search breadth', () => {
  it('is efSearch up to 250,000 vectors, then grows with the graph up to 1,024, and is never below k', () => {
    expect(searchBreadth(128, 10, 10)).toBe(128);
    expect(searchBreadth(128, EF_GROWS_FROM, 10)).toBe(128);
    expect(searchBreadth(128, 500_000, 10)).toBe(256);
    expect(searchBreadth(128, 1_000_000, 10)).toBe(512);
    expect(searchBreadth(128, 5_000_000, 10)).toBe(EF_MAX);
    expect(searchBreadth(2000, 5_000_000, 10)).toBe(2000); // an explicit larger setting is kept
    expect(searchBreadth(128, 1_000, 500)).toBe(500);
  });
});
