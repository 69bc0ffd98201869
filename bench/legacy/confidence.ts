// The confidence calibrator of houkai-web before issue #14 (src/core/confidence.ts at e46d7ab), kept verbatim
// for the before/after figures of `npm run eval`. Not part of the library.
/**
 * Calibrated confidence verdicts for recall hits: `'strong' | 'weak' | 'none'`.
 *
 * Why calibrate: a raw cosine means different things for different embedders. Two unrelated
 * sentences score about 0.0–0.15 under MiniLM but 0.2–0.4 under USE-lite, so a fixed cut-off is
 * wrong for one of them. The store therefore learns what "unrelated" looks like for *its*
 * embedder and *its* content, and judges hits against that.
 *
 * Method (pure, deterministic, O(samples log samples)):
 *
 * 1. Background sample B, the cosine of pairs that are (mostly) unrelated, from the first source
 *    that has at least `minSamples` values:
 *    a. `observePairwise`: similarities between random pairs of stored memories (best: an
 *       unbiased picture of unrelated pairs in this store);
 *    b. `observeRecall`: the lower half of each observed top-k cosine list (ranks k/2+1…k). These
 *       are near-neighbours that were not the best ones, so they over-estimate "unrelated" and the
 *       resulting thresholds err on the strict side.
 * 2. Robust location and scale of B: m = median(B), s = max(1.4826·MAD(B), minSpread). (1.4826·MAD
 *    estimates a standard deviation without being dragged by the few related pairs in B.)
 * 3. weak = m + weakZ·s and strong = m + strongZ·s (defaults 2 and 4 robust standard deviations),
 *    clamped to [−1, 1], with strong ≥ weak + 0.01.
 * 4. Without enough background but with ≥ `minSamples` top-1 cosines from `observeRecall`:
 *    weak = 25th and strong = 75th percentile of the top-1 distribution ("as good as a typical
 *    best hit").
 * 5. Otherwise the fallback thresholds (default strong 0.5, weak 0.3, typical for MiniLM-class
 *    sentence embedders), reported with `calibrated: false`.
 *
 * A hit is `'strong'` when its cosine ≥ strong, `'weak'` when ≥ weak, else `'none'`. The verdict
 * uses the cosine only: it is the one signal on a fixed scale, whereas hybrid/RRF scores depend on
 * the weights and on the pool.
 *
 * Samples are kept in bounded ring buffers (`capacity`, default 2048 each), so the calibrator can
 * be fed forever; `toJSON`/`fromJSON` persist it per embedder id.
 */
import { invalid } from '../../src/core/errors.ts';
import { checkInteger } from '../../src/core/domain/validate.ts';

export type Confidence = 'strong' | 'weak' | 'none';

export interface ConfidenceThresholds {
  /** Cosine at or above which a hit is `'strong'`. */
  strong: number;
  /** Cosine at or above which a hit is `'weak'` (below: `'none'`). */
  weak: number;
}

export type CalibrationMethod = 'pairwise-background' | 'recall-tail-background' | 'top1-quantiles' | 'default';

export interface CalibratedThresholds extends ConfidenceThresholds {
  /** False when too few samples were seen and the fallback thresholds are in use. */
  calibrated: boolean;
  method: CalibrationMethod;
  /** Number of samples the thresholds were derived from (0 for the fallback). */
  samples: number;
}

export interface CalibratorOptions {
  /** Ring-buffer size per sample kind, default 2048. */
  capacity?: number;
  /** Samples needed before a source is trusted, default 30. */
  minSamples?: number;
  /** Robust z for `weak`, default 2. */
  weakZ?: number;
  /** Robust z for `strong`, default 4. */
  strongZ?: number;
  /** Floor on the robust spread, default 0.02 (a near-constant background would otherwise make every hit strong). */
  minSpread?: number;
  /** Thresholds used until calibrated, default strong 0.5 / weak 0.3. */
  fallback?: ConfidenceThresholds;
}

