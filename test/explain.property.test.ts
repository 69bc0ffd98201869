/**
 * Property tests for recall explanations (Elefante V5 properties 1 and 2, adapted to our
 * signals): the weighted parts sum to the score, every enabled signal is reported, and the lexical
 * details only name query terms that the memory really contains.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CORE_SIGNALS } from '../src/core/domain/signals.ts';
import { scoreCandidates, type HybridWeights, type PoolItem, type ScoreOptions } from '../src/core/domain/scoring.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import type { Memory } from '../src/core/types.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';



const VOCAB = [
  'deploy', 'the', 'api', 'lint', 'ruff', 'tests', 'PR #441', 'MemoryStore.recall', 'snake_case',
  'src/core/store.ts', 'v1.2.3', 'fast-check', '東京タワー', '大阪', 'don’t', 'never', 'café', 'retry', 'flaky',
];

const text = fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 8 }).map((words) => words.join(' '));

const memoryArb = fc.record({
  text,
  cosine: fc.double({ min: -1, max: 1, noNaN: true }),
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
  ageDays: fc.double({ min: -5, max: 400, noNaN: true }),
  polarity: fc.constantFrom(-1 as const, 0 as const, 1 as const),
  filtered: fc.boolean(),
});

const poolArb = fc.array(memoryArb, { minLength: 1, maxLength: 25 }).map((rows) =>
  rows.map(
    (r, i): PoolItem => ({
      memory: makeMemory(`m${i}`, r.text, { importance: r.importance, createdAt: NOW - r.ageDays * DAY, polarity: r.polarity }),
      cosine: r.cosine,
      // Mostly unfiltered, so there is something to score.
      filtered: r.filtered && i % 3 === 0,
    }),
  ),
);

const weight = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 2, noNaN: true }));
const weightsArb = fc
  .record({
    cosine: weight,
    lexical: weight,
    recency: weight,
    importance: weight,
    decayRate: fc.double({ min: 0, max: 1, noNaN: true }),
    polarityWeight: fc.double({ min: 0, max: 0.2, noNaN: true }),
    recencyBasis: fc.constantFrom('created' as const, 'accessed' as const),
  })
  .filter((w) => w.cosine + w.lexical + w.recency + w.importance > 0);

const optionsArb: fc.Arbitrary<ScoreOptions> = fc.record({
  mode: fc.constantFrom('semantic' as const, 'hybrid' as const),
  fusion: fc.constantFrom('weighted' as const, 'rrf' as const),
  weights: fc.option(weightsArb, { nil: undefined }),
  explain: fc.constant(true),
  now: fc.constant(NOW),
});

const RUNS = { numRuns: 200 };

function expectedSignals(options: ScoreOptions): string[] {
  if (options.mode === 'semantic') return ['cosine', 'polarity'];
  // The weighted rule explains every signal of the table (absent ones say so); linear and rrf AI-Houkai's four.
  if (options.fusion === 'weighted') return [...CORE_SIGNALS, 'polarity'];
  const w = { cosine: 0.55, lexical: 0.2, recency: 0.15, importance: 0.1, ...(options.weights as Partial<HybridWeights> | undefined) };
  return [...(['cosine', 'lexical', 'recency', 'importance'] as const).filter((n) => w[n] > 0), 'polarity'];
}

describe('explain properties', () => {
  it('the weighted parts sum to the score (±0.001), and the reference breakdown agrees', () => {
    fc.assert(
      fc.property(poolArb, text, optionsArb, (pool, query, options) => {
        const hits = scoreCandidates(pool, query, options);
        for (const hit of hits) {
          const ex = hit.explain!;
          expect(ex.score).toBe(hit.score);
          const sum = ex.signals.reduce((acc, s) => acc + s.weighted, 0);
          expect(Math.abs(sum - hit.score)).toBeLessThanOrEqual(0.001);
          for (const s of ex.signals) {
            if (options.fusion === 'rrf' && options.mode === 'hybrid' && s.name !== 'polarity') {
              expect(s.weighted).toBeCloseTo(s.weight / (60 + (s.details.rank as number)), 12);
            } else {
              expect(s.weighted).toBeCloseTo(s.weight * s.value, 12);
            }
          }
          expect(Math.abs((ex.breakdown.score as number) - hit.score)).toBeLessThanOrEqual(1e-4);
        }
      }),
      RUNS,
    );
  });

  it('every enabled signal is present exactly once', () => {
    fc.assert(
      fc.property(poolArb, text, optionsArb, (pool, query, options) => {
        for (const hit of scoreCandidates(pool, query, options)) {
          expect(hit.explain!.signals.map((s) => s.name)).toEqual(expectedSignals(options));
          for (const s of hit.explain!.signals) {
            expect(Number.isFinite(s.value) && Number.isFinite(s.weight) && Number.isFinite(s.weighted)).toBe(true);
            expect(typeof s.reason).toBe('string');
            expect(s.reason.length).toBeGreaterThan(0);
          }
        }
      }),
      RUNS,
    );
  });

  it('matched terms are query terms the memory contains, and a positive lexical score names at least one', () => {
    fc.assert(
      fc.property(
        poolArb,
        text,
        optionsArb.filter((o) => o.mode === 'hybrid'),
        (pool, query, options) => {
          const queryTerms = new Set(lexicalTerms(query));
          for (const hit of scoreCandidates(pool, query, options)) {
            const lexical = hit.explain!.signals.find((s) => s.name === 'lexical');
            if (!lexical) continue; // RRF with a zero lexical weight
            const matched = lexical.details.matchedTerms as string[];
            const memoryTerms = new Set(lexicalTerms(hit.memory.text));
            for (const t of matched) {
              expect(queryTerms.has(t)).toBe(true);
              expect(memoryTerms.has(t)).toBe(true);
            }
            if (lexical.value > 0) expect(matched.length).toBeGreaterThan(0);
            expect(new Set(matched).size).toBe(matched.length);
          }
        },
      ),
      RUNS,
    );
  });

  it('returns only unfiltered candidates, best first', () => {
    fc.assert(
      fc.property(poolArb, text, optionsArb, (pool, query, options) => {
        const hits = scoreCandidates(pool, query, options);
        expect(hits.length).toBe(pool.filter((p) => !p.filtered).length);
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      }),
      { numRuns: 100 },
    );
  });
});
