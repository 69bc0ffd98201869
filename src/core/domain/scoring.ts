/**
 * First-stage scoring of a recall candidate pool (AI-Houkai's hybrid scoring, made relevance-first).
 *
 * The caller fetches a pool by cosine (k · overfetch) and hands it over with each candidate's
 * cosine; this module turns it into sorted hits. Modes:
 *
 * - **semantic**: `score = cosine + polarityWeight·polarity`.
 * - **hybrid, weighted fusion (default): relevance first.**
 *       relevance = (wc·cosine + wl·bm25) / (wc + wl)
 *       score     = relevance + g·tieBand·(wr·recency + wi·importance)/(wr + wi)
 *                             + g·polarityWeight·polarity + recencyWeight·recency
 *   `bm25` is BM25 normalised by the pool maximum (bm25.ts); `recency = exp(−decayRate·ageDays)`
 *   with `ageDays = max(0, (now − createdAt)/86400)` (or `lastAccessed` when `recencyBasis` is
 *   'accessed'); importance is the stored [0, 1] value; `g` is the memory's P(relevant) from the
 *   relevance judge (relevance.ts), 1 when none is given. So recency, importance and polarity
 *   together move a memory by at most `tieBand + polarityWeight` (default 0.05 + 0.05), and not
 *   at all when it is judged unrelated: they break near-ties between relevant memories and never
 *   lift an unrelated memory above a relevant one by more than that. `recencyWeight` (default 0)
 *   is the explicit "latest first" knob: an ungated recency term. When no pool document matched a
 *   query term, relevance is the cosine alone.
 * - **hybrid, linear fusion**: AI-Houkai's formula, kept for parity with the Python store:
 *       score = wc·cosine + wl·bm25 + wr·recency + wi·importance + polarityWeight·polarity
 *   (default weights 0.55 / 0.20 / 0.15 / 0.10); when nothing matched lexically the lexical weight
 *   is dropped and the other three core weights are multiplied by `core/(core − wl)`. Recency
 *   can outrank meaning here: a memory written today gets +0.15 over an old one.
 * - **hybrid, RRF fusion**: every core signal with weight > 0 ranks the pool on its own (0-based
 *   rank, descending value, ties share a rank) and
 *       score = Σ_s w_s / (60 + rank_s) + polarityWeight·polarity / 61.
 *
 * BM25 statistics cover the whole pool, including candidates marked `filtered` (the reference
 * computes BM25 before its tag/superseded post-filters); `minCosine` also drops candidates after
 * BM25. Hits are sorted by score descending; ties go to the higher importance, then the newer
 * `createdAt`, then pool order.
 *
 * With a relevance judge, every hit carries `confidence` (`strong | weak | none`) and `relevance`
 * (P(relevant)); otherwise, with cosine `confidence` thresholds, a verdict from the cosine alone.
 * With `explain`, each hit carries `{ score, signals: [{ name, value, weight, weighted, reason,
 * details }] }` where the `weighted` parts sum to `score` (the score is computed as exactly that
 * sum), the relevance judgement, and `breakdown`, the reference's explain dict (rounded to 4 dp,
 * RRF contributions 6 dp).
 */
import { invalid } from '../errors.ts';
import { bm25Pool, type PoolBm25Result } from './bm25.ts';
import { classifyConfidence, type Confidence, type ConfidenceThresholds } from './confidence.ts';
import { fuseLinear, fuseRrf, fuseWeighted, type FusionInput, type IndexedHit } from './fusion.ts';
import { cosineMargins, lexicalCoverage, type RelevanceJudge, type RelevanceJudgement } from './relevance.ts';
import { CORE_SIGNALS, SIGNALS, polaritySignal, round, type CoreSignal, type Row, type SignalInput } from './signals.ts';
import { analyseQuery, withPoolNames, type QueryAnalysis } from './query.ts';
import { lexicalTerms } from './tokenize.ts';
import { withoutTimeWords } from './time-expressions.ts';
import { checkBoolean, checkChoice, checkKnownKeys, checkNumberInRange, checkObject } from './validate.ts';
import { FUSIONS, RECALL_MODES, RECENCY_BASES, type Fusion, type PoolItem, type RecallMode, type RecencyBasis, type ScoredHit, type Signal } from './scoring-types.ts';
import type { HybridWeights, Memory } from '../types.ts';

