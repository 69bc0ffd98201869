/**
 * The hybrid fusion rules (formulas in `scoring.ts`'s module comment):
 * - `weighted`: relevance first. The relevance part ranks; recency, importance and polarity add
 *   at most `tieBand + polarityWeight`, scaled by the memory's P(relevant), so they only break
 *   near-ties between relevant memories;
 * - `linear`: AI-Houkai's plain weighted sum (recency can outrank meaning);
 * - `rrf`: reciprocal-rank fusion.
 */
import type { ScoredHit, Signal } from './scoring-types.ts';
import type { HybridWeights } from '../types.ts';
import { CORE_SIGNALS, coreDetails, polaritySignal, round, RRF_K, signalReason, signalSpec, type CoreSignal, type Row } from './signals.ts';

export type IndexedHit = ScoredHit & { index: number };

export interface FusionInput {
  rows: Row[];
  /** Signals no pool document has (filtered ones included): their weight is dropped. */
  absent: ReadonlySet<CoreSignal>;
  queryTerms: string[];
  weights: HybridWeights;
  now: number;
  explain: boolean;
  /** Extra, ungated weight of the `latestFirst` signal (recency: "latest first"), default 0. */
  recencyWeight: number;
}

const RELEVANCE = CORE_SIGNALS.filter((name) => signalSpec(name).role === 'relevance');
/** AI-Houkai's signals: the ones the `linear` and `rrf` rules combine (see `SignalSpec.weightedOnly`). */
const REFERENCE = CORE_SIGNALS.filter((name) => signalSpec(name).weightedOnly !== true);
const CONTEXT = CORE_SIGNALS.filter((name) => signalSpec(name).role === 'context');
const extraWeight = (name: CoreSignal, input: FusionInput): number => (signalSpec(name).latestFirst ? input.recencyWeight : 0);
const sum = (values: readonly number[]): number => values.reduce((total, x) => total + x, 0);

/** The signal values, per signal, rounded as the breakdown shows them. */
function valuesOf(row: Row, names: readonly CoreSignal[] = CORE_SIGNALS): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, round(row.values[name], 4)]));
}

// ---------------------------------------------------------------------------------------------
// weighted: relevance first
// ---------------------------------------------------------------------------------------------

export function fuseWeighted(input: FusionInput): IndexedHit[] {
  const { rows, weights: w } = input;
  // A relevance signal no memory of the pool has is dropped: the others make the relevance.
  const dropped = new Set(RELEVANCE.filter((name) => w[name] > 0 && input.absent.has(name)));
  const kept = RELEVANCE.filter((name) => !dropped.has(name));
  if (sum(kept.map((name) => w[name])) <= 0) dropped.clear();
  const relevanceNames = RELEVANCE.filter((name) => !dropped.has(name));
  const relevanceTotal = sum(relevanceNames.map((name) => w[name]));
  const contextTotal = sum(CONTEXT.map((name) => w[name]));

  // Per signal, once: a relevance signal's fixed weight, a context signal's share of the tie band
  // (scaled by each memory's relevance gate below) and its ungated extra.
  const isRelevance = CORE_SIGNALS.map((name) => signalSpec(name).role === 'relevance');
  const fixed = CORE_SIGNALS.map((name, i) => (isRelevance[i] ? (relevanceTotal <= 0 || dropped.has(name) ? 0 : w[name] / relevanceTotal) : 0));
  const shares = CORE_SIGNALS.map((name) => (contextTotal > 0 ? (w.tieBand * w[name]) / contextTotal : 0));
  const extras = CORE_SIGNALS.map((name) => extraWeight(name, input));

  return rows.map((row) => {
    const { memory } = row.item;
    const g = row.gate;
    const effs: number[] = [];
    const parts: number[] = [];
    let signalSum = 0;
    for (let i = 0; i < CORE_SIGNALS.length; i++) {
      const e = isRelevance[i] ? fixed[i]! : g * shares[i]! + extras[i]!;
      effs.push(e);
      parts.push(e * row.values[CORE_SIGNALS[i]!]);
      signalSum += parts[i]!;
    }
    const polarityWeight = g * w.polarityWeight;
    const polarityPart = polarityWeight * memory.polarity;
    const score = signalSum + polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (input.explain) {
      const eff = Object.fromEntries(CORE_SIGNALS.map((name, i) => [name, effs[i]!])) as Record<CoreSignal, number>;
      const gateNote = g < 1 ? ` (×${g.toFixed(2)}, its relevance)` : '';
      const signals: Signal[] = CORE_SIGNALS.map((name, i) => {
        const spec = signalSpec(name);
        const details = coreDetails(name, row, w, input.now, input.queryTerms);
        let reason = signalReason(name, row.values[name], row);
        if (dropped.has(name)) {
          reason = `${spec.absent!.reason}; relevance is the ${relevanceNames.join(' and ')} alone`;
          details.dropped = true;
          details.configuredWeight = w[name];
        } else if (spec.role === 'context') {
          reason += `; breaks near-ties: at most ${shares[i]!.toFixed(3)}${gateNote}`;
          details.relevanceGate = g;
          const extra = extras[i]!;
          if (extra > 0) {
            reason += ` plus recencyWeight ${extra}`;
            details.recencyWeight = extra;
          }
        }
        return { name, value: row.values[name], weight: eff[name], weighted: parts[i]!, reason, details };
      });
      signals.push(polaritySignal(memory, polarityWeight, polarityPart, { relevanceGate: g }));
      const weights = Object.fromEntries(CORE_SIGNALS.map((name) => [name, round(eff[name], 4)]));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'weighted',
        score,
        signals,
        breakdown: {
          mode: 'hybrid',
          fusion: 'weighted',
          relevance: round(sum(CORE_SIGNALS.flatMap((name, i) => (signalSpec(name).role === 'relevance' ? [parts[i]!] : []))), 4),
          relevance_gate: round(g, 4),
          ...valuesOf(row),
          polarity: memory.polarity,
          weights: { ...weights, polarity: round(polarityWeight, 4) },
          score: round(score, 4),
        },
      };
    }
    return hit;
  });
}

