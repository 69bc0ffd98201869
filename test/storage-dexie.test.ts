import { describe, expect, it } from 'vitest';
import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { databaseName, SCHEMA_VERSIONS } from '../src/adapters/storage-dexie.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';

describe('Dexie schema history', () => {
  it('is append-only: released versions keep their exact layout', () => {
    // Editing a released version corrupts users' databases; add a new version instead.
    expect(SCHEMA_VERSIONS[0]).toEqual({
      version: 1,
      stores: {
        meta: 'key',
        memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash',
        vectors: 'label, gen',
        tombstones: 'label, gen',
        staged: '[embedderId+id], embedderId',
      },
    });
    expect(SCHEMA_VERSIONS[1]!.version).toBe(2);
    expect(SCHEMA_VERSIONS[1]!.stores).toEqual({ memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms' });
    expect(SCHEMA_VERSIONS[2]!).toMatchObject({ version: 3, stores: { importUndo: '[importId+id], importId' } });
    expect(SCHEMA_VERSIONS[3]!).toMatchObject({
      version: 4,
      stores: { memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms, *linkTargets', conflicts: 'id, status, newId, oldId' },
    });
    expect(SCHEMA_VERSIONS[4]!).toMatchObject({ version: 5, stores: { journal: '++seq, ts, id, group, op' } });
    expect(SCHEMA_VERSIONS[5]!).toMatchObject({ version: 6, stores: { trash: '++seq, id, deletedAt' } });
    expect(SCHEMA_VERSIONS[6]!.version).toBe(7);
    expect(SCHEMA_VERSIONS[7]!).toMatchObject({
      version: 8,
      stores: { memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms, *linkTargets, [createdAt+id], polarity' },
    });
    const versions = SCHEMA_VERSIONS.map((v) => v.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });

  it('v1 → v2: a database written with the v1 layout opens, answers, and gains the lexical index', async () => {
    const name = uniqueName('v1');
    const legacy = new Dexie(databaseName(name));
    legacy.version(1).stores(SCHEMA_VERSIONS[0]!.stores);
    const embedder = createHashEmbedder({ dim: 16, id: 'legacy' });
    const [vector] = await embedder.embed(['written by v1']);
    await legacy.table('meta').put({ key: 'store', value: { schemaVersion: 1, embedderId: 'legacy', dim: 16, generation: 1, nextLabel: 1, createdAt: 1 } });
    await legacy.table('memories').put({
      id: 'm1', text: 'written by v1', type: 'semantic', tags: [], importance: 0.5, createdAt: 1, lastAccessed: 1, accessCount: 0,
      source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted',
      contentHash: '', validFrom: 0, validUntil: 0, label: 0,
    });
    await legacy.table('vectors').put({ label: 0, id: 'm1', vector, gen: 1 });
    legacy.close();

    const store = await createMemory({ name, embedder, index: 'exact' });
    expect((await store.recall('written by v1'))[0]!.memory.id).toBe('m1');
    expect((await store.stats()).schemaVersion).toBe(8);
    // The v2 upgrade indexed the old row's terms: the corpus lexical index finds it by a word.
    const lexical = await store.recall('written', { mode: 'hybrid', lexicalIndex: 'corpus', weights: { cosine: 0, lexical: 1, recency: 0, importance: 0 } });
    expect(lexical[0]!.memory.id).toBe('m1');
    expect(lexical[0]!.score).toBeGreaterThan(0);
    await store.close();
    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(8);
    // v8 indexed the old row's polarity.
    expect(await raw.table('memories').where('polarity').equals(0).count()).toBe(1);
    const row = await raw.table('memories').get('m1');
    expect(row.terms).toEqual(['written', 'by', 'v1']);
    expect(row.linkTargets).toEqual([]);
    expect((await raw.table('meta').get('store')).value).toMatchObject({ lexicalDocs: 1, lexicalLength: 3 });
    raw.close();
  });
});

describe('storage failures', () => {
  it('a quota error surfaces as STORAGE_QUOTA and leaves the store unchanged', async () => {
    const store = await openTestStore();
    await store.remember('kept before the quota ran out');
    await store.durability(); // the open's background durability check has written what it writes
    const proto = globalThis.IDBObjectStore.prototype as unknown as Record<'add' | 'put', (...args: unknown[]) => unknown>;
    const original = { add: proto.add, put: proto.put };
    let armed = true;
    const failOnce = (method: 'add' | 'put') =>
      function (this: unknown, ...args: unknown[]) {
        if (armed) {
          armed = false;
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        }
        return original[method].apply(this, args);
      };
    proto.add = failOnce('add');
    proto.put = failOnce('put');
    try {
      await expect(store.remember('this one does not fit')).rejects.toMatchObject({ code: 'STORAGE_QUOTA' });
    } finally {
      proto.add = original.add;
      proto.put = original.put;
    }
    expect(await store.count()).toBe(1);
    expect((await store.stats()).index.size).toBe(1);
    expect((await store.stats()).index.generation).toBe(1);
    // And the store still works afterwards.
    await store.remember('fits now');
    expect(await store.count()).toBe(2);
    await store.close();
  });
});
