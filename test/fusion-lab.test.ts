import { describe, expect, it } from 'vitest';
import 'fake-indexeddb/auto';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { scoreWithCorpus } from '../src/core/domain/bm25.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import { createMemory } from '../src/local.ts';
import {
  competitionRanks,
  LexicalCorpus,
  nominateCandidates,
  normalise,
  recallPool,
  runFusionExperiments,
  runSentenceProbe,
  sentencesOf,
  type LabQueryInput,
} from '../bench/fusion-lab.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { gaussian, mulberry32 } from './helpers/prng.ts';
import { uniqueName } from './helpers/store.ts';

/** Texts over a Zipf-like vocabulary: a few words in most texts, many rare ones. */
function corpusTexts(n: number, seed: number): string[] {
  const random = mulberry32(seed);
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}x`);
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
  return Array.from({ length: n }, () => Array.from({ length: 6 + Math.floor(random() * 20) }, word).join(' '));
}

describe('fusion lab: the replica of the store’s corpus candidates', () => {
  it('nominates exactly the rows the store’s lexicalCandidates returns (its exact BM25 top), in the same order', async () => {
    const texts = corpusTexts(600, 7);
    const name = uniqueName('lab-nominate');
    let next = 0;
    const store = await createMemory({ name, embedder: createHashEmbedder({ dim: 16 }), index: 'exact', ids: { next: () => `doc-${String(next++).padStart(6, '0')}` } });
    const stored = await store.rememberMany(texts.map((text) => ({ text })));
    const idOf = stored.map((r) => r.memory.id);
    // Corpus order must be the primary-key order (as in the eval).
    expect([...idOf].sort()).toEqual(idOf);
    await store.close();
    const storage = await openDexieStorage(name);
    const corpus = new LexicalCorpus(texts.map((t) => lexicalTerms(t)));
    const random = mulberry32(11);
    for (let q = 0; q < 25; q++) {
      const query = corpusTexts(1, 100 + q)[0]!.split(' ').slice(0, 3 + Math.floor(random() * 5)).join(' ');
      const terms = [...new Set(lexicalTerms(query))];
      for (const limit of [5, 40, 200]) {
        const fromStore = await storage.lexicalCandidates(terms, limit);
        const replica = nominateCandidates(corpus, terms, limit);
        expect(replica.candidates.map((d) => idOf[d])).toEqual(fromStore.candidates.map((c) => c.memory.id));
        for (const t of terms) expect(corpus.df(t)).toBe(fromStore.documentFrequencies.get(t) ?? 0);
        // Leaving out what recall's cosine pool holds: the next best fill the places.
        const held = new Set(fromStore.candidates.slice(0, 3).map((c) => c.label));
        const rest = await storage.lexicalCandidates(terms, limit, { exclude: held });
        const heldDocs = new Set(fromStore.candidates.slice(0, 3).map((c) => idOf.indexOf(c.memory.id)));
        expect(rest.candidates.map((c) => c.memory.id)).toEqual(nominateCandidates(corpus, terms, limit, heldDocs).candidates.map((d) => idOf[d]));
      }
    }
    storage.close();
  });

  it('computes the same corpus BM25 as scoreWithCorpus', () => {
    const texts = corpusTexts(300, 3);
    const termsOf = texts.map((t) => lexicalTerms(t));
    const corpus = new LexicalCorpus(termsOf);
    const stats = { documentCount: texts.length, averageLength: corpus.averageLength, documentFrequency: (t: string) => corpus.df(t) };
    const query = lexicalTerms('w1x w17x w250x w3x w1x');
    const bm = corpus.bm25(query);
    for (let d = 0; d < texts.length; d++) expect(bm[d]).toBeCloseTo(scoreWithCorpus(stats, query, termsOf[d]!).score, 12);
    expect(Math.max(...bm)).toBeGreaterThan(0);
  });

  it('builds the pool as recall does: the cosine pool, then nominated outsiders with BM25 > 0 in BM25 order', () => {
    const texts = corpusTexts(500, 5);
    const corpus = new LexicalCorpus(texts.map((t) => lexicalTerms(t)));
    const terms = lexicalTerms('w2x w40x w90x w300x');
    const bm = corpus.bm25(terms);
    const random = mulberry32(9);
    const cos = Float64Array.from(texts, () => random());
    const { pool, cosineCount, nomination } = recallPool(corpus, bm, cos, terms, { k: 10, overfetch: 2 });
    expect(cosineCount).toBe(20);
    const cosTop = [...cos.keys()].sort((a, b) => cos[b]! - cos[a]!).slice(0, 20);
    expect(pool.slice(0, 20)).toEqual(cosTop);
    const lexical = pool.slice(20);
    expect(lexical.length).toBeLessThanOrEqual(20);
    expect(lexical.length).toBeGreaterThan(0);
    for (const d of lexical) {
      expect(cosTop).not.toContain(d);
      expect(nomination.candidates).toContain(d);
      expect(bm[d]).toBeGreaterThan(0);
    }
    for (let i = 1; i < lexical.length; i++) expect(bm[lexical[i - 1]!]).toBeGreaterThanOrEqual(bm[lexical[i]!]!);
    expect(nomination.candidates.length).toBeLessThanOrEqual(4 * 20);
  });
});

describe('fusion lab: helpers', () => {
  it('normalises a signal over the pool', () => {
    expect(normalise([1, 2, 4], 'max')).toEqual([0.25, 0.5, 1]);
    expect(normalise([1, 2, 3], 'minmax')).toEqual([0, 0.5, 1]);
    const z = normalise([1, 2, 3], 'z');
    expect(z[1]).toBeCloseTo(0, 12);
    expect(z[2]! - z[1]!).toBeCloseTo(Math.sqrt(1.5), 12);
    expect(normalise([2, 2], 'z')).toEqual([0, 0]);
    expect(normalise([2, 2], 'minmax')).toEqual([0, 0]);
    expect(normalise([0, 0], 'max')).toEqual([0, 0]);
    expect(normalise([3, 1], 'raw')).toEqual([3, 1]);
  });

  it('splits a document into its title and sentences', () => {
    expect(sentencesOf('A title', 'First finding. Second (n = 3) one! Third? e.g. not split. (Parenthesis) starts one.')).toEqual([
      'A title',
      'First finding.',
      'Second (n = 3) one!',
      'Third? e.g. not split.',
      '(Parenthesis) starts one.',
    ]);
    expect(sentencesOf('', 'Only text.')).toEqual(['Only text.']);
  });

  it('ranks ties together (competition ranking, descending)', () => {
    expect(competitionRanks([0.5, 0.9, 0.5, 0.1])).toEqual([1, 0, 1, 3]);
    expect(competitionRanks([0, 0, 0])).toEqual([0, 0, 0]);
  });
});

describe('fusion lab: experiments', () => {
  /** A small synthetic corpus whose vectors are noisy copies of topic vectors shared with the queries. */
  function synthetic(seed: number) {
    const random = mulberry32(seed);
    const normal = gaussian(random);
    const dim = 24;
    const topics = Array.from({ length: 12 }, () => Float32Array.from({ length: dim }, () => normal()));
    const docs = Array.from({ length: 240 }, (_, d) => {
      const topic = d % topics.length;
      const words = [`topic${topic}y`, ...corpusTexts(1, seed * 1000 + d)[0]!.split(' ').slice(0, 8)];
      return { id: `d${d}`, topic, terms: lexicalTerms(words.join(' ')), vector: Float32Array.from(topics[topic]!, (x) => x + 1.5 * normal()) };
    });
    const queries = (n: number, offset: number): LabQueryInput[] =>
      Array.from({ length: n }, (_, i) => {
        const target = docs[(i * 7 + offset) % docs.length]!;
        const words = target.terms.slice(1, 3).join(' ') + (random() < 0.5 ? ` topic${target.topic}y` : '');
        return { id: `q${offset}-${i}`, terms: lexicalTerms(words), vector: Float32Array.from(topics[target.topic]!, (x) => x + normal()), relevant: new Set([target.id]) };
      });
    return { docs, train: queries(24, 0), test: queries(10, 3) };
  }

  it('chooses every configuration on the train queries alone', () => {
    const { docs, train, test } = synthetic(21);
    const input = { docIds: docs.map((d) => d.id), docVectors: docs.map((d) => d.vector), corpus: new LexicalCorpus(docs.map((d) => d.terms)), k: 10, overfetch: 2 };
    const a = runFusionExperiments(input, train, test);
    // Same train queries, different test judgements: identical choices and train figures.
    const shuffled = test.map((q, i) => ({ ...q, relevant: new Set([docs[(i * 13 + 5) % docs.length]!.id]) }));
    const b = runFusionExperiments(input, train, shuffled);
    expect(b.rows.map((r) => [r.family, r.chosen, r.train_ndcg10])).toEqual(a.rows.map((r) => [r.family, r.chosen, r.train_ndcg10]));
    expect(b.baselines.train).toEqual(a.baselines.train);
    expect(b.rows.map((r) => r.test_ndcg10)).not.toEqual(a.rows.map((r) => r.test_ndcg10));
    // Each grid family reports its best train configuration.
    for (const row of a.rows.filter((r) => r.family !== 'learned')) {
      expect(row.train_ndcg10).toBe(Math.max(...row.grid.map((g) => g.train_ndcg10)));
      expect(row.train_delta_vs_bm25).toBeCloseTo(row.train_ndcg10 - a.baselines.train.lexical_pool, 3);
    }
    expect(a.rows.map((r) => r.family)).toEqual(['linear', 'normalised', 'rrf', 'dense_prf', 'centred', 'learned', 'pool']);
  });

  it('sentence probe: chooses w on train, embeds only the reranked documents’ sentences once', async () => {
    const { docs, train, test } = synthetic(33);
    const input = { docIds: docs.map((d) => d.id), docVectors: docs.map((d) => d.vector), corpus: new LexicalCorpus(docs.map((d) => d.terms)), k: 10, overfetch: 2 };
    // Two "sentences" per document: its terms halves; a sentence vector = the document's vector.
    const sentences = (d: number) => [`${d}:a`, `${d}:b`];
    const calls: string[][] = [];
    const embed = async (texts: string[]) => {
      calls.push(texts);
      return texts.map((t) => docs[Number(t.split(':')[0])]!.vector);
    };
    const a = await runSentenceProbe(input, train, test, sentences, embed, 5);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.length).toBe(new Set(calls[0]).size); // no duplicates sent
    expect(a.documents).toBeLessThanOrEqual(5 * (train.length + test.length));
    expect(a.sentences).toBe(2 * a.documents);
    // Identical sentence vectors → max-sim equals the document cosine: same choices and figures.
    expect(a.rows[1]!.grid).toEqual(a.rows[0]!.grid);
    const shuffled = test.map((q, i) => ({ ...q, relevant: new Set([docs[(i * 13 + 5) % docs.length]!.id]) }));
    const b = await runSentenceProbe(input, train, shuffled, sentences, embed, 5);
    expect(b.rows.map((r) => [r.chosen_w, r.train_ndcg10])).toEqual(a.rows.map((r) => [r.chosen_w, r.train_ndcg10]));
  });
});
