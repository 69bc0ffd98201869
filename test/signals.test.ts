/**
 * The signal table (core/domain/signals.ts) is the one place a recall signal is declared: these tests
 * fail if any part of scoring keeps its own list of signals instead of reading the table — the
 * weights and their defaults, the values, each fusion rule's sum and its explanation.
 */
import { describe, expect, it } from 'vitest';
import { checkWeights, DEFAULT_HYBRID_WEIGHTS, scoreCandidates, type PoolItem } from '../src/core/domain/scoring.ts';
import { CORE_SIGNALS, SIGNALS, signalSpec } from '../src/core/domain/signals.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';

const pool: PoolItem[] = [
  { memory: makeMemory('a', 'Deploys to production never go out on Fridays', { importance: 0.9, createdAt: NOW - 3 * DAY, polarity: 1 }), cosine: 0.71 },
  { memory: makeMemory('b', 'The staging cluster is deploy-stg-2', { importance: 0.2, createdAt: NOW - 40 * DAY }), cosine: 0.42 },
  { memory: makeMemory('c', 'Lunch is at noon', { importance: 0.5, createdAt: NOW }), cosine: 0.05 },
];

describe('the signal table', () => {
  it('declares every signal once, with a role and a default weight the weights take', () => {
    expect(SIGNALS.map((s) => s.name)).toEqual([...CORE_SIGNALS]);
    for (const spec of SIGNALS) {
      expect(['relevance', 'context']).toContain(spec.role);
      expect(DEFAULT_HYBRID_WEIGHTS[spec.name]).toBe(spec.defaultWeight);
      // A weight for every signal is accepted, and the rest keep their defaults.
      const w = checkWeights({ [spec.name]: 0.33 });
      expect(w[spec.name]).toBe(0.33);
      for (const other of CORE_SIGNALS) if (other !== spec.name) expect(w[other]).toBe(DEFAULT_HYBRID_WEIGHTS[other]);
    }
    expect(() => checkWeights(Object.fromEntries(CORE_SIGNALS.map((name) => [name, 0])))).toThrow(new RegExp(`at least one of ${CORE_SIGNALS.join(', ')}`));
  });

  it.each(['weighted', 'linear', 'rrf'] as const)('%s: every signal is valued, weighted and explained from the table; the parts sum to the score', (fusion) => {
    const hits = scoreCandidates(pool, 'deploy production', { mode: 'hybrid', fusion, now: NOW, explain: true });
    expect(hits).toHaveLength(3);
    for (const hit of hits) {
      const explain = hit.explain!;
      // The linear and rrf rules combine AI-Houkai's signals; the weighted rule every signal.
      const names = fusion === 'weighted' ? CORE_SIGNALS : CORE_SIGNALS.filter((name) => !signalSpec(name).weightedOnly);
      expect(explain.signals.map((s) => s.name)).toEqual([...names, 'polarity']);
      const parts = explain.signals.reduce((sum, s) => sum + s.weighted, 0);
      expect(parts).toBeCloseTo(hit.score, 12);
      for (const signal of explain.signals) {
        if (signal.name === 'polarity' || signal.name === 'current' || signal.name === 'rerank') continue;
        // An absent signal says why it is absent (its own absence reason); the others give their own reason.
        if (signal.details['dropped'] === true) {
          expect(signal.reason.startsWith(signalSpec(signal.name).absent!.reason)).toBe(true);
          continue;
        }
        expect(signal.reason.startsWith(signalSpec(signal.name).reason(signal.value, { matched: (signal.details['matchedTerms'] as string[]) ?? [] } as never).split(':')[0]!)).toBe(true);
      }
      if (fusion !== 'rrf') {
        const breakdown = explain.breakdown as Record<string, unknown>;
        for (const name of names) expect(breakdown).toHaveProperty(name);
        expect(Object.keys(breakdown['weights'] as object)).toEqual([...names, 'polarity']);
      }
    }
  });

  it('weighted: relevance signals make a weighted mean; context signals add at most the tie band, scaled by P(relevant)', () => {
    const w = DEFAULT_HYBRID_WEIGHTS;
    const relevance = CORE_SIGNALS.filter((name) => signalSpec(name).role === 'relevance');
    const context = CORE_SIGNALS.filter((name) => signalSpec(name).role === 'context');
    const [hit] = scoreCandidates(pool, 'deploy production', { mode: 'hybrid', now: NOW, explain: true });
    const byName = new Map(hit!.explain!.signals.map((s) => [s.name, s]));
    // A relevance signal the query does not ask for (no name, time, quote or conversation here) is absent: weight 0
    // (and one whose default weight is 0, entity since #51 item 7, weighs nothing either).
    const present = relevance.filter((name) => byName.get(name)!.details['dropped'] !== true && w[name] > 0);
    expect(present).toEqual(['cosine', 'lexical']);
    const relevanceTotal = present.reduce((sum, name) => sum + w[name], 0);
    for (const name of relevance) expect(byName.get(name)!.weight).toBeCloseTo(present.includes(name) ? w[name] / relevanceTotal : 0, 12);
    const contextTotal = context.reduce((sum, name) => sum + w[name], 0);
    for (const name of context) expect(byName.get(name)!.weight).toBeCloseTo((w.tieBand * w[name]) / contextTotal, 12);
  });
});
