import { describe, expect, it } from 'vitest';
import { calibrationFor, REFERENCE_CALIBRATIONS } from '../src/core/domain/calibrations.ts';
import { FALLBACK_BACKGROUND, RelevanceBackground } from '../src/core/services/relevance-background.ts';
import {
  backgroundLocation,
  cosineMargins,
  DEFAULT_RELEVANCE_THRESHOLDS,
  GENERIC_MODEL,
  lexicalCoverage,
  relevanceJudge,
  STORE_SHIFT_TOLERANCE,
  verdictFor,
  type RelevanceCalibration,
} from '../src/core/domain/relevance.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import { mulberry32 } from './helpers/prng.ts';

const calibration: RelevanceCalibration = {
  version: 1,
  embedderId: 'test',
  background: { median: 0.1, spread: 0.1 },
  model: { bias: -6, cosine: 1, coverage: 4 },
  thresholds: { weak: 0.5, strong: 0.9 },
  source: 'test',
};

describe('lexical coverage', () => {
  it('is the idf-weighted share of the query terms a document holds', () => {
    const docs = ['the office moved to Munich', 'the user likes the office coffee', 'the user prefers dark mode'].map((t) => lexicalTerms(t));
    const [a, b, c] = lexicalCoverage(lexicalTerms('where is the office'), docs);
    expect(a).toBe(1);
    expect(b).toBe(1);
    expect(c).toBe(0);
    // A word most documents share counts for less than a rare one; a word none holds counts fully against.
    const [, likes, prefers] = lexicalCoverage(lexicalTerms('user coffee'), docs);
    expect(likes).toBe(1);
    expect(prefers).toBeGreaterThan(0);
    expect(prefers).toBeLessThan(0.5);
    expect(lexicalCoverage(lexicalTerms('zebra office'), docs)[0]).toBeLessThan(0.5);
    // No query terms (only stop words): nothing is covered.
    expect(lexicalCoverage(lexicalTerms('is it the'), docs)).toEqual([0, 0, 0]);
  });

  it('counts a term a document repeats once, in its frequency and in its share', () => {
    const once = [['office', 'coffee'], ['office'], ['mode']];
    const repeated = [['office', 'coffee', 'office', 'coffee'], ['office', 'office'], ['mode', 'mode']];
    const query = ['office', 'coffee', 'office'];
    const expected = lexicalCoverage(query, once);
    expect(lexicalCoverage(query, repeated)).toEqual(expected);
    // office in 2 of 3 documents, coffee in 1: the second holds less than half the weight.
    expect(expected[0]).toBe(1);
    expect(expected[1]).toBeGreaterThan(0);
    expect(expected[1]).toBeLessThan(0.5);
    expect(expected[2]).toBe(0);
  });
});

describe('relevance judge', () => {
  it('P(relevant) = σ(bias + a·z + b·coverage), z in background spreads', () => {
    const judge = relevanceJudge({ calibration });
    const j = judge({ cosine: 0.6, coverage: 0.5 });
    expect(j.z).toBeCloseTo(5, 12);
    expect(j.probability).toBeCloseTo(1 / (1 + Math.exp(-(-6 + 5 + 2))), 12);
    expect(j.confidence).toBe('weak');
    expect(judge({ cosine: 0.7, coverage: 1 }).confidence).toBe('strong');
    expect(judge({ cosine: 0.3, coverage: 0 }).confidence).toBe('none');
    // Monotone in both pieces of evidence.
    const r = mulberry32(5);
    for (let i = 0; i < 200; i++) {
      const c = r() * 2 - 1;
      const v = r();
      expect(judge({ cosine: c + 0.01, coverage: v }).probability).toBeGreaterThanOrEqual(judge({ cosine: c, coverage: v }).probability);
      expect(judge({ cosine: c, coverage: Math.min(1, v + 0.01) }).probability).toBeGreaterThanOrEqual(judge({ cosine: c, coverage: v }).probability);
    }
    expect(verdictFor(0.9, { weak: 0.5, strong: 0.9 })).toBe('strong');
    expect(verdictFor(0.49, { weak: 0.5, strong: 0.9 })).toBe('none');
  });

  it('a calibration with a margin weight adds it per unit of margin over the best other candidate; without one the margin is ignored', () => {
    expect(cosineMargins([0.5, 0.8, 0.6])).toEqual([0.5 - 0.8, 0.8 - 0.6, 0.6 - 0.8].map((m) => expect.closeTo(m, 12)));
    expect(cosineMargins([0.4])).toEqual([0]);
    expect(cosineMargins([0.4, -Infinity, 0.1])).toEqual([expect.closeTo(0.3, 12), 0, expect.closeTo(-0.3, 12)]);
    expect(cosineMargins([])).toEqual([]);
    const plain = relevanceJudge({ calibration });
    expect(plain({ cosine: 0.6, coverage: 0.5, margin: 0.3 }).probability).toBe(plain({ cosine: 0.6, coverage: 0.5 }).probability);
    const withMargin = relevanceJudge({ calibration: { ...calibration, model: { ...calibration.model, margin: 10 } } });
    expect(withMargin({ cosine: 0.6, coverage: 0.5, margin: 0.1 }).probability).toBeCloseTo(1 / (1 + Math.exp(-(-6 + 5 + 2 + 1))), 12);
    expect(withMargin({ cosine: 0.6, coverage: 0.5 }).probability).toBe(plain({ cosine: 0.6, coverage: 0.5 }).probability);
  });

  it('the store background raises the location only beyond the tolerance', () => {
    const near = Array.from({ length: 32 }, (_, i) => 0.1 + (i % 2 ? 0.05 : -0.05));
    expect(backgroundLocation({ calibration, queryBackground: near })).toEqual({ location: 0.1, shift: 0 });
    // A store of near-identical notes: the query is 0.6 from everything.
    const crowded = Array.from({ length: 32 }, () => 0.6);
    const { location, shift } = backgroundLocation({ calibration, queryBackground: crowded });
    expect(shift).toBeCloseTo(0.6 - 0.1 - STORE_SHIFT_TOLERANCE * 0.1, 12);
    expect(location).toBeCloseTo(0.4, 12);
    // σ(−6 + (0.75 − 0.1)/0.1) = 0.62: weak; against the crowded store z = 3.5: none.
    expect(relevanceJudge({ calibration })({ cosine: 0.75, coverage: 0 }).confidence).toBe('weak');
    expect(relevanceJudge({ calibration, queryBackground: crowded })({ cosine: 0.75, coverage: 0 }).confidence).toBe('none');
    // Too small a sample is ignored.
    expect(backgroundLocation({ calibration, queryBackground: crowded.slice(0, 5) }).shift).toBe(0);
  });
});

