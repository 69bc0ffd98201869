/**
 * Exact cosines for the hits of an approximate index. A quantised index (int8 codes) reports
 * similarities about 5·10⁻⁴ off, enough to swap near-ties; the float32 vectors in storage are
 * the truth, so the hits a recall is about to read are rescored from them (one read of the
 * candidates' vectors) and re-sorted, best first, ties by label as the indexes order them.
 */
import type { IndexHit, MemoryStorage, VectorIndex } from '../ports.ts';

/**
 * How far above its reported similarity an unread hit of `index` may truly lie: 0 for an exact
 * index; for the int8 codes, 0.01, twenty times their typical error (5·10⁻⁴; what the query's
 * dot with the code's rounding residual can reach is ‖residual‖ ≈ 0.009 at MiniLM's peaks, and
 * that needs the query aligned with the residual). A caller that reads hits in reported order
 * can stop once the k-th exact score beats the next hit's similarity plus this margin.
 */
export function rescoreMargin(index: Pick<VectorIndex, 'approximate'>): number {
  return index.approximate ? APPROXIMATE_MARGIN : 0;
}

const APPROXIMATE_MARGIN = 0.01;

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