export type { HybridWeights } from '../types.ts';
export { RECALL_MODES, FUSIONS, RECENCY_BASES } from './scoring-types.ts';
export type { RecallMode, Fusion, RecencyBasis, PoolItem, SignalName, Signal, Explanation, ScoredHit } from './scoring-types.ts';

export { recencyFactor } from './signals.ts';
export { RRF_K } from './signals.ts';


/** Every signal's default weight (signals.ts), and the rest of the hybrid settings. */
export const DEFAULT_HYBRID_WEIGHTS: Readonly<HybridWeights> = Object.freeze({
  ...(Object.fromEntries(SIGNALS.map((signal) => [signal.name, signal.defaultWeight])) as Record<CoreSignal, number>),
  decayRate: 0.1,
  polarityWeight: 0.05,
  recencyBasis: 'created',
  tieBand: 0.05,
});

const WEIGHT_KEYS: ReadonlySet<string> = new Set(Object.keys(DEFAULT_HYBRID_WEIGHTS));
const NUMERIC_WEIGHTS = [...CORE_SIGNALS, 'decayRate', 'polarityWeight', 'tieBand'] as const;

/**
 * Validates partial hybrid weights and fills the gaps from the defaults (as AI-Houkai's
 * `HybridWeights(cosine=…)` does: unspecified fields keep their default, they do not become 0).
 * Every weight must be a finite number ≥ 0, and at least one signal's weight > 0.
 */
