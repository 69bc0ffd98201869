/**
 * Relevance verdicts: how likely a recalled memory is to answer the query, and the
 * `strong | weak | none` badge derived from it. Pure and deterministic.
 *
 * Two pieces of evidence per hit:
 * - the **cosine**, expressed in the embedder's own units: `z = (cosine − location) / spread`,
 *   where `location` and `spread` are the median and robust spread (1.4826·MAD) of the cosine of
 *   unrelated text pairs for that embedder (its reference background), raised by the store's
 *   background when the query is, on the whole, much closer to this store's memories than
 *   unrelated text usually is (see {@link backgroundLocation});
 * - the **coverage**, the share of the query's informative terms found in the memory:
 *   Σ idf(matched query terms) / Σ idf(query terms), with stop words and stems as BM25 sees them
 *   (`lexicalTerms`) and BM25's idf over the candidate pool, so a word most candidates share
 *   ("user") counts for little and a query word no candidate holds ("zebra") weighs fully against.
 *
 * `P(relevant) = σ(bias + a·z + b·coverage)`; `'strong'` at P ≥ thresholds.strong, `'weak'` at
 * P ≥ thresholds.weak, else `'none'`. The coefficients and the background are the embedder's
 * reference calibration (`calibrations.ts`, fitted by `npm run eval -- --calibrate`); an embedder
 * without one gets {@link GENERIC_MODEL} over a background sampled from the store itself.
 */
import { bm25Idf } from './bm25.ts';
import { median, type Confidence } from './confidence.ts';

export interface RelevanceModel {
  /** Logit at z = 0 and coverage = 0. */
  bias: number;
  /** Logit per unit of z (cosine above the background, in background spreads). */
  cosine: number;
  /** Logit per unit of coverage. */
  coverage: number;
  /**
   * Logit per unit of margin: the hit's cosine minus the best cosine of the other candidates of
   * the same recall (positive for the clear winner, negative below it). Absent: not used.
   */
  margin?: number;
}

export interface RelevanceCalibration {
  version: 1;
  /** The embedder this calibration belongs to (`Embedder.id`). */
  embedderId: string;
  /** Cosine of unrelated pairs: median and 1.4826·MAD. */
  background: { median: number; spread: number };
  model: RelevanceModel;
  /** Probability cut-offs of `'weak'` and `'strong'`. */
  thresholds: { weak: number; strong: number };
  /** Where the numbers come from (data, split, date). */
  source: string;
}

export interface RelevanceFeatures {
  cosine: number;
  /** In [0, 1]; see {@link lexicalCoverage}. */
  coverage: number;
  /** The cosine minus the best cosine of the other candidates (0 when there is none); see {@link cosineMargins}. */
  margin?: number;
}

export interface RelevanceJudgement {
  /** P(relevant) in [0, 1]. */
  probability: number;
  confidence: Confidence;
  /** The z the model saw. */
  z: number;
}

/** Turns a hit's features into a judgement; made per query by {@link relevanceJudge}. */
export type RelevanceJudge = (features: RelevanceFeatures) => RelevanceJudgement;

/**
 * Default probability cut-offs: chosen once, for every embedder, on the dev half of the
 * agent-memory set (bench/data/agent-memory.json); the test half is only measured.
 */
export const DEFAULT_RELEVANCE_THRESHOLDS = Object.freeze({ weak: 0.65, strong: 0.9 });

/**
 * The store's background moves the location only beyond this many reference spreads: a store of
 * notes on one subject is expectedly closer to an on-subject query than random text is (moving
 * fully cost MiniLM nothing but bge-small a third of its correct answers on the dev queries);
 * a store of near-identical notes, where every hit would otherwise look strong, is not.
 */
export const STORE_SHIFT_TOLERANCE = 2;

/**
 * Coefficients for embedders without a reference calibration: the mean, in z units, of the
 * shipped calibrations (see `calibrations.ts`, which checks it stays close to them).
 */
export const GENERIC_MODEL: Readonly<RelevanceModel> = Object.freeze({ bias: -6, cosine: 1.2, coverage: 4 });

