import { describe, expect, it } from 'vitest';
import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { databaseName, openDexieStorage, SCHEMA_VERSION, SCHEMA_VERSIONS } from '../src/adapters/storage-dexie.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { createMemory } from '../src/local.ts';
import { toHalf } from '../src/core/domain/half-float.ts';
import type { ProgressEvent } from '../src/core/types.ts';
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
    expect(SCHEMA_VERSIONS[8]!).toMatchObject({ version: 9, stores: { indexBlocks: '' } });
    expect(SCHEMA_VERSIONS[9]!).toMatchObject({ version: 10, stores: {} });
    expect(SCHEMA_VERSIONS[10]!).toMatchObject({
      version: 11,
      stores: {
        memories: 'id, &label, type, *tags, contentHash, *terms, *linkTargets, [createdAt+id], superseded, positive',
        journal: '++seq, ts, id, group',
      },
    });
    expect(SCHEMA_VERSIONS[11]!).toMatchObject({
      version: 12,
      stores: {
        memories: null,
        memoryRows: 'label, &id, type, *tags, contentHash, *terms, *linkTargets, [createdAt+id], superseded, positive',
      },
    });
    expect(SCHEMA_VERSIONS[12]!).toMatchObject({ version: 13, stores: {} });
    expect(SCHEMA_VERSIONS[13]!).toMatchObject({
      version: 14,
      stores: { memoryRows: 'label, &id, type, *tags, *terms, *linkTargets, [createdAt+label], superseded, positive' },
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
    expect((await store.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    // The v2 upgrade indexed the old row's terms: the corpus lexical index finds it by a word.
    const lexical = await store.recall('written', { mode: 'hybrid', lexicalIndex: 'corpus', weights: { cosine: 0, lexical: 1, recency: 0, importance: 0 } });
    expect(lexical[0]!.memory.id).toBe('m1');
    expect(lexical[0]!.score).toBeGreaterThan(0);
    await store.close();
    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(SCHEMA_VERSION);
    // v11: no positive polarity, so no entry in the sparse index.
    expect(await raw.table('memoryRows').where('positive').equals(1).count()).toBe(0);
    const row = await raw.table('memoryRows').where('id').equals('m1').first();
    // v10: "by" is a stop word.
    expect(row.terms).toEqual(['written', 'v1']);
    // v4 gave the old row its (empty) link targets; the recall's touch wrote it again, and since
    // v13 a row leaves its empty lists out (core/storage/row-codec.ts).
    expect(row).not.toHaveProperty('linkTargets');
    expect((await raw.table('meta').get('store')).value).toMatchObject({ lexicalDocs: 1, lexicalLength: 2 });
    raw.close();
  });

  it('v8 → v10: terms written by the old tokeniser are derived again (stop words out, stems in, numbers whole)', async () => {
    const name = uniqueName('v8');
    const legacy = new Dexie(databaseName(name));
    for (const v of SCHEMA_VERSIONS.slice(0, 8)) legacy.version(v.version).stores(v.stores);
    const embedder = createHashEmbedder({ dim: 16, id: 'legacy' });
    const texts = ['Team office moved to Leopoldstraße 8, München.', 'The standup is at 9:30 on Tuesdays.'];
    const vectors = await embedder.embed(texts);
    // What v8 stored: every word token, unstemmed, "9:30" in pieces.
    const oldTerms = [
      ['team', 'office', 'moved', 'to', 'leopoldstraße', '8', 'münchen'],
      ['the', 'standup', 'is', 'at', '9', '30', 'on', 'tuesdays'],
    ];
    await legacy.table('meta').put({
      key: 'store',
      value: { schemaVersion: 8, embedderId: 'legacy', dim: 16, generation: 1, nextLabel: 2, createdAt: 1, lexicalDocs: 2, lexicalLength: 15 },
    });
    await legacy.table('meta').put({ key: 'setting:canary', value: 'c0ffee00-0000-4000-8000-000000000008' });
    for (const [i, text] of texts.entries()) {
      await legacy.table('memories').put({
        id: `m${i}`, text, type: 'semantic', tags: [], importance: 0.5, createdAt: 1, lastAccessed: 1, accessCount: 0,
        source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted',
        contentHash: '', validFrom: 0, validUntil: 0, surfacesWhen: [], label: i,
        terms: oldTerms[i], termCounts: oldTerms[i]!.map(() => 1), termLength: oldTerms[i]!.length, linkTargets: [],
      });
      await legacy.table('vectors').put({ label: i, id: `m${i}`, vector: vectors[i], gen: 1 });
    }
    legacy.close();

    const store = await createMemory({ name, embedder, index: 'exact' });
    expect((await store.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    const lexicalOnly = { mode: 'hybrid' as const, lexicalIndex: 'corpus' as const, weights: { cosine: 0, lexical: 1, recency: 0, importance: 0 } };
    // "moving" meets "moved" through the stem; "where", "is", "the" match nothing.
    const office = await store.recall('where is the office moving', { ...lexicalOnly, explain: true });
    expect(office[0]!.memory.id).toBe('m0');
    expect(office[0]!.explain!.signals.find((s) => s.name === 'lexical')!.details.matchedTerms).toEqual(['office', 'move']);
    expect((await store.recall('9:30', lexicalOnly))[0]!.memory.id).toBe('m1');
    await store.close();
    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect((await raw.table('memoryRows').get(1)).terms).toEqual(['standup', 'tuesdai', '9:30']);
    expect(await raw.table('memoryRows').where('terms').equals('the').count()).toBe(0);
    expect((await raw.table('meta').get('store')).value).toMatchObject({ schemaVersion: SCHEMA_VERSION, lexicalDocs: 2, lexicalLength: 9 });
    raw.close();
  });
});

/**
 * Opens with the tab dying at the `n`-th `method` call on `table` (an AbortError out of
 * IndexedDB, as when the page closes): the open must fail. Returns how many calls were seen.
 */
async function openDyingAt(method: 'add' | 'put', table: string, n: number, open: () => Promise<unknown>): Promise<number> {
  const proto = globalThis.IDBObjectStore.prototype as unknown as Record<'add' | 'put', (...args: unknown[]) => unknown>;
  const original = proto[method];
  let calls = 0;
  proto[method] = function (this: IDBObjectStore, ...args: unknown[]) {
    if (this.name === table && ++calls === n) throw new DOMException('The tab went away', 'AbortError');
    return original.apply(this, args);
  };
  try {
    await expect(open()).rejects.toThrow();
  } finally {
    proto[method] = original;
  }
  return calls;
}

/**
 * A database at schema `version` with its metadata row (`docs` memories booked) and the settings
 * a used store has beside it (the canary's value a string), and `n` texts with their vectors.
 */
async function legacyStore(name: string, version: number, n: number, docs: number) {
  const legacy = new Dexie(databaseName(name));
  for (const v of SCHEMA_VERSIONS.slice(0, version)) legacy.version(v.version).stores(v.stores);
  const embedder = createHashEmbedder({ dim: 32, id: 'legacy' });
  const texts = Array.from({ length: n }, (_, i) => `memory number ${i} about topic ${i % 17}`);
  const vectors = await embedder.embed(texts);
  await legacy.table('meta').bulkPut([
    { key: 'store', value: { schemaVersion: version, embedderId: 'legacy', dim: 32, generation: 1, nextLabel: n, createdAt: 1, lexicalDocs: docs, lexicalLength: 0 } },
    { key: 'setting:canary', value: `c0ffee00-0000-4000-8000-0000000000${version}` },
    { key: 'setting:maintenance', value: { enabled: true } },
  ]);
  return { legacy, embedder, texts, vectors };
}

/** A store written with the v10 layout: float32 vectors (with the memory id) in every table that holds one. */
async function writeV10Store(name: string, n: number) {
  const { legacy, embedder, texts, vectors } = await legacyStore(name, 10, n, n - 1);
  const memory = (i: number) => makeMemory(`m${i}`, texts[i]!, { createdAt: 1 + i, lastAccessed: 1, contentHash: `h${i}` });
  // Memories 0..n-2 are live; the last one is in the trash with its vector.
  // m5 is superseded by m6; m7 has positive polarity.
  await legacy.table('memories').bulkPut(
    Array.from({ length: n - 1 }, (_, i) => ({
      ...memory(i),
      ...(i === 5 ? { supersededBy: 'm6', supersededAt: 3 } : {}),
      ...(i === 7 ? { polarity: 1 as const } : {}),
      label: i, terms: [], termCounts: [], termLength: 0, linkTargets: [],
    })),
  );
  await legacy.table('vectors').bulkPut(Array.from({ length: n - 1 }, (_, i) => ({ label: i, id: `m${i}`, vector: vectors[i], gen: 1 })));
  await legacy.table('trash').put({ id: `m${n - 1}`, deletedAt: 5, actor: 'lib', memory: memory(n - 1), vector: vectors[n - 1] });
  await legacy.table('staged').put({ embedderId: 'next', id: 'm0', contentHash: 'h0', vector: vectors[0] });
  legacy.close();
  return { embedder, texts, vectors };
}

describe('schema v11: vectors as binary16', () => {
  it('v10 → v11: every stored vector is rewritten as binary16, with progress, and the store answers as before', async () => {
    const name = uniqueName('v10');
    const n = 400;
    const { embedder, texts, vectors } = await writeV10Store(name, n);
    const events: ProgressEvent[] = [];
    const store = await createMemory({ name, embedder, index: 'exact', onProgress: (e) => events.push(e) });
    // v11's events (v12 moves the rows after it, with totals of its own).
    const upgrade = events.filter((e): e is Extract<ProgressEvent, { kind: 'upgrade' }> => e.kind === 'upgrade' && e.total === 2 * n);
    // 399 memory rows, their 399 vectors, 1 trash row, 1 staged row.
    expect(upgrade[0]).toEqual({ kind: 'upgrade', done: 0, total: 2 * n });
    expect(upgrade.at(-1)).toEqual({ kind: 'upgrade', done: 2 * n, total: 2 * n });
    expect(upgrade.length).toBeGreaterThan(10);
    expect(upgrade.every((e, i) => i === 0 || e.done >= upgrade[i - 1]!.done)).toBe(true);
    // Each memory still comes back first for its own text (its vector survived the rewrite).
    for (const i of [0, 1, 57, 398]) expect((await store.recall(texts[i]!, { k: 1 }))[0]!.memory.id).toBe(`m${i}`);
    // The sparse indexes found the superseded and the positive memory.
    const stats = await store.stats();
    expect(stats.superseded).toBe(1);
    expect(stats.active).toBe(n - 2);
    expect((await store.recall(texts[5]!, { k: 3 })).map((h) => h.memory.id)).not.toContain('m5');
    // The trashed memory comes back with its vector, without the model.
    expect((await store.trashRestore(`m${n - 1}`))?.id).toBe(`m${n - 1}`);
    expect((await store.recall(texts[n - 1]!, { k: 1 }))[0]!.memory.id).toBe(`m${n - 1}`);
    await store.close();

    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(SCHEMA_VERSION);
    const row = await raw.table('vectors').get(57);
    expect(row.vector).toBeInstanceOf(Uint16Array);
    expect(row.id).toBeUndefined();
    expect(Array.from(row.vector)).toEqual(Array.from(toHalf(vectors[57]!)));
    expect((await raw.table('staged').get(['next', 'm0'])).vector).toBeInstanceOf(Uint16Array);
    expect(await raw.table('vectors').filter((r) => !(r.vector instanceof Uint16Array)).count()).toBe(0);
    expect((await raw.table('meta').get('store')).value.schemaVersion).toBe(SCHEMA_VERSION);
    const memories = raw.table('memoryRows');
    expect(await memories.where('superseded').above('').primaryKeys()).toEqual([5]);
    expect(await memories.where('positive').equals(1).primaryKeys()).toEqual([7]);
    expect(raw.table('journal').schema.indexes.map((i) => i.name).sort()).toEqual(['group', 'id', 'ts']);
    raw.close();
  });

  it('an upgrade that fails halfway changes nothing: the store stays at v10 whole, and the next open upgrades it', async () => {
    const name = uniqueName('v10-crash');
    const n = 300;
    const { embedder, texts, vectors } = await writeV10Store(name, n);
    // The tab dies after the upgrade has rewritten 150 vectors: it fails inside the upgrade.
    expect(await openDyingAt('put', 'vectors', 150, () => createMemory({ name, embedder, index: 'exact' }))).toBe(150);
    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(10);
    const rows = await raw.table('vectors').toArray();
    expect(rows).toHaveLength(n - 1);
    expect(rows.every((r) => r.vector instanceof Float32Array && r.id === `m${r.label}`)).toBe(true);
    expect(Array.from(rows[200]!.vector)).toEqual(Array.from(vectors[200]!));
    raw.close();

    const store = await createMemory({ name, embedder, index: 'exact' });
    expect((await store.stats()).count).toBe(n - 1);
    expect((await store.recall(texts[123]!, { k: 1 }))[0]!.memory.id).toBe('m123');
    await store.close();
  });

  it('a vector row still in float32 (written before v11) reads as it was', async () => {
    const name = uniqueName('f32-row');
    const storage = await openDexieStorage(name);
    await storage.initMeta({ schemaVersion: SCHEMA_VERSION, embedderId: 'e', dim: 4, generation: 0, nextLabel: 0, createdAt: NOW });
    const vector = Float32Array.from([0.1, -0.2, 0.3, 0.123456789]);
    const { labels } = await storage.insert([makeMemory('a', 'old row')], [vector], { ts: NOW, op: 'remember', actor: 'lib', group: 'g', meta: {} });
    storage.close();
    const raw = new Dexie(databaseName(name));
    await raw.open();
    await raw.table('vectors').put({ label: labels[0], id: 'a', vector, gen: 1 });
    raw.close();
    const again = await openDexieStorage(name);
    expect(Array.from((await again.vectorsOf(labels)).get(labels[0]!)!)).toEqual(Array.from(vector));
    for await (const page of again.pagesByCreated()) expect(Array.from(page[0]!.vector!)).toEqual(Array.from(vector));
    again.close();
  });
});

/** A store written with the v11 layout (rows keyed by id), `n` live memories; m5 superseded by m6, m7 positive, m3 → m4 linked. */
async function writeV11Store(name: string, n: number) {
  const { legacy, embedder, texts, vectors } = await legacyStore(name, 11, n, n);
  const links = [{ to: 'm4', rel: 'related', weight: 1 }];
  await legacy.table('memories').bulkPut(
    Array.from({ length: n }, (_, i) => ({
      ...makeMemory(`m${i}`, texts[i]!, { createdAt: 1 + i, lastAccessed: 1, contentHash: `h${i}`, tags: [`t${i % 3}`] }),
      ...(i === 5 ? { supersededBy: 'm6', supersededAt: 3, superseded: 'm6' } : {}),
      ...(i === 7 ? { polarity: 1 as const, positive: 1 } : {}),
      ...(i === 3 ? { links } : {}),
      label: i, terms: [], termCounts: [], termLength: 0, linkTargets: i === 3 ? ['m4'] : [],
    })),
  );
  await legacy.table('vectors').bulkPut(Array.from({ length: n }, (_, i) => ({ label: i, vector: toHalf(vectors[i]!), gen: 1 })));
  legacy.close();
  return { embedder, texts };
}

describe('schema v12: memory rows keyed by label', () => {
  it('v11 → v12: every row moves to the label-keyed table a page at a time, with progress, and the store answers by id as before', async () => {
    const name = uniqueName('v11');
    const n = 2_500;
    const { embedder, texts } = await writeV11Store(name, n);
    const events: ProgressEvent[] = [];
    const store = await createMemory({ name, embedder, index: 'exact', onProgress: (e) => events.push(e) });
    const upgrade = events.filter((e) => e.kind === 'upgrade');
    // v12 in pages of 2,000: 0, 2,000, 2,500; then v14's index build, started and done; then the
    // lexical terms brought up to version 2 (core/storage/lexical-rederive.ts), rows read a page at a time.
    expect(upgrade).toEqual([
      ...[0, 2_000, n].map((done) => ({ kind: 'upgrade', done, total: n })),
      { kind: 'upgrade', done: 0, total: null },
      { kind: 'upgrade', done: n, total: n },
      ...[2_000, n].map((done) => ({ kind: 'upgrade', done, total: n })),
    ]);
    expect((await store.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    for (const i of [0, 1, 2_001, n - 1]) expect((await store.recall(texts[i]!, { k: 1 }))[0]!.memory.id).toBe(`m${i}`);
    expect((await store.get('m2321'))?.text).toBe(texts[2321]);
    // The sparse indexes, tags and incoming links came along.
    const stats = await store.stats();
    expect(stats.superseded).toBe(1);
    expect((await store.recall(texts[5]!, { k: 3 })).map((h) => h.memory.id)).not.toContain('m5');
    // Counted from index keys alone, the superseded m5 (tag t2, created at 6) left out by its label.
    const counts = await store.aggregate({ createdEdges: [0, 1_001, 10_000] });
    expect(counts.tags.map((t) => [t.tag, t.count])).toEqual([['t0', 834], ['t1', 833], ['t2', 832]]);
    expect(counts.created).toEqual([999, 1_500]);
    // The time order (v14's index, built from the moved rows): newest first, by cursor too.
    expect((await store.listRecent({ limit: 2 })).map((m) => m.id)).toEqual([`m${n - 1}`, `m${n - 2}`]);
    expect((await store.listRecent({ limit: 1, before: 9, beforeId: 'm8' })).map((m) => m.id)).toEqual(['m7']);
    // A new text takes a new label: the row moves, and the id stays one memory.
    await store.edit('m9', { text: 'the ninth memory, rewritten' });
    expect((await store.recall('the ninth memory, rewritten', { k: 1 }))[0]!.memory.id).toBe('m9');
    await store.forget('m10');
    expect(await store.count()).toBe(n - 1);
    await store.close();
    const storage = await openDexieStorage(name);
    expect(await storage.incoming('m4')).toEqual([{ from: 'm3', rel: 'related' }]);
    storage.close();

    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(SCHEMA_VERSION);
    expect(raw.tables.map((t) => t.name)).not.toContain('memories');
    const rows = raw.table('memoryRows');
    expect(rows.schema.primKey.keyPath).toBe('label');
    expect(rows.schema.indexes.map((i) => i.name).sort()).toEqual(['[createdAt+label]', 'id', 'linkTargets', 'positive', 'superseded', 'tags', 'terms', 'type']);
    expect(await rows.count()).toBe(n - 1);
    expect(await rows.where('id').equals('m9').primaryKeys()).toEqual([n]);
    expect(await rows.where('superseded').above('').primaryKeys()).toEqual([5]);
    expect(await rows.where('positive').equals(1).primaryKeys()).toEqual([7]);
    // The settings came through untouched.
    expect((await raw.table('meta').get('setting:canary')).value).toBe('c0ffee00-0000-4000-8000-000000000011');
    raw.close();
  });

  it('a move that fails halfway changes nothing: the store stays at v11 whole, and the next open moves it', async () => {
    const name = uniqueName('v11-crash');
    const n = 3_000;
    const { embedder, texts } = await writeV11Store(name, n);
    // The tab dies on the second page.
    expect(await openDyingAt('add', 'memoryRows', 2_500, () => createMemory({ name, embedder, index: 'exact' }))).toBe(2_500);
    const raw = new Dexie(databaseName(name));
    await raw.open();
    expect(raw.verno).toBe(11);
    expect(raw.tables.map((t) => t.name)).not.toContain('memoryRows');
    expect(await raw.table('memories').count()).toBe(n);
    raw.close();

    const store = await createMemory({ name, embedder, index: 'exact' });
    expect((await store.stats()).count).toBe(n);
    expect((await store.recall(texts[2_750]!, { k: 1 }))[0]!.memory.id).toBe('m2750');
    await store.close();
  });
});

describe('schema v14: the time order by label', () => {
  it('v13 → v14: the index build says it started (length unknown) and when it is done, and the store lists by the new index', async () => {
    const name = uniqueName('v13');
    const n = 1_200;
    const { embedder } = await writeV11Store(name, n);
    // Up to v13 as a build of that version left it: v12 moved the rows, v13 changed no table.
    const v13 = new Dexie(databaseName(name));
    for (const v of SCHEMA_VERSIONS.filter((s) => s.version <= 13)) {
      const declared = v13.version(v.version).stores(v.stores);
      if (v.version === 12) declared.upgrade((tx) => v.upgrade!(tx, () => undefined));
    }
    await v13.open();
    await v13.table('meta').where('key').equals('store').modify((row: { value: { schemaVersion: number } }) => void (row.value.schemaVersion = 13));
    expect(v13.table('memoryRows').schema.indexes.map((i) => i.name)).toContain('[createdAt+id]');
    v13.close();

    const events: ProgressEvent[] = [];
    const store = await createMemory({ name, embedder, index: 'exact', onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.kind === 'upgrade')).toEqual([
      { kind: 'upgrade', done: 0, total: null },
      { kind: 'upgrade', done: n, total: n },
      // The lexical terms' step: one page.
      { kind: 'upgrade', done: n, total: n },
    ]);
    // Reported before anything else of the open (the model, the index).
    expect(events[0]).toEqual({ kind: 'upgrade', done: 0, total: null });
    expect((await store.stats()).schemaVersion).toBe(14);
    expect((await store.listRecent({ limit: 2 })).map((m) => m.id)).toEqual([`m${n - 1}`, `m${n - 2}`]);
    await store.close();
    // Opened again, nothing is upgraded.
    const again: ProgressEvent[] = [];
    await (await createMemory({ name, embedder, index: 'exact', onProgress: (e) => again.push(e) })).close();
    expect(again.filter((e) => e.kind === 'upgrade')).toEqual([]);
  });
});

describe('storage failures', () => {
  it('a quota error surfaces as STORAGE_QUOTA and leaves the store unchanged', async () => {
    const store = await openTestStore();
    await store.remember('kept before the quota ran out');
    // The first durability check writes the registry behind the open; let it finish so the armed
    // failure hits the write under test, not that one (it raced, depending on the tests before).
    await store.durability();
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
