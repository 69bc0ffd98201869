import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexHit, VectorIndex } from '../src/core/ports.ts';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import {
  createHnswIndexFactory,
  dropHnswSnapshot,
  HNSW_DEFAULTS,
  snapshotChecksum,
  snapshotFileName,
} from '../src/adapters/index-hnsw.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

const factory = createHnswIndexFactory();

import { bytesOf, readMeta, readRecord, writeMeta, writeRecord } from './helpers/hnsw-snapshot.ts';


// --- Helpers ------------------------------------------------------------------------------------

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);
const labelsOf = (hits: IndexHit[]): number[] => hits.map((h) => h.label);
const ms = (t0: number): string => `${(performance.now() - t0).toFixed(0)} ms`;

function recallAt(k: number, truth: IndexHit[][], found: IndexHit[][]): number {
  let hit = 0;
  truth.forEach((t, i) => {
    const want = new Set(labelsOf(t));
    for (const h of found[i]!) if (want.has(h.label)) hit++;
  });
  return hit / (truth.length * k);
}

// --- (a) Recall on realistic data, and a 10k snapshot round trip --------------------------------

describe('HNSW on 10,000 clustered 384-d vectors', () => {
  const n = 10_000;
  const dim = 384;
  const k = 10;
  let data: Float32Array[];
  let queries: Float32Array[];
  let hnsw: VectorIndex;
  let truth: IndexHit[][];

  beforeAll(async () => {
    // 100 clusters; half the queries are fresh draws from the same distribution (a new text on a
    // known topic), half are small perturbations of stored vectors (a near-duplicate).
    const corpus = makeClusteredVectors(n + 100, dim, 42, 100);
    data = corpus.slice(0, n);
    const normal = gaussian(mulberry32(7));
    const pick = mulberry32(8);
    queries = [
      ...corpus.slice(n),
      ...range(100).map(() => perturb(data[Math.floor(pick() * n)]!, 0.5 / Math.sqrt(dim), normal)),
    ];
    const exact = createExactIndex({ dim });
    exact.add(range(n), data);
    let t0 = performance.now();
    truth = queries.map((q) => exact.search(q, k));
    console.log(`exact: ${((performance.now() - t0) / queries.length).toFixed(2)} ms/query at ${n}`);
    exact.dispose();

    hnsw = await factory({ name: 'recall-10k', dim, capacity: 1024 });
    t0 = performance.now();
    for (let i = 0; i < n; i += 2_500) hnsw.add(range(2_500, i), data.slice(i, i + 2_500));
    console.log(`hnsw build (m=${HNSW_DEFAULTS.m}, efConstruction=${HNSW_DEFAULTS.efConstruction}): ${ms(t0)} for ${n}`);
  }, 120_000);

  afterAll(() => hnsw?.dispose());

  it('reaches recall@10 ≥ 0.98 against the exact index', () => {
    expect(hnsw.size()).toBe(n);
    const t0 = performance.now();
    const found = queries.map((q) => hnsw.search(q, k));
    const perQuery = (performance.now() - t0) / queries.length;
    const recall = recallAt(k, truth, found);
    console.log(`hnsw recall@10 = ${recall.toFixed(4)} over ${queries.length} queries (efSearch=${HNSW_DEFAULTS.efSearch}), ${perQuery.toFixed(3)} ms/query`);
    expect(found.every((hits) => hits.length === k)).toBe(true);
    expect(recall).toBeGreaterThanOrEqual(0.98);
    // Similarities are cosine: they agree with the exact index for the labels both return.
    const exactSim = new Map(truth[0]!.map((h) => [h.label, h.similarity]));
    for (const h of found[0]!) if (exactSim.has(h.label)) expect(h.similarity).toBeCloseTo(exactSim.get(h.label)!, 4);
  });

  it('saves and reloads a 10k snapshot with identical results', async () => {
    let t0 = performance.now();
    expect(await hnsw.saveSnapshot(10_000)).toBe(true);
    const saveTime = ms(t0);
    const meta = await readMeta('recall-10k');
    const reopened = await factory({ name: 'recall-10k', dim, capacity: 1024 });
    t0 = performance.now();
    expect(await reopened.loadSnapshot()).toBe(10_000);
    console.log(`snapshot 10k: ${((meta!.byteLength as number) / 2 ** 20).toFixed(1)} MiB, save ${saveTime}, load ${ms(t0)}`);
    expect(reopened.size()).toBe(n);
    for (const q of queries.slice(0, 50)) expect(reopened.search(q, k)).toEqual(hnsw.search(q, k));
    reopened.dispose();
  });
});

// --- (b)–(e) Snapshots on a small corpus ----------------------------------------------------------

