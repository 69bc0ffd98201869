/**
 * The hybrid fusion rules (formulas in `scoring.ts`'s module comment):
 * - `weighted`: relevance first. The relevance part ranks; recency, importance and polarity add
 *   at most `tieBand + polarityWeight`, scaled by the memory's P(relevant), so they only break
 *   near-ties between relevant memories;
 * - `linear`: AI-Houkai's plain weighted sum (recency can outrank meaning);
 * - `rrf`: reciprocal-rank fusion.
 */
import type { HybridWeights, ScoredHit, Signal } from './scoring.ts';
import { CORE_SIGNALS, coreDetails, polaritySignal, round, RRF_K, signalReason, type CoreSignal, type Row } from './signals.ts';

export type IndexedHit = ScoredHit & { index: number };

export interface FusionInput {
  rows: Row[];
  /** Some pool document (filtered ones included) matched a query term. */
  anyLexical: boolean;
  queryTerms: string[];
  weights: HybridWeights;
  now: number;
  explain: boolean;
  /** Extra, ungated recency weight ("latest first"), default 0. */
  recencyWeight: number;
}

// ---------------------------------------------------------------------------------------------
// weighted: relevance first
// ---------------------------------------------------------------------------------------------

export function fuseWeighted(input: FusionInput): IndexedHit[] {
  const { rows, weights: w, recencyWeight } = input;
  const relevanceTotal = w.cosine + w.lexical;
  // Nothing in the pool matched a query term: the relevance is the cosine alone.
  const dropped = w.lexical > 0 && !input.anyLexical && w.cosine > 0;
  const cosineWeight = relevanceTotal <= 0 ? 0 : dropped ? 1 : w.cosine / relevanceTotal;
  const lexicalWeight = relevanceTotal <= 0 || dropped ? 0 : w.lexical / relevanceTotal;
  const contextTotal = w.recency + w.importance;

  return rows.map((row) => {
    const { memory } = row.item;
    const g = row.gate;
    const recencyShare = contextTotal > 0 ? (w.tieBand * w.recency) / contextTotal : 0;
    const importanceShare = contextTotal > 0 ? (w.tieBand * w.importance) / contextTotal : 0;
    const eff: Record<CoreSignal, number> = {
      cosine: cosineWeight,
      lexical: lexicalWeight,
      recency: g * recencyShare + recencyWeight,
      importance: g * importanceShare,
    };
    const parts = CORE_SIGNALS.map((name) => eff[name] * row.values[name]);
    const polarityWeight = g * w.polarityWeight;
    const polarityPart = polarityWeight * memory.polarity;
    const score = parts[0]! + parts[1]! + parts[2]! + parts[3]! + polarityPart;
    const hit: IndexedHit = { memory, score, cosine: row.item.cosine, index: row.index };
    if (input.explain) {
      const gateNote = g < 1 ? ` (×${g.toFixed(2)}, its relevance)` : '';
      const signals: Signal[] = CORE_SIGNALS.map((name, i) => {
        const details = coreDetails(name, row, w, input.now, input.queryTerms);
        let reason = signalReason(name, row.values[name], row);
        if (name === 'lexical' && dropped) {
          reason = 'No memory in the pool matched a query term; relevance is the cosine alone';
          details.dropped = true;
          details.configuredWeight = w.lexical;
        } else if (name === 'recency' || name === 'importance') {
          reason += `; breaks near-ties: at most ${(name === 'recency' ? recencyShare : importanceShare).toFixed(3)}${gateNote}`;
          details.relevanceGate = g;
          if (name === 'recency' && recencyWeight > 0) {
            reason += ` plus recencyWeight ${recencyWeight}`;
            details.recencyWeight = recencyWeight;
          }
        }
        return { name, value: row.values[name], weight: eff[name], weighted: parts[i]!, reason, details };
      });
      signals.push(polaritySignal(memory, polarityWeight, polarityPart, { relevanceGate: g }));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'weighted',
        score,
        signals,
        breakdown: {
          mode: 'hybrid',
          fusion: 'weighted',
          relevance: round(parts[0]! + parts[1]!, 4),
          relevance_gate: round(g, 4),
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
            polarity: round(polarityWeight, 4),
          },
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
  const eff: Record<CoreSignal, number> = { cosine: w.cosine, lexical: w.lexical, recency: w.recency + input.recencyWeight, importance: w.importance };
  const core = w.cosine + w.lexical + w.recency + w.importance;
  // The lexical drop: no document matched, so the lexical weight would only depress every score.
  const dropped = w.lexical > 0 && !input.anyLexical && core > w.lexical;
  const scale = dropped ? core / (core - w.lexical) : 1;
  if (dropped) {
    eff.cosine = w.cosine * scale;
    eff.recency = w.recency * scale + input.recencyWeight;
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
    if (input.explain) {
      const signals: Signal[] = CORE_SIGNALS.map((name, i) => {
        const details = coreDetails(name, row, w, input.now, input.queryTerms);
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
      signals.push(polaritySignal(memory, w.polarityWeight, polarityPart));
      hit.explain = {
        mode: 'hybrid',
        fusion: 'linear',
        score,
        signals,
        breakdown: {
          mode: 'hybrid',
          fusion: 'linear',
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

// ---------------------------------------------------------------------------------------------
// rrf
// ---------------------------------------------------------------------------------------------

export function fuseRrf(input: FusionInput): IndexedHit[] {
  const { rows, weights: w } = input;
  if (rows.length === 0) return [];
  const weightOf = (name: CoreSignal): number => (name === 'recency' ? w.recency + input.recencyWeight : w[name]);
  const active = CORE_SIGNALS.filter((name) => weightOf(name) > 0);
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