/** Store background is trusted once the query was compared with at least this many memories. */
export const MIN_STORE_BACKGROUND = 16;

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

export function verdictFor(probability: number, thresholds: { weak: number; strong: number }): Confidence {
  if (probability >= thresholds.strong) return 'strong';
  if (probability >= thresholds.weak) return 'weak';
  return 'none';
}

export interface JudgeContext {
  calibration: Pick<RelevanceCalibration, 'background' | 'model' | 'thresholds'>;
  /**
   * The query's cosines with a random sample of stored memories (the store's background for this
   * query). When at least {@link MIN_STORE_BACKGROUND} are given and their median exceeds the
   * reference median by more than {@link STORE_SHIFT_TOLERANCE} spreads, the location moves up
   * by the excess.
   */
  queryBackground?: readonly number[];
}

/** The background location used for one query (reference median, raised by the store's). */
export function backgroundLocation(context: JudgeContext): { location: number; shift: number } {
  const reference = context.calibration.background.median;
  const sample = context.queryBackground;
  if (!sample || sample.length < MIN_STORE_BACKGROUND) return { location: reference, shift: 0 };
  const shift = Math.max(0, median(sample) - reference - STORE_SHIFT_TOLERANCE * context.calibration.background.spread);
  return { location: reference + shift, shift };
}

/** A judge for one query (see the module comment). */
export function relevanceJudge(context: JudgeContext): RelevanceJudge {
  const { model, thresholds, background } = context.calibration;
  const { location } = backgroundLocation(context);
  const spread = Math.max(background.spread, 1e-3);
  const perMargin = model.margin ?? 0;
  return ({ cosine, coverage, margin = 0 }) => {
    const z = (cosine - location) / spread;
    const probability = sigmoid(model.bias + model.cosine * z + model.coverage * coverage + perMargin * margin);
    return { probability, confidence: verdictFor(probability, thresholds), z };
  };
}

/**
 * Each candidate's cosine minus the best cosine among the others: how far a hit stands out of the
 * recall's candidates (a right answer often stands clear; a near miss for a question nothing
 * answers often sits among look-alikes). 0 for a lone candidate; `-Infinity` marks a cosine that
 * takes no part (and gets 0).
 */
export function cosineMargins(cosines: readonly number[]): number[] {
  let first = -Infinity;
  let second = -Infinity;
  let at = -1;
  cosines.forEach((c, i) => {
    if (c > first) {
      second = first;
      first = c;
      at = i;
    } else if (c > second) second = c;
  });
  return cosines.map((c, i) => {
    const other = i === at ? second : first;
    return Number.isFinite(other) && Number.isFinite(c) ? c - other : 0;
  });
}

/**
 * Per document, the idf-weighted share of the query terms it contains (see the module comment).
 * `queryTerms` is used as a set; `docs[i]` holds the terms of pool document i (repeats do not
 * count twice). Document frequencies are counted over `docs`. All 0 when the query has no terms.
 * Each document's terms are read once, against the query's terms by position: no set is built
 * per document (a recall judges ~60 of them).
 */
export function lexicalCoverage(queryTerms: readonly string[], docs: readonly (readonly string[])[]): number[] {
  const query = [...new Set(queryTerms)];
  const n = docs.length;
  if (query.length === 0 || n === 0) return docs.map(() => 0);
  const position = new Map(query.map((t, i) => [t, i] as const));
  // held[d·q + i] = 1 when document d holds query term i.
  const q = query.length;
  const held = new Uint8Array(n * q);
  docs.forEach((terms, d) => {
    for (const t of terms) {
      const i = position.get(t);
      if (i !== undefined) held[d * q + i] = 1;
    }
  });
  const idf = query.map((_, i) => {
    let df = 0;
    for (let d = 0; d < n; d++) df += held[d * q + i]!;
    return bm25Idf(n, df);
  });
  const total = idf.reduce((a, b) => a + b, 0);
  return docs.map((_, d) => {
    let got = 0;
    for (let i = 0; i < q; i++) if (held[d * q + i]) got += idf[i]!;
    return total > 0 ? got / total : 0;
  });
}
