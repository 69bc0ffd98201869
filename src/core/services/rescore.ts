/**
 * Exact cosines for the hits of an approximate index. A quantised index (int8 codes) reports
 * similarities about 5·10⁻⁴ off, enough to swap near-ties; the float32 vectors in storage are
 * the truth, so the hits a recall is about to read are rescored from them (one read of the
 * candidates' vectors) and re-sorted, best first, ties by label as the indexes order them.
 */
import type { IndexHit, MemoryStorage, VectorIndex } from '../ports.ts';

/** Rescores `hits` when `index` is approximate; returns them unchanged otherwise. */
export async function rescoreHits(
  index: Pick<VectorIndex, 'approximate'>,
  storage: Pick<MemoryStorage, 'vectorsOf'>,
  query: Float32Array,
  hits: IndexHit[],
): Promise<IndexHit[]> {
  if (!index.approximate || hits.length === 0) return hits;
  const vectors = await storage.vectorsOf(hits.map((h) => h.label));
  const qInv = inverseNorm(query);
  const out = hits.map((h) => {
    const v = vectors.get(h.label);
    // A vector missing from storage (removed meanwhile) keeps its approximate score; the row read
    // that follows drops it anyway.
    if (!v || v.length !== query.length) return h;
    return { label: h.label, similarity: Math.max(-1, Math.min(1, dot(v, query) * inverseNorm(v) * qInv)) };
  });
  out.sort((a, b) => b.similarity - a.similarity || a.label - b.label);
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function inverseNorm(v: Float32Array): number {
  const n = Math.sqrt(dot(v, v));
  return n > 0 ? 1 / n : 0;
}
