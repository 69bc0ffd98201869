import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { databaseName, openDexieStorage, SCHEMA_VERSION, SCHEMA_VERSIONS } from '../src/adapters/storage-dexie.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const TOPICS = ['deploy', 'staging', 'cluster', 'lint', 'format', 'code', 'database', 'backups', 'nightly', 'coffee', 'tea', 'review'];
const corpus = (n: number, tag = 'note'): string[] =>
  Array.from({ length: n }, (_, i) => `${TOPICS[i % 12]} ${TOPICS[(i * 7) % 12]} ${TOPICS[(i * 5 + 3) % 12]} ${tag} ${i}`);
const open = (name: string, snapshotDelayMs = 50): Promise<LocalMemory> =>
  // Maintenance off: its background jobs would write while two instances share the database.
  createMemory({ name, embedder: createHashEmbedder({ id: 'hash', dim: 96 }), index: 'hnsw-i8', snapshotDelayMs, maintenance: { enabled: false } });

/** Every memory finds itself first by its own text: the index holds exactly what storage holds. */
async function consistent(store: LocalMemory, texts: string[]): Promise<void> {
  const stats = await store.stats();
  expect(stats.index.kind).toBe('hnsw-i8');
  expect(stats.index.size).toBe(stats.count); // size counts what is still pending insertion too
  for (const text of texts) {
    const [top] = await store.recall(text, { k: 1, touch: false });
    expect(top!.memory.text).toBe(text);
  }
}

async function blockRows(name: string): Promise<number> {
  const raw = new Dexie(databaseName(name));
  await raw.open();
  try {
    return await raw.table('indexBlocks').count();
  } finally {
    raw.close();
  }
}

