// The scoring of houkai-web before issue #14 (src/core/scoring.ts at e46d7ab), kept verbatim but for its
// imports so that `npm run eval` can report before/after figures from one run. Not part of the library.
/**
 * First-stage scoring of a recall candidate pool, following AI-Houkai §3.3 step 5.
 *
 * The caller fetches a pool by cosine (k · overfetch) and hands it over with each candidate's
 * cosine; this module turns it into sorted hits. Modes:
 *
 * - **semantic**: `score = cosine + polarityWeight·polarity`.
 * - **hybrid, weighted fusion**:
 *       score = wc·cosine + wl·bm25 + wr·recency + wi·importance + polarityWeight·polarity
 *   where `bm25` is pool BM25 normalised by the pool maximum (bm25.ts), `recency =
 *   exp(−decayRate·ageDays)` with `ageDays = max(0, (now − createdAt)/86400)` (or `lastAccessed`
 *   when `recencyBasis` is 'accessed'), and importance is the stored [0, 1] value. When no pool
 *   document has a positive BM25 (the query matched nothing lexically) and `wl > 0`, the lexical
 *   weight is dropped and the other three core weights are multiplied by `core/(core − wl)` with
 *   `core = wc + wl + wr + wi`, so scores are not depressed by a signal that is absent; this is
 *   skipped when lexical is the only core weight (`core = wl`).
 * - **hybrid, RRF fusion**: every core signal with weight > 0 ranks the pool on its own (0-based
 *   rank, descending value, ties in pool order) and
 *       score = Σ_s w_s / (60 + rank_s) + polarityWeight·polarity / 61.
 *
 * BM25 statistics cover the whole pool, including candidates marked `filtered` (the reference
 * computes BM25 before its tag/superseded post-filters); `minCosine` also drops candidates after
 * BM25. Hits are sorted by score descending; ties go to the higher importance, then the newer
 * `createdAt`, then pool order.
 *
 * With `explain`, each hit carries `{ score, signals: [{ name, value, weight, weighted, reason,
 * details }] }` where the `weighted` parts sum to `score` (the score is computed as exactly that
 * sum), plus `breakdown`, the reference's own explain dict (rounded to 4 dp, RRF contributions 6 dp).
 */
import { invalid } from '../../src/core/errors.ts';
import { bm25Pool, type PoolBm25Result } from '../../src/core/domain/bm25.ts';
import { classifyConfidence, type Confidence, type ConfidenceThresholds } from './confidence.ts';
import { rawLexicalTerms as lexicalTerms } from '../../src/core/domain/tokenize.ts';
import { checkBoolean, checkKnownKeys, checkObject } from '../../src/core/domain/validate.ts';
import type { Memory } from '../../src/core/types.ts';

export const RECALL_MODES = ['semantic', 'hybrid'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];

export const FUSIONS = ['weighted', 'rrf'] as const;
export type Fusion = (typeof FUSIONS)[number];

export const RECENCY_BASES = ['created', 'accessed'] as const;
export type RecencyBasis = (typeof RECENCY_BASES)[number];

/** RRF's k: ranks are damped by 60 + rank. */
export const RRF_K = 60;

const SECONDS_PER_DAY = 86_400;

export interface HybridWeights {
  /** Weight of the cosine similarity, default 0.55. */
  cosine: number;
  /** Weight of the pool-normalised BM25, default 0.20. */
  lexical: number;
  /** Weight of `exp(−decayRate·ageDays)`, default 0.15. */
  recency: number;
  /** Weight of the stored importance, default 0.10. */
  importance: number;
  /** λ per day of the recency decay, default 0.10 (the DecayEngine's rate). */
  decayRate: number;
  /** Additive nudge per unit of polarity, default 0.05 (also used by semantic mode). */
  polarityWeight: number;
  /** Age measured from `createdAt` (default) or from `lastAccessed`. */
  recencyBasis: RecencyBasis;
}

export const DEFAULT_HYBRID_WEIGHTS: Readonly<HybridWeights> = Object.freeze({
  cosine: 0.55,
  lexical: 0.2,
  recency: 0.15,
  importance: 0.1,
  decayRate: 0.1,
  polarityWeight: 0.05,
  recencyBasis: 'created',
});

