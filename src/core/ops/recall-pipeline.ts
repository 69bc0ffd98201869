/**
 * The recall pipeline: validate → embed the query → over-fetch a cosine pool
 * from the vector index, widening until `k` candidates survive the filters → optionally union
 * memories found through the persistent lexical index → score (semantic, relevance-first
 * weighted hybrid, linear or RRF, with explanations and a relevance verdict) → the confidence
 * floor (`minConfidence`) → MMR / dedup selection → optional newest-first order → touch.
 */
import { bm25Idf, bm25TermScore, BM25_B, BM25_K1, normaliseBm25 } from '../domain/bm25.ts';
import type { Confidence } from '../domain/confidence.ts';
import { contestedBy } from '../services/contested.ts';
import { OUTDATED_CHOICES } from '../domain/current.ts';
import { currentFirst } from './recall-current.ts';
import { outdatedBy, successionOf } from '../services/succession.ts';
import { embedOne, writeBehind, type Using } from '../context.ts';
import { invalid } from '../errors.ts';
import type { RandomSource, VectorLog } from '../ports.ts';
import { attachNeighbours, timeAnchor, type Candidate } from './recall-neighbours.ts';
import { CONFIDENCE_LEVELS, meetsConfidence, selectHits, selectionNeedsVectors } from './recall-select.ts';
import { seededRandom } from '../domain/seeded-random.ts';
import { rescoreHits } from '../services/rescore.ts';
import { checkRerankCall, resolveRerank } from '../domain/rerank.ts';
import { rerankHits } from './recall-rerank.ts';
import { FUSIONS, RECALL_MODES, checkWeights, scoreCandidates, type LexicalScorer } from '../domain/scoring.ts';
import { checkChoice, checkNumberInRange } from '../domain/validate.ts';
import { checkExpandOptions, expandHits, storageGraphReader, type ExpandOptions } from '../domain/graph.ts';
import { lexicalTerms } from '../domain/tokenize.ts';
import { withoutTimeWords } from '../domain/time-expressions.ts';
import { trustRank } from '../domain/trust.ts';
import type { Memory, RecallHit, RecallOptions } from '../types.ts';
import { cosine, cosineFrom } from '../domain/vector-math.ts';
import { checkBoolean, checkImportance, checkInteger, checkKnownKeys, checkObject, checkSource, checkTag, checkTimestamp, checkTrust, checkType } from '../domain/validate.ts';

export const LEXICAL_INDEXES = ['pool', 'corpus'] as const;
export const RECALL_SORTS = ['relevance', 'recent'] as const;

const RECALL_KEYS: ReadonlySet<string> = new Set([
  'k', 'type', 'tag', 'minImportance', 'source', 'since', 'until', 'minCosine', 'overfetch', 'includeSuperseded',
  'includeExpired', 'minTrust', 'diversity', 'dedupThreshold', 'touch', 'mode', 'fusion', 'weights', 'explain',
  'lexicalIndex', 'expand', 'signal', 'minConfidence', 'sort', 'recencyWeight', 'outdated', 'rerank',
]);

export type CheckedRecall = ReturnType<typeof checkRecallOptions>;