describe('HNSW snapshots', () => {
  const dim = 64;
  const data = makeClusteredVectors(2_000, dim, 5, 20);
  const normal = gaussian(mulberry32(17));
  const queries = range(30).map((i) => perturb(data[i * 61]!, 0.8 / Math.sqrt(dim), normal));
  let counter = 0;
  const uniqueName = (): string => `snap-${++counter}`;

  async function built(name: string, count = 2_000): Promise<VectorIndex> {
    const index = await factory({ name, dim, capacity: 256 });
    index.add(range(count), data.slice(0, count));
    return index;
  }

  it('round-trips: a new instance loads the generation and answers identically', async () => {
    const name = uniqueName();
    const original = await built(name);
    expect(await original.saveSnapshot(7)).toBe(true);
    const reopened = await factory({ name, dim, capacity: 16 });
    expect(await reopened.loadSnapshot()).toBe(7);
    expect(reopened.size()).toBe(2_000);
    expect(reopened.has(1_999)).toBe(true);
    for (const q of queries) {
      expect(reopened.search(q, 10)).toEqual(original.search(q, 10));
      const even = (l: number): boolean => l % 2 === 0;
      expect(reopened.search(q, 5, even)).toEqual(original.search(q, 5, even));
    }
    // The loaded index keeps working: it grows, updates and deletes.
    reopened.add([5_000], [data[0]!]);
    reopened.remove([0]);
    expect(reopened.size()).toBe(2_000);
    expect(labelsOf(reopened.search(data[0]!, 1))).toEqual([5_000]);
    // A later save overwrites the earlier generation.
    expect(await reopened.saveSnapshot(8)).toBe(true);
    const third = await factory({ name, dim, capacity: 16 });
    expect(await third.loadSnapshot()).toBe(8);
    expect(third.has(0)).toBe(false);
    for (const index of [original, reopened, third]) index.dispose();
  });

  it('returns null when there is no snapshot, and after it is dropped', async () => {
    const name = uniqueName();
    const index = await built(name, 100);
    expect(await index.loadSnapshot()).toBeNull();
    expect(index.size()).toBe(100);
    expect(await index.saveSnapshot(3)).toBe(true);
    await index.dropSnapshot();
    expect(await index.loadSnapshot()).toBeNull();
    expect(await readRecord(name)).toBeUndefined();
    // The store-level drop works without an index instance.
    expect(await index.saveSnapshot(4)).toBe(true);
    await dropHnswSnapshot(name);
    expect(await (await factory({ name, dim, capacity: 16 })).loadSnapshot()).toBeNull();
    // The in-memory FS copy is gone too: another index's save does not resurrect the file.
    const other = await built(uniqueName(), 10);
    expect(await other.saveSnapshot(1)).toBe(true);
    expect(await readRecord(name)).toBeUndefined();
    index.dispose();
    other.dispose();
  });

  it('rejects a corrupted or truncated snapshot, and the module keeps working', async () => {
    const name = uniqueName();
    const original = await built(name);
    expect(await original.saveSnapshot(11)).toBe(true);
    const good = await readRecord(name);
    const goodBytes = bytesOf(good).slice();

    // Overwrite 256 bytes in the middle (the timestamp stays, so IDBFS sees no change).
    const flipped = goodBytes.slice();
    const middle = flipped.length >> 1;
    for (let i = middle; i < middle + 256; i++) flipped[i] = flipped[i]! ^ 0x5a;
    await writeRecord(name, { ...good, contents: flipped });
    const victim = await built(uniqueName(), 50);
    victim.add([9_999], [data[1_999]!]);
    const before = victim.search(queries[0]!, 5);
    // Loading into an index under the corrupted name must fail and leave this index alone.
    const reader = await factory({ name, dim, capacity: 16 });
    expect(await reader.loadSnapshot()).toBeNull();
    expect(reader.size()).toBe(0);
    expect(victim.search(queries[0]!, 5)).toEqual(before);

    // Truncated to half.
    await writeRecord(name, { ...good, contents: goodBytes.slice(0, goodBytes.length >> 1) });
    expect(await reader.loadSnapshot()).toBeNull();

    // Truncated, with a descriptor forged to match: the integrity check passes, so hnswlib's
    // reader sees the damaged file itself. It must fail cleanly, not crash the module.
    const truncated = goodBytes.slice(0, goodBytes.length - 1_000);
    await writeRecord(name, { ...good, timestamp: new Date(good.timestamp.getTime() + 1_000), contents: truncated });
    const meta = (await readMeta(name))!;
    await writeMeta(name, { ...meta, byteLength: truncated.byteLength, checksum: await snapshotChecksum(truncated) });
    expect(await reader.loadSnapshot()).toBeNull();
    expect(reader.size()).toBe(0);

    // Intact file, descriptor of an unknown format.
    await writeRecord(name, { ...good, timestamp: new Date(good.timestamp.getTime() + 2_000), contents: goodBytes });
    await writeMeta(name, { ...meta, format: 999 });
    expect(await reader.loadSnapshot()).toBeNull();

    // Everything still works: indexes add, search, save and load.
    reader.add(range(100), data.slice(0, 100));
    expect(labelsOf(reader.search(data[42]!, 1))).toEqual([42]);
    expect(await reader.saveSnapshot(12)).toBe(true);
    const again = await factory({ name, dim, capacity: 16 });
    expect(await again.loadSnapshot()).toBe(12);
    expect(again.size()).toBe(100);
    for (const index of [original, victim, reader, again]) index.dispose();
  });

  it('returns null when the snapshot has another dimension', async () => {
    const name = uniqueName();
    const index = await built(name, 200);
    expect(await index.saveSnapshot(5)).toBe(true);
    const narrower = await factory({ name, dim: 32, capacity: 16 });
    expect(await narrower.loadSnapshot()).toBeNull();
    expect(narrower.size()).toBe(0);
    const same = await factory({ name, dim, capacity: 16 });
    expect(await same.loadSnapshot()).toBe(5);
    for (const i of [index, narrower, same]) i.dispose();
  });

  it('preserves deletes and replacements, and keeps reusing deleted slots after load', async () => {
    const name = uniqueName();
    const index = await built(name, 1_000);
    index.remove(range(100, 200)); // 200..299 gone
    index.add(range(50, 400), data.slice(1_500, 1_550)); // 400..449 now hold other vectors
    index.add(range(30, 2_000), data.slice(1_000, 1_030)); // new labels reuse deleted slots
    index.remove([2_000, 999_999]); // a reused-slot label, and an unknown one
    const slots = (): number => (index as unknown as { native: { getCurrentCount(): number } }).native.getCurrentCount();
    expect(slots()).toBe(1_000); // 100 deleted, 30 reused, then one more deleted: no growth
    expect(index.size()).toBe(1_000 - 100 + 30 - 1);
    expect(await index.saveSnapshot(21)).toBe(true);

    const loaded = await factory({ name, dim, capacity: 16 });
    expect(await loaded.loadSnapshot()).toBe(21);
    expect(loaded.size()).toBe(index.size());
    for (const label of [200, 250, 299, 2_000]) expect(loaded.has(label)).toBe(false);
    for (const label of [0, 199, 300, 400, 449, 2_001, 2_029]) expect(loaded.has(label)).toBe(true);
    // Replaced vectors are found under their labels; removed ones never come back.
    expect(labelsOf(loaded.search(data[1_500]!, 1))).toEqual([400]);
    expect(labelsOf(loaded.search(data[1_010]!, 1))).toEqual([2_010]);
    const removed = new Set(range(100, 200));
    for (const q of [...queries, data[250]!]) {
      const hits = loaded.search(q, 20);
      expect(hits).toEqual(index.search(q, 20));
      expect(hits.some((h) => removed.has(h.label) || h.label === 2_000)).toBe(false);
    }
    // After loading, deleted slots are still reused and removed labels can come back.
    const loadedSlots = (): number => (loaded as unknown as { native: { getCurrentCount(): number } }).native.getCurrentCount();
    loaded.add(range(20, 3_000), data.slice(1_900, 1_920));
    loaded.add([250], [data[1_950]!]);
    expect(loadedSlots()).toBe(1_000);
    expect(labelsOf(loaded.search(data[1_950]!, 1))).toEqual([250]);
    expect(loaded.size()).toBe(index.size() + 21);
    index.dispose();
    loaded.dispose();
  });

  it('saves and loads an empty index', async () => {
    const name = uniqueName();
    const index = await factory({ name, dim, capacity: 16 });
    expect(await index.saveSnapshot(0)).toBe(true);
    const other = await built(uniqueName(), 10);
    const reopened = await factory({ name, dim, capacity: 16 });
    expect(await reopened.loadSnapshot()).toBe(0);
    expect(reopened.size()).toBe(0);
    expect(reopened.search(data[0]!, 3)).toEqual([]);
    reopened.add([1], [data[0]!]);
    expect(labelsOf(reopened.search(data[0]!, 3))).toEqual([1]);
    for (const i of [index, other, reopened]) i.dispose();
  });

  it('serialises concurrent saves and loads of different indexes', async () => {
    const a = await built(uniqueName(), 300);
    const b = await built(uniqueName(), 400);
    const results = await Promise.all([a.saveSnapshot(1), b.saveSnapshot(2), a.saveSnapshot(3)]);
    expect(results).toEqual([true, true, true]);
    const [la, lb] = await Promise.all([
      factory({ name: `snap-${counter - 1}`, dim, capacity: 16 }),
      factory({ name: `snap-${counter}`, dim, capacity: 16 }),
    ]);
    expect(await Promise.all([la.loadSnapshot(), lb.loadSnapshot()])).toEqual([3, 2]);
    expect([la.size(), lb.size()]).toEqual([300, 400]);
    for (const i of [a, b, la, lb]) i.dispose();
  });
});
