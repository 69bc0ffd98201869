/**
 * The per-candidate signals of hybrid scoring and their explanations, shared by the fusion rules
 * (`fusion.ts`) and the scoring entry point (`scoring.ts`).
 */
import type { HybridWeights, PoolItem, RecencyBasis, Signal } from './scoring.ts';
import type { Memory } from './types.ts';

export const CORE_SIGNALS = ['cosine', 'lexical', 'recency', 'importance'] as const;
export type CoreSignal = (typeof CORE_SIGNALS)[number];

/** RRF's k: ranks are damped by 60 + rank. */
export const RRF_K = 60;

const SECONDS_PER_DAY = 86_400;

/** One surviving candidate with its signal values. */
export interface Row {
  item: PoolItem;
  /** Position in the pool (the final tie-break). */
  index: number;
  values: Record<CoreSignal, number>;
  matched: string[];
  bm25Raw: number;
  /** P(relevant) from the relevance judge; 1 when no judge was given. */
  gate: number;
}

export const round = (x: number, dp: number): number => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};

export function ageDays(memory: Memory, basis: RecencyBasis, now: number): number {
  const from = basis === 'created' ? memory.createdAt : memory.lastAccessed;
  return Math.max(0, (now - from) / SECONDS_PER_DAY);
}

/** `exp(−decayRate · max(0, now − basis)/86400)`: 1 for a brand-new (or future-dated) memory. */
export function recencyFactor(memory: Memory, weights: Pick<HybridWeights, 'decayRate' | 'recencyBasis'>, now: number): number {
  return Math.exp(-weights.decayRate * ageDays(memory, weights.recencyBasis, now));
}

export function polaritySignal(memory: Memory, weight: number, weighted: number, details: Record<string, unknown> = {}): Signal {
  const p = memory.polarity;
  return {
    name: 'polarity',
    value: p,
    weight,
    weighted,
    reason: p === 0 ? 'No polarity hint' : p > 0 ? 'Positive polarity hint lifts the score' : 'Negative polarity hint lowers the score',
    details,
  };
}

export function signalReason(name: CoreSignal, value: number, row: Row): string {
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

export function coreDetails(name: CoreSignal, row: Row, weights: HybridWeights, now: number, queryTerms: string[]): Record<string, unknown> {
  switch (name) {
    case 'lexical':
      return { matchedTerms: row.matched, queryTerms, bm25Raw: row.bm25Raw };
    case 'recency':
      return { ageDays: ageDays(row.item.memory, weights.recencyBasis, now), decayRate: weights.decayRate, basis: weights.recencyBasis };
    default:
      return {};
  }
}