const WEIGHT_KEYS: ReadonlySet<string> = new Set(Object.keys(DEFAULT_HYBRID_WEIGHTS));
const NUMERIC_WEIGHTS = ['cosine', 'lexical', 'recency', 'importance', 'decayRate', 'polarityWeight'] as const;
const CORE_SIGNALS = ['cosine', 'lexical', 'recency', 'importance'] as const;
type CoreSignal = (typeof CORE_SIGNALS)[number];

/** A finite number in [min, max]; throws INVALID_ARGUMENT naming `field` otherwise. */
export function checkNumberInRange(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw invalid(`${field} must be a finite number ${range} — got ${JSON.stringify(value)}`, { field });
  }
  return value;
}

/** One of `allowed`; throws INVALID_ARGUMENT naming `field` otherwise. */
export function checkChoice<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${allowed.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as T;
}

/**
 * Validates partial hybrid weights and fills the gaps from the defaults (as AI-Houkai's
 * `HybridWeights(cosine=…)` does: unspecified fields keep their default, they do not become 0).
 * Every weight must be a finite number ≥ 0, and at least one of the four core weights > 0.
 */
export function checkWeights(value: unknown, field = 'weights'): HybridWeights {
  const raw = checkObject<HybridWeights>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, WEIGHT_KEYS, field);
  const out: HybridWeights = { ...DEFAULT_HYBRID_WEIGHTS };
  for (const key of NUMERIC_WEIGHTS) {
    if (raw[key] !== undefined) out[key] = checkNumberInRange(raw[key], `${field}.${key}`, 0, Number.POSITIVE_INFINITY);
  }
  if (raw.recencyBasis !== undefined) out.recencyBasis = checkChoice(raw.recencyBasis, RECENCY_BASES, `${field}.recencyBasis`);
  if (out.cosine + out.lexical + out.recency + out.importance <= 0) {
    throw invalid(`${field}: at least one of cosine, lexical, recency, importance must be > 0`, { field });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export interface PoolItem {
  memory: Memory;
  /** Cosine similarity between the query and the memory. */
  cosine: number;
  /** Precomputed `lexicalTerms(memory.text)`; computed here when absent. */
  lexicalTerms?: readonly string[];
  /**
   * True when a post-filter (tag, superseded, …) excludes this candidate: it still counts toward
   * the pool's BM25 statistics, as in the reference, but is never scored or returned.
   */
  filtered?: boolean;
}

export type SignalName = 'cosine' | 'lexical' | 'recency' | 'importance' | 'polarity';

export interface Signal {
  name: SignalName;
  /** The raw signal: cosine, normalised BM25, recency factor, importance or polarity. */
  value: number;
  /** The effective weight (after the lexical rescale; for RRF the fused part is `weight/(60+rank)`). */
  weight: number;
  /** This signal's part of the score; the parts sum to `score`. */
  weighted: number;
  reason: string;
  details: Record<string, unknown>;
}

export interface Explanation {
  mode: RecallMode;
  fusion?: Fusion;
  score: number;
  signals: Signal[];
  /** The reference's breakdown dict (§3.3 step 12), rounded as the reference rounds. */
  breakdown: Record<string, unknown>;
}

export interface ScoredHit {
  memory: Memory;
  score: number;
  cosine: number;
  /** Present when `confidence` thresholds were given. */
  confidence?: Confidence;
  /** Present when `explain` was set. */
  explain?: Explanation;
}

export interface ScoreOptions {
  mode?: RecallMode;
  fusion?: Fusion;
  /** Partial weights are completed from the defaults (see `checkWeights`). */
  weights?: Partial<HybridWeights>;
  /** Unix seconds; default the current time. */
  now?: number;
  explain?: boolean;
  /** Drop candidates whose cosine is below this, in [−1, 1]. */
  minCosine?: number;
  /** Attach a `confidence` verdict to each hit from its cosine. */
  confidence?: ConfidenceThresholds;
  /**
   * Replaces pool BM25 (local IDF) with another lexical scorer over the same pool, e.g. BM25
   * with the corpus statistics of a persistent inverted index. Scores must be in [0, 1].
   */
  lexicalScorer?: LexicalScorer;
}

export type LexicalScorer = (queryTerms: readonly string[], pool: readonly PoolItem[]) => PoolBm25Result;

interface CheckedScoreOptions {
  mode: RecallMode;
  fusion: Fusion;
  weights: HybridWeights;
  now: number;
  explain: boolean;
  minCosine: number | undefined;
  confidence: ConfidenceThresholds | undefined;
  lexicalScorer: LexicalScorer | undefined;
}

const SCORE_OPTION_KEYS: ReadonlySet<string> = new Set(['mode', 'fusion', 'weights', 'now', 'explain', 'minCosine', 'confidence', 'lexicalScorer']);

export function checkScoreOptions(value: unknown, field = 'options'): CheckedScoreOptions {
  const raw = checkObject<ScoreOptions>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, SCORE_OPTION_KEYS, field);
  let confidence: ConfidenceThresholds | undefined;
  if (raw.confidence !== undefined) {
    const c = checkObject<ConfidenceThresholds>(raw.confidence, 'confidence') as Record<string, unknown>;
    const strong = checkNumberInRange(c.strong, 'confidence.strong', -1, 1);
    const weak = checkNumberInRange(c.weak, 'confidence.weak', -1, 1);
    if (weak > strong) throw invalid('confidence.weak must not exceed confidence.strong', { field: 'confidence.weak' });
    confidence = { strong, weak };
  }
  return {
    mode: raw.mode === undefined ? 'semantic' : checkChoice(raw.mode, RECALL_MODES, 'mode'),
    fusion: raw.fusion === undefined ? 'weighted' : checkChoice(raw.fusion, FUSIONS, 'fusion'),
    weights: checkWeights(raw.weights),
    now: raw.now === undefined ? Date.now() / 1000 : checkNumberInRange(raw.now, 'now', 0, Number.POSITIVE_INFINITY),
    explain: raw.explain === undefined ? false : checkBoolean(raw.explain, 'explain'),
    minCosine: raw.minCosine === undefined ? undefined : checkNumberInRange(raw.minCosine, 'minCosine', -1, 1),
    confidence,
    lexicalScorer: typeof raw.lexicalScorer === 'function' ? (raw.lexicalScorer as LexicalScorer) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------------------

/** `exp(−decayRate · max(0, now − basis)/86400)`: 1 for a brand-new (or future-dated) memory. */
export function recencyFactor(memory: Memory, weights: Pick<HybridWeights, 'decayRate' | 'recencyBasis'>, now: number): number {
  return Math.exp(-weights.decayRate * ageDays(memory, weights.recencyBasis, now));
}

function ageDays(memory: Memory, basis: RecencyBasis, now: number): number {
  const from = basis === 'created' ? memory.createdAt : memory.lastAccessed;
  return Math.max(0, (now - from) / SECONDS_PER_DAY);
}

const round = (x: number, dp: number): number => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};

interface Row {
  item: PoolItem;
  /** Position in the pool (the final tie-break). */
  index: number;
  values: Record<CoreSignal, number>;
  matched: string[];
  bm25Raw: number;
}

/** Score descending, then importance descending, then newer first, then pool order. */
function compareHits(a: { score: number; memory: Memory; index: number }, b: { score: number; memory: Memory; index: number }): number {
  return (
    b.score - a.score ||
    b.memory.importance - a.memory.importance ||
    b.memory.createdAt - a.memory.createdAt ||
    a.index - b.index
  );
}

function polaritySignal(memory: Memory, weight: number, weighted: number, rrf: boolean): Signal {
  const p = memory.polarity;
  return {
    name: 'polarity',
    value: p,
    weight,
    weighted,
    reason: p === 0 ? 'No polarity hint' : p > 0 ? 'Positive polarity hint lifts the score' : 'Negative polarity hint lowers the score',
    details: rrf ? { divisor: RRF_K + 1 } : {},
  };
}

function signalReason(name: CoreSignal, value: number, row: Row): string {
  switch (name) {
    case 'cosine':
      return `Semantic similarity ${value.toFixed(3)}`;
    case 'lexical':
      return row.matched.length ? `Matched query terms: ${row.matched.join(', ')}` : 'No query term in this memory';
    case 'recency':
      return `Recency factor ${value.toFixed(3)}`;
    case 'importance':
      return `Stored importance ${value.toFixed(2)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

/**
 * Scores and sorts a recall pool (see the module comment for the formulas). Invalid options throw
 * INVALID_ARGUMENT naming the field. Returns `[]` for an empty pool.
 */
export function scoreCandidates(pool: readonly PoolItem[], query: string, options: ScoreOptions = {}): ScoredHit[] {
  if (!Array.isArray(pool)) throw invalid('pool must be an array', { field: 'pool' });
  if (typeof query !== 'string') throw invalid('query must be a string', { field: 'query' });
  const opts = checkScoreOptions(options);
  if (pool.length === 0) return [];
  const hits =
    opts.mode === 'semantic' ? scoreSemantic(pool, opts) : opts.fusion === 'rrf' ? scoreRrf(pool, query, opts) : scoreWeighted(pool, query, opts);
  hits.sort(compareHits);
  return hits.map(({ index: _index, ...hit }) => {
    if (opts.confidence) hit.confidence = classifyConfidence(hit.cosine, opts.confidence);
    return hit;
  });
}

type IndexedHit = ScoredHit & { index: number };

function survives(item: PoolItem, opts: CheckedScoreOptions): boolean {
  return !item.filtered && (opts.minCosine === undefined || item.cosine >= opts.minCosine);
}

function scoreSemantic(pool: readonly PoolItem[], opts: CheckedScoreOptions): IndexedHit[] {
  const pw = opts.weights.polarityWeight;
  const out: IndexedHit[] = [];
  pool.forEach((item, index) => {
    if (!survives(item, opts)) return;
    const { memory, cosine } = item;
    const polarityPart = pw * memory.polarity;
    const score = cosine + polarityPart;
    const hit: IndexedHit = { memory, score, cosine, index };
    if (opts.explain) {
      hit.explain = {
        mode: 'semantic',
        score,
        signals: [
          { name: 'cosine', value: cosine, weight: 1, weighted: cosine, reason: `Semantic similarity ${cosine.toFixed(3)}`, details: {} },
          polaritySignal(memory, pw, polarityPart, false),
        ],
        breakdown: { mode: 'semantic', cosine: round(cosine, 4), polarity: memory.polarity, score: round(score, 4) },
      };
    }
    out.push(hit);
  });
  return out;
}

/** BM25 over the whole pool, then one row per surviving candidate. */
function buildRows(pool: readonly PoolItem[], query: string, opts: CheckedScoreOptions): { rows: Row[]; anyLexical: boolean; queryTerms: string[] } {
  const queryTerms = [...new Set(lexicalTerms(query))];
  const bm25 = opts.lexicalScorer
    ? opts.lexicalScorer(queryTerms, pool)
    : bm25Pool(
        queryTerms,
        pool.map((item) => item.lexicalTerms ?? lexicalTerms(item.memory.text)),
      );
  const rows: Row[] = [];
  pool.forEach((item, index) => {
    if (!survives(item, opts)) return;
    rows.push({
      item,
      index,
      values: {
        cosine: item.cosine,
        lexical: bm25.scores[index]!,
        recency: recencyFactor(item.memory, opts.weights, opts.now),
        importance: item.memory.importance,
      },
      matched: bm25.matched[index]!,
      bm25Raw: bm25.raw[index]!,
    });
  });
  return { rows, anyLexical: bm25.max > 0, queryTerms };
}

function coreDetails(name: CoreSignal, row: Row, opts: CheckedScoreOptions, queryTerms: string[]): Record<string, unknown> {
  switch (name) {
    case 'lexical':
      return { matchedTerms: row.matched, queryTerms, bm25Raw: row.bm25Raw };
    case 'recency':
      return { ageDays: ageDays(row.item.memory, opts.weights.recencyBasis, opts.now), decayRate: opts.weights.decayRate, basis: opts.weights.recencyBasis };
    default:
      return {};
  }
}

function scoreWeighted(pool: readonly PoolItem[], query: string, opts: CheckedScoreOptions): IndexedHit[] {
  const w = opts.weights;
  const { rows, anyLexical, queryTerms } = buildRows(pool, query, opts);
  const eff: Record<CoreSignal, number> = { cosine: w.cosine, lexical: w.lexical, recency: w.recency, importance: w.importance };
  const core = w.cosine + w.lexical + w.recency + w.importance;
  // The lexical drop: no document matched, so the lexical weight would only depress every score.
  const dropped = w.lexical > 0 && !anyLexical && core > w.lexical;
  const scale = dropped ? core / (core - w.lexical) : 1;
  if (dropped) {
    eff.cosine = w.cosine * scale;
    eff.recency = w.recency * scale;
    eff.importance = w.importance * scale;
    eff.lexical = 0;
  }

  return rows.map((row) => {
    const { memory } = row.item;
    const parts = CORE_SIGNALS.map((name) => eff[name] * row.values[name]);
    const polarityPart = w.polarityWeight * memory.polarity;
    // Left to right, in the reference's order; the explain parts are these same numbers.
    const score = parts[0]! + parts[1]! + parts[2]! + parts[3]! + polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (opts.explain) {
      const signals: Signal[] = CORE_SIGNALS.map((name, i) => {
        const details = coreDetails(name, row, opts, queryTerms);
        let reason = signalReason(name, row.values[name], row);
        if (dropped && name === 'lexical') {
          reason = 'No memory in the pool matched a query term; the lexical weight was redistributed';
          details.dropped = true;
          details.configuredWeight = w.lexical;
        } else if (dropped) {
          details.rescaledFrom = w[name];
          details.rescale = scale;
        }
        return { name, value: row.values[name], weight: eff[name], weighted: parts[i]!, reason, details };
      });
      signals.push(polaritySignal(memory, w.polarityWeight, polarityPart, false));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'weighted',
        score,
        signals,
        breakdown: {
          mode: 'hybrid',
          fusion: 'weighted',
          cosine: round(row.values.cosine, 4),
          lexical: round(row.values.lexical, 4),
          recency: round(row.values.recency, 4),
          importance: round(row.values.importance, 4),
          polarity: memory.polarity,
          weights: {
            cosine: round(eff.cosine, 4),
            lexical: round(eff.lexical, 4),
            recency: round(eff.recency, 4),
            importance: round(eff.importance, 4),
            polarity: w.polarityWeight,
          },
          score: round(score, 4),
        },
      };
    }
    return hit;
  });
}

function scoreRrf(pool: readonly PoolItem[], query: string, opts: CheckedScoreOptions): IndexedHit[] {
  const w = opts.weights;
  const { rows, queryTerms } = buildRows(pool, query, opts);
  if (rows.length === 0) return [];
  const active = CORE_SIGNALS.filter((name) => w[name] > 0);
  const ranks = new Map<CoreSignal, number[]>();
  for (const name of active) {
    // Equal values share a rank (competition ranking). The reference ranks ties by pool order,
    // which lets a constant signal (same-age recency, equal importance) reorder the pool; here a
    // constant signal adds the same amount to every candidate and changes nothing.
    const order = rows.map((_, j) => j).sort((a, b) => rows[b]!.values[name] - rows[a]!.values[name]);
    const r = new Array<number>(rows.length).fill(0);
    order.forEach((j, pos) => {
      const prev = pos > 0 ? order[pos - 1]! : -1;
      r[j] = prev >= 0 && rows[prev]!.values[name] === rows[j]!.values[name] ? r[prev]! : pos;
    });
    ranks.set(name, r);
  }

  return rows.map((row, i) => {
    const { memory } = row.item;
    let score = 0;
    const parts: number[] = [];
    for (const name of active) {
      const part = w[name] / (RRF_K + ranks.get(name)![i]!);
      parts.push(part);
      score += part;
    }
    const polarityPart = (w.polarityWeight * memory.polarity) / (RRF_K + 1);
    score += polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (opts.explain) {
      const contrib: Record<string, { rank: number; contribution: number }> = {};
      const signals: Signal[] = active.map((name, s) => {
        const rank = ranks.get(name)![i]!;
        contrib[name] = { rank, contribution: round(parts[s]!, 6) };
        return {
          name,
          value: row.values[name],
          weight: w[name],
          weighted: parts[s]!,
          reason: `${signalReason(name, row.values[name], row)}; rank ${rank} → ${w[name]}/(${RRF_K}+${rank})`,
          details: { ...coreDetails(name, row, opts, queryTerms), rank, contribution: parts[s]! },
        };
      });
      signals.push(polaritySignal(memory, w.polarityWeight / (RRF_K + 1), polarityPart, true));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'rrf',
        score,
        signals,
        breakdown: { mode: 'hybrid', fusion: 'rrf', rrf_k: RRF_K, polarity: memory.polarity, signals: contrib, score: round(score, 6) },
      };
    }
    return hit;
  });
}
