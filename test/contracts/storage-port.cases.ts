/**
 * The storage engine port's contract (core/storage/port.ts), written once and run against every
 * backend: in Node by test/storage-port.contract.test.ts (Dexie over fake-indexeddb, the in-memory
 * tables, SQLite through better-sqlite3) and in Chromium by e2e/contracts.spec.ts (Dexie over the
 * real IndexedDB, SQLite on OPFS), each through its own test functions.
 */
import { MemoryError } from '../../src/core/errors.ts';
import { lexicalFields } from '../../src/core/domain/lexical-index.ts';
import { LEXICAL_TERMS_VERSION } from '../../src/core/domain/tokenize.ts';
import type { StoreMeta } from '../../src/core/ports.ts';
import { MAX_KEY, MIN_KEY, storageOver, type Key, type StorageEngine, type StorageTx } from '../../src/core/storage/index.ts';
import { packedRows } from '../../src/core/storage/row-codec.ts';
import type { MemoryRow } from '../../src/core/storage/rows.ts';
import { makeMemory, NOW } from '../helpers/memory.ts';
import type { TestApi } from './api.ts';

export interface EngineCase {
  name: string;
  open: () => Promise<StorageEngine>;
}

export function storagePortContract({ describe, it, expect }: TestApi, engines: readonly EngineCase[]): void {
  const row = (id: string, extra: Record<string, unknown> = {}) => ({ id, label: Number(id.replace(/\D/g, '') || 0), type: 'fact', tags: [] as string[], createdAt: 0, ...extra });
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

  async function failure(promise: Promise<unknown>): Promise<MemoryError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    return error as MemoryError;
  }

  for (const { name, open } of engines) {
    describe(`storage engine port: ${name}`, () => {
      it('gets, puts, adds and deletes by primary key, and hands out copies', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m1', { tags: ['a'] }), row('m2')]));
        await e.transaction('rw', ['memoryRows'], async (tx) => {
          const got = await tx.get<{ tags: string[] }>('memoryRows', 1);
          got!.tags.push('mutated');
          expect(await tx.getMany('memoryRows', [2, 99, 1])).toEqual([row('m2'), undefined, row('m1', { tags: ['a'] })]);
          await tx.delete('memoryRows', [2, 98]);
        });
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.query('memoryRows'))).toEqual([row('m1', { tags: ['a'] })]);
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.count('memoryRows'))).toBe(1);
        e.close();
      });

      it('a read-write transaction lands whole or not at all: a failing add undoes what came before it', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows', 'meta'], (tx) => tx.put('memoryRows', [row('m1')]));
        const error = await failure(
          e.transaction('rw', ['memoryRows', 'meta'], async (tx) => {
            await tx.put('meta', [{ key: 'store', value: 1 }]);
            await tx.put('memoryRows', [row('m1', { type: 'changed' }), row('m5')]);
            await tx.delete('memoryRows', ['m1']);
            await tx.add('memoryRows', [row('m5')]); // the key exists now
          }),
        );
        expect(e.mapError(error, 'test')).toBeInstanceOf(MemoryError);
        expect(e.mapError(error, 'test').code).toBe('STORAGE_FAILURE');
        const after = await e.transaction('r', ['memoryRows', 'meta'], async (tx) => ({ rows: await tx.query('memoryRows'), meta: await tx.get('meta', 'store') }));
        expect(after).toEqual({ rows: [row('m1')], meta: undefined });
        // A body's own error is the one that comes out, and undoes the same way.
        await expect(
          e.transaction('rw', ['memoryRows'], async (tx) => {
            await tx.delete('memoryRows', ['m1']);
            throw new MemoryError('BUSY', 'refused');
          }),
        ).rejects.toMatchObject({ code: 'BUSY' });
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.count('memoryRows'))).toBe(1);
        e.close();
      });

      it('a unique index refuses a second row with the same key', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m1', { label: 7 })]));
        await failure(e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m1', { label: 8 })])));
        // The same row may keep its key.
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m1', { label: 7, type: 'event' })]));
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.query('memoryRows', { index: 'id', equals: 'm1' }))).toEqual([row('m1', { label: 7, type: 'event' })]);
        // Once the row that had it is gone, the key is free (a relabelled row: delete, then put).
        await e.transaction('rw', ['memoryRows'], async (tx) => {
          await tx.delete('memoryRows', [7]);
          await tx.put('memoryRows', [row('m1', { label: 8 })]);
        });
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.query('memoryRows', { index: 'id', equals: 'm1' }))).toEqual([row('m1', { label: 8 })]);
        e.close();
      });

      it('auto-increment keys count up, are set on the row, and are not reused after a delete', async () => {
        const e = await open();
        const first = await e.transaction('rw', ['trash'], (tx) => tx.add('trash', [{ id: 'a', deletedAt: 1 }, { id: 'b', deletedAt: 2 }]));
        expect(first).toEqual([1, 2]);
        await e.transaction('rw', ['trash'], (tx) => tx.delete('trash', [2]));
        expect(await e.transaction('rw', ['trash'], (tx) => tx.add('trash', [{ id: 'c', deletedAt: 3 }]))).toEqual([3]);
        expect(await e.transaction('r', ['trash'], (tx) => tx.query('trash'))).toEqual([
          { seq: 1, id: 'a', deletedAt: 1 },
          { seq: 3, id: 'c', deletedAt: 3 },
        ]);
        e.close();
      });

      it('queries walk keys in order: ranges with open ends, reverse, filter before limit', async () => {
        const e = await open();
        await e.transaction('rw', ['vectors'], (tx) => tx.put('vectors', [5, 1, 9, 3, 7].map((label) => ({ label, vector: new Float32Array([label]), gen: label % 2 }))));
        const labels = <T,>(body: (tx: StorageTx) => Promise<T>) => e.transaction('r', ['vectors'], body);
        const of = (rows: { label: number }[]) => rows.map((r) => r.label);
        expect(of(await labels((tx) => tx.query<{ label: number }>('vectors')))).toEqual([1, 3, 5, 7, 9]);
        expect(of(await labels((tx) => tx.query<{ label: number }>('vectors', { range: { lower: 3, lowerOpen: true } })))).toEqual([5, 7, 9]);
        expect(of(await labels((tx) => tx.query<{ label: number }>('vectors', { range: { lower: 3, upper: 7 } })))).toEqual([3, 5, 7]);
        expect(of(await labels((tx) => tx.query<{ label: number }>('vectors', { range: { upper: 7, upperOpen: true }, reverse: true, limit: 2 })))).toEqual([5, 3]);
        expect(of(await labels((tx) => tx.query<{ label: number }>('vectors', { reverse: true, filter: (r: { label: number }) => r.label < 9, limit: 2 })))).toEqual([7, 5]);
        expect(await labels((tx) => tx.query<{ label: number }>('vectors', { range: { lower: 8, upper: 2 } }))).toEqual([]);
        expect(await labels((tx) => tx.count('vectors', { range: { lower: 2, upper: 8 } }))).toBe(3);
        const stored = (await labels((tx) => tx.get<{ vector: Float32Array }>('vectors', 9)))!.vector;
        expect(stored).toBeInstanceOf(Float32Array);
        expect([...stored]).toEqual([9]);
        e.close();
      });

      it('keys of another kind in a table of numbers: numbers sort below strings and arrays, a fraction matches no integer', async () => {
        const e = await open();
        await e.transaction('rw', ['vectors'], (tx) => tx.put('vectors', [1, 2, 3].map((label) => ({ label, vector: new Float32Array([label]), gen: 0 }))));
        const of = (rows: { label: number }[]) => rows.map((r) => r.label);
        const result = await e.transaction('r', ['vectors'], async (tx) => ({
          belowText: of(await tx.query<{ label: number }>('vectors', { range: { upper: 'a' } })),
          aboveText: of(await tx.query<{ label: number }>('vectors', { range: { lower: 'a' } })),
          belowArray: await tx.count('vectors', { range: { lower: 2, upper: [0] } }),
          text: await tx.get('vectors', 'x'),
          fraction: await tx.get('vectors', 2.5),
          between: of(await tx.query<{ label: number }>('vectors', { range: { lower: 1.5, upper: 2.5 } })),
          many: (await tx.getMany<{ label: number }>('vectors', ['x', 3, 2.5, 1])).map((r) => r?.label),
          keys: (await tx.keys('vectors', { range: { lower: 2 } })).map((k) => k.primaryKey),
        }));
        expect(result).toEqual({ belowText: [1, 2, 3], aboveText: [], belowArray: 2, text: undefined, fraction: undefined, between: [2], many: [undefined, 3, undefined, 1], keys: [2, 3] });
        await e.transaction('rw', ['vectors'], (tx) => tx.delete('vectors', ['x', 2.5, 3]));
        expect(of(await e.transaction('r', ['vectors'], (tx) => tx.query<{ label: number }>('vectors')))).toEqual([1, 2]);
        e.close();
      });

      it('an index holds rows by key then primary key; a multi-entry one once per distinct element; a sparse one only rows with the field', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) =>
          tx.put('memoryRows', [
            row('m3', { tags: ['x', 'y', 'x'], superseded: 'm9' }),
            row('m1', { tags: ['y'] }),
            row('m2', { tags: ['x'], positive: 1 }),
            row('m4', { tags: [] }),
          ]),
        );
        const r = <T,>(body: (tx: StorageTx) => Promise<T>) => e.transaction('r', ['memoryRows'], body);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: 'tags', equals: 'x' })))).toEqual(['m2', 'm3']);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: 'tags', equals: 'x', reverse: true })))).toEqual(['m3', 'm2']);
        expect(await r((tx) => tx.keys('memoryRows', { index: 'tags' }))).toEqual([
          { key: 'x', primaryKey: 2 },
          { key: 'x', primaryKey: 3 },
          { key: 'y', primaryKey: 1 },
          { key: 'y', primaryKey: 3 },
        ]);
        expect(await r((tx) => tx.keys('memoryRows', { index: 'tags', equals: 'y', limit: 1 }))).toEqual([{ key: 'y', primaryKey: 1 }]);
        expect(await r((tx) => tx.count('memoryRows', { index: 'tags', equals: 'x' }))).toBe(2);
        expect(await r((tx) => tx.keys('memoryRows', { index: 'superseded', range: { lower: '', lowerOpen: true } }))).toEqual([{ key: 'm9', primaryKey: 3 }]);
        expect(await r((tx) => tx.count('memoryRows', { index: 'positive', equals: 1 }))).toBe(1);
        // Changing a row moves its index entries.
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m3', { tags: ['z'] })]));
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: 'tags', equals: 'x' })))).toEqual(['m2']);
        expect(await r((tx) => tx.count('memoryRows', { index: 'superseded', range: { lower: '', lowerOpen: true } }))).toBe(0);
        e.close();
      });

      it('anyOf names several keys: rows in key order, a multi-entry row once per key it matches', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) =>
          tx.put('memoryRows', [row('m1', { tags: ['b', 'a'], label: 1 }), row('m2', { tags: ['c'], label: 2 }), row('m3', { tags: ['a'], label: 3 })]),
        );
        const r = <T,>(body: (tx: StorageTx) => Promise<T>) => e.transaction('r', ['memoryRows'], body);
        expect(await r((tx) => tx.keys('memoryRows', { index: 'tags', anyOf: ['c', 'a', 'zz', 'a'] }))).toEqual([
          { key: 'a', primaryKey: 1 },
          { key: 'a', primaryKey: 3 },
          { key: 'c', primaryKey: 2 },
        ]);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: 'tags', anyOf: ['a', 'b'] })))).toEqual(['m1', 'm3', 'm1']);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { anyOf: [3, 99, 1] })))).toEqual(['m1', 'm3']);
        expect(await r((tx) => tx.count('memoryRows', { index: 'tags', anyOf: ['a', 'c'] }))).toBe(3);
        expect(await r((tx) => tx.query('memoryRows', { index: 'tags', anyOf: [] }))).toEqual([]);
        e.close();
      });

      it('getMany answers any number of keys in their order: missing ones undefined, a repeated key a copy each time', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', Array.from({ length: 700 }, (_, i) => row(`m${i + 1}`))));
        const keys = [...Array.from({ length: 650 }, (_, i) => 700 - i), 5000, 3, 3, 1];
        const got = await e.transaction('r', ['memoryRows'], (tx) => tx.getMany<{ id: string }>('memoryRows', keys));
        expect(got.map((r) => r?.id)).toEqual([...Array.from({ length: 650 }, (_, i) => `m${700 - i}`), undefined, 'm3', 'm3', 'm1']);
        expect(got[651]).not.toBe(got[652]);
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.getMany('memoryRows', []))).toEqual([]);
        e.close();
      });

      it('a one-call body reads what the last transaction wrote', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows'], (tx) => tx.put('memoryRows', [row('m1')]));
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.get('memoryRows', 1), { oneCall: true })).toEqual(row('m1'));
        expect(await e.transaction('r', ['memoryRows'], (tx) => tx.count('memoryRows'), { oneCall: true })).toBe(1);
        e.close();
      });

      it('compound keys compare part by part, and MIN_KEY / MAX_KEY bound a prefix', async () => {
        const e = await open();
        await e.transaction('rw', ['memoryRows', 'importUndo'], async (tx) => {
          await tx.put('memoryRows', [row('b', { createdAt: 2, label: 1 }), row('a', { createdAt: 2, label: 2 }), row('c', { createdAt: 1, label: 3 }), row('d', { createdAt: 10, label: 4 })]);
          await tx.put('importUndo', [{ importId: 'i1', id: 'z' }, { importId: 'i2', id: 'a' }, { importId: 'i1', id: 'a' }, { importId: 'i10', id: 'a' }]);
        });
        const r = <T,>(body: (tx: StorageTx) => Promise<T>) => e.transaction('r', ['memoryRows', 'importUndo'], body);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: '[createdAt+label]' })))).toEqual(['c', 'b', 'a', 'd']);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: '[createdAt+label]', range: { upper: [2, 2], upperOpen: true }, reverse: true })))).toEqual(['b', 'c']);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: '[createdAt+label]', range: { lower: [2, MIN_KEY], upper: [10, MIN_KEY], upperOpen: true } })))).toEqual(['b', 'a']);
        expect(ids(await r((tx) => tx.query<{ id: string }>('memoryRows', { index: '[createdAt+label]', range: { upper: [2, MAX_KEY], upperOpen: true }, reverse: true })))).toEqual(['a', 'b', 'c']);
        const undo = await r((tx) => tx.keys('importUndo', { range: { lower: ['i1'], upper: ['i1', MAX_KEY] } }));
        expect(undo.map((k) => k.primaryKey)).toEqual([
          ['i1', 'a'],
          ['i1', 'z'],
        ]);
        expect(await r((tx) => tx.getMany('importUndo', [['i2', 'a'], ['i2', 'b']]))).toEqual([{ importId: 'i2', id: 'a' }, undefined]);
        expect((await r((tx) => tx.keys('importUndo', { index: 'importId', range: { lower: 'i1', lowerOpen: true }, limit: 1 })))[0]!.key).toBe('i10');
        e.close();
      });

      it('string ranges select by prefix', async () => {
        const e = await open();
        await e.transaction('rw', ['meta'], (tx) => tx.put('meta', ['store', 'setting:a', 'setting:importLease:1', 'setting:importLease:2', 'settinh'].map((key) => ({ key, value: key }))));
        const keys = await e.transaction('r', ['meta'], (tx) => tx.keys('meta', { range: { lower: 'setting:importLease:', upper: 'setting:importLease:\uffff' } }));
        expect(keys.map((k) => k.primaryKey)).toEqual(['setting:importLease:1', 'setting:importLease:2']);
        e.close();
      });

      it('the storage core derives the terms of a store from before the possessive rule again, a page at a time, resuming after a stop', async () => {
        const e = await open();
        const texts = ["Melanie's dog eats grain-free food", 'The standup is at 9:30', "James's car is the grey one", "Chris’s birthday is in March"];
        const first = storageOver(e);
        await first.initMeta({ schemaVersion: 14, embedderId: 'test', dim: 2, generation: 0, nextLabel: 0, createdAt: NOW });
        const { labels } = await first.insert(texts.map((t, i) => makeMemory(`m${i}`, t)), texts.map(() => Float32Array.of(1, 0)), { ts: NOW, op: 'remember', actor: 'lib', group: 'g', meta: {} });
        // The rows as version 1 wrote them: apostrophes dropped before anything else ("melanies" → melani).
        const old = (text: string) => lexicalFields(text.replace(/['’]/g, ''));
        const raw = packedRows(e);
        await raw.transaction('rw', ['meta', 'memoryRows'], async (tx) => {
          const rows = await tx.query<MemoryRow>('memoryRows');
          await tx.put('memoryRows', rows.map((row) => ({ ...row, ...old(row.text) })));
          const meta = (await tx.get<{ value: StoreMeta }>('meta', 'store'))!.value;
          delete meta.lexicalVersion;
          await tx.put('meta', [{ key: 'store', value: { ...meta, lexicalLength: texts.reduce((sum, t) => sum + old(t).termLength, 0) } }]);
        });
        expect(old(texts[0]!).terms).toContain('melani');

        // Stopped after its first page (a closed tab): nothing recorded yet, the next run finishes.
        const stopped = storageOver(e);
        const stop = new Error('closed');
        await expect(stopped.rederiveLexicalTerms({ pageSize: 2, onProgress: () => { throw stop; } })).rejects.toBe(stop);
        expect((await stopped.readMeta())!.lexicalVersion).toBeUndefined();
        const progress: [number, number][] = [];
        const again = storageOver(e);
        expect(await again.rederiveLexicalTerms({ pageSize: 2, onProgress: (done, total) => progress.push([done, total]) })).toEqual({ scanned: 4, rewritten: 2 });
        expect(progress).toEqual([[2, 4], [4, 4], [4, 4]]);
        const meta = (await again.readMeta())!;
        expect(meta.lexicalVersion).toBe(LEXICAL_TERMS_VERSION);
        expect(meta.lexicalLength).toBe(texts.reduce((sum, t) => sum + lexicalFields(t).termLength, 0));
        const terms = await again.lexicalTermsOf(labels);
        texts.forEach((t, i) => expect(terms.get(labels[i]!)).toEqual(lexicalFields(t)));
        expect((await again.lexicalCandidates(['melanie'], 5)).candidates.map((c) => c.memory.id)).toEqual(['m0']);
        expect(await again.rederiveLexicalTerms()).toEqual({ scanned: 0, rewritten: 0 });
        e.close();
      });

      it('a closed engine refuses with STORAGE_FAILURE', async () => {
        const e = await open();
        e.close();
        const error = e.mapError(await failure(e.transaction('r', ['meta'], (tx) => tx.get('meta', 'store'))), 'read');
        expect(error.code).toBe('STORAGE_FAILURE');
      });
    });
  }
}