/** Validates every recall option up front, naming the field of the first bad one. */
export function checkRecallOptions(options: unknown) {
  const o = checkObject<RecallOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(o, RECALL_KEYS, 'options');
  const bool = (key: string, fallback: boolean): boolean => (o[key] === undefined ? fallback : checkBoolean(o[key], key));
  const since = o.since === undefined ? undefined : checkTimestamp(o.since, 'since');
  const until = o.until === undefined ? undefined : checkTimestamp(o.until, 'until');
  if (since !== undefined && until !== undefined && until < since) throw invalid('until must not be before since', { field: 'until' });
  // The strongest configuration is the default (issue #26): hybrid, with corpus-wide lexical
  // candidates. AI-Houkai's default is semantic only; `mode` and `lexicalIndex` still choose.
  const mode = o.mode === undefined ? 'hybrid' : checkChoice(o.mode, RECALL_MODES, 'mode');
  const lexicalIndex = o.lexicalIndex === undefined ? 'corpus' : checkChoice(o.lexicalIndex, LEXICAL_INDEXES, 'lexicalIndex');
  return {
    k: o.k === undefined ? 5 : checkInteger(o.k, 'k', 1, 10_000),
    type: o.type === undefined ? undefined : checkType(o.type),
    tag: o.tag === undefined ? undefined : checkTag(o.tag),
    minImportance: o.minImportance === undefined ? undefined : checkImportance(o.minImportance, 'minImportance'),
    source: o.source === undefined ? undefined : checkSource(o.source),
    since,
    until,
    minCosine: o.minCosine === undefined ? undefined : checkNumberInRange(o.minCosine, 'minCosine', -1, 1),
    overfetch: o.overfetch === undefined ? 4 : checkInteger(o.overfetch, 'overfetch', 1, 100),
    includeSuperseded: bool('includeSuperseded', false),
    includeExpired: bool('includeExpired', false),
    minTrust: o.minTrust === undefined ? undefined : checkTrust(o.minTrust, 'minTrust'),
    diversity: o.diversity === undefined ? undefined : checkNumberInRange(o.diversity, 'diversity', 0, 1),
    dedupThreshold: o.dedupThreshold === undefined ? undefined : checkNumberInRange(o.dedupThreshold, 'dedupThreshold', 0, 1),
    touch: bool('touch', true),
    mode,
    fusion: o.fusion === undefined ? 'weighted' : checkChoice(o.fusion, FUSIONS, 'fusion'),
    weights: checkWeights(o.weights),
    explain: bool('explain', false),
    lexicalIndex,
    expand: checkExpand(o.expand),
    signal: o.signal as AbortSignal | undefined,
    minConfidence: o.minConfidence === undefined ? ('none' as Confidence) : checkChoice(o.minConfidence, CONFIDENCE_LEVELS, 'minConfidence'),
    sort: o.sort === undefined ? ('relevance' as const) : checkChoice(o.sort, RECALL_SORTS, 'sort'),
    recencyWeight: o.recencyWeight === undefined ? 0 : checkNumberInRange(o.recencyWeight, 'recencyWeight', 0, Number.POSITIVE_INFINITY),
    outdated: o.outdated === undefined ? ('keep' as const) : checkChoice(o.outdated, OUTDATED_CHOICES, 'outdated'),
    rerank: checkRerankCall(o.rerank),
  };
}

/**
 * `expand: true` takes the reference defaults; an object overrides them. Validated whole here,
 * before the recall touches any hit, so a bad value changes nothing.
 */
function checkExpand(value: unknown): ExpandOptions | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const o = checkObject<ExpandOptions>(value, 'expand');
  checkKnownKeys(o, new Set(['rels', 'depth', 'cap', 'score', 'decay']), 'expand');
  checkExpandOptions(o);
  return o;
}

/** The recall filters (type, tags, trust, importance, time, superseded, expired), against the stored row. */
export function recallFilter(o: CheckedRecall, now: number): (m: Memory) => boolean {
  return (m) =>
    (o.includeSuperseded || m.supersededBy === '') &&
    (o.includeExpired || m.expiresAt <= 0 || m.expiresAt > now) &&
    (m.validFrom <= 0 || m.validFrom <= now) &&
    (m.validUntil <= 0 || now < m.validUntil) &&
    (o.type === undefined || m.type === o.type) &&
    (o.tag === undefined || m.tags.includes(o.tag)) &&
    (o.minImportance === undefined || m.importance >= o.minImportance) &&
    (o.source === undefined || m.source === o.source) &&
    (o.since === undefined || m.createdAt >= o.since) &&
    (o.until === undefined || m.createdAt <= o.until) &&
    (o.minTrust === undefined || trustRank(m.trust) <= trustRank(o.minTrust));
}

export { cosine } from '../domain/vector-math.ts';