export interface CalibratorState {
  version: 1;
  embedderId: string;
  background: number[];
  tail: number[];
  top1: number[];
}

export const DEFAULT_CONFIDENCE_THRESHOLDS: Readonly<ConfidenceThresholds> = Object.freeze({ strong: 0.5, weak: 0.3 });

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

function clampCosine(x: number): number {
  return Math.min(1, Math.max(-1, x));
}

/** Thresholds from a background sample (step 2–3 of the method). */
export function thresholdsFromBackground(
  background: readonly number[],
  options: { weakZ?: number; strongZ?: number; minSpread?: number } = {},
): ConfidenceThresholds {
  const { median: m, spread } = robustStats(background);
  const s = Math.max(spread, options.minSpread ?? 0.02);
  const weak = clampCosine(m + (options.weakZ ?? 2) * s);
  const strong = clampCosine(Math.max(m + (options.strongZ ?? 4) * s, weak + 0.01));
  return { strong, weak };
}

/** Bounded FIFO of numbers. */
class Ring {
  private readonly data: number[] = [];
  private next = 0;
  constructor(private readonly capacity: number) {}
  push(value: number): void {
    if (this.data.length < this.capacity) this.data.push(value);
    else {
      this.data[this.next] = value;
      this.next = (this.next + 1) % this.capacity;
    }
  }
  values(): number[] {
    // Oldest first, so a round trip through toJSON keeps the eviction order.
    return this.data.length < this.capacity ? [...this.data] : [...this.data.slice(this.next), ...this.data.slice(0, this.next)];
  }
  get size(): number {
    return this.data.length;
  }
  clear(): void {
    this.data.length = 0;
    this.next = 0;
  }
}

function checkCosine(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalid(`${field} must be finite cosine similarities — got ${JSON.stringify(value)}`, { field });
  }
  // Float error can push a cosine a hair past ±1.
  return clampCosine(value);
}

function checkThresholds(value: ConfidenceThresholds, field: string): ConfidenceThresholds {
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= -1 && x <= 1;
  if (!value || !ok(value.strong) || !ok(value.weak) || value.weak > value.strong) {
    throw invalid(`${field} must be { strong, weak } cosines in [-1, 1] with weak ≤ strong`, { field });
  }
  return { strong: value.strong, weak: value.weak };
}

function checkPositive(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalid(`${field} must be a finite number > 0 — got ${JSON.stringify(value)}`, { field });
  }
  return value;
}

/** Learns confidence thresholds for one embedder from observed similarities (see the module comment). */
export class ConfidenceCalibrator {
  readonly embedderId: string;
  private readonly background: Ring;
  private readonly tail: Ring;
  private readonly top1: Ring;
  private readonly minSamples: number;
  private readonly weakZ: number;
  private readonly strongZ: number;
  private readonly minSpread: number;
  private readonly fallback: ConfidenceThresholds;
  private cached: CalibratedThresholds | null = null;

  constructor(embedderId: string, options: CalibratorOptions = {}) {
    if (typeof embedderId !== 'string' || embedderId.length === 0) throw invalid('embedderId must be a non-empty string', { field: 'embedderId' });
    this.embedderId = embedderId;
    const capacity = checkInteger(options.capacity ?? 2048, 'capacity', 1);
    this.minSamples = checkInteger(options.minSamples ?? 30, 'minSamples', 1);
    this.weakZ = checkPositive(options.weakZ ?? 2, 'weakZ');
    this.strongZ = checkPositive(options.strongZ ?? 4, 'strongZ');
    if (this.strongZ <= this.weakZ) throw invalid('strongZ must be greater than weakZ', { field: 'strongZ' });
    this.minSpread = checkPositive(options.minSpread ?? 0.02, 'minSpread');
    this.fallback = checkThresholds(options.fallback ?? DEFAULT_CONFIDENCE_THRESHOLDS, 'fallback');
    this.background = new Ring(capacity);
    this.tail = new Ring(capacity);
    this.top1 = new Ring(capacity);
  }

