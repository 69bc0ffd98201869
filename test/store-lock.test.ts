/**
 * A store's name held across the workers of an origin (issue #54 item 5): an open store holds it
 * shared, a move takes it alone, so a store open in another worker (where this worker's registry
 * cannot see it) is never moved from under it. Node has no Web Locks: a stand-in manager with
 * shared and exclusive modes plays the browser's here; the browser's own is in
 * e2e/opfs-move-client.spec.ts.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { holdStore, storeLockName, withStoreAlone } from '../src/adapters/store-lock.ts';
import { MemoryError } from '../src/core/errors.ts';
import { createMemory, deleteMemory, listMemories, moveMemory, renameMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/names.ts';

/** Web Locks with shared and exclusive modes and `ifAvailable` (a shared request waits behind an exclusive holder). */
function sharedLocks() {
  const shared = new Map<string, number>();
  const exclusive = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const wake = (name: string) => {
    for (const go of waiting.get(name) ?? []) go();
    waiting.delete(name);
  };
  return {
    holders: (name: string) => ({ shared: shared.get(name) ?? 0, exclusive: exclusive.has(name) }),
    async request(name: string, options: { mode?: 'shared' | 'exclusive'; ifAvailable?: boolean }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown> {
      const mode = options.mode ?? 'exclusive';
      const free = () => !exclusive.has(name) && (mode === 'shared' || (shared.get(name) ?? 0) === 0);
      if (!free()) {
        if (options.ifAvailable) return callback(null);
        while (!free()) await new Promise<void>((resolve) => waiting.set(name, [...(waiting.get(name) ?? []), resolve]));
      }
      if (mode === 'shared') shared.set(name, (shared.get(name) ?? 0) + 1);
      else exclusive.add(name);
      try {
        return await callback({ name, mode });
      } finally {
        if (mode === 'shared') shared.set(name, shared.get(name)! - 1);
        else exclusive.delete(name);
        wake(name);
      }
    },
  };
}

const g = globalThis as { navigator?: unknown };
const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
afterEach(() => {
  if (original) Object.defineProperty(globalThis, 'navigator', original);
  else delete g.navigator;
});

describe('a store name held across workers', () => {
  it('shared while open, alone for a move: STORE_IN_USE while any holder remains', async () => {
    const locks = sharedLocks();
    const a = await holdStore('notes', locks);
    const b = await holdStore('notes', locks);
    expect(locks.holders(storeLockName('notes')).shared).toBe(2);
    const refused = await withStoreAlone('notes', 'move', async () => 'moved', locks).catch((e: MemoryError) => e);
    expect(refused).toBeInstanceOf(MemoryError);
    expect((refused as MemoryError).code).toBe('STORE_IN_USE');
    expect((refused as MemoryError).message).toMatch(/open in another tab or worker; close it there to move it/);
    await a();
    await b();
    // Another store's name is another lock.
    await holdStore('other', locks);
    expect(await withStoreAlone('notes', 'move', async () => 'moved', locks)).toBe('moved');
  });

  it('an open during a move waits for it, then opens', async () => {
    const locks = sharedLocks();
    let release!: () => void;
    const moving = withStoreAlone('notes', 'move', () => new Promise<string>((resolve) => (release = () => resolve('moved'))), locks);
    await new Promise((r) => setTimeout(r, 0));
    let opened = false;
    const opening = holdStore('notes', locks).then((r) => ((opened = true), r));
    await new Promise((r) => setTimeout(r, 10));
    expect(opened).toBe(false);
    release();
    expect(await moving).toBe('moved');
    await (await opening)();
    expect(opened).toBe(true);
  });

  it('without Web Locks (Node) nothing is held and the work runs', async () => {
    delete g.navigator;
    const release = await holdStore('x');
    expect(await withStoreAlone('x', 'move', async () => 1)).toBe(1);
    await release();
  });

  it('createMemory holds the name until close: moveMemory refuses an open store with STORE_IN_USE', async () => {
    const locks = sharedLocks();
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true });
    const name = uniqueName('held');
    const store = await createMemory({ name, embedder: createHashEmbedder({ dim: 8 }), index: 'exact' });
    expect(locks.holders(storeLockName(name)).shared).toBe(1);
    const refused = await moveMemory(name, 'opfs').catch((e: MemoryError) => e);
    expect((refused as MemoryError).code).toBe('STORE_IN_USE');
    await store.close();
    // The close waits for the name to be let go: nothing to wait for after it.
    expect(locks.holders(storeLockName(name)).shared).toBe(0);
    // Closed, the move gets past the lock to its own checks (no OPFS in Node).
    const next = await moveMemory(name, 'opfs').catch((e: MemoryError) => e);
    expect((next as MemoryError).code).toBe('STORAGE_FAILURE');
    // A store that fails to open (no OPFS in Node) lets go of the name too.
    const bad = uniqueName('bad');
    await expect(createMemory({ name: bad, embedder: createHashEmbedder({ dim: 8 }), index: 'exact', storage: 'opfs' })).rejects.toThrow(MemoryError);
    await new Promise((r) => setTimeout(r, 0));
    expect(locks.holders(storeLockName(bad)).shared).toBe(0);
  });

  it('deleteMemory and renameMemory refuse a store open elsewhere (either name), and go ahead once it is closed', async () => {
    const locks = sharedLocks();
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true });
    const embedder = createHashEmbedder({ dim: 8 });
    const name = uniqueName('del');
    const other = uniqueName('other');
    const store = await createMemory({ name, embedder, index: 'exact' });
    await store.remember('kept while open');
    const codeOf = (p: Promise<unknown>) => p.then(() => 'done', (e: MemoryError) => e.code);
    expect(await codeOf(deleteMemory(name))).toBe('STORE_IN_USE');
    expect(await codeOf(renameMemory(name, other))).toBe('STORE_IN_USE');
    expect(await store.count()).toBe(1);
    // A rename onto the name of an open store waits for nobody either.
    const second = await createMemory({ name: other, embedder, index: 'exact' });
    await second.close();
    const reopened = await createMemory({ name: other, embedder, index: 'exact' });
    expect(await codeOf(renameMemory(uniqueName('none'), other))).toBe('STORE_IN_USE');
    await reopened.close();
    await store.close();
    // Straight after a close: the name is free.
    expect(await codeOf(renameMemory(name, `${name}-renamed`))).toBe('done');
    expect(await codeOf(deleteMemory(`${name}-renamed`))).toBe('done');
    expect((await listMemories()).map((s) => s.name)).not.toContain(`${name}-renamed`);
  });
});