export function checkWeights(value: unknown, field = 'weights'): HybridWeights {
  const raw = checkObject<HybridWeights>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, WEIGHT_KEYS, field);
  const out: HybridWeights = { ...DEFAULT_HYBRID_WEIGHTS };
  for (const key of NUMERIC_WEIGHTS) {
    if (raw[key] !== undefined) out[key] = checkNumberInRange(raw[key], `${field}.${key}`, 0, Number.POSITIVE_INFINITY);
  }
  if (raw.recencyBasis !== undefined) out.recencyBasis = checkChoice(raw.recencyBasis, RECENCY_BASES, `${field}.recencyBasis`);
  if (CORE_SIGNALS.reduce((sum, name) => sum + out[name], 0) <= 0) {
    throw invalid(`${field}: at least one of ${CORE_SIGNALS.join(', ')} must be > 0`, { field });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export interface ScoreOptions {
  mode?: RecallMode;
  fusion?: Fusion;
  /** Partial weights are completed from the defaults (see `checkWeights`). */
  weights?: Partial<HybridWeights>;
  /** Unix seconds: the time recency is measured at (required when a non-empty pool is scored in hybrid mode). */
  now?: number;
  explain?: boolean;
  /** Drop candidates whose cosine is below this, in [−1, 1]. */
  minCosine?: number;
  /** Attach a `confidence` verdict to each hit from its cosine (ignored when `relevance` is given). */
  confidence?: ConfidenceThresholds;
  /** Judges each hit's relevance: `confidence`, `relevance`, and the gate of the weighted fusion. */
  relevance?: RelevanceJudge;
  /** An ungated recency weight added in every hybrid fusion ("latest first"), default 0. */
  recencyWeight?: number;
  /**
   * Replaces pool BM25 (local IDF) with another lexical scorer over the same pool, e.g. BM25
   * with the corpus statistics of a persistent inverted index. Scores must be in [0, 1].
   */
  lexicalScorer?: LexicalScorer;
  /** Unix seconds the query's relative time expressions ("last week") count from; default `now`. */
  timeAnchor?: number;
}

export type LexicalScorer = (queryTerms: readonly string[], pool: readonly PoolItem[]) => PoolBm25Result;

interface CheckedScoreOptions {
  mode: RecallMode;
  fusion: Fusion;
  weights: HybridWeights;
  /** Set whenever hybrid rows are built (`scoreCandidates` refuses a hybrid pool without it). */
  now: number;
  explain: boolean;
  minCosine: number | undefined;
  confidence: ConfidenceThresholds | undefined;
  relevance: RelevanceJudge | undefined;
  recencyWeight: number;
  lexicalScorer: LexicalScorer | undefined;
  timeAnchor: number | undefined;
}

const SCORE_OPTION_KEYS: ReadonlySet<string> = new Set([
  'mode', 'fusion', 'weights', 'now', 'explain', 'minCosine', 'confidence', 'relevance', 'recencyWeight', 'lexicalScorer', 'timeAnchor',
]);

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
  if (raw.relevance !== undefined && typeof raw.relevance !== 'function') throw invalid('relevance must be a function', { field: 'relevance' });
  return {
    mode: raw.mode === undefined ? 'semantic' : checkChoice(raw.mode, RECALL_MODES, 'mode'),
    fusion: raw.fusion === undefined ? 'weighted' : checkChoice(raw.fusion, FUSIONS, 'fusion'),
    weights: checkWeights(raw.weights),
    // The core reads no clock: hybrid scoring without a time is refused in scoreCandidates.
    now: raw.now === undefined ? Number.NaN : checkNumberInRange(raw.now, 'now', 0, Number.POSITIVE_INFINITY),
    explain: raw.explain === undefined ? false : checkBoolean(raw.explain, 'explain'),
    minCosine: raw.minCosine === undefined ? undefined : checkNumberInRange(raw.minCosine, 'minCosine', -1, 1),
    confidence,
    relevance: raw.relevance as RelevanceJudge | undefined,
    recencyWeight: raw.recencyWeight === undefined ? 0 : checkNumberInRange(raw.recencyWeight, 'recencyWeight', 0, Number.POSITIVE_INFINITY),
    lexicalScorer: typeof raw.lexicalScorer === 'function' ? (raw.lexicalScorer as LexicalScorer) : undefined,
    timeAnchor: raw.timeAnchor === undefined ? undefined : checkNumberInRange(raw.timeAnchor, 'timeAnchor', 0, Number.POSITIVE_INFINITY),
  };
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

/** Score descending, then importance descending, then newer first, then pool order. */
function compareHits(a: { score: number; memory: Memory; index: number }, b: { score: number; memory: Memory; index: number }): number {
  return (
    b.score - a.score ||
    b.memory.importance - a.memory.importance ||
    b.memory.createdAt - a.memory.createdAt ||
    a.index - b.index
  );
}

/**
 * Scores and sorts a recall pool (see the module comment for the formulas). Invalid options throw
 * INVALID_ARGUMENT naming the field. Returns `[]` for an empty pool.
 */
export function scoreCandidates(pool: readonly PoolItem[], query: string, options: ScoreOptions = {}): ScoredHit[] {
  if (!Array.isArray(pool)) throw invalid('pool must be an array', { field: 'pool' });
  if (typeof query !== 'string') throw invalid('query must be a string', { field: 'query' });
  const opts = checkScoreOptions(options);
  if (pool.length === 0) return [];
  // Time words feed the time signal, not the lexical score (time-expressions.ts).
  const queryTerms = [...new Set(lexicalTerms(withoutTimeWords(query, opts.timeAnchor ?? opts.now)))];
  const judged = opts.relevance ? judgePool(pool, queryTerms, opts.relevance) : null;
  if (opts.mode === 'hybrid' && Number.isNaN(opts.now)) throw invalid('now (Unix seconds) is required to score recency', { field: 'now' });
  let hits: IndexedHit[];
  if (opts.mode === 'semantic') hits = scoreSemantic(pool, opts);
  else {
    const read = analyseQuery(query, opts.timeAnchor ?? opts.now);
    // The names against the candidates (case, rarity) serve the entity signal only: read when it counts.
    const analysis = opts.weights.entity > 0 ? withPoolNames(read, query, pool.map((item) => item.memory)) : read;
    const { rows, absent } = buildRows(pool, queryTerms, analysis, opts, judged);
    const input: FusionInput = { rows, absent, queryTerms, weights: opts.weights, now: opts.now, explain: opts.explain, recencyWeight: opts.recencyWeight };
    hits = opts.fusion === 'rrf' ? fuseRrf(input) : opts.fusion === 'linear' ? fuseLinear(input) : fuseWeighted(input);
  }
  hits.sort(compareHits);
  return hits.map((indexed) => {
    const hit = withoutIndex(indexed);
    const judgement = judged?.[indexed.index];
    if (judgement) {
      hit.confidence = judgement.confidence;
      hit.relevance = judgement.probability;
      if (hit.explain) hit.explain.relevance = { probability: judgement.probability, confidence: judgement.confidence, coverage: judgement.coverage, z: judgement.z };
    } else if (opts.confidence) hit.confidence = classifyConfidence(hit.cosine, opts.confidence);
    return hit;
  });
}

/** The fields of a hit that {@link withoutIndex} copies. */
type CopiedHitField = 'memory' | 'score' | 'cosine' | 'confidence' | 'relevance' | 'explain';
/** Compile-time: a field added to `ScoredHit` fails here until `withoutIndex` copies it. */
const EVERY_HIT_FIELD_COPIED: [Exclude<keyof ScoredHit, CopiedHitField>] extends [never] ? true : never = true;
void EVERY_HIT_FIELD_COPIED;

/** A hit without its pool index, built field by field (a rest copy of every hit cost more). */
function withoutIndex(indexed: IndexedHit): ScoredHit {
  const hit: ScoredHit = { memory: indexed.memory, score: indexed.score, cosine: indexed.cosine };
  if (indexed.confidence !== undefined) hit.confidence = indexed.confidence;
  if (indexed.relevance !== undefined) hit.relevance = indexed.relevance;
  if (indexed.explain !== undefined) hit.explain = indexed.explain;
  return hit;
}

function survives(item: PoolItem, opts: CheckedScoreOptions): boolean {
  return !item.filtered && (opts.minCosine === undefined || item.cosine >= opts.minCosine);
}

function termsOf(item: PoolItem): readonly string[] {
  return item.storedTerms ?? item.lexicalTerms ?? lexicalTerms(item.memory.text);
}

/** The relevance judgement of every pool item (coverage over the whole pool, filtered ones included). */
function judgePool(pool: readonly PoolItem[], queryTerms: string[], judge: RelevanceJudge): (RelevanceJudgement & { coverage: number })[] {
  const coverage = lexicalCoverage(queryTerms, pool.map(termsOf));
  // Margins among the candidates the recall can return (a filtered one is no rival).
  const margins = cosineMargins(pool.map((item) => (item.filtered ? -Infinity : item.cosine)));
  return pool.map((item, i) => {
    const { probability, confidence, z } = judge({ cosine: item.cosine, coverage: coverage[i]!, margin: margins[i]! });
    return { probability, confidence, z, coverage: coverage[i]! };
  });
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
          polaritySignal(memory, pw, polarityPart),
        ],
        breakdown: { mode: 'semantic', cosine: round(cosine, 4), polarity: memory.polarity, score: round(score, 4) },
      };
    }
    out.push(hit);
  });
  return out;
}

