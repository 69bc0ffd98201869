/**
 * Recall's reads served from memory (issue #26's latency): the lexical index held in memory
 * gives exactly the BM25 top an exhaustive scorer gives, and the storage core's read cache stays
 * what storage says through this store's own writes and another handle's (writers elsewhere:
 * foreign-writes.test.ts).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openDexieEngine } from '../src/adapters/storage-dexie.ts';
import { createMemoryEngine, memoryStorages } from '../src/adapters/storage-memory.ts';
import { bm25Idf, bm25TermScore } from '../src/core/domain/bm25.ts';
import { roundToHalf } from '../src/core/domain/half-float.ts';
import { lexicalFields } from '../src/core/domain/lexical-index.ts';
import { TermIndex } from '../src/core/domain/term-index.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import type { JournalContext, MemoryStorage } from '../src/core/ports.ts';
import { storageOver, type StorageEngine } from '../src/core/storage/index.ts';
import { CACHED_BATCH } from '../src/core/storage/recording-tx.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { mulberry32 } from './helpers/prng.ts';
import { uniqueName } from './helpers/store.ts';

const DIM = 8;
const META = { schemaVersion: 10, embedderId: 'test-embedder', dim: DIM, generation: 0, nextLabel: 0, createdAt: NOW };
const vec = (seed: number): Float32Array => roundToHalf(Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7 + i)));
let groups = 0;
const ctx = (op = 'remember'): JournalContext => ({ ts: NOW, op, actor: 'lib', group: `g${++groups}`, meta: {} });

/** Words with a Zipf-like spread: a few in most documents, many rare. */
function corpus(n: number, seed: number): string[] {
  const random = mulberry32(seed);
  const word = (): string => `w${Math.floor(Math.exp(random() * Math.log(400)))}x`;
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(random() * 12) }, word).join(' '));
}

type Fields = ReturnType<typeof lexicalFields>;

/** BM25 of every document, exhaustively, with the corpus statistics of the live documents. */
function exhaustive(fields: Map<number, Fields>, query: string[], k: number, exclude = new Set<number>()): { label: number; score: number }[] {
  const n = fields.size;
  const total = [...fields.values()].reduce((s, f) => s + f.termLength, 0);
  const avg = n ? total / n : 0;
  const terms = [...new Set(query)];
  const df = new Map(terms.map((t) => [t, [...fields.values()].filter((f) => f.terms.includes(t)).length]));
  return [...fields]
    .filter(([label, f]) => !exclude.has(label) && terms.some((t) => f.terms.includes(t)))
    .map(([label, f]) => ({
      label,
      score: terms.reduce((s, t) => {
        const i = f.terms.indexOf(t);
        return i < 0 ? s : s + bm25TermScore(bm25Idf(n, df.get(t)!), f.termCounts[i]!, f.termLength, avg);
      }, 0),
    }))
    .sort((a, b) => b.score - a.score || a.label - b.label)
    .slice(0, k);
}

/** Same scores in the same order; labels may differ only where scores tie (within rounding). */
function expectSameTop(got: { label: number; score: number }[], want: { label: number; score: number }[]): void {
  expect(got.length).toBe(want.length);
  got.forEach((h, i) => {
    expect(h.score).toBeCloseTo(want[i]!.score, 9);
    if (Math.abs(h.score - (want[i + 1]?.score ?? -1)) > 1e-9 && Math.abs(h.score - (want[i - 1]?.score ?? -1)) > 1e-9) expect(h.label).toBe(want[i]!.label);
  });
}

