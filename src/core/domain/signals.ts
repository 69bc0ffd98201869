/**
 * The signals of hybrid scoring, each declared once here (`CORE_SIGNALS`, `SPECS`): its name, its role, its
 * default weight, how its value is read off a candidate, and how it explains itself. Everything
 * else follows from this table: the weights `recall({ weights })` accepts and their defaults
 * (`scoring.ts`), the rows the fusion rules combine, each rule's sum and its explanation
 * (`fusion.ts`). Adding a recall signal is its name in `CORE_SIGNALS` and its entry in `SPECS`,
 * here, plus its test.
 *
 * Roles: a `relevance` signal is part of what a memory is about (the weighted rule ranks by the
 * relevance signals' weighted mean); a `context` signal only breaks near-ties between relevant
 * memories (the weighted rule gives the context signals together at most `tieBand`, scaled by
 * the memory's P(relevant)). The linear and RRF rules treat every signal alike.
 */
import type { PoolBm25Result } from './bm25.ts';
import { memoryEntities, nameCredit, type QueryAnalysis } from './query.ts';
import { CORE_SIGNALS, type CoreSignal } from './signal-names.ts';
import type { PoolItem, RecencyBasis, Signal } from './scoring-types.ts';
import { saysTheSameTime, timeFit } from './time-expressions.ts';
import type { HybridWeights, Memory } from '../types.ts';

/** What a signal may read besides its candidate. */
export interface SignalInput {
  /** The candidate's position in the pool. */
  index: number;
  /** BM25 over the pool (normalised scores, raw scores, matched terms). */
  bm25: PoolBm25Result;
  weights: HybridWeights;
  now: number;
  /** The query's names, quoted phrases and time (query.ts). */
  query: QueryAnalysis;
  fusion: 'weighted' | 'linear' | 'rrf';
}

/** What decides whether a signal takes part in a pool's scoring (see `SignalSpec.absent`). */
export interface AbsenceInput {
  bm25: PoolBm25Result;
  query: QueryAnalysis;
  pool: readonly PoolItem[];
}

export interface SignalSpec {
  readonly name: CoreSignal;
  readonly role: 'relevance' | 'context';
  /** Its weight when `weights` does not say, in AI-Houkai's units. */
  readonly defaultWeight: number;
  /** The signal for one candidate, in [0, 1]. */
  value(item: PoolItem, input: SignalInput): number;
  /** One line for `explain`. */
  reason(value: number, row: Row): string;
  /** Extra facts for `explain`. */
  details?(row: Row, weights: HybridWeights, now: number, queryTerms: string[]): Record<string, unknown>;
  /**
   * When no candidate of the pool has the signal, or the query does not ask for it (it would only
   * depress every score): its weight is dropped and the others rescaled; the reason `explain`
   * gives then.
   */
  absent?: { when(input: AbsenceInput): boolean; reason: string };
  /** `recall({ recencyWeight })` adds to this signal's weight, ungated ("latest first"). */
  readonly latestFirst?: boolean;
  /**
   * Takes part in the `weighted` fusion only: the `linear` rule stays AI-Houkai's formula and
   * `rrf` ranks the reference's signals, so for them this signal is absent.
   */
  readonly weightedOnly?: boolean;
}

const SECONDS_PER_DAY = 86_400;

export function ageDays(memory: Memory, basis: RecencyBasis, now: number): number {
  const from = basis === 'created' ? memory.createdAt : memory.lastAccessed;
  return Math.max(0, (now - from) / SECONDS_PER_DAY);
}

/** `exp(−decayRate · max(0, now − basis)/86400)`: 1 for a brand-new (or future-dated) memory. */
export function recencyFactor(memory: Memory, weights: Pick<HybridWeights, 'decayRate' | 'recencyBasis'>, now: number): number {
  return Math.exp(-weights.decayRate * ageDays(memory, weights.recencyBasis, now));
}

export { CORE_SIGNALS, type CoreSignal } from './signal-names.ts';