/** Every signal's value for one candidate, in the signals' order. */
function signalValues(item: PoolItem, input: SignalInput): Record<CoreSignal, number> {
  const values = {} as Record<CoreSignal, number>;
  for (const signal of SIGNALS) values[signal.name] = signal.value(item, input);
  return values;
}

/** BM25 over the whole pool, then one row per surviving candidate. */
function buildRows(
  pool: readonly PoolItem[],
  queryTerms: string[],
  query: QueryAnalysis,
  opts: CheckedScoreOptions,
  judged: readonly RelevanceJudgement[] | null,
): { rows: Row[]; absent: ReadonlySet<CoreSignal> } {
  const bm25 = opts.lexicalScorer
    ? opts.lexicalScorer(queryTerms, pool)
    : bm25Pool(
        queryTerms,
        pool.map((item) => item.lexicalTerms ?? lexicalTerms(item.memory.text)),
      );
  const rows: Row[] = [];
  // One input for the pool, its index moved along: the signals read it while their value is taken.
  const input: SignalInput = { index: 0, bm25, weights: opts.weights, now: opts.now, query, fusion: opts.fusion };
  pool.forEach((item, index) => {
    if (!survives(item, opts)) return;
    input.index = index;
    rows.push({
      item,
      index,
      values: signalValues(item, input),
      matched: bm25.matched[index]!,
      bm25Raw: bm25.raw[index]!,
      gate: judged ? judged[index]!.probability : 1,
      names: query.names,
    });
  });
  const absence = { bm25, query, pool };
  const absent = SIGNALS.filter((signal) => (signal.weightedOnly === true && opts.fusion !== 'weighted') || signal.absent?.when(absence) === true);
  return { rows, absent: new Set(absent.map((signal) => signal.name)) };
}
