/**
 * Offline fusion experiments for `npm run eval -- --experiments` (bench/eval.ts), and the replica
 * of the store's corpus-lexical candidate pool that the eval's weight tuning and pool checks use.
 *
 * Everything here works on corpus indices (0 … n−1) whose order must be the store's primary-key
 * order (the eval gives memories ids `doc-000000`, `doc-000001`, … in corpus order), because the
 * store reads postings in primary-key order.
 *
 * - `LexicalCorpus`: whole-corpus BM25 with the store's tokenizer and formula (bm25.ts), via
 *   postings; scores sum the query terms in first-seen order, as recall.ts's corpus scorer does,
 *   so the floats are identical.
 * - `nominateCandidates`: the store's `lexicalCandidates` with its lexical index in memory
 *   (core/storage/read-cache.ts): the exact corpus-BM25 top `limit`, ties by label.
 * - `recallPool`: recall.ts's pool for `lexicalIndex: 'corpus'` with exact cosine in place of
 *   HNSW: the k·overfetch nearest documents, then the best max(k·overfetch, 20) nominated
 *   documents outside them by corpus BM25.
 * - `runFusionExperiments`: families of fusion rules over those pools (linear mixes with several
 *   normalisations, RRF with tuned k, dense pseudo-relevance feedback, embedding centring, pool
 *   composition, a learned linear fusion with cross-validation). Each family's configuration is
 *   chosen on the training queries only; the test queries are scored once, with the chosen
 *   configuration, after every choice is made.
 */
import { bm25Idf, bm25TermScore } from '../src/core/domain/bm25.ts';
import { ndcgAtK } from '../src/core/domain/evaluate.ts';

// ---------------------------------------------------------------------------------------------
// Corpus BM25 and the store's candidate nomination
// ---------------------------------------------------------------------------------------------

export class LexicalCorpus {
  readonly documentCount: number;
  readonly averageLength: number;
  private readonly tf: Map<string, number>[];
  private readonly lengths: number[];
  private readonly postings = new Map<string, number[]>();

  /** `termsOfDocs[d]` = lexicalTerms(text of document d), repeats kept. */
  constructor(termsOfDocs: readonly (readonly string[])[]) {
    this.documentCount = termsOfDocs.length;
    this.lengths = termsOfDocs.map((t) => t.length);
    this.averageLength = this.documentCount > 0 ? this.lengths.reduce((a, b) => a + b, 0) / this.documentCount : 0;
    this.tf = termsOfDocs.map((terms) => {
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      return tf;
    });
    this.tf.forEach((tf, d) => {
      for (const t of tf.keys()) {
        const list = this.postings.get(t);
        if (list) list.push(d);
        else this.postings.set(t, [d]);
      }
    });
  }

  df(term: string): number {
    return this.postings.get(term)?.length ?? 0;
  }

  /** Documents holding `term`, ascending. */
  postingsOf(term: string): readonly number[] {
    return this.postings.get(term) ?? [];
  }

  /** Raw corpus BM25 of every document for these query terms (used as a set, first-seen order). */
  bm25(queryTerms: readonly string[]): Float64Array {
    const scores = new Float64Array(this.documentCount);
    for (const t of new Set(queryTerms)) {
      const list = this.postings.get(t);
      if (!list) continue;
      const idf = bm25Idf(this.documentCount, list.length);
      for (const d of list) scores[d] = scores[d]! + bm25TermScore(idf, this.tf[d]!.get(t)!, this.lengths[d]!, this.averageLength);
    }
    return scores;
  }
}

export interface Nomination {
  /** The best documents by corpus BM25 (ties: lower index), at most `limit`. */
  candidates: number[];
  /** Posting entries of the query terms (what an exhaustive scorer reads; the store's MaxScore reads fewer). */
  keysRead: number;
  /** Documents holding at least one query term. */
  nominated: number;
}

/** The store's `lexicalCandidates` once its lexical index is in memory: the exact BM25 top `limit` outside `exclude`. */
export function nominateCandidates(corpus: LexicalCorpus, queryTerms: readonly string[], limit: number, exclude: ReadonlySet<number> = new Set()): Nomination {
  const unique = [...new Set(queryTerms)];
  const bm = corpus.bm25(unique);
  const holding = new Set<number>();
  let keysRead = 0;
  for (const t of unique) {
    const list = corpus.postingsOf(t);
    keysRead += list.length;
    for (const d of list) if (!exclude.has(d)) holding.add(d);
  }
  const candidates = [...holding].sort((a, b) => bm[b]! - bm[a]! || a - b).slice(0, limit);
  return { candidates, keysRead, nominated: holding.size };
}

