import { roundToHalf } from '../src/core/domain/half-float.ts';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../src/core/ports.ts';
import { cosine } from '../src/core/ops/recall-pipeline.ts';
import type { Memory, MemoryType } from '../src/core/types.ts';
import { gaussian, mulberry32 } from './helpers/prng.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

/**
 * Semantic recall reads candidate rows in descending-cosine chunks and stops once nothing unread
 * can reach the k-th score. Whatever it reads, it must return exactly what scoring the whole
 * over-fetched pool returns: the top k of cosine + 0.05·polarity among the k·overfetch nearest
 * memories that pass the filters, ties broken by importance, then newest.
 */

const DIM = 24;
const TYPES: MemoryType[] = ['episodic', 'semantic', 'procedural', 'feedback'];

function tableEmbedder(table: Map<string, Float32Array>): Embedder {
  return {
    id: `table-${DIM}`,
    dim: DIM,
    async embed(texts) {
      return texts.map((t) => table.get(t)!);
    },
  };
}

/** The whole-pool answer, computed from the stored memories and their vectors. */
function expected(
  memories: Memory[],
  vectors: Map<string, Float32Array>,
  query: Float32Array,
  o: { k: number; overfetch: number; type?: MemoryType; minCosine?: number },
): string[] {
  const ranked = memories
    .map((m) => ({ m, cos: cosine(query, vectors.get(m.id)!) }))
    .sort((a, b) => b.cos - a.cos)
    .slice(0, o.k * o.overfetch);
  return ranked
    .filter(({ m, cos }) => (o.type === undefined || m.type === o.type) && (o.minCosine === undefined || cos >= o.minCosine))
    .map(({ m, cos }) => ({ m, score: cos + 0.05 * m.polarity }))
    .sort((a, b) => b.score - a.score || b.m.importance - a.m.importance || b.m.createdAt - a.m.createdAt)
    .slice(0, o.k)
    .map(({ m }) => m.id);
}

describe('semantic recall reads only the rows it needs', () => {
  for (const polarities of [[0], [-1, 0], [-1, 0, 1]] as const) {
    it(`returns the whole pool's top k (polarities ${polarities.join(', ')}), over seeded stores and queries`, async () => {
      const random = mulberry32(7 + polarities.length);
      const normal = gaussian(random);
      const clock = manualClock();
      const table = new Map<string, Float32Array>();
      const centres = Array.from({ length: 4 }, () => Float32Array.from({ length: DIM }, () => normal()));
      const near = (): Float32Array => {
        const c = centres[Math.floor(random() * centres.length)]!;
        return Float32Array.from(c, (x) => x + 0.6 * normal());
      };
      const store = await openTestStore({ embedder: tableEmbedder(table), clock });
      const items = Array.from({ length: 300 }, (_, i) => {
        const text = `memory ${i}`;
        table.set(text, near());
        return {
          text,
          type: TYPES[i % TYPES.length]!,
          polarity: polarities[Math.floor(random() * polarities.length)]!,
          importance: Math.round(random() * 4) / 4,
        };
      });
      for (let i = 0; i < items.length; i += 50) {
        await store.rememberMany(items.slice(i, i + 50));
        clock.advance(60);
      }
      const memories = await store.listRecent({ limit: 1000 });
      // The oracle ranks what the store holds: vectors at binary16 precision.
      const vectors = new Map(memories.map((m) => [m.id, roundToHalf(table.get(m.text)!)]));
      let compared = 0;
      for (let q = 0; q < 40; q++) {
        const text = `query ${q}`;
        const query = near();
        table.set(text, query);
        const options = {
          k: 1 + Math.floor(random() * 12),
          overfetch: 1 + Math.floor(random() * 4),
          ...(q % 3 === 1 ? { type: TYPES[q % TYPES.length]! } : {}),
          ...(q % 5 === 2 ? { minCosine: 0.3 } : {}),
        };
        const want = expected(memories, vectors, query, options);
        // Fewer than k survivors in the pool: the store widens it (×4), which the oracle does not model.
        if (want.length < options.k) continue;
        compared += 1;
        const hits = await store.recall(text, { mode: 'semantic', ...options, touch: false });
        expect(hits.map((h) => h.memory.id)).toEqual(want);
      }
      expect(compared).toBeGreaterThan(25);
      await store.close();
    });
  }

  it('a memory with positive polarity just below the k-th cosine still lifts into the top k', async () => {
    const table = new Map<string, Float32Array>();
    const base = Float32Array.from({ length: DIM }, (_, i) => (i === 0 ? 1 : 0));
    const at = (c: number): Float32Array => Float32Array.from({ length: DIM }, (_, i) => (i === 0 ? c : i === 1 ? Math.sqrt(1 - c * c) : 0));
    table.set('q', base);
    const store = await openTestStore({ embedder: tableEmbedder(table) });
    const items = Array.from({ length: 30 }, (_, i) => {
      const text = `row ${i}`;
      table.set(text, at(0.99 - i * 0.005));
      return { text, polarity: i === 9 ? (1 as const) : (0 as const) };
    });
    await store.rememberMany(items);
    // Row 9's cosine is 0.945, the 10th best; +0.05 for its polarity makes it the best (0.995).
    const hits = await store.recall('q', { k: 3, touch: false, mode: 'semantic' });
    expect(hits.map((h) => h.memory.text)).toEqual(['row 9', 'row 0', 'row 1']);
    await store.close();
  });
});
