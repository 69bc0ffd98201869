/**
 * The index block store's contract (`IndexBlockStore`, core/ports.ts): where the int8 index keeps
 * its snapshot. Run in Node (IndexedDB through fake-indexeddb, SQLite through better-sqlite3:
 * test/index-blocks.contract.test.ts) and in Chromium (IndexedDB, SQLite on OPFS:
 * e2e/contracts.worker.ts), so a read that lends the store's own memory (`transient`) gives the
 * same blocks as one that copies them.
 */
import type { IndexBlock, IndexBlockStore } from '../../src/core/ports.ts';
import type { TestApi } from './api.ts';

export interface BlockStoreCase {
  name: string;
  open: () => Promise<IndexBlockStore>;
}

/** Bytes that differ by key and position (a block read as another's shows). */
function blockOf(key: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (key * 131 + i * 7 + (i >> 8)) & 0xff;
  return out;
}

/** Every block as read, copied (a transient view is good only during its visit). */
async function readAll(store: IndexBlockStore, options: { transient?: boolean; batchSize?: number } = {}): Promise<{ keys: number[]; bytes: Uint8Array[]; visits: number }> {
  const keys: number[] = [];
  const bytes: Uint8Array[] = [];
  let visits = 0;
  await store.readBlocks((batch: IndexBlock[]) => {
    visits++;
    for (const b of batch) {
      keys.push(b.key);
      bytes.push(b.bytes.slice());
    }
  }, options);
  return { keys, bytes, visits };
}

export function indexBlocksContract({ describe, it, expect }: TestApi, cases: BlockStoreCase[]): void {
  for (const c of cases) {
    describe(`index block store: ${c.name}`, () => {
      it('reads back every block in key order, copied or lent (transient), the same bytes either way', async () => {
        const store = await c.open();
        try {
          expect(await store.readManifest()).toBeUndefined();
          // Sizes as the index writes them: vector blocks of one size, link blocks of others, one empty.
          const sizes = new Map<number, number>([[0, 7_000], [1, 12_345], [2, 7_000], [3, 0], [4, 7_000], [5, 9], [10, 30_000], [11, 1]]);
          const blocks = [...sizes].map(([key, size]) => ({ key, bytes: blockOf(key, size) }));
          expect(await store.write({ manifest: { tag: 'a', n: 1 }, expectTag: null, replaceAll: true, blocks: blocks.reverse() })).toBe(true);
          const want = [...sizes.keys()].sort((a, b) => a - b);
          for (const options of [{}, { batchSize: 3 }, { transient: true }, { transient: true, batchSize: 1 }]) {
            const read = await readAll(store, options);
            expect(read.keys).toEqual(want);
            for (const [i, key] of read.keys.entries()) expect(read.bytes[i]).toEqual(blockOf(key, sizes.get(key)!));
          }
          // A later write replaces a block; a read sees it, and a block read before is not changed by it.
          const before = await readAll(store, { transient: true });
          expect(await store.write({ manifest: { tag: 'b', n: 2 }, expectTag: 'a', replaceAll: false, blocks: [{ key: 2, bytes: blockOf(99, 7_000) }] })).toBe(true);
          expect(before.bytes[want.indexOf(2)]).toEqual(blockOf(2, 7_000));
          const after = await readAll(store, { transient: true });
          expect(after.bytes[want.indexOf(2)]).toEqual(blockOf(99, 7_000));
          expect(await store.readManifest()).toEqual({ tag: 'b', n: 2 });
          // Another writer's tag: nothing written.
          expect(await store.write({ manifest: { tag: 'c' }, expectTag: 'a', replaceAll: false, blocks: [{ key: 0, bytes: blockOf(7, 5) }] })).toBe(false);
          expect((await readAll(store)).keys).toEqual(want);
          expect((await readAll(store)).bytes[0]).toEqual(blockOf(0, 7_000));
          // A whole snapshot replaces whatever is there, whoever wrote it (a store whose snapshot
          // failed to load saves its rebuilt index this way).
          expect(await store.write({ manifest: { tag: 'd' }, expectTag: null, replaceAll: true, blocks: [{ key: 0, bytes: blockOf(5, 10) }] })).toBe(true);
          expect(await readAll(store, { transient: true })).toEqual({ keys: [0], bytes: [blockOf(5, 10)], visits: 1 });
          expect(await store.readManifest()).toEqual({ tag: 'd' });
        } finally {
          store.close();
        }
      });

      it('an emptied store reads nothing, copied or lent', async () => {
        const store = await c.open();
        try {
          await store.write({ manifest: { tag: 'a' }, expectTag: null, replaceAll: true, blocks: [{ key: 0, bytes: blockOf(0, 100) }] });
          await store.clear();
          for (const options of [{}, { transient: true }]) expect(await readAll(store, options)).toEqual({ keys: [], bytes: [], visits: 0 });
          expect(await store.readManifest()).toBeUndefined();
        } finally {
          store.close();
        }
      });
    });
  }
}
