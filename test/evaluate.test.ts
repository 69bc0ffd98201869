import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  averagePrecision,
  dcgAtK,
  evaluateCase,
  formatSummary,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  runEvaluation,
  summarize,
} from '../src/core/domain/evaluate.ts';

const L3 = Math.log2(3); // discount at rank 2
const L5 = Math.log2(5); // discount at rank 4

describe('metrics (hand-computed goldens)', () => {
  // Relevant b (rank 2) and d (rank 4) were retrieved; x was not.
  const retrieved = ['a', 'b', 'c', 'd', 'e'];
  const relevant = ['b', 'd', 'x'];

  it('recall@k = |top-k ∩ relevant| / |relevant|', () => {
    expect(recallAtK(retrieved, relevant, 5)).toBeCloseTo(2 / 3, 15);
    expect(recallAtK(retrieved, relevant, 2)).toBeCloseTo(1 / 3, 15);
    expect(recallAtK(retrieved, relevant, 1)).toBe(0);
    expect(recallAtK(retrieved, [], 5)).toBe(0);
  });

  it('precision@k = relevant in top-k / len(top-k)', () => {
    expect(precisionAtK(retrieved, relevant, 5)).toBeCloseTo(0.4, 15);
    expect(precisionAtK(retrieved, relevant, 2)).toBeCloseTo(0.5, 15);
    // Fewer than k retrieved: divide by what was retrieved.
    expect(precisionAtK(['b', 'z'], relevant, 5)).toBeCloseTo(0.5, 15);
    expect(precisionAtK([], relevant, 5)).toBe(0);
  });

  it('reciprocal rank = 1 / rank of the first hit', () => {
    expect(reciprocalRank(retrieved, relevant)).toBe(0.5);
    expect(reciprocalRank(['b'], relevant)).toBe(1);
    expect(reciprocalRank(['q', 'r'], relevant)).toBe(0);
  });

  it('average precision = Σ hits_i / i over |relevant|', () => {
    expect(averagePrecision(retrieved, relevant)).toBeCloseTo((1 / 2 + 2 / 4) / 3, 15);
    expect(averagePrecision(['b', 'd'], ['b', 'd'])).toBe(1);
    expect(averagePrecision(retrieved, [])).toBe(0);
  });

  it('DCG@k and nDCG@k with IDCG over min(|relevant|, k)', () => {
    expect(dcgAtK(retrieved, relevant, 5)).toBeCloseTo(1 / L3 + 1 / L5, 15);
    expect(ndcgAtK(retrieved, relevant, 5)).toBeCloseTo((1 / L3 + 1 / L5) / (1 + 1 / L3 + 1 / 2), 15);
    expect(ndcgAtK(retrieved, relevant, 2)).toBeCloseTo(1 / L3 / (1 + 1 / L3), 15);
    expect(ndcgAtK(['b', 'd'], ['b', 'd'], 5)).toBeCloseTo(1, 15);
    expect(ndcgAtK(retrieved, [], 5)).toBe(0);
    expect(ndcgAtK(retrieved, relevant, 0)).toBe(0);
  });

  it('credits a duplicated relevant id once (precision counts positions, as the reference does)', () => {
    const dup = ['b', 'b', 'c'];
    expect(recallAtK(dup, ['b'], 3)).toBe(1);
    expect(averagePrecision(dup, ['b'])).toBe(1);
    expect(dcgAtK(dup, ['b'], 3)).toBe(1);
    expect(ndcgAtK(dup, ['b'], 3)).toBe(1);
    expect(precisionAtK(dup, ['b'], 3)).toBeCloseTo(2 / 3, 15);
  });

  it('rejects a bad k', () => {
    for (const k of [-1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        recallAtK(retrieved, relevant, k);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MemoryError);
      expect((error as MemoryError).details.field).toBe('k');
    }
  });
});

describe('cases and summaries', () => {
  const retrieved = ['a', 'b', 'c', 'd', 'e'];
  const c5 = evaluateCase({ query: 'q1', relevantIds: ['b', 'd', 'x'], k: 5 }, retrieved);
  const c2 = evaluateCase({ query: 'q2', relevantIds: ['b', 'd', 'x'], k: 2 }, retrieved);

  it('per-case results hold every metric and what was retrieved', () => {
    expect(c5).toMatchObject({ query: 'q1', k: 5, rr: 0.5, retrieved, relevantIds: ['b', 'd', 'x'] });
    expect(c5.recallAtK).toBeCloseTo(2 / 3, 15);
    expect(c5.precisionAtK).toBeCloseTo(0.4, 15);
    expect(c5.ap).toBeCloseTo(1 / 3, 15);
  });

  it('summarize averages, with k = −1 when cases differ', () => {
    const s = summarize([c5, c2]);
    expect(s.n).toBe(2);
    expect(s.k).toBe(-1);
    expect(s.recallAtK).toBeCloseTo(0.5, 15);
    expect(s.precisionAtK).toBeCloseTo(0.45, 15);
    expect(s.mrr).toBeCloseTo(0.5, 15);
    expect(s.map).toBeCloseTo(1 / 3, 15);
    const nd5 = (1 / L3 + 1 / L5) / (1 + 1 / L3 + 0.5);
    const nd2 = 1 / L3 / (1 + 1 / L3);
    expect(s.ndcgAtK).toBeCloseTo((nd5 + nd2) / 2, 15);
    expect(s.perCase).toEqual([c5, c2]);
    expect(formatSummary(s)).toBe('n=2 | recall@mixed=0.500 P@mixed=0.450 MRR=0.500 MAP=0.333 nDCG@mixed=0.443');
    expect(summarize([c5]).k).toBe(5);
    expect(summarize([])).toMatchObject({ n: 0, k: -1, recallAtK: 0, mrr: 0 });
  });

  it('runEvaluation runs each case with its k and mode', async () => {
    const calls: unknown[] = [];
    const answers: Record<string, string[]> = { deploy: ['m1', 'm2', 'm3'], lint: ['m9', 'm4'] };
    const summary = await runEvaluation(
      [
        { query: 'deploy', relevantIds: ['m2'] },
        { query: 'lint', relevantIds: ['m4', 'm5'], k: 2, mode: 'semantic' },
      ],
      async (query, options) => {
        calls.push({ query, ...options });
        return answers[query]!.slice(0, options.k);
      },
    );
    expect(calls).toEqual([
      { query: 'deploy', k: 5, mode: 'hybrid' },
      { query: 'lint', k: 2, mode: 'semantic' },
    ]);
    expect(summary.k).toBe(-1);
    expect(summary.mrr).toBeCloseTo((1 / 2 + 1 / 2) / 2, 15);
    expect(summary.recallAtK).toBeCloseTo((1 + 1 / 2) / 2, 15);
    expect(summary.perCase[1]!.mode).toBe('semantic');
  });

  it('runEvaluation validates the gold cases', async () => {
    const bad: [unknown, string][] = [
      [[{ query: '', relevantIds: [] }], 'cases[0].query'],
      [[{ query: 'q', relevantIds: 'm1' }], 'cases[0].relevantIds'],
      [[{ query: 'q', relevantIds: [], k: 0 }], 'cases[0].k'],
      [[{ query: 'q', relevantIds: [], mode: 'fuzzy' }], 'cases[0].mode'],
      ['nope', 'cases'],
    ];
    for (const [cases, field] of bad) {
      const error = await runEvaluation(cases as never, async () => []).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MemoryError);
      expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
      expect((error as MemoryError).details.field).toBe(field);
    }
  });
});
