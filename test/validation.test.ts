import { describe, expect, it } from 'vitest';
import { MemoryError, type LocalMemory } from '../src/local.ts';
import { openTestStore } from './helpers/store.ts';

/** Asserts the call fails with `code` and that the store is exactly as before. */
async function expectRejected(store: LocalMemory, call: () => Promise<unknown>, code = 'INVALID_ARGUMENT'): Promise<void> {
  const before = JSON.stringify(await store.listRecent({ limit: 1000, includeSuperseded: true, includeExpired: true }));
  const indexBefore = (await store.stats()).index;
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe(code);
  expect((error as MemoryError).message.length).toBeGreaterThan(10);
  expect(JSON.stringify(await store.listRecent({ limit: 1000, includeSuperseded: true, includeExpired: true }))).toBe(before);
  expect((await store.stats()).index).toEqual(indexBefore);
}

describe('bad input gets a typed error and writes nothing', () => {
  const badRemember: [string, unknown, unknown][] = [
    ['empty text', '', undefined],
    ['whitespace text', ' \n\t ', undefined],
    ['non-string text', 42, undefined],
    ['text over 1 MB', 'x'.repeat(1_048_577), undefined],
    ['multi-byte text over 1 MB', 'é'.repeat(524_289), undefined],
    ['importance not a number', 'fine text', { importance: '0.5' }],
    ['importance NaN', 'fine text', { importance: Number.NaN }],
    ['importance Infinity', 'fine text', { importance: Number.POSITIVE_INFINITY }],
    ['unknown type', 'fine text', { type: 'opinion' }],
    ['tag with a comma', 'fine text', { tags: ['a,b'] }],
    ['blank tag', 'fine text', { tags: ['  '] }],
    ['tags not an array', 'fine text', { tags: 'deploy' }],
    ['polarity 2', 'fine text', { polarity: 2 }],
    ['unknown trust', 'fine text', { trust: 'maybe' }],
    ['negative expiresAt', 'fine text', { expiresAt: -5 }],
    ['empty validity interval', 'fine text', { validFrom: 200, validUntil: 100 }],
    ['misspelled option', 'fine text', { importanse: 0.3 }],
    ['options not an object', 'fine text', 'semantic'],
    ['source not a string', 'fine text', { source: 12 }],
  ];
  it.each(badRemember)('remember: %s', async (_label, text, options) => {
    const store = await openTestStore();
    await store.remember('an existing memory');
    await expectRejected(store, () => store.remember(text as string, options as object));
    await store.close();
  });

  it('rememberMany validates every item before writing any', async () => {
    const store = await openTestStore();
    await expectRejected(store, () => store.rememberMany(['good one', 'good two', { text: 'bad', polarity: 2 } as never]));
    await expectRejected(store, () => store.rememberMany(['good one', '   ']));
    await expectRejected(store, () => store.rememberMany(['good one', 7 as never]));
    await expectRejected(store, () => store.rememberMany('not an array' as never));
    await expectRejected(store, () => store.rememberMany(['ok'], { batchSize: 0 }));
    expect(await store.count()).toBe(0);
    await store.close();
  });

  const badRecall: [string, unknown][] = [
    ['k = 0', { k: 0 }],
    ['k < 0', { k: -3 }],
    ['k fractional', { k: 2.5 }],
    ['unknown type filter', { type: 'opinion' }],
    ['minImportance not a number', { minImportance: 'high' }],
    ['tag with a comma', { tag: 'a,b' }],
    ['unknown option', { limit: 3 }],
    ['overfetch 0', { overfetch: 0 }],
  ];
  it.each(badRecall)('recall: %s', async (_label, options) => {
    const store = await openTestStore();
    await store.remember('an existing memory');
    await expectRejected(store, () => store.recall('existing', options as object));
    await store.close();
  });

  it('recall rejects an empty query', async () => {
    const store = await openTestStore();
    await expectRejected(store, () => store.recall('  '));
    await store.close();
  });

  it('edit rejects an unknown id with NOT_FOUND and bad changes with INVALID_ARGUMENT', async () => {
    const store = await openTestStore();
    const { memory } = await store.remember('an existing memory');
    await expectRejected(store, () => store.edit('no-such-id', { importance: 0.2 }), 'NOT_FOUND');
    await expectRejected(store, () => store.edit(memory.id, { text: '' }));
    await expectRejected(store, () => store.edit(memory.id, { polarity: 2 as never }));
    await expectRejected(store, () => store.edit(memory.id, { tags: ['x,y'] }));
    await expectRejected(store, () => store.edit(memory.id, { colour: 'red' } as never));
    await store.close();
  });

  it('forget and get take a non-empty id; an unknown id is reported, not thrown', async () => {
    const store = await openTestStore();
    await store.remember('an existing memory');
    await expectRejected(store, () => store.forget(''));
    await expectRejected(store, () => store.get(42 as never));
    expect(await store.forget('no-such-id')).toBe(false);
    expect(await store.get('no-such-id')).toBeNull();
    await store.close();
  });

  it('listRecent rejects a negative limit', async () => {
    const store = await openTestStore();
    await expectRejected(store, () => store.listRecent({ limit: -1 }));
    await store.close();
  });

  it('an embedder returning the wrong dimension is a DIMENSION_MISMATCH and writes nothing', async () => {
    const broken = { id: 'broken', dim: 8, embed: async (texts: string[]) => texts.map(() => new Float32Array(5)) };
    const store = await openTestStore({ embedder: broken });
    await expectRejected(store, () => store.remember('anything'), 'DIMENSION_MISMATCH');
    await store.close();
  });
});

describe('createdAt says its unit (#50 item 6)', () => {
  it('a Date is taken as what it says and stored in Unix seconds; a time in milliseconds is refused naming seconds', async () => {
    const store = await openTestStore();
    try {
      const when = new Date('2026-03-14T09:30:00Z');
      const made = await store.remember('the dentist moved to Thursday', { createdAt: when });
      expect(made.memory.createdAt).toBe(when.getTime() / 1000);
      const [batch] = await store.rememberMany([{ text: 'a chat turn', createdAt: new Date('2026-01-02T00:00:00Z') }]);
      expect(batch!.memory.createdAt).toBe(Date.UTC(2026, 0, 2) / 1000);
      const edited = await store.edit(made.memory.id, { createdAt: new Date('2026-03-15T00:00:00Z') });
      expect(edited.createdAt).toBe(Date.UTC(2026, 2, 15) / 1000);
      const millis = await store.remember('stamped with Date.now()', { createdAt: Date.now() }).catch((e: unknown) => e);
      expect(millis).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'createdAt' } });
      expect((millis as Error).message).toMatch(/Unix seconds, not milliseconds/);
      const invalid = await store.remember('a date that is not one', { createdAt: new Date('not a date') }).catch((e: unknown) => e);
      expect(invalid).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'createdAt' } });
      expect(await store.count()).toBe(2);
    } finally {
      await store.close();
    }
  });
});
