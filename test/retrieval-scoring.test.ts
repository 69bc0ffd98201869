import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Pool, InMemoryBm25Corpus } from '../src/core/domain/bm25.ts';
import { classifyConfidence } from '../src/core/domain/confidence.ts';
import { MemoryError } from '../src/core/errors.ts';
import { mmrSelect } from '../src/core/domain/mmr.ts';
import { checkWeights, DEFAULT_HYBRID_WEIGHTS, scoreCandidates, type PoolItem } from '../src/core/domain/scoring.ts';
import { jaccard, lexicalTerms, rawLexicalTerms, tokenize } from '../src/core/domain/tokenize.ts';
import type { Memory } from '../src/core/types.ts';
import { mulberry32 } from './helpers/prng.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid } from './helpers/expect.ts';




const ids = (hits: { memory: { id: string } }[]): string[] => hits.map((h) => h.memory.id);

describe('tokenize (reference tokeniser)', () => {
  it('lower-cases, drops apostrophes and takes Unicode word runs', () => {
    expect(tokenize("Don’t use RUFF, it's fine — naïve café_2")).toEqual(['dont', 'use', 'ruff', 'its', 'fine', 'naïve', 'café_2']);
  });

  it('appends CJK bigrams exactly like the Python tokeniser', () => {
    // Golden output of AI-Houkai's _tokenize for the same string.
    expect(tokenize('Don’t use ruff, it\'s 東京タワー and 서울 x')).toEqual([
      'dont', 'use', 'ruff', 'its', '東京タワー', 'and', '서울', 'x', '東京', '京タ', 'タワ', 'ワー', '서울',
    ]);
  });

  it('lexicalTerms keeps identifiers whole in addition to the word tokens', () => {
    const terms = lexicalTerms('Fixed in PR #441: MemoryStore.recall, snake_case, src/core/store.ts, v1.2.3, fast-check');
    for (const t of ['pr', '441', '#441', 'pr#441', 'memorystore.recall', 'memori', 'store', 'snake_case', 'snake', 'case', 'src/core/store.ts', 'store.ts', 'v1.2.3', '1.2.3', 'fast-check']) {
      expect(terms).toContain(t);
    }
    // The old terms are still available as they were (the reference tokens plus identifiers).
    expect(rawLexicalTerms('plain words only here')).toEqual(tokenize('plain words only here'));
  });

  it('lexicalTerms drops stop words and keeps the rest, lightly stemmed', () => {
    expect(lexicalTerms('where is the office')).toEqual(['office']);
    expect(lexicalTerms('Team office moved to Leopoldstraße 8, München.')).toEqual(['team', 'office', 'move', 'leopoldstraße', '8', 'münchen']);
    // Plurals, -ed and -ing meet their base form; short words and non-ASCII words are left alone.
    expect(lexicalTerms('offices deploys deployed deploying memories memory bus gas status')).toEqual([
      'office', 'deploi', 'deploi', 'deploi', 'memori', 'memori', 'bus', 'gas', 'status',
    ]);
    // German, French and Spanish function words too, but not English content words that look like them.
    expect(lexicalTerms('der Server und die Datenbank')).toEqual(['server', 'die', 'datenbank']);
    expect(lexicalTerms("we don't use it at all")).toEqual(['use']);
    // Nothing left: no terms, so nothing can match.
    expect(lexicalTerms('is it that we were at?')).toEqual([]);
    // A possessive meets the bare name (#51 item 2): "Melanie's" was `melani`, "James's" `jamess`.
    expect(lexicalTerms("Melanie's dog, James's car, Chris’s phone, Lucas' birthday")).toEqual(['melanie', 'dog', 'jame', 'car', 'chris', 'phone', 'luca', 'birthdai']);
    expect(lexicalTerms('Melanie James Chris Lucas')).toEqual(['melanie', 'jame', 'chris', 'luca']);
    expect(lexicalTerms("it's the kids' bikes, o'clock")).toEqual(['kid', 'bike', 'oclock']);
  });

  it('numbers, versions and times stay whole: their digits are not terms of their own', () => {
    expect(lexicalTerms('Node 20, support for v2.0.0 ends at 9:30; budget 5,000 euros, 99.9% uptime, host 192.168.1.10')).toEqual([
      'node', '20', 'support', 'end', 'budget', 'euro', 'uptime', 'host', '5000', 'v2.0.0', '2.0.0', '9:30', '99.9', '192.168.1.10',
    ]);
    // "2" and "0" are not terms, so "v2.0.0" does not match a query for "2".
    expect(lexicalTerms('v2.0.0')).not.toContain('2');
    expect(lexicalTerms('5000 EUR')).toContain('5000');
  });

  it('CJK bigrams holding a particle are dropped', () => {
    expect(lexicalTerms('東京の天気')).toEqual(['東京の天気', '東京', '天気']);
  });

  it('stays linear on pathological input (a megabyte without a space, long CJK runs)', () => {
    const started = performance.now();
    lexicalTerms(`${'aB/'.repeat(300_000)} #1`);
    lexicalTerms('x'.repeat(1_000_000));
    lexicalTerms('東京タワー'.repeat(50_000));
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('jaccard is over token sets', () => {
    expect(jaccard('a b c', 'b c d')).toBeCloseTo(0.5);
    expect(jaccard('', '')).toBe(0);
  });
});

describe('pool BM25', () => {
  it('matches the reference scores (golden values from the Python implementation)', () => {
    const docs = ['the deploy script runs nightly', 'deploy deploy to staging before the release', 'unrelated note about lunch', 'release notes for the deploy'];
    const r = bm25Pool(tokenize('deploy release'), docs.map(tokenize));
    const rawGolden = [0.36448534417096745, 1.0629624128622719, 0.0, 1.0728109301446342];
    const normGolden = [0.33974797788630684, 0.9908198947217711, 0.0, 1.0];
    r.raw.forEach((x, i) => expect(x).toBeCloseTo(rawGolden[i]!, 12));
    r.scores.forEach((x, i) => expect(x).toBeCloseTo(normGolden[i]!, 12));
    expect(r.matched).toEqual([['deploy'], ['deploy', 'release'], [], ['deploy', 'release']]);
  });

  it('handles CJK through bigrams (golden values)', () => {
    const docs = ['東京タワーに行った', '大阪城を見た', '東京駅で会った'];
    const r = bm25Pool(tokenize('東京に行く'), docs.map(tokenize));
    [1.0, 0.0, 0.364542602615919].forEach((x, i) => expect(r.scores[i]).toBeCloseTo(x, 12));
    expect(r.matched[0]).toContain('東京');
  });

  it('is all zeros when nothing matches, and empty for an empty pool', () => {
    expect(bm25Pool(['zzz'], [['a'], ['b']]).scores).toEqual([0, 0]);
    expect(bm25Pool(['a'], []).scores).toEqual([]);
  });

  it('the in-memory corpus gives the pool raw scores when the corpus is the pool', () => {
    const docs = ['the deploy script runs nightly', 'deploy deploy to staging before the release', 'release notes for the deploy'];
    const corpus = new InMemoryBm25Corpus();
    docs.forEach((d, i) => corpus.add(String(i), tokenize(d)));
    const pool = bm25Pool(tokenize('deploy release'), docs.map(tokenize));
    docs.forEach((d, i) => expect(corpus.score(tokenize('deploy release'), tokenize(d)).score).toBeCloseTo(pool.raw[i]!, 12));
    expect(corpus.documentFrequency('deploy')).toBe(3);
    corpus.remove('0');
    expect(corpus.documentCount).toBe(2);
    expect(corpus.documentFrequency('deploy')).toBe(2);
    corpus.add('1', tokenize('replaced text'));
    expect(corpus.documentFrequency('deploy')).toBe(1);
  });
});

describe('scoreCandidates', () => {
  const pool: PoolItem[] = [
    { memory: makeMemory('para', 'The pull request about retries was merged'), cosine: 0.6 },
    { memory: makeMemory('filler1', 'We had lunch at noon'), cosine: 0.5 },
    { memory: makeMemory('filler2', 'Deployment went fine'), cosine: 0.45 },
    { memory: makeMemory('pr', 'PR #441 fixed the flaky retry test'), cosine: 0.35 },
  ];

  it('semantic and hybrid return the same hit shape, sorted by score', () => {
    for (const mode of ['semantic', 'hybrid'] as const) {
      const hits = scoreCandidates(pool, 'PR #441', { mode, now: NOW });
      expect(hits).toHaveLength(4);
      for (const h of hits) expect(Object.keys(h).sort()).toEqual(['cosine', 'memory', 'score']);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    expect(scoreCandidates([], 'x', { mode: 'hybrid' })).toEqual([]);
  });

  it('an exact identifier wins lexically where the embedding is mediocre', () => {
    expect(ids(scoreCandidates(pool, 'PR #441', { mode: 'semantic', now: NOW }))[0]).toBe('para');
    const hybrid = scoreCandidates(pool, 'PR #441', { mode: 'hybrid', now: NOW, explain: true });
    expect(hybrid[0]!.memory.id).toBe('pr');
    const lexical = hybrid[0]!.explain!.signals.find((s) => s.name === 'lexical')!;
    // Bounded by the query's theoretical best (a longer memory than average scores below 1), the highest of the pool.
    expect(lexical.value).toBeGreaterThan(0.5);
    for (const h of hybrid.slice(1)) expect(h.explain!.signals.find((s) => s.name === 'lexical')!.value).toBeLessThan(lexical.value);
    expect(lexical.details.matchedTerms).toEqual(['pr', '441', '#441', 'pr#441']);
  });

  it('"PR #441" prefers the exact reference over "issue #441" and "PR 442"', () => {
    const near: PoolItem[] = [
      { memory: makeMemory('issue', 'issue #441 is still open'), cosine: 0.5 },
      { memory: makeMemory('other', 'PR 442 merged yesterday'), cosine: 0.5 },
      { memory: makeMemory('exact', 'merged PR #441 yesterday'), cosine: 0.5 },
    ];
    expect(ids(scoreCandidates(near, 'PR #441', { mode: 'hybrid', now: NOW }))[0]).toBe('exact');
  });

  it('matches CJK queries lexically', () => {
    const cjk: PoolItem[] = [
      { memory: makeMemory('osaka', '大阪城を見た'), cosine: 0.5 },
      { memory: makeMemory('tokyo', '東京タワーに行った'), cosine: 0.5 },
    ];
    const hits = scoreCandidates(cjk, '東京に行く', { mode: 'hybrid', now: NOW, explain: true });
    expect(hits[0]!.memory.id).toBe('tokyo');
    expect(hits[0]!.explain!.signals.find((s) => s.name === 'lexical')!.details.matchedTerms).toContain('東京');
  });

  it('recency: of two near-identical memories the newer ranks higher; future dates clamp to age 0', () => {
    const twins: PoolItem[] = [
      { memory: makeMemory('old', 'use ruff for linting', { createdAt: NOW - 30 * DAY }), cosine: 0.8 },
      { memory: makeMemory('new', 'use ruff for linting', { createdAt: NOW - DAY }), cosine: 0.8 },
      { memory: makeMemory('future', 'use ruff for linting', { createdAt: NOW + 5 * DAY }), cosine: 0.8 },
    ];
    const hits = scoreCandidates(twins, 'ruff', { mode: 'hybrid', now: NOW, explain: true });
    expect(ids(hits)).toEqual(['future', 'new', 'old']);
    const recency = (id: string): number => hits.find((h) => h.memory.id === id)!.explain!.signals.find((s) => s.name === 'recency')!.value;
    expect(recency('future')).toBe(1);
    expect(recency('new')).toBeCloseTo(Math.exp(-0.1), 12);
    expect(recency('old')).toBeCloseTo(Math.exp(-3), 12);
    // recencyBasis 'accessed' measures from lastAccessed instead.
    const accessed = scoreCandidates(
      [{ memory: makeMemory('a', 'x', { createdAt: NOW - 10 * DAY, lastAccessed: NOW }), cosine: 0.5 }],
      'x',
      { mode: 'hybrid', now: NOW, explain: true, weights: { recencyBasis: 'accessed' } },
    );
    expect(accessed[0]!.explain!.signals.find((s) => s.name === 'recency')!.value).toBe(1);
  });

  it('linear formula (AI-Houkai\'s): exact score for the default weights', () => {
    const m = makeMemory('m', 'deploy the api', { importance: 0.8, createdAt: NOW - 2 * DAY, polarity: 1 });
    const other = makeMemory('o', 'something else');
    const hits = scoreCandidates(
      [
        { memory: m, cosine: 0.7 },
        { memory: other, cosine: 0.1 },
      ],
      'deploy',
      { mode: 'hybrid', fusion: 'linear', now: NOW },
    );
    const expected = 0.55 * 0.7 + 0.2 * 1 + 0.15 * Math.exp(-0.2) + 0.1 * 0.8 + 0.05 * 1;
    expect(hits[0]!.score).toBeCloseTo(expected, 12);
  });

  it('weighted formula (relevance first): exact score for the default weights, with and without a relevance gate', () => {
    const m = makeMemory('m', 'deploy the api', { importance: 0.8, createdAt: NOW - 2 * DAY, polarity: 1 });
    const other = makeMemory('o', 'something else');
    const pool = [
      { memory: m, cosine: 0.7 },
      { memory: other, cosine: 0.1 },
    ];
    const plain = scoreCandidates(pool, 'deploy', { mode: 'hybrid', now: NOW, explain: true });
    // The lexical value is BM25 over the query's theoretical best: idf·tf(k1+1)/(tf + k1(1−b+b·dl/avgdl)) / idf.
    const dl = 2; // "deploy the api" → deploy, api
    const avgdl = (2 + 0) / 2; // "something else" holds only stop words
    const bounded = (1 * 2.5) / (1 + 1.5 * (1 - 0.75 + (0.75 * dl) / avgdl));
    expect(plain[0]!.explain!.signals.find((s) => s.name === 'lexical')!.value).toBeCloseTo(Math.min(1, bounded), 12);
    const relevance = (0.55 * 0.7 + 0.2 * Math.min(1, bounded)) / 0.75;
    const context = 0.05 * (0.15 * Math.exp(-0.2) + 0.1 * 0.8) / 0.25;
    expect(plain[0]!.score).toBeCloseTo(relevance + context + 0.05 * 1, 12);
    expect(plain[0]!.explain!.breakdown).toMatchObject({ fusion: 'weighted', relevance: Number(relevance.toFixed(4)), relevance_gate: 1 });
    // A judge that gives P(relevant) 0.5 halves the recency, importance and polarity parts.
    const half = scoreCandidates(pool, 'deploy', { mode: 'hybrid', now: NOW, relevance: () => ({ probability: 0.5, confidence: 'weak', z: 0 }) });
    expect(half[0]!.score).toBeCloseTo(relevance + 0.5 * (context + 0.05), 12);
    expect(half[0]).toMatchObject({ confidence: 'weak', relevance: 0.5 });
    // recencyWeight adds an ungated recency term ("latest first").
    const latest = scoreCandidates(pool, 'deploy', { mode: 'hybrid', now: NOW, recencyWeight: 1, relevance: () => ({ probability: 0, confidence: 'none', z: 0 }) });
    expect(latest[0]!.score).toBeCloseTo(relevance + Math.exp(-0.2), 12);
  });

  it('the office case: an older memory that matches by meaning and keyword outranks a dozen fresh unrelated ones', () => {
    const office = makeMemory('office', 'Team office moved to Leopoldstraße 8, München.', { createdAt: NOW - 120 * DAY, importance: 0.5 });
    const fresh = [
      'Refactored the recall pipeline to read candidates in chunks',
      'Fixed a flaky test in the archive import suite',
      'The user asked for a summary of the incident review',
      'Lunch order: two vegetarian pizzas for the team',
      'Renamed the batch option to batchSize',
      'Benchmarks show a recall p50 of 1.6 ms',
      'The user is debugging a CORS error from the staging API',
      'Scheduled a call with the Vienna customer',
      'Upgraded Vite to version 8 in the app workspace',
      'The user wants the release notes to mention the import dialog',
      'Added a health check endpoint to the gateway',
      'Today the retro was about context switches',
      'Reviewed the pull request for the review queue',
      'Moved the standup notes template into the wiki',
    ].map((text, i) => makeMemory(`fresh${i}`, text, { createdAt: NOW - 60 * i, importance: 0.9 }));
    // The embedder hardly separates them (as USE-lite did: office 0.14, fresh ones up to 0.18).
    const pool: PoolItem[] = [{ memory: office, cosine: 0.14 }, ...fresh.map((memory, i) => ({ memory, cosine: 0.18 - i * 0.005 }))];
    const rankOf = (hits: { memory: { id: string } }[]): number => hits.findIndex((h) => h.memory.id === 'office') + 1;
    // AI-Houkai's sum gives every fresh memory +0.15 of recency: the office sinks.
    expect(rankOf(scoreCandidates(pool, 'where is the office', { mode: 'hybrid', fusion: 'linear', now: NOW }))).toBeGreaterThan(1);
    const hits = scoreCandidates(pool, 'where is the office', { mode: 'hybrid', now: NOW, explain: true });
    expect(rankOf(hits)).toBe(1);
    // "where", "is", "the" neither score nor highlight; only "office" matched.
    expect(hits[0]!.explain!.signals.find((s) => s.name === 'lexical')!.details.matchedTerms).toEqual(['office']);
    for (const h of hits.slice(1)) expect(h.explain!.signals.find((s) => s.name === 'lexical')!.details.matchedTerms).toEqual([]);
  });

  it('recency and importance only break near-ties: never more than tieBand + a polarity swing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 0, max: 1_000_000 }), (n, seed) => {
        const r = mulberry32(seed);
        const items: PoolItem[] = Array.from({ length: n }, (_, i) => ({
          memory: makeMemory(`m${i}`, `memory ${i} about ${['deploy', 'lint', 'tests'][i % 3]}`, {
            importance: r(),
            createdAt: NOW - Math.floor(r() * 400) * DAY,
            polarity: ([-1, 0, 1] as const)[Math.floor(r() * 3)]!,
          }),
          cosine: r() * 2 - 1,
        }));
        const hits = scoreCandidates(items, 'deploy', { mode: 'hybrid', now: NOW, explain: true });
        const relevanceOf = (h: (typeof hits)[number]): number =>
          h.explain!.signals.filter((x) => x.name === 'cosine' || x.name === 'lexical').reduce((a, x) => a + x.weighted, 0);
        // Whenever a memory ranks above another, its relevance is not lower by more than the band
        // (tieBand, plus a polarity swing of ±polarityWeight).
        for (let i = 0; i < hits.length; i++) {
          for (let j = i + 1; j < hits.length; j++) expect(relevanceOf(hits[i]!)).toBeGreaterThan(relevanceOf(hits[j]!) - (0.05 + 2 * 0.05) - 1e-9);
        }
        // With a judge saying "unrelated" (P = 0), the order is the relevance order exactly.
        const gated = scoreCandidates(items, 'deploy', { mode: 'hybrid', now: NOW, explain: true, relevance: () => ({ probability: 0, confidence: 'none', z: 0 }) });
        for (let i = 1; i < gated.length; i++) expect(gated[i - 1]!.score).toBeGreaterThanOrEqual(gated[i]!.score);
        gated.forEach((h) => expect(h.score).toBeCloseTo(relevanceOf(h), 12));
      }),
      { numRuns: 100 },
    );
  });

  it('weight equivalence: a cosine-only hybrid ranks exactly as semantic', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 1_000_000 }), (n, seed) => {
        const r = mulberry32(seed);
        const items: PoolItem[] = Array.from({ length: n }, (_, i) => ({
          memory: makeMemory(`m${i}`, `memory ${i} about ${['deploy', 'lint', 'tests'][i % 3]}`, {
            importance: Math.round(r() * 4) / 4,
            createdAt: NOW - Math.floor(r() * 100) * DAY,
            polarity: ([-1, 0, 1] as const)[Math.floor(r() * 3)]!,
          }),
          cosine: Math.round((r() * 2 - 1) * 100) / 100,
        }));
        const semantic = scoreCandidates(items, 'deploy', { mode: 'semantic', now: NOW });
        // cosine weight 1: identical scores, polarity included.
        const unit = scoreCandidates(items, 'deploy', { mode: 'hybrid', now: NOW, weights: { cosine: 1, lexical: 0, recency: 0, importance: 0 } });
        expect(ids(unit)).toEqual(ids(semantic));
        unit.forEach((h, i) => expect(h.score).toBeCloseTo(semantic[i]!.score, 12));
        // Any positive cosine-only weight keeps the order when polarity is neutral.
        const neutral = items.map((it) => ({ ...it, memory: { ...it.memory, polarity: 0 as const } }));
        const a = scoreCandidates(neutral, 'deploy', { mode: 'semantic', now: NOW });
        const b = scoreCandidates(neutral, 'deploy', { mode: 'hybrid', now: NOW, weights: { cosine: 0.55, lexical: 0, recency: 0, importance: 0 } });
        expect(ids(b)).toEqual(ids(a));
      }),
      { numRuns: 100 },
    );
  });

  it('ties break by importance, then newest, then pool order; repeated calls are identical', () => {
    const tied: PoolItem[] = [
      { memory: makeMemory('low', 'x', { importance: 0.2 }), cosine: 0.5 },
      { memory: makeMemory('old', 'x', { importance: 0.9, createdAt: NOW - 10 }), cosine: 0.5 },
      { memory: makeMemory('new', 'x', { importance: 0.9, createdAt: NOW }), cosine: 0.5 },
      { memory: makeMemory('twin', 'x', { importance: 0.9, createdAt: NOW }), cosine: 0.5 },
    ];
    const first = ids(scoreCandidates(tied, 'x', { mode: 'semantic', now: NOW }));
    expect(first).toEqual(['new', 'twin', 'old', 'low']);
    expect(ids(scoreCandidates(tied, 'x', { mode: 'semantic', now: NOW }))).toEqual(first);
    // Same second, hybrid: still stable.
    const h1 = scoreCandidates(pool, 'retry test', { mode: 'hybrid', now: NOW });
    const h2 = scoreCandidates(pool, 'retry test', { mode: 'hybrid', now: NOW });
    expect(ids(h2)).toEqual(ids(h1));
  });

  it('linear: drops the lexical weight and rescales the rest when nothing matches lexically', () => {
    const items: PoolItem[] = [
      { memory: makeMemory('a', 'alpha beta', { importance: 0.4 }), cosine: 0.9 },
      { memory: makeMemory('b', 'gamma delta', { importance: 0.6 }), cosine: 0.3 },
    ];
    const hits = scoreCandidates(items, 'zeta', { mode: 'hybrid', fusion: 'linear', now: NOW, explain: true });
    const scale = 1 / 0.8;
    expect(hits[0]!.score).toBeCloseTo(0.55 * scale * 0.9 + 0.15 * scale * 1 + 0.1 * scale * 0.4, 12);
    const signals = Object.fromEntries(hits[0]!.explain!.signals.map((s) => [s.name, s]));
    expect(signals.lexical!.weight).toBe(0);
    expect(signals.lexical!.details.dropped).toBe(true);
    expect(signals.cosine!.weight).toBeCloseTo(0.6875, 12);
    expect(hits[0]!.explain!.breakdown.weights).toMatchObject({ cosine: 0.6875, lexical: 0, recency: 0.1875, importance: 0.125 });
    // Lexical-only weights are left alone (nothing to rescale into): scores are just polarity.
    const lexOnly = scoreCandidates(items, 'zeta', { mode: 'hybrid', fusion: 'linear', now: NOW, weights: { cosine: 0, lexical: 1, recency: 0, importance: 0 } });
    expect(lexOnly.map((h) => h.score)).toEqual([0, 0]);
  });

  it('weighted: when nothing matches lexically, relevance is the cosine alone', () => {
    const items: PoolItem[] = [
      { memory: makeMemory('a', 'alpha beta', { importance: 0.4 }), cosine: 0.9 },
      { memory: makeMemory('b', 'gamma delta', { importance: 0.6 }), cosine: 0.3 },
    ];
    const hits = scoreCandidates(items, 'zeta', { mode: 'hybrid', now: NOW, explain: true });
    expect(hits[0]!.score).toBeCloseTo(0.9 + 0.05 * (0.15 * 1 + 0.1 * 0.4) / 0.25, 12);
    const signals = Object.fromEntries(hits[0]!.explain!.signals.map((s) => [s.name, s]));
    expect(signals.lexical!).toMatchObject({ weight: 0, details: { dropped: true } });
    expect(signals.cosine!.weight).toBe(1);
  });

  it('a filtered candidate still counts for BM25 (no lexical drop), but is not returned', () => {
    const items: PoolItem[] = [
      { memory: makeMemory('a', 'alpha'), cosine: 0.9 },
      { memory: makeMemory('hidden', 'zeta'), cosine: 0.8, filtered: true },
    ];
    const hits = scoreCandidates(items, 'zeta', { mode: 'hybrid', fusion: 'linear', now: NOW, explain: true });
    expect(ids(hits)).toEqual(['a']);
    expect(hits[0]!.explain!.signals.find((s) => s.name === 'lexical')!.weight).toBe(0.2);
    expect(hits[0]!.score).toBeCloseTo(0.55 * 0.9 + 0.15 + 0.05, 12);
    const weighted = scoreCandidates(items, 'zeta', { mode: 'hybrid', now: NOW, explain: true });
    expect(weighted[0]!.explain!.signals.find((s) => s.name === 'lexical')!.weight).toBeCloseTo(0.2 / 0.75, 12);
  });

  it('minCosine drops weak candidates in every mode', () => {
    for (const mode of ['semantic', 'hybrid'] as const) {
      expect(ids(scoreCandidates(pool, 'PR #441', { mode, minCosine: 0.5, now: NOW })).sort()).toEqual(['filler1', 'para']);
    }
    expect(ids(scoreCandidates(pool, 'PR #441', { mode: 'hybrid', fusion: 'rrf', minCosine: 0.5, now: NOW })).sort()).toEqual(['filler1', 'para']);
  });

  it('RRF: 0-based ranks per signal, k = 60, polarity over 61', () => {
    const items: PoolItem[] = [
      { memory: makeMemory('a', 'deploy api', { importance: 0.1, createdAt: NOW - 5 * DAY }), cosine: 0.9 },
      { memory: makeMemory('b', 'lint config', { importance: 0.9, createdAt: NOW, polarity: -1 }), cosine: 0.5 },
      { memory: makeMemory('c', 'deploy deploy deploy', { importance: 0.5, createdAt: NOW - DAY }), cosine: 0.7 },
    ];
    const hits = scoreCandidates(items, 'deploy', { mode: 'hybrid', fusion: 'rrf', now: NOW, explain: true });
    const byId = Object.fromEntries(hits.map((h) => [h.memory.id, h]));
    // ranks: cosine a0 c1 b2; lexical c0 a1 b2; recency b0 c1 a2; importance b0 c1 a2
    const expected = {
      a: 0.55 / 60 + 0.2 / 61 + 0.15 / 62 + 0.1 / 62,
      b: 0.55 / 62 + 0.2 / 62 + 0.15 / 60 + 0.1 / 60 - 0.05 / 61,
      c: 0.55 / 61 + 0.2 / 60 + 0.15 / 61 + 0.1 / 61,
    };
    for (const [id, score] of Object.entries(expected)) expect(byId[id]!.score).toBeCloseTo(score, 12);
    expect(byId.a!.explain!.breakdown).toMatchObject({
      mode: 'hybrid',
      fusion: 'rrf',
      rrf_k: 60,
      signals: { cosine: { rank: 0 }, lexical: { rank: 1 }, recency: { rank: 2 }, importance: { rank: 2 } },
    });
    const cos = byId.a!.explain!.signals.find((s) => s.name === 'cosine')!;
    expect(cos.details.rank).toBe(0);
    expect(cos.details.contribution).toBeCloseTo(0.55 / 60, 15);
    // A zero-weight signal is not ranked at all.
    const noLex = scoreCandidates(items, 'deploy', { mode: 'hybrid', fusion: 'rrf', now: NOW, explain: true, weights: { lexical: 0 } });
    expect(noLex[0]!.explain!.signals.map((s) => s.name)).toEqual(['cosine', 'recency', 'importance', 'polarity']);
  });

  it('RRF ties share a rank, so a constant signal cannot reorder the pool', () => {
    const items: PoolItem[] = ['x', 'y', 'z'].map((id) => ({ memory: makeMemory(id, 'same text'), cosine: 0.5 }));
    const hits = scoreCandidates(items, 'same', { mode: 'hybrid', fusion: 'rrf', now: NOW, explain: true });
    expect(ids(hits)).toEqual(['x', 'y', 'z']); // equal scores: pool order breaks the tie at the end
    expect(hits.map((h) => (h.explain!.breakdown.signals as Record<string, { rank: number }>).cosine!.rank)).toEqual([0, 0, 0]);
    // Importance and recency are constant here; only cosine may decide, whatever the pool order.
    const mixed: PoolItem[] = [
      { memory: makeMemory('low', 'alpha'), cosine: 0.2 },
      { memory: makeMemory('high', 'beta'), cosine: 0.9 },
    ];
    expect(ids(scoreCandidates(mixed, 'gamma', { mode: 'hybrid', fusion: 'rrf', now: NOW }))).toEqual(['high', 'low']);
  });

  it('semantic explain has the reference breakdown', () => {
    const [hit] = scoreCandidates([{ memory: makeMemory('p', 'x', { polarity: 1 }), cosine: 0.123456 }], 'x', { mode: 'semantic', explain: true, now: NOW });
    expect(hit!.score).toBeCloseTo(0.173456, 12);
    expect(hit!.explain!.breakdown).toEqual({ mode: 'semantic', cosine: 0.1235, polarity: 1, score: 0.1735 });
  });

  it('attaches a confidence verdict from the cosine', () => {
    const hits = scoreCandidates(pool, 'PR #441', { mode: 'hybrid', now: NOW, confidence: { strong: 0.55, weak: 0.4 } });
    const verdict = Object.fromEntries(hits.map((h) => [h.memory.id, h.confidence]));
    expect(verdict).toEqual({ para: 'strong', filler1: 'weak', filler2: 'weak', pr: 'none' });
  });
});

