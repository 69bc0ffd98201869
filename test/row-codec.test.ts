/**
 * Memory rows stored without their default-valued fields (core/storage/row-codec.ts, issue #30's
 * bytes): what lands in IndexedDB is short, what every reader gets is whole, rows stored whole
 * (before v13) read the same, and the indexes over fields left out (tags, link targets) answer as
 * before.
 */
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { databaseName } from '../src/adapters/storage-dexie.ts';
import { packRow, unpackRow } from '../src/core/storage/row-codec.ts';
import type { MemoryRow } from '../src/core/storage/rows.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { createMemory } from '../src/local.ts';
import { manualClock, openTestStore, uniqueName } from './helpers/store.ts';

const whole: MemoryRow = {
  id: 'm1', text: 'a plain note', type: 'semantic', tags: [], importance: 0.5, createdAt: 100, lastAccessed: 100, accessCount: 0,
  source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted',
  contentHash: 'h', validFrom: 0, validUntil: 0, surfacesWhen: [], terms: ['plain', 'note'], termCounts: [1, 1], termLength: 2,
  linkTargets: [], label: 4,
};

describe('the memory row codec', () => {
  it('leaves out what holds its default and gives back the same row', () => {
    const packed = packRow(whole);
    expect(Object.keys(packed).sort()).toEqual(['contentHash', 'createdAt', 'id', 'importance', 'label', 'termCounts', 'termLength', 'terms', 'text', 'trust', 'type']);
    expect(unpackRow(structuredClone(packed))).toEqual(whole);
    // Every field away from its default is kept.
    const busy: MemoryRow = {
      ...whole, tags: ['t'], lastAccessed: 150, accessCount: 2, source: 'chat', links: [{ to: 'm2', rel: 'related' }],
      supersededBy: 'm3', supersededAt: 120, polarity: -1, expiresAt: 999, pinned: true, validFrom: 50, validUntil: 500, surfacesWhen: ['*.ts'],
      linkTargets: ['m2'], superseded: 'm3', positive: undefined,
    };
    const { positive: _, ...expected } = busy;
    expect(packRow(busy)).toEqual(expected);
    expect(unpackRow(structuredClone(packRow(busy)))).toEqual(expected);
    // A row stored whole reads as it is.
    expect(unpackRow(structuredClone(whole))).toEqual(whole);
  });

  it('a store writes short rows, reads them whole, and its tag and link indexes still answer', async () => {
    const name = uniqueName('codec');
    const clock = manualClock();
    const store = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact', clock });
    try {
      const [first, second] = await store.rememberMany([{ text: 'the standup is at nine' }, { text: 'deploys happen on Fridays', tags: ['ops'] }]);
      const plain = first!.memory;
      const tagged = second!.memory;
      await store.link(tagged.id, plain.id, 'related');
      const raw = new Dexie(databaseName(name));
      await raw.open();
      const stored = await raw.table('memoryRows').where('id').equals(plain.id).first();
      raw.close();
      for (const field of ['tags', 'links', 'source', 'accessCount', 'supersededBy', 'pinned', 'expiresAt', 'surfacesWhen', 'linkTargets', 'lastAccessed']) expect(stored).not.toHaveProperty(field);
      expect(await store.get(plain.id)).toEqual(plain);
      expect((await store.recall('standup', { tag: 'ops', touch: false })).map((h) => h.memory.id)).toEqual([tagged.id]);
      // The incoming link is found through the linking memory's `linkTargets` index.
      expect((await store.neighbors(plain.id)).results.map((n) => [n.memory.id, n.direction])).toEqual([[tagged.id, 'in']]);
      // A touch moves lastAccessed away from createdAt: then it is stored, and read back.
      clock.advance(60);
      const [hit] = await store.recall('the standup is at nine', { k: 1 });
      expect(hit!.memory.lastAccessed).toBe(clock.now());
      expect((await store.get(plain.id))!.lastAccessed).toBe(clock.now());
      expect((await store.get(plain.id))!.accessCount).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('the same on the in-memory backend', async () => {
    const store = await openTestStore({ storage: (await import('../src/adapters/storage-memory.ts')).memoryStorages() });
    try {
      const { memory } = await store.remember('one plain memory');
      expect(await store.get(memory.id)).toEqual(memory);
      expect((await store.listRecent())[0]).toEqual(memory);
    } finally {
      await store.close();
    }
  });
});