/** Each signal's definition; the compiler asks for one per name of `CORE_SIGNALS`. */
const SPECS: { readonly [K in CoreSignal]: SignalSpec & { readonly name: K } } = {
  cosine: {
    name: 'cosine',
    role: 'relevance',
    defaultWeight: 0.55,
    value: (item) => item.cosine,
    reason: (value) => `Semantic similarity ${value.toFixed(3)}`,
  },
  lexical: {
    name: 'lexical',
    role: 'relevance',
    defaultWeight: 0.2,
    // The weighted rule reads BM25 over the query's theoretical best (bm25.ts: normaliseBm25);
    // the linear and rrf rules keep the reference's pool-max normalisation.
    value: (_item, { index, bm25, fusion }) => (fusion === 'weighted' ? bm25.bounded[index]! : bm25.scores[index]!),
    reason: (_value, row) => (row.matched.length ? `Matched query terms: ${row.matched.join(', ')}` : 'No query term in this memory'),
    details: (row, _weights, _now, queryTerms) => ({ matchedTerms: row.matched, queryTerms, bm25Raw: row.bm25Raw }),
    absent: { when: ({ bm25 }) => bm25.max <= 0, reason: 'No memory in the pool matched a query term' },
  },
  entity: {
    name: 'entity',
    role: 'relevance',
    // Off by default (issue #51 item 7): cross-validated across LoCoMo's two development
    // conversations, the weight fitted on one gained nothing on the other, with either embedder
    // (the speaker's name is a lexical term of a transcript line already, and crediting the
    // speaker misleads the questions that name the wrong person). `weights: { entity: 0.02 }` asks for it.
    defaultWeight: 0,
    weightedOnly: true,
    value: (item, { query }) => {
      if (query.names.length === 0) return 0;
      const entities = memoryEntities(item.memory);
      // The mean credit over the query's names, each scaled by its weight (its rarity among the candidates).
      const weights = query.nameWeights;
      let got = 0;
      query.names.forEach((name, i) => (got += (weights ? weights[i]! : 1) * nameCredit(entities, name)));
      return got / query.names.length;
    },
    reason: (value, row) => {
      if (value <= 0) return 'Neither said by nor about the people or things the query names';
      const entities = memoryEntities(row.item.memory);
      const said = row.names.some((name) => nameCredit(entities, name) >= 1);
      return said && entities.speakerName !== null ? `Said by ${entities.speakerName}, whom the query names` : 'Mentions someone or something the query names';
    },
    details: (row) => {
      const e = memoryEntities(row.item.memory);
      return { speaker: e.speaker, mentions: [...e.mentions] };
    },
    absent: { when: ({ query }) => query.names.length === 0, reason: 'The query names no one' },
  },
  time: {
    name: 'time',
    role: 'relevance',
    defaultWeight: 0.1,
    weightedOnly: true,
    value: (item, { query }) => {
      const { windows, asksWhen } = query.time;
      if (windows.length > 0) {
        const fit = timeFit(item.memory.createdAt, windows);
        // The time words are read here, not as keywords (#50 item 5): a memory that says the
        // same time in the same words ("… last year", "… 4 years ago") fits it too.
        return fit < 1 && saysTheSameTime(item.memory.text, windows) ? 1 : fit;
      }
      return asksWhen && memoryEntities(item.memory).saysWhen ? 1 : 0;
    },
    reason: (value) => (value >= 1 ? 'When it happened fits the time the query asks about' : value > 0 ? `Near the time the query names (${value.toFixed(2)})` : 'Outside the time the query asks about'),
    details: (row) => ({ createdAt: row.item.memory.createdAt, saysWhen: memoryEntities(row.item.memory).saysWhen }),
    absent: { when: ({ query }) => query.time.windows.length === 0 && !query.time.asksWhen, reason: 'The query names no time and asks for none' },
  },
  phrase: {
    name: 'phrase',
    role: 'relevance',
    defaultWeight: 0.2,
    weightedOnly: true,
    value: (item, { query }) => {
      if (query.phrases.length === 0) return 0;
      const text = memoryEntities(item.memory).folded;
      return query.phrases.filter((p) => text.includes(p)).length / query.phrases.length;
    },
    reason: (value) => (value > 0 ? 'Holds the exact words the query quotes' : 'Lacks the words the query quotes'),
    absent: { when: ({ query }) => query.phrases.length === 0, reason: 'The query quotes nothing' },
  },
  context: {
    name: 'context',
    role: 'relevance',
    defaultWeight: 0.5,
    weightedOnly: true,
    // What the turns around it add: their best cosine above its own ("Yes! It was amazing." after
    // the question it answers), 0 when they match no better than the turn itself.
    value: (item) => Math.max(0, (item.neighbourCosine ?? 0) - item.cosine),
    reason: (value) => (value > 0 ? `The turns around it in its conversation match the query better (+${value.toFixed(3)})` : 'The turns around it match no better than it does'),
    absent: { when: ({ pool }) => !pool.some((item) => item.neighbourCosine !== undefined), reason: 'No memory of the pool has conversation neighbours' },
  },
  recency: {
    name: 'recency',
    role: 'context',
    defaultWeight: 0.15,
    value: (item, { weights, now }) => recencyFactor(item.memory, weights, now),
    reason: (value) => `Recency factor ${value.toFixed(3)}`,
    details: (row, weights, now) => ({ ageDays: ageDays(row.item.memory, weights.recencyBasis, now), decayRate: weights.decayRate, basis: weights.recencyBasis }),
    latestFirst: true,
  },
  importance: {
    name: 'importance',
    role: 'context',
    defaultWeight: 0.1,
    value: (item) => item.memory.importance,
    reason: (value) => `Stored importance ${value.toFixed(2)}`,
  },
};

/** Every signal, in order. */
export const SIGNALS: readonly SignalSpec[] = CORE_SIGNALS.map((name) => SPECS[name]);

export function signalSpec(name: CoreSignal): SignalSpec {
  return SPECS[name];
}

/** RRF's k: ranks are damped by 60 + rank. */
export const RRF_K = 60;

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
  /** The names the query asks about (the pool's reading: query.ts `withPoolNames`), for the entity signal's reason. */
  names: readonly string[];
}

export const round = (x: number, dp: number): number => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};

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
  return signalSpec(name).reason(value, row);
}

export function coreDetails(name: CoreSignal, row: Row, weights: HybridWeights, now: number, queryTerms: string[]): Record<string, unknown> {
  return signalSpec(name).details?.(row, weights, now, queryTerms) ?? {};
}
