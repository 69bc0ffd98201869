/**
 * The deferred index's pending vectors (pending-vectors.ts): slabs instead of an object a vector,
 * int8 codes over the int8 graph (a quarter of the bytes), and the graph built from the codes is
 * the graph built from the vectors (issue #52: a 50,000-memory first sync within 300 MB in Node).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { createHnswI8IndexFactory } from '../src/adapters/index-hnsw-i8.ts';
import { DeferredIndex } from '../src/core/services/deferred-index.ts';
import { int8Codes, PendingVectors } from '../src/core/services/pending-vectors.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from './helpers/prng.ts';

const DIM = 24;
let counter = 0;
const i8 = () => {
  const name = `pending-${process.pid}-${++counter}`;
  return createHnswI8IndexFactory({ blocks: () => idbBlockStore({ database: `houkai-index:${name}`, create: true }) })({ name, dim: DIM, capacity: 4096 });
};
const scan = (p: PendingVectors, q: Float32Array): Map<number, number> => {
  const out = new Map<number, number>();
  let qq = 0;
  for (const x of q) qq += x * x;
  p.scan(q, 1 / Math.sqrt(qq), undefined, (label, similarity) => out.set(label, similarity));
  return out;
};

describe('PendingVectors', () => {
  it('int8 codes put the largest magnitude at ±127, and the codes of the codes are the codes', () => {
    const data = makeClusteredVectors(200, DIM, 5, 3);
    for (const v of data) {
      const codes = int8Codes(v);
      expect(Math.max(...[...codes].map(Math.abs))).toBe(127);
      expect(int8Codes(Float32Array.from(codes))).toEqual(codes);
    }
    expect([...int8Codes(new Float32Array(DIM))]).toEqual(new Array(DIM).fill(0));
  });

  it('scans as the exact index scores (float32), or within int8 rounding (compact), in slabs a quarter the size', () => {
    const data = makeClusteredVectors(3000, DIM, 12, 5);
    const exact = createExactIndex({ dim: DIM });
    exact.add(data.map((_, i) => i), data);
    const full = new PendingVectors(DIM, false);
    const compact = new PendingVectors(DIM, true);
    data.forEach((v, i) => (full.set(i, v), compact.set(i, v)));
    expect(compact.bytes * 4).toBeLessThan(full.bytes * 1.3);
    const normal = gaussian(mulberry32(9));
    for (let k = 0; k < 20; k++) {
      const q = perturb(data[(k * 131) % data.length]!, 0.3 / Math.sqrt(DIM), normal);
      const want = new Map(exact.search(q, data.length).map((h) => [h.label, h.similarity]));
      const a = scan(full, q);
      const b = scan(compact, q);
      expect(a.size).toBe(data.length);
      for (const [label, s] of want) {
        expect(a.get(label)).toBeCloseTo(s, 6);
        expect(Math.abs(b.get(label)! - s)).toBeLessThan(0.01);
      }
    }
  });

  it('keeps insertion order through deletes and re-sets, reuses slots, and frees its slabs when empty', () => {
    const data = makeClusteredVectors(2500, DIM, 4, 2);
    const p = new PendingVectors(DIM, true);
    data.forEach((v, i) => p.set(i, v));
    const full = p.bytes;
    for (let i = 0; i < 1000; i++) p.delete(i);
    p.set(5, data[5]!); // a re-added label goes to the back
    p.set(1500, data[0]!); // and a re-set one moves there with its new vector
    for (let i = 2500; i < 3499; i++) p.set(i, data[i - 2500]!); // into the freed slots
    expect(p.size).toBe(2500);
    expect(p.bytes).toBe(full);
    const order = [...p.labels()];
    expect(order.slice(0, 3)).toEqual([1000, 1001, 1002]);
    const at = order.indexOf(2499);
    expect(order.slice(at - 1, at + 4)).toEqual([2498, 2499, 5, 1500, 2500]);
    expect(order.indexOf(1501)).toBe(order.indexOf(1499) + 1);
    expect(p.vector(1500)).toEqual(Float32Array.from(int8Codes(data[0]!)));
    for (const label of order) p.delete(label);
    expect(p.size).toBe(0);
    expect(p.bytes).toBe(0);
  });
});

describe('DeferredIndex over the int8 graph', () => {
  it('keeps pending vectors compact, finds them meanwhile, and builds a graph as good as direct inserts', async () => {
    const data = makeClusteredVectors(1500, DIM, 10, 6);
    const labels = data.map((_, i) => i);
    const direct = await i8();
    direct.add(labels, data);
    const deferred = new DeferredIndex(await i8(), { chunkSize: 64, sliceMs: 5 });
    const release = deferred.hold(1500 * 4 * DIM);
    deferred.addDeferred(labels, data);
    expect(deferred.pendingCount).toBe(1500);
    const normal = gaussian(mulberry32(4));
    const queries = Array.from({ length: 25 }, (_, k) => perturb(data[(k * 59) % data.length]!, 0.2 / Math.sqrt(DIM), normal));
    const exact = createExactIndex({ dim: DIM });
    exact.add(labels, data);
    for (const q of queries) expect(deferred.search(q, 1)[0]!.label).toBe(exact.search(q, 1)[0]!.label);
    release();
    await deferred.whenDrained();
    expect(deferred.inner.size()).toBe(1500);
    let same = 0;
    let found = 0;
    for (const q of queries) {
      const want = new Set(exact.search(q, 10).map((h) => h.label));
      const got = deferred.search(q, 10);
      const base = direct.search(q, 10);
      const byLabel = new Map(base.map((h) => [h.label, h.similarity]));
      for (const h of got) {
        if (want.has(h.label)) found++;
        const other = byLabel.get(h.label);
        if (other === undefined) continue;
        same++;
        expect(Math.abs(h.similarity - other)).toBeLessThan(3e-3);
      }
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
    expect(same / (10 * queries.length)).toBeGreaterThanOrEqual(0.9);
    direct.dispose();
    deferred.dispose();
  });
});