/** BM25 with the corpus statistics of the persistent lexical index, normalised by the pool max. */
function corpusScorer(
  stats: { documents: number; averageLength: number },
  df: Map<string, number>,
  termsOf: Map<number, { terms: string[]; termCounts: number[]; termLength: number }>,
): LexicalScorer {
  return (queryTerms, pool) => {
    const idfs = queryTerms.map((t) => bm25Idf(stats.documents, df.get(t) ?? 0));
    const raw: number[] = [];
    const matched: string[][] = [];
    for (const item of pool) {
      const doc = termsOf.get((item as Candidate).label);
      let score = 0;
      const hits: string[] = [];
      if (doc) {
        for (let q = 0; q < queryTerms.length; q++) {
          const t = queryTerms[q]!;
          const i = doc.terms.indexOf(t);
          if (i < 0 || (df.get(t) ?? 0) === 0) continue;
          hits.push(t);
          score += bm25TermScore(idfs[q]!, doc.termCounts[i]!, doc.termLength, stats.averageLength, BM25_K1, BM25_B);
        }
      }
      raw.push(score);
      matched.push(hits);
    }
    return normaliseBm25(raw, matched, idfs);
  };
}

export async function runRecall(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, query: string, o: CheckedRecall): Promise<RecallHit[]> {
  const { storage, index } = ctx;
  // Resolved before any work: `rerank: true` on a store without one is refused, not ignored.
  const rerank = resolveRerank(ctx.settings.rerank.settings, o.rerank);
  const live = index.size();
  if (live === 0) return [];
  const vector = await embedOne(ctx, query, o.signal, 'query');
  const now = ctx.clock.now();
  const accept = recallFilter(o, now);

  // 1. The cosine pool: over-fetch, filter against storage, widen until k survive.
  //
  // Semantic recall without MMR ranks by cosine + polarityWeight·polarity alone, so the rows are
  // read in the index's (descending cosine) order, a chunk at a time, and reading stops once the
  // k-th best surviving score beats the best any unread candidate could reach: its cosine, plus
  // the polarity weight only if some memory has positive polarity. The top k is the one the whole
  // pool gives (strictly better; a tie reads on, as ties break by importance and age). An
  // approximate index's hits are rescored from their stored vectors, and that read goes side by
  // side with the first chunk's rows (taken in the index's order): one round trip, not two.
  const lazy = o.mode === 'semantic' && o.diversity === undefined && o.dedupThreshold === undefined && !rerank;
  const polarityWeight = o.weights.polarityWeight;
  const lift = lazy && polarityWeight > 0 && (await storage.hasPositivePolarity()) ? polarityWeight : 0;
  let fetch = Math.min(live, o.k * o.overfetch);
  let pool: Candidate[] = [];
  for (;;) {
    const hits = index.search(vector, fetch);
    let chunk = lazy ? o.k + Math.ceil(o.k / 2) : hits.length;
    let batch = new Set(hits.slice(0, chunk).map((h) => h.label));
    // A quantised index's near-ties are settled by the stored float32 vectors (core/services/rescore.ts).
    const [ranked, firstRows] = await Promise.all([rescoreHits(index, storage, vector, hits), storage.getByLabels([...batch])]);
    let rows = firstRows;
    pool = [];
    const scores: number[] = [];
    // What is left, best cosine first.
    let unread = ranked.filter((h) => !batch.has(h.label));
    for (;;) {
      for (const h of ranked) {
        if (!batch.has(h.label)) continue;
        const memory = rows.get(h.label);
        if (!memory) continue;
        const filtered = !accept(memory);
        pool.push({ memory, cosine: h.similarity, label: h.label, filtered });
        if (!filtered && (o.minCosine === undefined || h.similarity >= o.minCosine)) scores.push(h.similarity + polarityWeight * memory.polarity);
      }
      if (unread.length === 0) break;
      if (lazy && scores.length >= o.k && [...scores].sort((a, b) => b - a)[o.k - 1]! > unread[0]!.similarity + lift) break;
      chunk *= 2;
      batch = new Set(unread.slice(0, chunk).map((h) => h.label));
      unread = unread.slice(chunk);
      rows = await storage.getByLabels([...batch]);
    }
    if (pool.filter((c) => !c.filtered).length >= o.k || fetch >= live) break;
    fetch = Math.min(live, fetch * 4);
  }

  // 2. Corpus lexical union: the best memories outside the pool by corpus BM25 join with their
  //    real cosine. Half the cosine pool's over-fetch (20 for k 10): 40 did no better on LoCoMo
  //    dev or SciFact (BENCHMARKS.md, issue #26 session 5), and every slot is a row, a vector
  //    and a candidate scored.
  let lexicalScorer: LexicalScorer | undefined;
  let corpusTerms: Map<number, { terms: string[]; termCounts: number[]; termLength: number }> | undefined;
  if (o.mode === 'hybrid' && o.lexicalIndex === 'corpus') {
    const queryTerms = [...new Set(lexicalTerms(withoutTimeWords(query, now)))];
    const lexicalSlots = Math.max(o.k * Math.ceil(o.overfetch / 2), 20);
    const inPool = new Set(pool.map((c) => c.label));
    const [stats, { candidates, documentFrequencies: df }] = await Promise.all([
      storage.lexicalStats(),
      storage.lexicalCandidates(queryTerms, lexicalSlots, { exclude: inPool, accept }),
    ]);
    const termsOf = new Map<number, { terms: string[]; termCounts: number[]; termLength: number }>(candidates.map((c) => [c.label, c]));
    const scorer = corpusScorer(stats, df, termsOf);
    // The postings in storage (before the lexical index is in memory) may nominate pool members
    // and filtered memories: they are dropped here, and the best by exact BM25 kept.
    const outside = candidates.filter((c) => !inPool.has(c.label) && accept(c.memory));
    const lexicalScores = scorer(queryTerms, outside.map((c) => ({ memory: c.memory, cosine: 0, label: c.label }) as Candidate));
    const best = outside
      .map((c, i) => ({ c, s: lexicalScores.raw[i]! }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s)
      .slice(0, lexicalSlots);
    const vectors = await storage.vectorsOf(best.map((x) => x.c.label));
    const toQuery = cosineFrom(vector);
    for (const { c } of best) {
      const v = vectors.get(c.label);
      if (v) pool.push({ memory: c.memory, cosine: toQuery(v), label: c.label, filtered: false });
    }
    lexicalScorer = scorer;
    corpusTerms = termsOf;
  }

  // 2b. Conversation neighbours: a short turn ("Yes! It was amazing.") is found through the
  //     turns around it (the `context` signal), and the turns around the best matches join.
  if (o.mode === 'hybrid' && o.fusion === 'weighted' && o.weights.context > 0) await attachNeighbours(storage, pool, vector, accept);
  if (corpusTerms) {
    const termsOf = corpusTerms;
    const missing = pool.filter((c) => !termsOf.has(c.label)).map((c) => c.label);
    if (missing.length) for (const [label, t] of await storage.lexicalTermsOf(missing)) termsOf.set(label, t);
    // The stored terms serve the relevance coverage too (no re-tokenising of the pool).
    for (const c of pool) {
      const t = termsOf.get(c.label);
      if (t) c.storedTerms = t.terms;
    }
  }

  // 3. Scoring, with a relevance verdict (the embedder's calibration and this store's background),
  //    then the current truth first (recall-current.ts), then the confidence floor. A superseded
  //    candidate the other filters admit is scored too, only to pass its score to what replaced it.
  await calibrate(ctx);
  const hidden = new Set<string>();
  const acceptHidden = o.includeSuperseded ? accept : recallFilter({ ...o, includeSuperseded: true }, now);
  if (!o.includeSuperseded) {
    for (const c of pool) {
      if (c.filtered && c.memory.supersededBy !== '' && acceptHidden(c.memory)) {
        c.filtered = false;
        hidden.add(c.memory.id);
      }
    }
  }
  const ranked = scoreCandidates(pool, query, {
    timeAnchor: await timeAnchor(storage, query, now),
    mode: o.mode,
    fusion: o.fusion,
    weights: o.weights,
    now,
    explain: o.explain,
    ...(o.minCosine === undefined ? {} : { minCosine: o.minCosine }),
    relevance: ctx.relevance.judgeFor(vector),
    recencyWeight: o.recencyWeight,
    ...(lexicalScorer ? { lexicalScorer } : {}),
  });
  // 3b. The second stage (recall-rerank.ts): the top re-scored by the reranker, then reordered.
  const reranked = rerank ? await rerankHits(ctx.settings.rerank, rerank, query, ranked, hidden) : { hits: ranked, outcome: undefined };
  const current = await currentFirst(storage, reranked.hits, { accept, acceptHidden, hidden, query: vector, explain: o.explain });
  const scored = current.hits.filter((h) => meetsConfidence(h.confidence, o.minConfidence) && (o.outdated === 'keep' || !current.outdated.has(h.memory.id)));

  // 4. Selection (recall-select.ts): the best k by score (MMR and near-duplicate suppression need
  //    the candidates' vectors), ordered by confidence band, then newest first if asked.
  type Scored = (typeof scored)[number];
  let similarity: ((a: Scored, b: Scored) => number | null) | undefined;
  if (selectionNeedsVectors(o)) {
    const labelOf = new Map(pool.map((c) => [c.memory.id, c.label]));
    const vectors = await storage.vectorsOf(scored.map((h) => labelOf.get(h.memory.id)!).filter((l) => l !== undefined));
    const vecOf = (h: Scored): Float32Array | undefined => vectors.get(labelOf.get(h.memory.id)!);
    similarity = (a, b) => {
      const va = vecOf(a);
      const vb = vecOf(b);
      return va && vb ? cosine(va, vb) : null;
    };
  }
  const chosen = selectHits(scored, o, similarity);

  // 5. Touch the returned memories in one transaction, written behind the answer: it rewrites
  //    each row (and so its index entries), which cost more than the whole search (BENCHMARKS.md,
  //    issue #26 session 9). The store's next call waits for it (view.ts).
  if (o.touch && chosen.length > 0) writeBehind(ctx.state, storage.touch(chosen.map((h) => h.memory.id), now));
  const contested = await contestedBy(storage, chosen.map((h) => h.memory));
  const hits = chosen.map((h) => {
    const memory = o.touch ? { ...h.memory, lastAccessed: now, accessCount: h.memory.accessCount + 1 } : h.memory;
    const hit: RecallHit = { memory, score: h.score, cosine: h.cosine, contestedBy: contested.get(h.memory.id) ?? [], outdatedBy: current.outdated.get(h.memory.id) ?? [] };
    if (h.confidence) hit.confidence = h.confidence;
    if (h.relevance !== undefined) hit.relevance = h.relevance;
    if (h.explain) {
      hit.explain = h.explain;
      if (reranked.outcome && !hit.explain.rerank) hit.explain.rerank = reranked.outcome;
    }
    return hit;
  });

  // 6. Expansion: linked neighbours appended after the top k, with the configured score.
  if (o.expand && hits.length > 0) {
    const extra = await expandHits(storageGraphReader(storage), hits, { ...o.expand, includeSuperseded: o.includeSuperseded, accept });
    const [extraContested, extraSuccession] = await Promise.all([contestedBy(storage, extra.map((e) => e.memory)), successionOf(storage, extra.map((e) => e.memory))]);
    for (const e of extra) {
      hits.push({ memory: e.memory, score: e.score, expandedFrom: { id: e.from, rel: e.rel, hop: e.hop }, contestedBy: extraContested.get(e.memory.id) ?? [], outdatedBy: outdatedBy(extraSuccession, e.memory.id) });
    }
  }
  return hits;
}

/**
 * Refreshes the store's background sample (random stored vectors) for the relevance verdict,
 * whenever the store has doubled since the last time.
 */
export async function calibrate(ctx: Using<'meta' | 'vectors'>): Promise<void> {
  const size = ctx.index.size();
  const { state } = ctx;
  if (size < 2 || (state.calibratedAt > 0 && size < state.calibratedAt * 2)) return;
  state.calibratedAt = size;
  // The label counter as it is now: `meta` was read at open and a fresh store starts at 0.
  state.meta = (await ctx.storage.readMeta()) ?? state.meta;
  ctx.relevance.setSample(await sampleVectors(ctx.storage, state.meta.nextLabel, ctx.random ?? seededRandom(state.meta.nextLabel)));
}

/** Up to `n` stored vectors at random labels (the store's background sample). */
export async function sampleVectors(storage: Pick<VectorLog, 'vectorsOf'>, nextLabel: number, random: RandomSource, n = 64): Promise<Float32Array[]> {
  if (nextLabel <= 0) return [];
  const labels = new Set<number>();
  for (let tries = 0; labels.size < n && tries < n * 4; tries++) labels.add(Math.floor(random.next() * nextLabel));
  return [...(await storage.vectorsOf([...labels])).values()];
}