// ---------------------------------------------------------------------------------------------
// linear: AI-Houkai's weighted sum
// ---------------------------------------------------------------------------------------------

export function fuseLinear(input: FusionInput): IndexedHit[] {
  const { rows, weights: w } = input;
  const core = sum(REFERENCE.map((name) => w[name]));
  // A signal no document has would only depress every score: its weight is dropped and the
  // others rescaled to the same total.
  const dropped = new Set(REFERENCE.filter((name) => w[name] > 0 && input.absent.has(name)));
  const droppedWeight = sum([...dropped].map((name) => w[name]));
  if (core <= droppedWeight) dropped.clear();
  const scale = dropped.size ? core / (core - droppedWeight) : 1;
  const eff = Object.fromEntries(REFERENCE.map((name) => [name, dropped.has(name) ? 0 : w[name] * scale + extraWeight(name, input)])) as Record<CoreSignal, number>;

  return rows.map((row) => {
    const { memory } = row.item;
    const parts = REFERENCE.map((name) => eff[name] * row.values[name]);
    const polarityPart = w.polarityWeight * memory.polarity;
    // Left to right, in the reference's order; the explain parts are these same numbers.
    const score = sum(parts) + polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (input.explain) {
      const signals: Signal[] = REFERENCE.map((name, i) => {
        const details = coreDetails(name, row, w, input.now, input.queryTerms);
        let reason = signalReason(name, row.values[name], row);
        if (dropped.has(name)) {
          reason = `${signalSpec(name).absent!.reason}; the ${name} weight was redistributed`;
          details.dropped = true;
          details.configuredWeight = w[name];
        } else if (dropped.size) {
          details.rescaledFrom = w[name];
          details.rescale = scale;
        }
        return { name, value: row.values[name], weight: eff[name], weighted: parts[i]!, reason, details };
      });
      signals.push(polaritySignal(memory, w.polarityWeight, polarityPart));
      const weights = Object.fromEntries(REFERENCE.map((name) => [name, round(eff[name], 4)]));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'linear',
        score,
        signals,
        breakdown: {
          mode: 'hybrid',
          fusion: 'linear',
          ...valuesOf(row, REFERENCE),
          polarity: memory.polarity,
          weights: { ...weights, polarity: w.polarityWeight },
          score: round(score, 4),
        },
      };
    }
    return hit;
  });
}

// ---------------------------------------------------------------------------------------------
// rrf
// ---------------------------------------------------------------------------------------------

export function fuseRrf(input: FusionInput): IndexedHit[] {
  const { rows, weights: w } = input;
  if (rows.length === 0) return [];
  const weightOf = (name: CoreSignal): number => w[name] + extraWeight(name, input);
  const active = REFERENCE.filter((name) => weightOf(name) > 0);
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
      const part = weightOf(name) / (RRF_K + ranks.get(name)![i]!);
      parts.push(part);
      score += part;
    }
    const polarityPart = (w.polarityWeight * memory.polarity) / (RRF_K + 1);
    score += polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (input.explain) {
      const contrib: Record<string, { rank: number; contribution: number }> = {};
      const signals: Signal[] = active.map((name, s) => {
        const rank = ranks.get(name)![i]!;
        const weight = weightOf(name);
        contrib[name] = { rank, contribution: round(parts[s]!, 6) };
        return {
          name,
          value: row.values[name],
          weight,
          weighted: parts[s]!,
          reason: `${signalReason(name, row.values[name], row)}; rank ${rank} → ${weight}/(${RRF_K}+${rank})`,
          details: { ...coreDetails(name, row, w, input.now, input.queryTerms), rank, contribution: parts[s]! },
        };
      });
      signals.push(polaritySignal(memory, w.polarityWeight / (RRF_K + 1), polarityPart, { divisor: RRF_K + 1 }));
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
