/**
 * Which hits a recall returns and in what order (src/core/ops/recall-select.ts): the score chooses
 * the k, the confidence band orders them.
 */
import { describe, expect, it } from 'vitest';
import { selectHits, type SelectOptions } from '../src/core/ops/recall-select.ts';
import type { Confidence } from '../src/core/domain/confidence.ts';

type Hit = { id: string; score: number; confidence?: Confidence; memory: { createdAt: number } };
const hit = (id: string, score: number, confidence: Confidence | undefined, createdAt = 0): Hit => ({ id, score, ...(confidence ? { confidence } : {}), memory: { createdAt } });
const ids = (hits: Hit[]) => hits.map((h) => h.id);
const opts = (o: Partial<SelectOptions> = {}): SelectOptions => ({ k: 3, sort: 'relevance', recencyWeight: 0, ...o });

describe('selectHits', () => {
  // Best score first, as the scoring hands them over.
  const scored = [hit('a', 0.9, 'none'), hit('b', 0.8, 'none'), hit('c', 0.7, 'weak'), hit('d', 0.6, 'none'), hit('e', 0.3, 'strong')];

  it('returns the best k by score: a better-judged hit further down the scores does not push them out', () => {
    // Before: every band first over all candidates, so the strong e (0.3) took a place of the k.
    expect(ids(selectHits(scored, opts()))).toEqual(['c', 'a', 'b']);
  });

  it('orders the returned hits by band, by score within a band: none ranks above a hit of a higher band', () => {
    const chosen = selectHits(scored, opts({ k: 5 }));
    expect(ids(chosen)).toEqual(['e', 'c', 'a', 'b', 'd']);
    const rank = { none: 0, weak: 1, strong: 2 } as const;
    for (let i = 1; i < chosen.length; i++) expect(rank[chosen[i - 1]!.confidence ?? 'none']).toBeGreaterThanOrEqual(rank[chosen[i]!.confidence ?? 'none']);
  });

  it('an ungated recency term keeps the score order; "recent" puts the chosen k newest first', () => {
    expect(ids(selectHits(scored, opts({ recencyWeight: 1 })))).toEqual(['a', 'b', 'c']);
    const dated = [hit('x', 0.9, 'none', 10), hit('y', 0.8, 'strong', 30), hit('z', 0.7, 'none', 20), hit('w', 0.1, 'strong', 99)];
    expect(ids(selectHits(dated, opts({ sort: 'recent' })))).toEqual(['y', 'z', 'x']);
  });

  it('MMR chooses from the scores with the similarity given, and its choice is then ordered by band', () => {
    const twins = [hit('p', 0.9, 'none'), hit('p2', 0.89, 'none'), hit('q', 0.5, 'weak'), hit('r', 0.4, 'none')];
    const same = (a: Hit, b: Hit) => (a.id.startsWith('p') && b.id.startsWith('p') ? 0.999 : 0.1);
    expect(ids(selectHits(twins, opts({ dedupThreshold: 0.95 }), same))).toEqual(['q', 'p', 'r']);
    expect(() => selectHits(twins, opts({ dedupThreshold: 0.95 }))).toThrow(/similarity/);
  });
});
