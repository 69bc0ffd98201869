/**
 * Which of a recall's scored candidates it returns, and in what order. Pure: the pipeline
 * (recall-pipeline.ts) reads the vectors MMR needs and hands them in as `similarity`.
 *
 * The score chooses the k; the confidence band orders them. A hit never ranks above a returned
 * hit of a higher band (strong, then weak, then none; by score within a band), so the badge and
 * the rank agree and an agent that takes the first hit takes the best-judged one. But the band
 * is a verdict on one hit, with its own errors, not a better score: when it also chose which k
 * to return, a weak hit far down the scores pushed better-scored memories out of the list (on
 * LoCoMo's development conversations, MiniLM, 1.3 points of turn-level Recall@10 and 2.3 of
 * Recall@5; the agent set and the reworded questions were unchanged: BENCHMARKS.md, issue #26
 * session 6).
 */
import type { Confidence } from '../domain/confidence.ts';
import { mmrSelect } from '../domain/mmr.ts';

export const CONFIDENCE_LEVELS = ['none', 'weak', 'strong'] as const;

/** A verdict's place in the order: strong 2, weak 1, none (or no verdict) 0. */
export function bandRank(verdict: Confidence | undefined): number {
  return CONFIDENCE_LEVELS.indexOf(verdict ?? 'none');
}

/** Whether a verdict reaches the floor (`'none'` admits everything). */
export function meetsConfidence(verdict: Confidence | undefined, floor: Confidence): boolean {
  return bandRank(verdict) >= bandRank(floor);
}

export interface SelectOptions {
  k: number;
  diversity?: number | undefined;
  dedupThreshold?: number | undefined;
  sort: 'relevance' | 'recent';
  /** An ungated recency term asked for: then "latest first" is the order the caller chose, not the bands. */
  recencyWeight: number;
}

/** Whether choosing needs the candidates' vectors (MMR or near-duplicate suppression). */
export function selectionNeedsVectors(o: Pick<SelectOptions, 'diversity' | 'dedupThreshold'>): boolean {
  return o.diversity !== undefined || o.dedupThreshold !== undefined;
}

/**
 * The k hits a recall returns, from `scored` (best score first), in the order it returns them:
 * the best k by score (or by MMR over the scores), then by band, then, with `sort: 'recent'`,
 * newest first (ties keep the relevance order).
 */
export function selectHits<H extends { score: number; confidence?: Confidence | undefined; memory: { createdAt: number } }>(
  scored: readonly H[],
  o: SelectOptions,
  similarity?: (a: H, b: H) => number | null,
): H[] {
  let chosen: H[];
  if (selectionNeedsVectors(o)) {
    if (!similarity) throw new Error('selectHits: MMR needs the similarity of two candidates');
    chosen = mmrSelect(scored, { k: o.k, diversity: o.diversity ?? null, dedupThreshold: o.dedupThreshold ?? null, similarity });
  } else {
    chosen = scored.slice(0, o.k);
  }
  // A stable sort: the score (or MMR's order) stays the order within a band.
  if (o.recencyWeight === 0) chosen.sort((a, b) => bandRank(b.confidence) - bandRank(a.confidence));
  if (o.sort === 'recent') chosen = chosen.map((h, i) => ({ h, i })).sort((a, b) => b.h.memory.createdAt - a.h.memory.createdAt || a.i - b.i).map((x) => x.h);
  return chosen;
}