describe('validation', () => {
  it('checkWeights fills defaults and accepts partial weights', () => {
    expect(checkWeights(undefined)).toEqual(DEFAULT_HYBRID_WEIGHTS);
    expect(checkWeights({ cosine: 1 })).toEqual({ ...DEFAULT_HYBRID_WEIGHTS, cosine: 1 });
  });

  const badWeights: [string, unknown, string][] = [
    ['negative cosine', { cosine: -0.1 }, 'weights.cosine'],
    ['NaN lexical', { lexical: Number.NaN }, 'weights.lexical'],
    ['infinite recency', { recency: Number.POSITIVE_INFINITY }, 'weights.recency'],
    ['string importance', { importance: '0.1' }, 'weights.importance'],
    ['negative decay', { decayRate: -1 }, 'weights.decayRate'],
    ['negative polarity weight', { polarityWeight: -0.05 }, 'weights.polarityWeight'],
    ['bad recency basis', { recencyBasis: 'modified' }, 'weights.recencyBasis'],
    ['all zero', { cosine: 0, lexical: 0, entity: 0, time: 0, phrase: 0, context: 0, recency: 0, importance: 0 }, 'weights'],
    ['unknown key', { graph: 0.1 }, 'weights'],
    ['not an object', 0.5, 'weights'],
  ];
  it.each(badWeights)('weights: %s', (_label, weights, field) => {
    expectInvalid(() => checkWeights(weights), field);
    expectInvalid(() => scoreCandidates([{ memory: makeMemory('a', 'x'), cosine: 1 }], 'x', { mode: 'hybrid', weights: weights as never }), field);
  });

  const badOptions: [string, unknown, string][] = [
    ['mode', { mode: 'hybird' }, 'mode'],
    ['fusion', { fusion: 'sum' }, 'fusion'],
    ['minCosine > 1', { minCosine: 1.5 }, 'minCosine'],
    ['minCosine NaN', { minCosine: Number.NaN }, 'minCosine'],
    ['negative now', { now: -1 }, 'now'],
    ['explain not boolean', { explain: 'yes' }, 'explain'],
    ['confidence weak > strong', { confidence: { strong: 0.3, weak: 0.5 } }, 'confidence.weak'],
    ['confidence out of range', { confidence: { strong: 2, weak: 0.5 } }, 'confidence.strong'],
    ['unknown option', { k: 3 }, 'options'],
  ];
  it.each(badOptions)('options: %s', (_label, options, field) => {
    expectInvalid(() => scoreCandidates([{ memory: makeMemory('a', 'x'), cosine: 1 }], 'x', options as never), field);
  });

  it('validates even an empty pool', () => {
    expectInvalid(() => scoreCandidates([], 'x', { mode: 'nope' as never }), 'mode');
  });

  it('mmrSelect validates diversity, dedupThreshold and k', () => {
    const sim = (): number => 0;
    expectInvalid(() => mmrSelect([], { k: 1, diversity: 1.5, similarity: sim }), 'diversity');
    expectInvalid(() => mmrSelect([], { k: 1, dedupThreshold: -0.1, similarity: sim }), 'dedupThreshold');
    expectInvalid(() => mmrSelect([], { k: -1, similarity: sim }), 'k');
  });
});