describe('TermIndex: the lexical index held in memory', () => {
  it('gives the exhaustive BM25 top k, through removals, re-indexing and exclusions', () => {
    const random = mulberry32(5);
    const texts = corpus(1500, 9);
    const docs = new Map<number, string>();
    const index = new TermIndex();
    texts.forEach((text, label) => {
      docs.set(label, text);
      index.add(label, lexicalFields(text));
    });
    // Out of order, taken out, put back with other words.
    for (let i = 0; i < 300; i++) {
      const label = Math.floor(random() * texts.length);
      if (random() < 0.5) {
        docs.delete(label);
        index.remove(label);
      } else {
        const text = corpus(1, 100 + i)[0]!;
        docs.set(label, text);
        index.add(label, lexicalFields(text));
      }
    }
    expect(index.documents).toBe(docs.size);
    const fields = new Map([...docs].map(([label, text]) => [label, lexicalFields(text)]));
    for (let q = 0; q < 40; q++) {
      const query = lexicalTerms(corpus(1, 1000 + q)[0]!);
      for (const k of [1, 10, 60]) {
        const exclude = new Set([...docs.keys()].filter(() => random() < 0.05));
        expectSameTop(index.top(query, k, exclude), exhaustive(fields, query, k, exclude));
      }
      for (const t of query) expect(index.documentFrequency(t)).toBe([...fields.values()].filter((f) => f.terms.includes(t)).length);
    }
  });

  it('long churn (every memory edited many times) keeps its answers and its memory bounded', () => {
    const index = new TermIndex();
    const texts = corpus(200, 21);
    for (let round = 0; round < 60; round++) {
      texts.forEach((text, i) => {
        // An edit takes a new label, as the store gives one.
        if (round > 0) index.remove((round - 1) * 200 + i);
        index.add(round * 200 + i, lexicalFields(round % 2 ? text : `${text} again`));
      });
    }
    expect(index.documents).toBe(200);
    const fields = new Map(texts.map((text, i) => [59 * 200 + i, lexicalFields(`${text}`)]));
    const query = lexicalTerms(corpus(1, 5)[0]!);
    expectSameTop(index.top(query, 10), exhaustive(fields, query, 10));
    expect((index as unknown as { forward: Int32Array }).forward.length).toBeLessThan(64 * 1024);
  });

  it('writing a memory again with the same text (a touch, a tag edit) changes nothing in it', () => {
    const index = new TermIndex();
    index.add(4, lexicalFields('deploy the staging cluster'));
    const size = (): number => (index as unknown as { forwardSize: number }).forwardSize;
    const before = size();
    for (let i = 0; i < 100; i++) index.add(4, lexicalFields('deploy the staging cluster'));
    expect(size()).toBe(before);
    expect(index.documents).toBe(1);
    // A changed text is indexed again.
    index.add(4, lexicalFields('deploy production'));
    expect(index.top(lexicalTerms('staging'), 5)).toEqual([]);
    expect(index.top(lexicalTerms('production'), 5).map((h) => h.label)).toEqual([4]);
  });

  it('answers nothing for absent terms and an empty index, and counts lengths', () => {
    const index = new TermIndex();
    expect(index.top(['a'], 5)).toEqual([]);
    index.add(3, lexicalFields('deploy the staging cluster'));
    index.add(7, lexicalFields('deploy production'));
    expect(index.top(lexicalTerms('nothing here'), 5)).toEqual([]);
    expect(index.top(lexicalTerms('staging deploy'), 5).map((h) => h.label)).toEqual([3, 7]);
    expect(index.averageLength).toBeCloseTo((lexicalFields('deploy the staging cluster').termLength + 2) / 2, 12);
    index.remove(3);
    index.remove(3);
    expect(index.documents).toBe(1);
    expect(index.top(lexicalTerms('staging'), 5)).toEqual([]);
  });
});

/** What a storage's lexical candidates are, as ids. */
async function candidates(storage: MemoryStorage, text: string, limit = 10): Promise<string[]> {
  return (await storage.lexicalCandidates(lexicalTerms(text), limit)).candidates.map((c) => c.memory.id);
}

