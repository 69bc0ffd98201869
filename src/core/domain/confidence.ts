/**
 * Confidence verdicts, `'strong' | 'weak' | 'none'`, and the robust statistics they are built on.
 *
 * Recall's verdicts come from the relevance model (relevance.ts: P(relevant) from the cosine, in
 * the embedder's calibrated units, and the query-term coverage; relevance-background.ts: the
 * store's side). `classifyConfidence` is the plain cosine-threshold verdict that `scoreCandidates`
 * still offers for callers with their own thresholds.
 *
 * (Before issue #14 the store learned cosine thresholds from random pairs of its own memories,
 * median + 2 and + 4 robust spreads. In a store of related notes that background sits high, and
 * correct answers to questions, which resemble their answer less than two notes on one topic
 * resemble each other, came out "No real match" nearly always.)
 */

export type Confidence = 'strong' | 'weak' | 'none';

export interface ConfidenceThresholds {
  /** Cosine at or above which a hit is `'strong'`. */
  strong: number;
  /** Cosine at or above which a hit is `'weak'` (below: `'none'`). */
  weak: number;
}

/** The verdict for one cosine under `thresholds`. */
export function classifyConfidence(cosine: number, thresholds: ConfidenceThresholds): Confidence {
  if (cosine >= thresholds.strong) return 'strong';
  if (cosine >= thresholds.weak) return 'weak';
  return 'none';
}

/** Linear-interpolated quantile (`q` in [0, 1]) of an ascending-sorted, non-empty array. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return quantileSorted([...values].sort((x, y) => x - y), 0.5);
}

/** Median and 1.4826·MAD: a robust (location, scale) pair. */
export function robustStats(values: readonly number[]): { median: number; spread: number } {
  const m = median(values);
  const deviations = values.map((v) => Math.abs(v - m));
  return { median: m, spread: 1.4826 * median(deviations) };
}