  /** Cosines between random pairs of stored memories (the preferred background). */
  observePairwise(similarities: Iterable<number>): void {
    for (const s of similarities) this.background.push(checkCosine(s, 'similarities'));
    this.cached = null;
  }

  /**
   * One recall's cosines, best first (the top-k before any re-ranking, or sorted here). The first
   * is a top-1 sample; ranks ⌊k/2⌋+1…k (1-based, only when k ≥ 2) are tail (background-proxy) samples.
   */
  observeRecall(cosines: readonly number[]): void {
    const sorted = cosines.map((c) => checkCosine(c, 'cosines')).sort((a, b) => b - a);
    if (sorted.length === 0) return;
    this.top1.push(sorted[0]!);
    if (sorted.length >= 2) for (let i = Math.floor(sorted.length / 2); i < sorted.length; i++) this.tail.push(sorted[i]!);
    // Once the pairwise background is in use, recall samples cannot change the thresholds: keep
    // the memoised ones (recomputing the medians on every recall cost ~15% of its time).
    if (this.cached?.method !== 'pairwise-background') this.cached = null;
  }

  /** Current thresholds (memoised until the next observation). */
  thresholds(): CalibratedThresholds {
    if (this.cached) return this.cached;
    const z = { weakZ: this.weakZ, strongZ: this.strongZ, minSpread: this.minSpread };
    let result: CalibratedThresholds;
    if (this.background.size >= this.minSamples) {
      result = { ...thresholdsFromBackground(this.background.values(), z), calibrated: true, method: 'pairwise-background', samples: this.background.size };
    } else if (this.tail.size >= this.minSamples) {
      result = { ...thresholdsFromBackground(this.tail.values(), z), calibrated: true, method: 'recall-tail-background', samples: this.tail.size };
    } else if (this.top1.size >= this.minSamples) {
      const sorted = this.top1.values().sort((a, b) => a - b);
      const weak = quantileSorted(sorted, 0.25);
      const strong = Math.max(quantileSorted(sorted, 0.75), Math.min(1, weak + 0.01));
      result = { strong, weak, calibrated: true, method: 'top1-quantiles', samples: this.top1.size };
    } else {
      result = { ...this.fallback, calibrated: false, method: 'default', samples: 0 };
    }
    this.cached = result;
    return result;
  }

  classify(cosine: number): Confidence {
    return classifyConfidence(cosine, this.thresholds());
  }

  reset(): void {
    this.background.clear();
    this.tail.clear();
    this.top1.clear();
    this.cached = null;
  }

  toJSON(): CalibratorState {
    return { version: 1, embedderId: this.embedderId, background: this.background.values(), tail: this.tail.values(), top1: this.top1.values() };
  }

  /** Restores a calibrator saved with `toJSON`; the state must belong to `embedderId` when given. */
  static fromJSON(state: CalibratorState, options: CalibratorOptions = {}, embedderId?: string): ConfidenceCalibrator {
    if (!state || state.version !== 1 || typeof state.embedderId !== 'string') throw invalid('calibrator state is not a version 1 state', { field: 'state' });
    if (embedderId !== undefined && embedderId !== state.embedderId) {
      throw invalid(`calibrator state belongs to embedder ${JSON.stringify(state.embedderId)}, not ${JSON.stringify(embedderId)}`, { field: 'state' });
    }
    const calibrator = new ConfidenceCalibrator(state.embedderId, options);
    for (const s of state.background ?? []) calibrator.background.push(checkCosine(s, 'state.background'));
    for (const s of state.tail ?? []) calibrator.tail.push(checkCosine(s, 'state.tail'));
    for (const s of state.top1 ?? []) calibrator.top1.push(checkCosine(s, 'state.top1'));
    return calibrator;
  }
}
