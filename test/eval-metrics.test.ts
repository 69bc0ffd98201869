import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  averageRanks,
  docText,
  parseBeirCorpus,
  parseBeirQueries,
  parseClaimEvidencePairs,
  parseQrels,
  parseStsb,
  reciprocalRankAtK,
  resolveDataDir,
  spearman,
} from '../bench/datasets.ts';

describe('spearman (tie-aware)', () => {
  it('is 1 for a perfect monotone relation, even a non-linear one', () => {
    expect(spearman([1, 2, 3, 4, 5], [10, 20, 30, 40, 50])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4, 5], [1, 8, 27, 64, 125])).toBeCloseTo(1, 12);
  });

  it('is −1 for an inverse relation', () => {
    expect(spearman([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([0.1, 0.5, 0.9], [100, 10, 1])).toBeCloseTo(-1, 12);
  });

  it('gives tied values the mean of their ranks', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([3, 3, 3])).toEqual([2, 2, 2]);
    expect(averageRanks([2, 1, 2, 1])).toEqual([3.5, 1.5, 3.5, 1.5]);
  });

  it('matches scipy.stats.spearmanr on data with ties', () => {
    // scipy.stats.spearmanr([1, 2, 2, 3, 4], [1, 3, 2, 2, 5]).statistic = 0.7631578947368421
    expect(spearman([1, 2, 2, 3, 4], [1, 3, 2, 2, 5])).toBeCloseTo(0.7631578947368421, 12);
    // Ties on both sides: ranks x = [1.5, 1.5, 3.5, 3.5], y = [1, 2.5, 2.5, 4] → ρ = 0.7071067811865475.
    expect(spearman([1, 1, 2, 2], [1, 2, 2, 3])).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('is NaN when one side is constant, and rejects mismatched or non-finite input', () => {
    expect(spearman([1, 2, 3], [4, 4, 4])).toBeNaN();
    expect(() => spearman([1, 2], [1])).toThrow();
    expect(() => spearman([1, Number.NaN], [1, 2])).toThrow();
  });
});

describe('STS-B parser', () => {
  const sample = [
    'main-captions\tMSRvid\t2012test\t0024\t2.500\tA girl is styling her hair.\tA girl is brushing her hair.',
    // Extra trailing fields (sources) are ignored.
    'main-news\theadlines\t2013\t0001\t4.000\t"Quoted" text stays literal\tAnother sentence\tsrc-a\tsrc-b',
    // Malformed: too few fields, a score out of range, a non-numeric score, an empty sentence.
    'main-news\theadlines\t2013\t0002\t3.0\tonly one sentence',
    'main-news\theadlines\t2013\t0003\t7.0\ta\tb',
    'main-news\theadlines\t2013\t0004\tn/a\ta\tb',
    'main-news\theadlines\t2013\t0005\t1.0\t \tb',
    '',
  ].join('\n');

  it('reads score, sentence 1 and sentence 2 from fields 5–7 and counts malformed rows', () => {
    const { pairs, malformed } = parseStsb(sample);
    expect(pairs).toEqual([
      { score: 2.5, s1: 'A girl is styling her hair.', s2: 'A girl is brushing her hair.' },
      { score: 4, s1: '"Quoted" text stays literal', s2: 'Another sentence' },
    ]);
    expect(malformed).toBe(4);
  });

  it('handles CRLF line ends', () => {
    expect(parseStsb('a\tb\tc\td\t5.0\tx\ty\r\na\tb\tc\td\t0\tp\tq\r\n').pairs).toEqual([
      { score: 5, s1: 'x', s2: 'y' },
      { score: 0, s1: 'p', s2: 'q' },
    ]);
  });
});

describe('BEIR qrels parser', () => {
  it('skips the header, keeps score > 0 judgements per query and counts malformed rows', () => {
    const tsv = ['query-id\tcorpus-id\tscore', '1\t31715818\t1', '3\t14717500\t1', '3\t999\t1', '5\t42\t0', '7\t8', '9\t10\tx', ''].join('\n');
    const { qrels, malformed } = parseQrels(tsv);
    expect([...qrels.keys()]).toEqual(['1', '3']);
    expect([...qrels.get('3')!]).toEqual(['14717500', '999']);
    expect(qrels.has('5')).toBe(false);
    expect(malformed).toBe(2);
  });

  it('also reads a file without a header', () => {
    expect([...parseQrels('1\t2\t1\n').qrels.get('1')!]).toEqual(['2']);
  });
});

describe('SciFact readers', () => {
  it('reads the corpus and builds the remembered text as title + " " + text', () => {
    const jsonl = [
      '{"_id": "4983", "title": "Microstructural development.", "text": "Alterations of white matter."}',
      '{"_id": 7, "title": "", "text": "Body only."}',
      'not json',
      '{"title": "no id", "text": "x"}',
    ].join('\n');
    const { docs, malformed } = parseBeirCorpus(jsonl);
    expect(docs.map((d) => d.id)).toEqual(['4983', '7']);
    expect(docText(docs[0]!)).toBe('Microstructural development. Alterations of white matter.');
    expect(docText(docs[1]!)).toBe('Body only.');
    expect(malformed).toBe(2);
  });

  it('reads queries and the train claims with their evidence documents', () => {
    expect([...parseBeirQueries('{"_id": "1", "text": "0-dimensional biomaterials show inductive properties.", "metadata": {}}\n').queries]).toEqual([
      ['1', '0-dimensional biomaterials show inductive properties.'],
    ]);
    const pairs = [
      '{"split": "train", "claim_id": "2", "claim": "Claim two.", "doc_id": "13734012", "label": "CONTRADICT"}',
      '{"split": "train", "claim_id": "2", "claim": "Claim two.", "doc_id": "55", "label": "SUPPORT"}',
      '{"split": "dev", "claim_id": "3", "claim": "Claim three.", "doc_id": "1", "label": "SUPPORT"}',
    ].join('\n');
    const train = parseClaimEvidencePairs(pairs, 'train');
    expect([...train.queries]).toEqual([['2', 'Claim two.']]);
    expect([...train.qrels.get('2')!]).toEqual(['13734012', '55']);
  });
});

describe('eval helpers', () => {
  it('MRR@k counts only a hit within the top k', () => {
    const rel = new Set(['c']);
    expect(reciprocalRankAtK(['a', 'b', 'c'], rel, 10)).toBeCloseTo(1 / 3, 15);
    expect(reciprocalRankAtK(['a', 'b', 'c'], rel, 2)).toBe(0);
    expect(reciprocalRankAtK([], rel, 10)).toBe(0);
  });

  it('resolves the data folder beside the repository unless HOUKAI_DATA is set', () => {
    expect(resolveDataDir('/x/main', {})).toBe(path.resolve('/x/shared/data'));
    expect(resolveDataDir('/x/main', { HOUKAI_DATA: '/elsewhere/data' })).toBe(path.resolve('/elsewhere/data'));
  });
});