/** Indices of the `k` largest scores (ties: lower index first), optionally only those passing `keep`. */
export function topIndices(scores: ArrayLike<number>, k: number, keep: (d: number) => boolean = () => true): number[] {
  const idx: number[] = [];
  for (let d = 0; d < scores.length; d++) if (keep(d)) idx.push(d);
  return idx.sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, k);
}

export interface PoolOptions {
  k: number;
  overfetch: number;
  /** Cosine-pool size; default k·overfetch (recall.ts). */
  cosinePool?: number;
  /** Lexical slots; default max(k·overfetch, 20) (recall.ts). */
  lexicalSlots?: number;
}

export interface RecallPool {
  /** The cosine pool (cosine order), then the lexical additions (BM25 order). */
  pool: number[];
  cosineCount: number;
  nomination: Nomination;
}

/** recall.ts's pool for `mode: 'hybrid', lexicalIndex: 'corpus'`, with exact cosine. */
export function recallPool(corpus: LexicalCorpus, bm: ArrayLike<number>, cos: ArrayLike<number>, queryTerms: readonly string[], options: PoolOptions): RecallPool {
  const slotsDefault = Math.max(options.k * options.overfetch, 20);
  const cosinePool = topIndices(cos, options.cosinePool ?? options.k * options.overfetch);
  const slots = options.lexicalSlots ?? slotsDefault;
  const inPool = new Set(cosinePool);
  const nomination = nominateCandidates(corpus, queryTerms, slots, inPool);
  // Stable sort: ties keep nomination order, as in recall.ts.
  const outside = nomination.candidates
    .filter((d) => !inPool.has(d))
    .map((d) => ({ d, s: bm[d]! }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, slots)
    .map((x) => x.d);
  return { pool: [...cosinePool, ...outside], cosineCount: cosinePool.length, nomination };
}

// ---------------------------------------------------------------------------------------------
// Experiment queries
// ---------------------------------------------------------------------------------------------

export interface LabInput {
  /** Corpus ids, by corpus index. */
  docIds: readonly string[];
  /** Document vectors, by corpus index (normalised here). */
  docVectors: readonly Float32Array[];
  corpus: LexicalCorpus;
  k: number;
  overfetch: number;
}

export interface LabQueryInput {
  id: string;
  terms: readonly string[];
  vector: Float32Array;
  relevant: ReadonlySet<string>;
}

interface LabQuery {
  id: string;
  terms: readonly string[];
  vector: Float32Array;
  relevant: ReadonlySet<string>;
  bm: Float64Array;
  cos: Float64Array;
  pool: number[];
  /** Feedback documents: the pool's BM25 top FEEDBACK_MAX (pool order on ties). */
  feedback: number[];
  /** fbDot[j][i] = feedback_j · pool_i; qf[j] = query · feedback_j; ff[j][l] = feedback_j · feedback_l. */
  fbDot: Float64Array[];
  qf: number[];
  ff: number[][];
}

const FEEDBACK_MAX = 10;

function unit(v: ArrayLike<number>): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  return Float32Array.from(v as ArrayLike<number>, (x) => (n > 0 ? x / n : 0));
}
function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Scoring helpers
// ---------------------------------------------------------------------------------------------

export type Normalisation = 'raw' | 'max' | 'minmax' | 'z';

/** Per-query normalisation of one signal over the pool. */
export function normalise(values: readonly number[], how: Normalisation): number[] {
  if (how === 'raw' || values.length === 0) return [...values];
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
  }
  if (how === 'max') return values.map((v) => (max > 0 ? v / max : 0));
  if (how === 'minmax') return values.map((v) => (max > min ? (v - min) / (max - min) : 0));
  const mean = sum / values.length;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
  return values.map((v) => (sd > 0 ? (v - mean) / sd : 0));
}

/** Competition ranks (0-based; equal values share the rank of the first), descending. */
export function competitionRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]!);
  const ranks = new Array<number>(values.length).fill(0);
  order.forEach((j, pos) => {
    const prev = pos > 0 ? order[pos - 1]! : -1;
    ranks[j] = prev >= 0 && values[prev] === values[j] ? ranks[prev]! : pos;
  });
  return ranks;
}

/** The top 10 pool positions by score (ties: pool order). */
function top10(scores: readonly number[]): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (best.length === 10 && s <= scores[best[9]!]!) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < s) at--;
    best.splice(at, 0, i);
    if (best.length > 10) best.pop();
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Experiments
// ---------------------------------------------------------------------------------------------

/** Scores over `q.pool` (one per pool position) for one configuration. */
type Scorer = (q: LabQuery) => number[];

interface Config {
  params: Record<string, number | string>;
  scorer: Scorer;
}

