/**
 * The store's side of the relevance verdict: which calibration applies to this store's embedder,
 * and what the store's background looks like.
 *
 * - An embedder with a reference calibration (`calibrations.ts`, or `Embedder.calibration`) uses
 *   it as is; the store contributes a random sample of its memories' vectors, against which each
 *   query is compared: when the query is closer to the store as a whole (the median of those
 *   cosines) than unrelated text usually is, the background location moves up by the difference
 *   (relevance.ts), so a store full of near-identical notes does not make every hit "strong".
 * - An embedder without one falls back on {@link GENERIC_MODEL} over a background measured in the
 *   store itself: the median and robust spread of the cosines between random pairs of the sampled
 *   memories (memories resemble each other more than unrelated text does, so this errs strict).
 *   Until the store holds {@link MIN_STORE_BACKGROUND} memories it uses the spread of a typical
 *   sentence embedder ({@link FALLBACK_BACKGROUND}).
 */
import { robustStats } from '../domain/confidence.ts';
import {
  backgroundLocation,
  DEFAULT_RELEVANCE_THRESHOLDS,
  GENERIC_MODEL,
  MIN_STORE_BACKGROUND,
  relevanceJudge,
  type RelevanceCalibration,
  type RelevanceJudge,
} from '../domain/relevance.ts';
import { cosineInOrder as cosine, cosineInOrderFrom } from '../domain/vector-math.ts';

/** Background assumed for an unknown embedder before the store can measure its own. */
export const FALLBACK_BACKGROUND = Object.freeze({ median: 0.1, spread: 0.1 });

export interface RelevanceDescription {
  /** Cosine at which a hit sharing no query term becomes `'strong'` (at this store's median background). */
  strong: number;
  /** Cosine at which a hit sharing no query term becomes `'weak'`. */
  weak: number;
  /** True when a reference calibration or a measured store background is in use. */
  calibrated: boolean;
  /** 'reference' (shipped calibration), 'reference+store' (with a store background sample), 'store' (generic model over the store's own background), 'default'. */
  method: 'reference' | 'reference+store' | 'store' | 'default';
  /** Memories in the background sample. */
  samples: number;
  /** Where the reference calibration comes from, when there is one. */
  source?: string;
}

const logit = (p: number): number => Math.log(p / (1 - p));

export class RelevanceBackground {
  private sample: Float32Array[] = [];
  private storeStats: { median: number; spread: number } | null = null;

  constructor(private readonly reference: RelevanceCalibration | null) {}

  /** Replaces the background sample (random stored vectors). */
  setSample(vectors: readonly Float32Array[]): void {
    this.sample = [...vectors];
    if (this.reference || vectors.length < MIN_STORE_BACKGROUND) {
      this.storeStats = null;
      return;
    }
    const sims: number[] = [];
    for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) sims.push(cosine(vectors[i]!, vectors[j]!));
    const { median, spread } = robustStats(sims);
    this.storeStats = { median, spread: Math.max(spread, 0.02) };
  }

  get sampleSize(): number {
    return this.sample.length;
  }

  private calibration(): Pick<RelevanceCalibration, 'background' | 'model' | 'thresholds'> {
    if (this.reference) return this.reference;
    return { background: this.storeStats ?? FALLBACK_BACKGROUND, model: GENERIC_MODEL, thresholds: DEFAULT_RELEVANCE_THRESHOLDS };
  }

  /** The judge for one query vector. */
  judgeFor(query: Float32Array): RelevanceJudge {
    const calibration = this.calibration();
    if (!this.reference || this.sample.length < MIN_STORE_BACKGROUND) return relevanceJudge({ calibration });
    const toQuery = cosineInOrderFrom(query);
    return relevanceJudge({ calibration, queryBackground: this.sample.map((v) => toQuery(v)) });
  }

  /** What `stats().confidence` reports. */
  describe(): RelevanceDescription {
    const calibration = this.calibration();
    const { model, thresholds, background } = calibration;
    const { location } = backgroundLocation({ calibration });
    // The cosine where the logit reaches each threshold with no query term matched.
    const at = (p: number): number => Math.min(1, Math.max(-1, location + ((logit(p) - model.bias) / model.cosine) * background.spread));
    const method: RelevanceDescription['method'] = this.reference
      ? this.sample.length >= MIN_STORE_BACKGROUND
        ? 'reference+store'
        : 'reference'
      : this.storeStats
        ? 'store'
        : 'default';
    return {
      strong: at(thresholds.strong),
      weak: at(thresholds.weak),
      calibrated: method !== 'default',
      method,
      samples: this.sample.length,
      ...(this.reference ? { source: this.reference.source } : {}),
    };
  }
}