describe('mmrSelect', () => {
  const vectors: Record<string, number[]> = { a: [1, 0], a2: [0.99, 0.141], b: [0, 1] };
  const cos = (x: { id: string }, y: { id: string }): number | null => {
    const u = vectors[x.id];
    const v = vectors[y.id];
    if (!u || !v) return null;
    return (u[0]! * v[0]! + u[1]! * v[1]!) / (Math.hypot(u[0]!, u[1]!) * Math.hypot(v[0]!, v[1]!));
  };
  const scored = [
    { id: 'a', score: 0.9 },
    { id: 'a2', score: 0.85 },
    { id: 'b', score: 0.5 },
  ];

  it('without diversity or dedup it is the top k', () => {
    expect(mmrSelect(scored, { k: 2, similarity: cos }).map((x) => x.id)).toEqual(['a', 'a2']);
  });

  it('diversity prefers novelty', () => {
    expect(mmrSelect(scored, { k: 2, diversity: 0.5, similarity: cos }).map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('dedupThreshold drops near-duplicates and may return fewer than k', () => {
    expect(mmrSelect(scored, { k: 3, dedupThreshold: 0.95, similarity: cos }).map((x) => x.id)).toEqual(['a', 'b']);
    expect(mmrSelect(scored.slice(0, 2), { k: 2, dedupThreshold: 0.95, similarity: cos }).map((x) => x.id)).toEqual(['a']);
  });

  it('a candidate without a vector is never a duplicate', () => {
    const withGhost = [...scored, { id: 'ghost', score: 0.8 }];
    expect(mmrSelect(withGhost, { k: 3, dedupThreshold: 0.95, similarity: cos }).map((x) => x.id)).toEqual(['a', 'ghost', 'b']);
  });
});

describe('classifyConfidence', () => {
  it('is the plain cosine-threshold verdict', () => {
    expect(classifyConfidence(0.5, { strong: 0.5, weak: 0.2 })).toBe('strong');
    expect(classifyConfidence(0.3, { strong: 0.5, weak: 0.2 })).toBe('weak');
    expect(classifyConfidence(0.1, { strong: 0.5, weak: 0.2 })).toBe('none');
  });
});