interface Family {
  key: string;
  label: string;
  configs: Config[];
  /** Train nDCG@10 of a configuration computed otherwise (cross-validation), when not the plain mean. */
  trainEstimate?: (chosen: Config) => number;
}

export interface ExperimentRow {
  family: string;
  label: string;
  chosen: Record<string, number | string>;
  train_ndcg10: number;
  train_delta_vs_bm25: number;
  test_ndcg10: number;
  test_delta_vs_best_single: number;
  /** Every configuration tried, with its train nDCG@10. */
  grid: { params: Record<string, number | string>; train_ndcg10: number }[];
  note?: string;
}

export interface Baselines {
  /** BM25 over the whole corpus. */
  bm25_corpus: number;
  /** BM25 over the store's pool (the store's lexical-only ranking). */
  lexical_pool: number;
  /** Exact cosine over the whole corpus (semantic-only). */
  semantic_exact: number;
}

export interface ExperimentReport {
  train_queries: number;
  test_queries: number;
  baselines: { train: Baselines; test: Baselines };
  /** Train-only diagnostics of how much the cosine can add (they read the train judgements). */
  train_diagnostics: {
    /** nDCG@10 if, per query, the better of the BM25 and the cosine ranking were known. */
    oracle_best_of_bm25_and_cosine: number;
    /** Queries whose first relevant document is at BM25 rank 2–10 … */
    bm25_first_relevant_rank_2_to_10: number;
    /** … and among them, how often reordering that top 10 by cosine moves it up / down. */
    cosine_moves_it_up: number;
    cosine_moves_it_down: number;
  };
  rows: ExperimentRow[];
}

const r4 = (x: number): number => Number(x.toFixed(4));

/**
 * Runs every family on the training queries, picks each family's best configuration by train
 * nDCG@10, then scores the test queries once with each chosen configuration.
 */