describe('a store on the int8 HNSW index', () => {
  it('reopens from its block snapshot, replays unsnapshotted writes, and survives a crash mid-insert', async () => {
    const name = uniqueName('i8-reopen');
    const first = await open(name);
    const texts = corpus(1500);
    await first.rememberMany(texts, { batchSize: 500 });
    await first.close();
    expect(await blockRows(name)).toBe(5); // 2 chunks × (vectors + links) + the manifest

    const second = await open(name, 60_000);
    expect(second.opened).toBe('snapshot');
    await consistent(second, [texts[0]!, texts[777]!, texts[1499]!]);

    // A snapshot is written while an insert is under way, then the tab dies (no close(), no
    // later snapshot): the blocks hold some generation in the middle of the insert.
    const more = corpus(1200, 'late');
    const inserting = second.rememberMany(more, { batchSize: 100 });
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([inserting, second.flush()]);
    const late = await second.remember('coffee written after the last snapshot');
    const third = await open(name, 60_000);
    expect(['snapshot', 'snapshot+replay']).toContain(third.opened);
    await consistent(third, [texts[3]!, more[0]!, more[600]!, more[1199]!, late.memory.text]);
    expect((await third.stats()).count).toBe(2701);
    await third.close();
    await second.close();
  }, 60_000);

  it('recall reports the stored vectors\' cosines and the exact index\'s order (the int8 hits are rescored from storage)', async () => {
    const name = uniqueName('i8-rescore');
    const embedder = createHashEmbedder({ id: 'hash', dim: 96 });
    const i8 = await createMemory({ name, embedder, index: 'hnsw-i8' });
    const exact = await createMemory({ name: `${name}-exact`, embedder, index: 'exact' });
    const texts = corpus(800);
    await i8.rememberMany(texts);
    await exact.rememberMany(texts);
    for (const q of ['deploy staging cluster', 'coffee tea review', 'lint format code note 17']) {
      const got = await i8.recall(q, { k: 10, touch: false });
      const want = await exact.recall(q, { k: 10, touch: false });
      expect(got.map((h) => h.memory.text)).toEqual(want.map((h) => h.memory.text));
      got.forEach((h, i) => expect(h.cosine).toBeCloseTo(want[i]!.cosine!, 6));
    }
    await i8.close();
    await exact.close();
  });

  it('semantic recall on the int8 index: the exact cosine at every rank, the hits\' vectors read beside the first rows', async () => {
    const name = uniqueName('i8-side-by-side');
    const embedder = createHashEmbedder({ id: 'hash', dim: 96 });
    // Each vector read waits a moment and notes whether rows were asked for meanwhile.
    let rowReads = 0;
    const overlapped: boolean[] = [];
    const watching = async (): Promise<MemoryStorage> => {
      const storage = await openDexieStorage(name);
      return {
        ...storage,
        getByLabels: (labels) => ((rowReads += 1), storage.getByLabels(labels)),
        vectorsOf: async (labels) => {
          const before = rowReads;
          await new Promise((resolve) => setTimeout(resolve, 20));
          overlapped.push(rowReads > before);
          return storage.vectorsOf(labels);
        },
      };
    };
    const i8 = await createMemory({ name, embedder, index: 'hnsw-i8', storage: watching });
    const exact = await createMemory({ name: `${name}-exact`, embedder, index: 'exact' });
    // Six words of 300 each: cosines without the ties of a templated corpus.
    const vocabulary = Array.from({ length: 300 }, (_, i) => `w${(i * 7919).toString(36)}`);
    let seed = 7;
    const word = (): string => vocabulary[(seed = (seed * 48271) % 2147483647) % vocabulary.length]!;
    const texts = Array.from({ length: 1_500 }, () => Array.from({ length: 6 }, word).join(' '));
    await i8.rememberMany(texts);
    await exact.rememberMany(texts);
    const queries = Array.from({ length: 8 }, () => Array.from({ length: 3 }, word).join(' '));
    overlapped.length = 0;
    for (const q of queries) {
      const got = await i8.recall(q, { k: 10, touch: false, mode: 'semantic' });
      const want = await exact.recall(q, { k: 10, touch: false, mode: 'semantic' });
      // The same cosine at every rank: no better memory left unread (equal cosines may swap).
      expect(got).toHaveLength(10);
      got.forEach((h, i) => expect(h.cosine).toBeCloseTo(want[i]!.cosine!, 6));
    }
    // Each recall's read of its hits' vectors had the first rows asked for while under way (the
    // store's one sample of vectors for its calibration background is the read that had not).
    expect(overlapped.filter(Boolean)).toHaveLength(queries.length);
    await i8.close();
    await exact.close();
  });

  it('opens from a snapshot without counting the vectors when the metadata row agrees; counts when it does not, and the count decides', async () => {
    const name = uniqueName('i8-kept-count');
    const first = await open(name);
    const texts = corpus(300);
    await first.rememberMany(texts);
    await first.close();
    let counts = 0;
    const reopen = (): Promise<LocalMemory> =>
      createMemory({
        name,
        embedder: createHashEmbedder({ id: 'hash', dim: 96 }),
        index: 'hnsw-i8',
        maintenance: { enabled: false },
        storage: async () => {
          const storage = await openDexieStorage(name);
          return { ...storage, vectorCount: () => ((counts += 1), storage.vectorCount()) };
        },
      });
    const meta = async (change: (value: { lexicalDocs: number }) => void): Promise<void> => {
      const raw = new Dexie(databaseName(name));
      await raw.open();
      await raw.table('meta').where('key').equals('store').modify((row: { value: { lexicalDocs: number } }) => change(row.value));
      raw.close();
    };
    const second = await reopen();
    expect([second.opened, counts]).toEqual(['snapshot', 0]);
    await consistent(second, [texts[0]!, texts[299]!]);
    await second.close();
    // A kept count that is off: the vectors are counted, they agree with the snapshot, it stays.
    await meta((value) => (value.lexicalDocs -= 1));
    counts = 0;
    const third = await reopen();
    expect([third.opened, counts]).toEqual(['snapshot', 1]);
    await third.close();
    // A vector gone behind the store's back, the kept count moved with it: the snapshot holds
    // one vector too many, the count says so, and the index is rebuilt from storage.
    const raw = new Dexie(databaseName(name));
    await raw.open();
    await raw.table('vectors').delete(7);
    await raw.table('memoryRows').delete(7);
    raw.close();
    await meta((value) => (value.lexicalDocs = 299));
    counts = 0;
    const fourth = await reopen();
    expect(fourth.opened).toBe('rebuilt');
    expect(counts).toBe(1);
    expect((await fourth.stats()).index.size).toBe(299);
    await fourth.close();
  });

  it('v8 → v9: a store written with the v8 layout gains the index block table and snapshots into it', async () => {
    const name = uniqueName('i8-v8');
    const embedder = createHashEmbedder({ id: 'hash', dim: 96 });
    const texts = corpus(300);
    const vectors = await embedder.embed(texts);
    const legacy = new Dexie(databaseName(name));
    for (const v of SCHEMA_VERSIONS.filter((s) => s.version <= 8)) legacy.version(v.version).stores(v.stores);
    await legacy.table('meta').put({ key: 'store', value: { schemaVersion: 8, embedderId: 'hash', dim: 96, generation: 1, nextLabel: 300, createdAt: 1, lexicalDocs: 300, lexicalLength: 1500 } });
    await legacy.table('memories').bulkPut(
      texts.map((text, i) => ({
        id: `m${i}`, text, type: 'semantic', tags: [], importance: 0.5, createdAt: 1 + i, lastAccessed: 1 + i, accessCount: 0,
        source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted',
        contentHash: `h${i}`, validFrom: 0, validUntil: 0, label: i, terms: [], termCounts: [], termLength: 0, linkTargets: [],
      })),
    );
    await legacy.table('vectors').bulkPut(vectors.map((vector, i) => ({ label: i, id: `m${i}`, vector, gen: 1 })));
    expect(legacy.verno).toBe(8);
    legacy.close();

    const upgraded = await createMemory({ name, embedder, index: 'hnsw-i8', snapshotDelayMs: 50 });
    expect(upgraded.opened).toBe('rebuilt');
    expect((await upgraded.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    await consistent(upgraded, [texts[0]!, texts[150]!, texts[299]!]);
    await upgraded.close();
    expect(await blockRows(name)).toBe(3);
    const again = await createMemory({ name, embedder, index: 'hnsw-i8' });
    expect(again.opened).toBe('snapshot');
    expect((await again.get('m7'))!.text).toBe(texts[7]);
    await again.close();
  });
});