describe('calibrations', () => {
  it('are shipped for the known embedders, by id and alias, and an embedder may bring its own', () => {
    for (const id of ['universal-sentence-encoder-lite', 'Xenova/all-MiniLM-L6-v2', 'Xenova/bge-small-en-v1.5']) {
      const c = REFERENCE_CALIBRATIONS[id]!;
      expect(c.embedderId).toBe(id);
      expect(c.thresholds).toEqual(DEFAULT_RELEVANCE_THRESHOLDS);
      expect(c.background.spread).toBeGreaterThan(0);
      expect(c.model.cosine).toBeGreaterThan(0);
      expect(c.source).toMatch(/STS-B dev/);
    }
    expect(calibrationFor({ id: 'sentence-transformers/all-MiniLM-L6-v2' })).toBe(REFERENCE_CALIBRATIONS['Xenova/all-MiniLM-L6-v2']);
    expect(calibrationFor({ id: 'BAAI/bge-small-en-v1.5' })).toBe(REFERENCE_CALIBRATIONS['Xenova/bge-small-en-v1.5']);
    expect(calibrationFor({ id: 'mystery' })).toBeNull();
    expect(calibrationFor({ id: 'mystery', calibration })).toBe(calibration);
  });

  it('the generic model stays close to the shipped ones (in background spreads)', () => {
    const all = Object.values(REFERENCE_CALIBRATIONS);
    const mean = (f: (c: RelevanceCalibration) => number) => all.reduce((a, c) => a + f(c), 0) / all.length;
    // The cosine a hit needs to be weak with no term matched, in spreads above the background.
    const needed = (m: { bias: number; cosine: number }) => (Math.log(0.65 / 0.35) - m.bias) / m.cosine;
    expect(Math.abs(needed(GENERIC_MODEL) - mean((c) => needed(c.model)))).toBeLessThan(1);
  });
});

describe('RelevanceBackground (the store side)', () => {
  const unit = (v: number[]): Float32Array => {
    const n = Math.hypot(...v);
    return Float32Array.from(v, (x) => x / n);
  };

  it('with a reference calibration: the query is compared with the sampled memories', () => {
    const bg = new RelevanceBackground(calibration);
    expect(bg.describe()).toMatchObject({ method: 'reference', calibrated: true, samples: 0, source: 'test' });
    // The weak cosine with no term matched: σ(−6 + z) = 0.5 → z = 6 → 0.1 + 0.6.
    expect(bg.describe().weak).toBeCloseTo(0.7, 12);
    const r = mulberry32(1);
    bg.setSample(Array.from({ length: 40 }, () => unit(Array.from({ length: 8 }, () => r() - 0.5))));
    expect(bg.describe()).toMatchObject({ method: 'reference+store', samples: 40 });
    expect(bg.judgeFor(unit([1, 0, 0, 0, 0, 0, 0, 0]))({ cosine: 0.95, coverage: 1 }).confidence).toBe('strong');
  });

  it('without one: the generic model over the store\'s own pairwise background', () => {
    const bg = new RelevanceBackground(null);
    expect(bg.describe()).toMatchObject({ method: 'default', calibrated: false });
    const fallbackWeak = bg.describe().weak;
    expect(fallbackWeak).toBeCloseTo(FALLBACK_BACKGROUND.median + ((Math.log(0.65 / 0.35) - GENERIC_MODEL.bias) / GENERIC_MODEL.cosine) * FALLBACK_BACKGROUND.spread, 12);
    // Memories all close to one another: the background sits high, so the cut-offs do too.
    const r = mulberry32(2);
    bg.setSample(Array.from({ length: 30 }, () => unit([5, r(), r(), r()])));
    const d = bg.describe();
    expect(d).toMatchObject({ method: 'store', calibrated: true, samples: 30 });
    expect(d.weak).toBeGreaterThan(0.9);
  });
});