export function runFusionExperiments(
  input: LabInput,
  train: readonly LabQueryInput[],
  test: readonly LabQueryInput[],
  log: (line: string) => void = () => {},
): ExperimentReport {
  const docVectors = input.docVectors.map(unit);
  const n = docVectors.length;
  const poolOptions = { k: input.k, overfetch: input.overfetch };
  const prepare = (q: LabQueryInput): LabQuery => {
    const vector = unit(q.vector);
    const bm = input.corpus.bm25(q.terms);
    const cos = new Float64Array(n);
    for (let d = 0; d < n; d++) cos[d] = dot(vector, docVectors[d]!);
    const { pool } = recallPool(input.corpus, bm, cos, q.terms, poolOptions);
    const byBm = pool.map((d, i) => ({ d, i })).sort((a, b) => bm[b.d]! - bm[a.d]! || a.i - b.i);
    const feedback = byBm.slice(0, FEEDBACK_MAX).map((x) => x.d);
    const fbDot = feedback.map((f) => Float64Array.from(pool, (d) => dot(docVectors[f]!, docVectors[d]!)));
    return {
      ...q,
      vector,
      bm,
      cos,
      pool,
      feedback,
      fbDot,
      qf: feedback.map((f) => dot(vector, docVectors[f]!)),
      ff: feedback.map((f) => feedback.map((g) => dot(docVectors[f]!, docVectors[g]!))),
    };
  };
  const t0 = performance.now();
  const trainQ = train.map(prepare);
  const testQ = test.map(prepare);
  log(`  experiments: ${trainQ.length} train and ${testQ.length} test pools in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const ndcgOf = (qs: readonly LabQuery[], scorer: Scorer): number => {
    let s = 0;
    for (const q of qs) s += ndcgAtK(top10(scorer(q)).map((i) => input.docIds[q.pool[i]!]!), q.relevant, 10);
    return s / Math.max(qs.length, 1);
  };
  const ndcgRanking = (qs: readonly LabQuery[], rank: (q: LabQuery) => number[]): number => {
    let s = 0;
    for (const q of qs) s += ndcgAtK(rank(q).slice(0, 10).map((d) => input.docIds[d]!), q.relevant, 10);
    return s / Math.max(qs.length, 1);
  };

  // Per-query memo of pool-level signals (they do not depend on the configuration).
  const memo = new WeakMap<LabQuery, Map<string, number[]>>();
  const signal = (q: LabQuery, key: string, make: () => number[]): number[] => {
    let m = memo.get(q);
    if (!m) memo.set(q, (m = new Map()));
    let v = m.get(key);
    if (!v) m.set(key, (v = make()));
    return v;
  };
  const bmPool = (q: LabQuery) => signal(q, 'bm', () => q.pool.map((d) => q.bm[d]!));
  const cosPool = (q: LabQuery) => signal(q, 'cos', () => q.pool.map((d) => q.cos[d]!));
  const norm = (q: LabQuery, name: 'bm' | 'cos', how: Normalisation) => signal(q, `${name}:${how}`, () => normalise(name === 'bm' ? bmPool(q) : cosPool(q), how));
  /** cos(query + λ·Σ a_j feedback_j, d) for the pool, from the precomputed dot products. */
  const feedbackCos = (q: LabQuery, m: number, lambda: number, weighting: string): number[] =>
    signal(q, `fb:${m}:${lambda}:${weighting}`, () => {
      const fb = q.feedback.slice(0, m);
      if (fb.length === 0) return cosPool(q);
      let a: number[];
      if (weighting === 'uniform') a = fb.map(() => 1 / fb.length);
      else {
        const temperature = Number(weighting.slice('softmax'.length));
        const top = q.bm[fb[0]!]! || 1;
        const e = fb.map((d) => Math.exp((q.bm[d]! / top - 1) / temperature));
        const z = e.reduce((x, y) => x + y, 0);
        a = e.map((x) => x / z);
      }
      let norm2 = 1;
      for (let j = 0; j < fb.length; j++) {
        norm2 += 2 * lambda * a[j]! * q.qf[j]!;
        for (let l = 0; l < fb.length; l++) norm2 += lambda * lambda * a[j]! * a[l]! * q.ff[j]![l]!;
      }
      const len = Math.sqrt(Math.max(norm2, 1e-12));
      return q.pool.map((d, i) => {
        let s = q.cos[d]!;
        for (let j = 0; j < fb.length; j++) s += lambda * a[j]! * q.fbDot[j]![i]!;
        return s / len;
      });
    });

  // Baselines.
  const bmRanking = (q: LabQuery) => topIndices(q.bm, 100, (d) => q.bm[d]! > 0);
  const cosRanking = (q: LabQuery) => topIndices(q.cos, 100);
  const baselines = {
    train: {
      bm25_corpus: r4(ndcgRanking(trainQ, bmRanking)),
      lexical_pool: r4(ndcgOf(trainQ, bmPool)),
      semantic_exact: r4(ndcgRanking(trainQ, cosRanking)),
    },
    test: {
      bm25_corpus: r4(ndcgRanking(testQ, bmRanking)),
      lexical_pool: r4(ndcgOf(testQ, bmPool)),
      semantic_exact: r4(ndcgRanking(testQ, cosRanking)),
    },
  };
  const trainBm25 = baselines.train.lexical_pool;
  const train_diagnostics = { oracle_best_of_bm25_and_cosine: 0, bm25_first_relevant_rank_2_to_10: 0, cosine_moves_it_up: 0, cosine_moves_it_down: 0 };
  {
    let oracle = 0;
    for (const q of trainQ) {
      const ids = (ranking: number[]) => ranking.slice(0, 10).map((d) => input.docIds[d]!);
      oracle += Math.max(ndcgAtK(ids(bmRanking(q)), q.relevant, 10), ndcgAtK(ids(cosRanking(q)), q.relevant, 10));
      const head = top10(bmPool(q)).map((i) => q.pool[i]!);
      const at = head.findIndex((d) => q.relevant.has(input.docIds[d]!));
      if (at < 1) continue;
      train_diagnostics.bm25_first_relevant_rank_2_to_10++;
      const byCos = head
        .map((d, i) => ({ d, i }))
        .sort((a, b) => q.cos[b.d]! - q.cos[a.d]! || a.i - b.i)
        .findIndex((x) => q.relevant.has(input.docIds[x.d]!));
      if (byCos < at) train_diagnostics.cosine_moves_it_up++;
      else if (byCos > at) train_diagnostics.cosine_moves_it_down++;
    }
    train_diagnostics.oracle_best_of_bm25_and_cosine = r4(oracle / Math.max(trainQ.length, 1));
  }
  const testBestSingle = Math.max(baselines.test.lexical_pool, baselines.test.semantic_exact);

  const mixGrid = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8];
  const families: Family[] = [];

  // 1. The store's weighted hybrid with cosine and lexical only: w·cos + (1 − w)·BM25/poolmax.
  families.push({
    key: 'linear',
    label: 'weighted: w·cosine + (1−w)·BM25/max',
    configs: mixGrid.map((w) => ({
      params: { w },
      scorer: (q) => {
        const c = cosPool(q);
        const b = norm(q, 'bm', 'max');
        return c.map((x, i) => w * x + (1 - w) * b[i]!);
      },
    })),
  });

  // 2. Per-query normalisation of the cosine (and BM25) over the pool.
  const normalised: Config[] = [];
  for (const cn of ['minmax', 'z'] as const) {
    for (const bn of ['max', 'minmax', 'z'] as const) {
      for (const w of mixGrid) {
        normalised.push({
          params: { cosine: cn, lexical: bn, w },
          scorer: (q) => {
            const c = norm(q, 'cos', cn);
            const b = norm(q, 'bm', bn);
            return c.map((x, i) => w * x + (1 - w) * b[i]!);
          },
        });
      }
    }
  }
  families.push({ key: 'normalised', label: 'weighted, cosine normalised over the pool (min-max / z)', configs: normalised });

  // 3. RRF over the pool's cosine and BM25 ranks with a tuned k.
  const rrf: Config[] = [];
  for (const k of [1, 2, 5, 10, 20, 60]) {
    for (const w of [0.1, 0.2, 0.3, 0.4, 0.5]) {
      rrf.push({
        params: { k, w },
        scorer: (q) => {
          const rc = signal(q, 'rank:cos', () => competitionRanks(cosPool(q)));
          const rb = signal(q, 'rank:bm', () => competitionRanks(bmPool(q)));
          return rc.map((r, i) => w / (k + r) + (1 - w) / (k + rb[i]!));
        },
      });
    }
  }
  families.push({ key: 'rrf', label: 'RRF: w/(k+rank_cos) + (1−w)/(k+rank_bm25), 0-based ranks', configs: rrf });

  // 4. Dense pseudo-relevance feedback: cosine to query + λ·(weighted mean of the top-m BM25 docs).
  const prf: Config[] = [];
  const prfSettings: { m: number; lambda: number; weighting: string }[] = [];
  for (const m of [1, 3, 5, 10]) for (const lambda of [0.5, 1, 2]) for (const weighting of ['uniform', 'softmax0.05']) prfSettings.push({ m, lambda, weighting });
  for (const s of prfSettings) {
    for (const mix of ['raw+max', 'z+z'] as const) {
      for (const w of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
        prf.push({
          params: { m: s.m, lambda: s.lambda, weighting: s.weighting, mix, w },
          scorer: (q) => {
            const f = feedbackCos(q, s.m, s.lambda, s.weighting);
            const fn = mix === 'z+z' ? signal(q, `fbz:${s.m}:${s.lambda}:${s.weighting}`, () => normalise(f, 'z')) : f;
            const b = norm(q, 'bm', mix === 'z+z' ? 'z' : 'max');
            return fn.map((x, i) => w * x + (1 - w) * b[i]!);
          },
        });
      }
    }
  }
  families.push({ key: 'dense_prf', label: 'dense PRF: feedback cosine (q + λ·mean of top-m BM25 docs) mixed with BM25', configs: prf });

  // 5. Embedding centring: subtract the corpus mean vector from queries and documents.
  const mean = new Float64Array(docVectors[0]?.length ?? 0);
  for (const v of docVectors) for (let i = 0; i < mean.length; i++) mean[i]! += v[i]! / n;
  const centredDocs = docVectors.map((v) => unit(Float64Array.from(v, (x, i) => x - mean[i]!)));
  const centredCos = (q: LabQuery) =>
    signal(q, 'ccos', () => {
      const qv = unit(Float64Array.from(q.vector, (x, i) => x - mean[i]!));
      return q.pool.map((d) => dot(qv, centredDocs[d]!));
    });
  families.push({
    key: 'centred',
    label: 'weighted, cosine of corpus-mean-centred vectors',
    configs: mixGrid.map((w) => ({
      params: { w },
      scorer: (q) => {
        const c = centredCos(q);
        const b = norm(q, 'bm', 'max');
        return c.map((x, i) => w * x + (1 - w) * b[i]!);
      },
    })),
  });

  // 6. Learned linear fusion of z(BM25), z(cosine), z(best PRF) by coordinate ascent on nDCG@10.
  // Reported train figure = 5-fold cross-validation on the train queries; the test run uses the
  // weights fitted on all train queries.
  const features = (q: LabQuery, prfKey: { m: number; lambda: number; weighting: string }): number[][] => {
    const b = norm(q, 'bm', 'z');
    const c = norm(q, 'cos', 'z');
    const f = signal(q, `fbz:${prfKey.m}:${prfKey.lambda}:${prfKey.weighting}`, () => normalise(feedbackCos(q, prfKey.m, prfKey.lambda, prfKey.weighting), 'z'));
    return [b, c, f];
  };
  const fitWeights = (qs: readonly LabQuery[], prfKey: { m: number; lambda: number; weighting: string }): number[] => {
    const w = [1, 0, 0];
    const score = (weights: number[]) =>
      ndcgOf(qs, (q) => {
        const [b, c, f] = features(q, prfKey);
        return b!.map((x, i) => weights[0]! * x + weights[1]! * c![i]! + weights[2]! * f![i]!);
      });
    let best = score(w);
    for (let round = 0; round < 3; round++) {
      for (const j of [1, 2]) {
        for (const step of [-0.4, -0.2, -0.1, -0.05, 0.05, 0.1, 0.2, 0.4]) {
          const t = [...w];
          t[j] = t[j]! + step;
          const v = score(t);
          if (v > best + 1e-9) {
            best = v;
            w.splice(0, 3, ...t);
          }
        }
      }
    }
    return w.map((x) => Number(x.toFixed(2)));
  };

  // Pool composition is checked separately below (it changes the pools, not the scorer).

  const rows: ExperimentRow[] = [];
  const choose = (family: Family): { chosen: Config; grid: ExperimentRow['grid']; train: number } => {
    const grid = family.configs.map((c) => ({ params: c.params, train_ndcg10: ndcgOf(trainQ, c.scorer) }));
    let at = 0;
    grid.forEach((g, i) => {
      if (g.train_ndcg10 > grid[at]!.train_ndcg10) at = i;
    });
    return { chosen: family.configs[at]!, grid: grid.map((g) => ({ ...g, train_ndcg10: r4(g.train_ndcg10) })), train: grid[at]!.train_ndcg10 };
  };
  let bestPrf: { m: number; lambda: number; weighting: string } = { m: 1, lambda: 1, weighting: 'uniform' };
  for (const family of families) {
    const t = performance.now();
    const { chosen, grid, train: trainScore } = choose(family);
    const testScore = ndcgOf(testQ, chosen.scorer);
    if (family.key === 'dense_prf') bestPrf = { m: Number(chosen.params.m), lambda: Number(chosen.params.lambda), weighting: String(chosen.params.weighting) };
    rows.push({
      family: family.key,
      label: family.label,
      chosen: chosen.params,
      train_ndcg10: r4(trainScore),
      train_delta_vs_bm25: r4(trainScore - trainBm25),
      test_ndcg10: r4(testScore),
      test_delta_vs_best_single: r4(testScore - testBestSingle),
      grid,
    });
    log(`  experiments: ${family.key} (${family.configs.length} configurations) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  // Learned fusion, with cross-validation.
  {
    const t = performance.now();
    const folds = 5;
    let cv = 0;
    for (let f = 0; f < folds; f++) {
      const fit = trainQ.filter((_, i) => i % folds !== f);
      const held = trainQ.filter((_, i) => i % folds === f);
      const w = fitWeights(fit, bestPrf);
      cv += ndcgOf(held, (q) => {
        const [b, c, p] = features(q, bestPrf);
        return b!.map((x, i) => w[0]! * x + w[1]! * c![i]! + w[2]! * p![i]!);
      }) * held.length;
    }
    cv /= Math.max(trainQ.length, 1);
    const w = fitWeights(trainQ, bestPrf);
    const scorer: Scorer = (q) => {
      const [b, c, p] = features(q, bestPrf);
      return b!.map((x, i) => w[0]! * x + w[1]! * c![i]! + w[2]! * p![i]!);
    };
    const fitAll = ndcgOf(trainQ, scorer);
    const testScore = ndcgOf(testQ, scorer);
    rows.push({
      family: 'learned',
      label: 'learned linear fusion z(BM25), z(cosine), z(PRF) — coordinate ascent, 5-fold CV',
      chosen: { bm25: w[0]!, cosine: w[1]!, prf: w[2]!, prf_m: bestPrf.m, prf_lambda: bestPrf.lambda, prf_weighting: bestPrf.weighting },
      train_ndcg10: r4(cv),
      train_delta_vs_bm25: r4(cv - trainBm25),
      test_ndcg10: r4(testScore),
      test_delta_vs_best_single: r4(testScore - testBestSingle),
      grid: [{ params: { fit: 'all train queries (in-sample)' }, train_ndcg10: r4(fitAll) }],
      note: `train figure is the 5-fold cross-validated nDCG@10; in-sample fit ${fitAll.toFixed(4)}`,
    });
    log(`  experiments: learned fusion in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  // Pool composition: cosine-pool size × lexical slots, scored with the linear family's chosen w.
  {
    const t = performance.now();
    const linear = rows.find((r) => r.family === 'linear')!;
    const w = Number(linear.chosen.w);
    const grid: ExperimentRow['grid'] = [];
    const pools = new Map<string, Map<LabQuery, number[]>>();
    const scoreWith = (qs: readonly LabQuery[], key: string, cosinePool: number, lexicalSlots: number): number => {
      let per = pools.get(key);
      if (!per) pools.set(key, (per = new Map()));
      let s = 0;
      for (const q of qs) {
        let pool = per.get(q);
        if (!pool) per.set(q, (pool = recallPool(input.corpus, q.bm, q.cos, q.terms, { ...poolOptions, cosinePool, lexicalSlots }).pool));
        const max = pool.reduce((m, d) => Math.max(m, q.bm[d]!), 0);
        const scores = pool.map((d) => w * q.cos[d]! + (1 - w) * (max > 0 ? q.bm[d]! / max : 0));
        s += ndcgAtK(top10(scores).map((i) => input.docIds[pool[i]!]!), q.relevant, 10);
      }
      return s / Math.max(qs.length, 1);
    };
    // The recall defaults first, so a tie keeps them.
    const cosineDefault = input.k * input.overfetch;
    const slotsDefault = Math.max(cosineDefault, 20);
    let best = { cosinePool: 0, lexicalSlots: 0, v: -1 };
    for (const cosinePool of [...new Set([cosineDefault, 0, input.k, 2 * cosineDefault])]) {
      for (const lexicalSlots of [...new Set([slotsDefault, 20, input.k, 2 * slotsDefault])]) {
        const v = scoreWith(trainQ, `${cosinePool}:${lexicalSlots}`, cosinePool, lexicalSlots);
        grid.push({ params: { cosinePool, lexicalSlots, w }, train_ndcg10: r4(v) });
        if (v > best.v + 1e-9) best = { cosinePool, lexicalSlots, v };
      }
    }
    const testScore = scoreWith(testQ, `${best.cosinePool}:${best.lexicalSlots}`, best.cosinePool, best.lexicalSlots);
    rows.push({
      family: 'pool',
      label: 'pool composition (cosine pool × lexical slots), weighted with the linear w',
      chosen: { cosinePool: best.cosinePool, lexicalSlots: best.lexicalSlots, w },
      train_ndcg10: r4(best.v),
      train_delta_vs_bm25: r4(best.v - trainBm25),
      test_ndcg10: r4(testScore),
      test_delta_vs_best_single: r4(testScore - testBestSingle),
      grid,
    });
    log(`  experiments: pool composition in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  return { train_queries: trainQ.length, test_queries: testQ.length, baselines, train_diagnostics, rows };
}

// ---------------------------------------------------------------------------------------------
// Sentence-level probe (not a fusion rule the store can run: it needs one vector per sentence)
// ---------------------------------------------------------------------------------------------

/**
 * Splits a document into the units the sentence probe embeds: the title, then the abstract cut
 * after `.`, `!` or `?` followed by whitespace and a capital letter or `(`.
 */
export function sentencesOf(title: string, text: string): string[] {
  return [title, ...text.split(/(?<=[.!?])\s+(?=[A-Z(])/)].map((x) => x.trim()).filter((x) => x !== '');
}

export interface SentenceProbeRow {
  label: string;
  chosen_w: number;
  train_ndcg10: number;
  train_delta_vs_bm25: number;
  test_ndcg10: number;
  test_delta_vs_bm25: number;
  grid: { w: number; train_ndcg10: number }[];
}

export interface SentenceProbeReport {
  depth: number;
  documents: number;
  sentences: number;
  bm25: { train: number; test: number };
  rows: SentenceProbeRow[];
}

/**
 * Would per-sentence vectors rescue the weak encoder? Reranks each query's BM25 top-`depth` pool
 * documents by w·s(d) + (1 − w)·BM25/max, with s = the whole-document cosine or the best cosine
 * of the query to any of the document's sentences (max-sim); w chosen on train, test scored once.
 */
export async function runSentenceProbe(
  input: LabInput,
  train: readonly LabQueryInput[],
  test: readonly LabQueryInput[],
  sentencesOfDoc: (d: number) => string[],
  embed: (texts: string[]) => Promise<Float32Array[]>,
  depth = 10,
): Promise<SentenceProbeReport> {
  const docVectors = input.docVectors.map(unit);
  const head = (q: LabQueryInput) => {
    const vector = unit(q.vector);
    const bm = input.corpus.bm25(q.terms);
    const cos = Float64Array.from(docVectors, (v) => dot(vector, v));
    const { pool } = recallPool(input.corpus, bm, cos, q.terms, { k: input.k, overfetch: input.overfetch });
    const docs = pool
      .map((d, i) => ({ d, i }))
      .sort((a, b) => bm[b.d]! - bm[a.d]! || a.i - b.i)
      .slice(0, depth)
      .map((x) => x.d);
    return { q, vector, docs, bm: docs.map((d) => bm[d]!), cos: docs.map((d) => cos[d]!) };
  };
  const trainHeads = train.map(head);
  const testHeads = test.map(head);
  const documents = [...new Set([...trainHeads, ...testHeads].flatMap((h) => h.docs))];
  const sentences = [...new Set(documents.flatMap((d) => sentencesOfDoc(d)))];
  const vectors = await embed(sentences);
  const vectorOf = new Map(sentences.map((t, i) => [t, unit(vectors[i]!)]));
  const maxSim = (vector: Float32Array, d: number): number => Math.max(...sentencesOfDoc(d).map((t) => dot(vector, vectorOf.get(t)!)));
  type Head = (typeof trainHeads)[number];
  const withMaxSim = (h: Head) => ({ ...h, max: h.docs.map((d) => maxSim(h.vector, d)) });
  const trainM = trainHeads.map(withMaxSim);
  const testM = testHeads.map(withMaxSim);
  const ndcg = (hs: ReturnType<typeof withMaxSim>[], score: (h: ReturnType<typeof withMaxSim>, i: number) => number): number => {
    let total = 0;
    for (const h of hs) {
      const order = h.docs.map((_, i) => i).sort((a, b) => score(h, b) - score(h, a) || a - b);
      total += ndcgAtK(order.map((i) => input.docIds[h.docs[i]!]!), h.q.relevant, 10);
    }
    return total / Math.max(hs.length, 1);
  };
  const bmScore = (h: ReturnType<typeof withMaxSim>, i: number) => h.bm[i]!;
  const bm25 = { train: r4(ndcg(trainM, bmScore)), test: r4(ndcg(testM, bmScore)) };
  const rows: SentenceProbeRow[] = [];
  for (const [label, signal] of [
    ['whole-document cosine', (h: ReturnType<typeof withMaxSim>, i: number) => h.cos[i]!],
    ['sentence max-sim', (h: ReturnType<typeof withMaxSim>, i: number) => h.max[i]!],
  ] as const) {
    const grid: { w: number; train_ndcg10: number }[] = [];
    const mix = (w: number) => (h: ReturnType<typeof withMaxSim>, i: number) => w * signal(h, i) + (1 - w) * (h.bm[0]! > 0 ? h.bm[i]! / h.bm[0]! : 0);
    for (const w of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) grid.push({ w, train_ndcg10: ndcg(trainM, mix(w)) });
    const best = grid.reduce((a, b) => (b.train_ndcg10 > a.train_ndcg10 ? b : a));
    const testScore = ndcg(testM, mix(best.w));
    rows.push({
      label: `BM25 top-${depth} reranked by w·${label} + (1−w)·BM25/max`,
      chosen_w: best.w,
      train_ndcg10: r4(best.train_ndcg10),
      train_delta_vs_bm25: r4(best.train_ndcg10 - bm25.train),
      test_ndcg10: r4(testScore),
      test_delta_vs_bm25: r4(testScore - bm25.test),
      grid: grid.map((g) => ({ w: g.w, train_ndcg10: r4(g.train_ndcg10) })),
    });
  }
  return { depth, documents: documents.length, sentences: sentences.length, bm25, rows };
}

/** The experiments as a Markdown table (one row per family, test only for the chosen configuration). */
export function experimentTable(report: ExperimentReport): string {
  const fmt = (params: Record<string, number | string>) =>
    Object.entries(params)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  const lines = [
    `| experiment (chosen on train) | train nDCG@10 | Δ train BM25 | test nDCG@10 | Δ test best single |`,
    `|---|---:|---:|---:|---:|`,
  ];
  const b = report.baselines;
  lines.push(`| BM25, store pool (lexical-only) | ${b.train.lexical_pool.toFixed(4)} | — | ${b.test.lexical_pool.toFixed(4)} | — |`);
  lines.push(`| semantic only (exact cosine) | ${b.train.semantic_exact.toFixed(4)} | ${(b.train.semantic_exact - b.train.lexical_pool).toFixed(4)} | ${b.test.semantic_exact.toFixed(4)} | — |`);
  for (const r of report.rows) {
    const sign = (x: number) => (x >= 0 ? `+${x.toFixed(4)}` : x.toFixed(4));
    lines.push(`| ${r.label} [${fmt(r.chosen)}] | ${r.train_ndcg10.toFixed(4)} | ${sign(r.train_delta_vs_bm25)} | ${r.test_ndcg10.toFixed(4)} | ${sign(r.test_delta_vs_best_single)} |`);
  }
  const d = report.train_diagnostics;
  lines.push(
    '',
    `Train diagnostics: knowing per query the better of BM25 and cosine would reach ${d.oracle_best_of_bm25_and_cosine.toFixed(4)} ` +
      `(BM25 ${b.train.bm25_corpus.toFixed(4)}); of the ${d.bm25_first_relevant_rank_2_to_10} train claims whose first relevant document is at BM25 rank 2–10, ` +
      `reordering that top 10 by cosine moves it up for ${d.cosine_moves_it_up} and down for ${d.cosine_moves_it_down}.`,
  );
  return lines.join('\n');
}
