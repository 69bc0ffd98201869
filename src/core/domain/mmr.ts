/**
 * Maximal Marginal Relevance selection with an optional near-duplicate gate (as AI-Houkai's recall
 * step 9, `_mmr_select`).
 *
 * Relevance is min-max normalised over the candidates, `rel = (s − min)/(max − min)` (1 for every
 * candidate when the span is ≤ 1e-12), so the trade-off is on the cosine scale whatever the
 * fusion (RRF scores sit near 1/60). Then, greedily until `k` are chosen:
 *
 *     val(c) = λ·rel(c) − (1 − λ)·max_{s ∈ selected} sim(c, s)      (λ = diversity)
 *
 * and the best `val` is taken (first in input order on ties). Without `diversity`, `val` is the raw
 * score. With `dedupThreshold`, a candidate whose similarity to anything already selected is ≥ the
 * threshold is skipped; selection stops early when only such candidates remain. The max over an
 * empty selection is 0. A candidate whose vector is missing (`similarity` returns null for every
 * pair) has no novelty penalty and is never dropped as a duplicate, as in the reference.
 */
import { invalid } from '../errors.ts';
import { checkNumberInRange } from './validate.ts';
import { checkInteger } from './validate.ts';

export interface MmrOptions<T> {
  /** Number to select. */
  k: number;
  /** λ in [0, 1]: 1 = pure relevance, 0 = pure novelty. Omit for plain score order. */
  diversity?: number | null;
  /** In [0, 1]: skip a candidate at least this similar to an already selected one. */
  dedupThreshold?: number | null;
  /** Cosine between two candidates' vectors, or null when either has no vector. */
  similarity: (a: T, b: T) => number | null;
}

/** Selects up to `k` of `scored` (which should be sorted best first) by MMR; see the module comment. */
export function mmrSelect<T extends { score: number }>(scored: readonly T[], options: MmrOptions<T>): T[] {
  const k = checkInteger(options.k, 'k', 0);
  const lambda = options.diversity == null ? null : checkNumberInRange(options.diversity, 'diversity', 0, 1);
  const dedup = options.dedupThreshold == null ? null : checkNumberInRange(options.dedupThreshold, 'dedupThreshold', 0, 1);
  if (typeof options.similarity !== 'function') throw invalid('similarity must be a function', { field: 'similarity' });

  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const c of scored) {
    lo = Math.min(lo, c.score);
    hi = Math.max(hi, c.score);
  }
  const span = hi - lo;
  const rel = (s: number): number => (span > 1e-12 ? (s - lo) / span : 1);

  const selected: T[] = [];
  const pool = [...scored];
  while (pool.length > 0 && selected.length < k) {
    let bestIdx = -1;
    let bestVal = Number.NEGATIVE_INFINITY;
    for (let idx = 0; idx < pool.length; idx++) {
      const candidate = pool[idx]!;
      let maxSim: number | null = null;
      for (const s of selected) {
        const sim = options.similarity(candidate, s);
        if (sim !== null && (maxSim === null || sim > maxSim)) maxSim = sim;
      }
      if (dedup !== null && maxSim !== null && maxSim >= dedup) continue;
      const val = lambda !== null ? lambda * rel(candidate.score) - (1 - lambda) * (maxSim ?? 0) : candidate.score;
      if (bestIdx < 0 || val > bestVal) {
        bestVal = val;
        bestIdx = idx;
      }
    }
    if (bestIdx < 0) break; // every remaining candidate is a near-duplicate
    selected.push(pool.splice(bestIdx, 1)[0]!);
  }
  return selected;
}