describe('the read cache stays what storage says', () => {
  it('through every kind of own write: insert, edit, re-embed, graph changes, forget, import and its rollback', async () => {
    const engine = createMemoryEngine();
    const s = storageOver(engine);
    const fresh = (): MemoryStorage => storageOver({ ...engine, id: 'elsewhere', close: () => undefined } as StorageEngine);
    await s.initMeta(META);
    const same = async (query: string): Promise<void> => {
      await s.lexicalStats();
      expect(await candidates(s, query)).toEqual(await candidates(fresh(), query));
    };
    await s.insert([makeMemory('a', 'the staging cluster'), makeMemory('b', 'production cluster'), makeMemory('c', 'lunch at noon')], [vec(1), vec(2), vec(3)], ctx());
    expect(await candidates(s, 'cluster staging')).toEqual(['a', 'b']);
    // Edit with a new vector: a new label, the old one gone.
    const a = (await s.get('a'))!;
    await s.replace(a, { ...a, text: 'the canary cluster' }, vec(4), ctx('edit'));
    await same('staging canary cluster');
    expect(await candidates(s, 'staging')).toEqual([]);
    // Metadata only: the label stays.
    const b = (await s.get('b'))!;
    await s.replace(b, { ...b, tags: ['ops'] }, undefined, ctx('edit'));
    expect((await s.getByLabels([(await s.labelsOf(['b']))[0]!])).get((await s.labelsOf(['b']))[0]!)!.tags).toEqual(['ops']);
    await s.touch(['b'], NOW + 5);
    expect((await s.getByLabels([(await s.labelsOf(['b']))[0]!])).values().next().value!.accessCount).toBe(1);
    // Forget.
    await s.remove('c', ctx('forget'));
    await same('lunch noon');
    // Re-embedding relabels every memory.
    await s.stageVectors([{ id: 'a', contentHash: (await s.get('a'))!.contentHash, vector: vec(7) }, { id: 'b', contentHash: (await s.get('b'))!.contentHash, vector: vec(8) }], 'other');
    const before = await s.labelsOf(['a', 'b']);
    expect([...(await s.vectorsOf(before as number[])).keys()]).toEqual(before);
    await s.commitStaged('other', DIM, ctx('reindex'));
    await same('canary production cluster');
    // The vectors follow the new labels; the old labels hold none.
    expect((await s.vectorsOf(before as number[])).size).toBe(0);
    const after = (await s.labelsOf(['a', 'b'])) as number[];
    expect([...(await s.vectorsOf(after)).values()]).toEqual([vec(7), vec(8)]);
    // Graph changes forget.
    await s.applyGraphChanges({ forget: ['a'] }, ctx('forget'));
    await same('canary cluster');
    expect(await candidates(s, 'canary')).toEqual([]);
    // An import, then its rollback.
    await s.beginImport({ importId: 'imp-1', owner: 'me', startedAt: NOW, heartbeatAt: NOW, ttl: 30, lock: null });
    await s.importBatch('imp-1', [{ memory: makeMemory('d', 'imported staging notes'), vector: vec(9) }, { memory: { ...makeMemory('b', 'production cluster moved'), tags: [] }, vector: vec(10) }], ctx('import'));
    await same('staging production cluster moved');
    expect(await candidates(s, 'imported')).toEqual(['d']);
    await s.rollbackImport('imp-1');
    await same('staging production cluster moved imported');
    expect(await candidates(s, 'imported')).toEqual([]);
  });

  it('the lexical top leaves out what the caller holds and refuses, and fills their places', async () => {
    const s = storageOver(createMemoryEngine());
    await s.initMeta(META);
    const texts = ['staging cluster', 'staging cluster one', 'staging cluster two', 'staging notes', 'the staging area', 'staging'];
    await s.insert(texts.map((t, i) => makeMemory(`m${i}`, t)), texts.map((_, i) => vec(i)), ctx());
    const all = await candidates(s, 'staging cluster', 10);
    expect(all).toHaveLength(6);
    const labels = (await s.labelsOf(all)) as number[];
    const { candidates: rest } = await s.lexicalCandidates(lexicalTerms('staging cluster'), 3, { exclude: new Set(labels.slice(0, 2)), accept: (m) => m.id !== all[3] });
    expect(rest.map((c) => c.memory.id)).toEqual([all[2], all[4], all[5]]);
  });

  it('what a caller gets is its own: changing it changes nothing cached', async () => {
    const s = storageOver(createMemoryEngine());
    await s.initMeta(META);
    await s.insert([makeMemory('a', 'the staging cluster')], [vec(1)], ctx());
    const [label] = await s.labelsOf(['a']);
    const first = (await s.getByLabels([label!])).get(label!)!;
    first.tags.push('mutated');
    first.links.push({ to: 'x', rel: 'related' });
    first.text = 'changed';
    const again = (await s.getByLabels([label!])).get(label!)!;
    expect(again.tags).toEqual([]);
    expect(again.links).toEqual([]);
    expect(again.text).toBe('the staging cluster');
    const [candidate] = (await s.lexicalCandidates(lexicalTerms('staging'), 5)).candidates;
    candidate!.memory.tags.push('mutated');
    expect((await s.getByLabels([label!])).get(label!)!.tags).toEqual([]);
  });

  it('another handle on the same data in this realm: its commits drop this cache', async () => {
    const storages = memoryStorages();
    const one = storages('shared');
    const two = storages('shared');
    await one.initMeta(META);
    await one.insert([makeMemory('a', 'the staging cluster')], [vec(1)], ctx());
    const [label] = await one.labelsOf(['a']);
    expect(await candidates(one, 'staging')).toEqual(['a']);
    await one.getByLabels([label!]);
    const a = (await two.get('a'))!;
    await two.replace(a, { ...a, tags: ['seen-by-one'] }, undefined, ctx('edit'));
    await two.insert([makeMemory('b', 'staging again')], [vec(2)], ctx());
    expect((await one.getByLabels([label!])).get(label!)!.tags).toEqual(['seen-by-one']);
    expect(await candidates(one, 'staging')).toEqual(['b', 'a']);
    expect((await one.vectorsOf([label!])).get(label!)).toEqual(vec(1));
    const tagged = (await two.get('a'))!;
    await two.replace(tagged, { ...tagged, text: 'the staging cluster, moved' }, vec(5), ctx('edit'));
    expect((await one.vectorsOf([label!])).size).toBe(0);
    expect((await one.getByLabels([label!])).size).toBe(0);
  });

  it('keeps the rows and vectors of a small write, not those of a bulk one (a sync page, an import)', async () => {
    const inner = createMemoryEngine();
    const reads: string[] = [];
    const counting: StorageEngine = {
      ...inner,
      transaction: (mode, tables, body, options) =>
        inner.transaction(mode, tables, (tx) => body({ ...tx, getMany: (table, keys) => (reads.push(table), tx.getMany(table, keys)) }), options),
    };
    const s = storageOver(counting);
    await s.initMeta(META);
    const read = async (ids: string[]): Promise<string[]> => {
      const labels = (await s.labelsOf(ids)) as number[];
      reads.length = 0;
      await s.getByLabels(labels);
      await s.vectorsOf(labels);
      return [...reads];
    };
    await s.insert([makeMemory('small-1', 'a remembered turn'), makeMemory('small-2', 'another turn')], [vec(1), vec(2)], ctx());
    expect(await read(['small-1', 'small-2'])).toEqual([]);
    const bulk = Array.from({ length: CACHED_BATCH + 1 }, (_, i) => makeMemory(`bulk-${i}`, `synced memory ${i}`));
    await s.insert(bulk, bulk.map((_, i) => vec(10 + i)), ctx('sync'));
    const ids = bulk.map((m) => m.id);
    expect(await read(ids)).toEqual(['memoryRows', 'vectors']);
    // Read once, kept: the next read is served from memory, and the lexical index has them all.
    expect(await read(ids)).toEqual([]);
    expect(await candidates(s, 'synced memory', 100)).toHaveLength(CACHED_BATCH + 1);
  });

  it('a large store searches the postings in storage until its index is read, then the index', async () => {
    const name = uniqueName('read-cache-large');
    const store = await createMemory({ name, embedder: createHashEmbedder({ dim: 16 }), index: 'exact' });
    const texts = corpus(400, 3);
    await store.rememberMany(texts.map((text) => ({ text })));
    await store.close();
    const engine = await openDexieEngine(name);
    const s = storageOver(engine, { lexicalIndexWaitUpTo: 0 });
    const query = lexicalTerms(corpus(1, 77)[0]!);
    const early = await s.lexicalCandidates(query, 20);
    // Read in the background meanwhile; later calls use it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = await s.lexicalCandidates(query, 20);
    const waited = await storageOver(await openDexieEngine(name)).lexicalCandidates(query, 20);
    expect(late.candidates.map((c) => c.memory.id)).toEqual(waited.candidates.map((c) => c.memory.id));
    expect(early.documentFrequencies).toEqual(late.documentFrequencies);
    // Both hold the best match; the storage path nominates by summed IDF, the index by BM25.
    expect(early.candidates[0]!.memory.id).toBe(late.candidates[0]!.memory.id);
    s.close();
  });
});
