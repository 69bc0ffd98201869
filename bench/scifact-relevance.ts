/**
 * SciFact parts of issue #14's evaluation, run by bench/eval.ts on its replica pools (the store's
 * recall pool rebuilt outside the store, whose top 10 matches the store's):
 *
 * - `legacyRankings`: the ranking before #14 (AI-Houkai's weighted sum with the old lexical
 *   terms, bench/legacy/scoring.ts) over a pool rebuilt with the old terms, so SciFact hybrid
 *   nDCG@10 can be compared before/after in one run;
 * - `claimConfidence`: the relevance verdicts on the test claims (SciFact's dev claims, as BEIR
 *   ships them): of the claims whose top-1 hit is a cited abstract, the share judged strong or
 *   weak; and, with the cited abstracts taken out of the pool (the claim has no answer in
 *   memory), the share of claims whose top 10 are all judged none.
 */
import { calibrationFor } from '../src/core/domain/calibrations.ts';
import { cosine } from '../src/core/ops/recall-pipeline.ts';
import { relevanceJudge, type RelevanceCalibration } from '../src/core/domain/relevance.ts';
import { scoreCandidates, type LexicalScorer, type PoolItem } from '../src/core/domain/scoring.ts';
import { rawLexicalTerms } from '../src/core/domain/tokenize.ts';
import type { Memory } from '../src/core/types.ts';
import { mulberry32 } from '../test/helpers/prng.ts';
import { LexicalCorpus, recallPool } from './fusion-lab.ts';
import { scoreCandidates as legacyScore } from './legacy/scoring.ts';

export interface ReplicaLike {
  text: string;
  pool: PoolItem[];
  raw: Map<PoolItem, number>;
}

const poolScorer =
  (raw: (item: PoolItem) => number): LexicalScorer =>
  (_terms, pool) => {
    // The pre-#14 hybrid normalised by the pool maximum (bounded = scores: this replica is the legacy rule).
    const scores = pool.map(raw);
    const max = scores.reduce((m, x) => Math.max(m, x), 0);
    const normalised = scores.map((x) => (max > 0 ? x / max : 0));
    return { raw: scores, max, scores: normalised, bounded: normalised, matched: pool.map(() => []) };
  };

/** Rankings (corpus ids, best first) of the pre-#14 hybrid: old terms, old pool nomination, AI-Houkai's sum. */
export function legacyRankings(input: {
  docTexts: string[];
  docIds: string[];
  memories: Memory[];
  queries: [string, string][];
  cosinesOf: (text: string) => ArrayLike<number>;
  k: number;
  overfetch: number;
  now: number;
}): Map<string, string[]> {
  const corpus = new LexicalCorpus(input.docTexts.map((t) => rawLexicalTerms(t)));
  const docOf = new Map(input.memories.map((m, d) => [m.id, d]));
  const out = new Map<string, string[]>();
  for (const [qid, text] of input.queries) {
    const terms = rawLexicalTerms(text);
    const bm = corpus.bm25(terms);
    const cos = input.cosinesOf(text);
    const { pool: indices } = recallPool(corpus, bm, cos, terms, { k: input.k, overfetch: input.overfetch });
    const pool = indices.map((d) => ({ memory: input.memories[d]!, cosine: cos[d]! }));
    const raw = new Map(pool.map((item, i) => [item, bm[indices[i]!]!]));
    const hits = legacyScore(pool, text, { mode: 'hybrid', now: input.now, lexicalScorer: poolScorer((item) => raw.get(item) ?? 0) });
    out.set(qid, hits.slice(0, input.k).map((h) => input.docIds[docOf.get(h.memory.id)!]!));
  }
  return out;
}

export interface ClaimConfidence {
  claims: number;
  /** Claims whose top-1 hit is a cited abstract. */
  correct_top1: number;
  correct_top1_weak_or_strong: number;
  correct_top1_strong: number;
  /** With the cited abstracts out of the pool: claims whose top 10 are all judged none. */
  unanswerable_all_none: number;
  /** The same claims, top-1 only. */
  unanswerable_top1_none: number;
}

/** Relevance verdicts on the test claims (see the module comment). */
export function claimConfidence(input: {
  embedderId: string;
  replicas: Map<string, ReplicaLike>;
  qrels: Map<string, Set<string>>;
  docIdOf: (memoryId: string) => string;
  queryVector: (text: string) => Float32Array;
  corpusVectors: Float32Array[];
  now: number;
  calibration?: RelevanceCalibration;
}): ClaimConfidence {
  const calibration = input.calibration ?? calibrationFor({ id: input.embedderId });
  if (!calibration) throw new Error(`no relevance calibration for ${input.embedderId}`);
  // The store's background sample: 64 random stored vectors (as relevance-background.ts keeps).
  const random = mulberry32(64);
  const sample = Array.from({ length: 64 }, () => input.corpusVectors[Math.floor(random() * input.corpusVectors.length)]!);
  let correct = 0;
  let correctOk = 0;
  let correctStrong = 0;
  let allNone = 0;
  let topNone = 0;
  for (const [qid, r] of input.replicas) {
    const relevant = input.qrels.get(qid) ?? new Set<string>();
    const qv = input.queryVector(r.text);
    const judge = relevanceJudge({ calibration, queryBackground: sample.map((v) => cosine(qv, v)) });
    const score = (pool: PoolItem[]) =>
      scoreCandidates(pool, r.text, { mode: 'hybrid', now: input.now, relevance: judge, lexicalScorer: poolScorer((item) => r.raw.get(item) ?? 0) });
    const hits = score(r.pool);
    if (hits[0] && relevant.has(input.docIdOf(hits[0].memory.id))) {
      correct++;
      if (hits[0].confidence !== 'none') correctOk++;
      if (hits[0].confidence === 'strong') correctStrong++;
    }
    const without = score(r.pool.filter((item) => !relevant.has(input.docIdOf(item.memory.id)))).slice(0, 10);
    if (without.every((h) => h.confidence === 'none')) allNone++;
    if (without[0]?.confidence === 'none') topNone++;
  }
  const n = input.replicas.size;
  const r4 = (x: number) => Number(x.toFixed(4));
  return {
    claims: n,
    correct_top1: correct,
    correct_top1_weak_or_strong: r4(correctOk / Math.max(correct, 1)),
    correct_top1_strong: r4(correctStrong / Math.max(correct, 1)),
    unanswerable_all_none: r4(allNone / Math.max(n, 1)),
    unanswerable_top1_none: r4(topNone / Math.max(n, 1)),
  };
}
