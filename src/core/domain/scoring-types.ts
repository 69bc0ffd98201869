/**
 * The shapes recall's scoring works on and returns: the pool it is handed, the signals it
 * explains, the hits it gives. Apart from scoring.ts so that the signal definitions (signals.ts)
 * and the fusions (fusion.ts), which scoring uses, can name them without importing it back.
 */
import type { Confidence } from './confidence.ts';
import type { RerankOutcome } from './rerank.ts';
import type { CoreSignal } from './signal-names.ts';
import type { Memory } from '../types.ts';

export const RECALL_MODES = ['semantic', 'hybrid'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];

export const FUSIONS = ['weighted', 'linear', 'rrf'] as const;
export type Fusion = (typeof FUSIONS)[number];

export const RECENCY_BASES = ['created', 'accessed'] as const;
export type RecencyBasis = (typeof RECENCY_BASES)[number];

export interface PoolItem {
  memory: Memory;
  /** Cosine similarity between the query and the memory. */
  cosine: number;
  /** Precomputed `lexicalTerms(memory.text)`; computed here when absent. */
  lexicalTerms?: readonly string[];
  /** The terms stored with the memory (for the relevance coverage), when `lexicalTerms` is not given. */
  storedTerms?: readonly string[];
  /**
   * True when a post-filter (tag, superseded, …) excludes this candidate: it still counts toward
   * the pool's BM25 statistics, as in the reference, but is never scored or returned.
   */
  filtered?: boolean;
  /**
   * The best cosine with the query among the memory's conversation neighbours (the turns written
   * just before and after it in the same conversation), when the caller looked them up: the
   * `context` signal.
   */
  neighbourCosine?: number;
}

/** `current`: what ranking a newer memory above the one it updates added (ops/recall-current.ts). */
export type SignalName = CoreSignal | 'polarity' | 'current' | 'rerank';

export interface Signal {
  name: SignalName;
  /** The raw signal: cosine, normalised BM25, recency factor, importance or polarity. */
  value: number;
  /** The effective weight (after the lexical rescale and the relevance gate; for RRF the fused part is `weight/(60+rank)`). */
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
  /** The relevance judgement behind `confidence` (present with a relevance judge). */
  relevance?: { probability: number; confidence: Confidence; coverage: number; z: number };
  /** The reference's breakdown dict, rounded as the reference rounds. */
  breakdown: Record<string, unknown>;
  /** Ranked as the current memory of these (it updates or supersedes them): at least their score and badge (domain/current.ts). */
  current?: { of: string[] };
  /** Outdated: these live memories update or supersede it, and rank above it. */
  outdated?: { by: string[] };
  /** Which stage ordered the top when a rerank was asked (domain/rerank.ts); a reranked hit also has its reranker score and its first-stage score. */
  rerank?: RerankOutcome & { score?: number; firstStage?: number };
}

export interface ScoredHit {
  memory: Memory;
  score: number;
  cosine: number;
  /** Present with a relevance judge or `confidence` thresholds. */
  confidence?: Confidence;
  /** P(relevant), present with a relevance judge. */
  relevance?: number;
  /** Present when `explain` was set. */
  explain?: Explanation;
}
