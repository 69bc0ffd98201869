/**
 * Issue #16 item 2: a second owner opening a store must not roll back an import another owner
 * is still writing; an import whose owner is gone is rolled back; an importer rolled back from
 * under it fails instead of reporting success; and nobody can write a row an import's rollback
 * would put back. Two stores on one (fake) IndexedDB database, as two tabs with their own
 * workers, or two processes, would have.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openDexieStorage } from '../../src/adapters/storage-dexie.ts';
import type { Embedder } from '../../src/core/ports.ts';
import { createMemory, MemoryError, type CreateMemoryOptions, type LocalMemory } from '../../src/local.ts';
import { pythonArchive } from '../fixtures/make-archives.ts';
import { createHashEmbedder } from '../helpers/fake-embedder.ts';
import { fakeLocks } from '../helpers/locks.ts';
import { makeMemory } from '../helpers/memory.ts';
import { manualClock, uniqueName } from '../helpers/store.ts';

const stores: LocalMemory[] = [];
afterEach(async () => {
  while (stores.length) await stores.pop()!.close().catch(() => undefined);
});

/**
 * An embedder that can be held shut between batches: the import then waits as a slow one would.
 * `waiting` resolves once a call is held at the shut gate.
 */
function gatedEmbedder(): Embedder & { close(): void; open(): void; waiting: Promise<void> } {
  const inner = createHashEmbedder();
  let shut: Promise<void> | null = null;
  let openGate = (): void => undefined;
  let arrived = (): void => undefined;
  const waiting = new Promise<void>((resolve) => (arrived = resolve));
  return {
    id: inner.id,
    dim: inner.dim,
    waiting,
    close() {
      shut = new Promise<void>((resolve) => (openGate = resolve));
    },
    open() {
      openGate();
      shut = null;
    },
    async embed(texts: string[], options = {}) {
      if (shut) {
        arrived();
        await shut;
      }
      return inner.embed(texts, options);
    },
  };
}

async function open(name: string, embedder: Embedder, options: Partial<CreateMemoryOptions> = {}): Promise<LocalMemory> {
  const store = await createMemory({ name, embedder, index: 'exact', ...options });
  stores.push(store);
  return store;
}

const rows = (n: number, prefix = 'row') => Array.from({ length: n }, (_, i) => makeMemory(`${prefix}-${i}`, `${prefix} number ${i} of the archive`));

async function code(promise: Promise<unknown>): Promise<string | null> {
  return promise.then(
    () => null,
    (e: unknown) => (e instanceof MemoryError ? e.code : String(e)),
  );
}

describe('imports and a second owner', () => {
  it('a second owner opening the store leaves a live import alone; the import completes whole', async () => {
    const name = uniqueName('lease');
    const gate = gatedEmbedder();
    const a = await open(name, gate);
    let written = 0;
    const importing = a.importArchive(pythonArchive({ memories: rows(2000) }), {
      batchSize: 100,
      onProgress: (e) => {
        if (e.kind === 'import' && e.phase === 'write') {
          written = e.rowsWritten;
          if (written === 300) gate.close();
        }
      },
    });
    await gate.waiting;
    const b = await open(name, createHashEmbedder());
    expect(await b.count()).toBe(300); // not rolled back
    gate.open();
    expect(await importing).toMatchObject({ imported: 2000 });
    expect(await b.count()).toBe(2000);
    expect(await a.count()).toBe(2000);
  });

  it('an owner whose lease lapsed is rolled back, and its import then fails instead of reporting success', async () => {
    const name = uniqueName('lease');
    const clock = manualClock();
    const gate = gatedEmbedder();
    // No heartbeat during the test: the owner is stalled (or dead) as far as anyone can tell.
    const a = await open(name, gate, { clock, importLease: { heartbeatSeconds: 3600, locks: null } });
    const importing = a.importArchive(pythonArchive({ memories: rows(500) }), {
      batchSize: 100,
      onProgress: (e) => {
        if (e.kind === 'import' && e.phase === 'write' && e.rowsWritten === 200) gate.close();
      },
    });
    await gate.waiting;
    clock.advance(31);
    const b = await open(name, createHashEmbedder(), { clock, importLease: { locks: null } });
    expect(await b.count()).toBe(0);
    gate.open();
    const error = await importing.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ABORTED', details: { reason: 'lease-lost' } });
    expect(await a.count()).toBe(0);
    expect(await b.count()).toBe(0);
  });

  it('with Web Locks the lock decides: held means alive (whatever the heartbeat), released means gone', async () => {
    const name = uniqueName('lease');
    const clock = manualClock();
    const locks = fakeLocks();
    await (await open(name, createHashEmbedder(), { clock })).close();
    stores.pop();
    // A dead tab's leftovers: a batch written under a lease whose lock someone still holds.
    const storage = await openDexieStorage(name);
    const lockName = `houkai-web:import:${name}:imp-1`;
    let release!: () => void;
    void locks.request(lockName, {}, () => new Promise<void>((resolve) => (release = resolve)));
    const then = clock.now() - 3600;
    await storage.beginImport({ importId: 'imp-1', owner: 'tab-1', startedAt: then, heartbeatAt: then, ttl: 30, lock: lockName });
    const [memory] = rows(1, 'locked');
    await storage.importBatch('imp-1', [{ memory: memory!, vector: (await createHashEmbedder().embed([memory!.text]))[0]! }]);
    storage.close();
    const b = await open(name, createHashEmbedder(), { clock, importLease: { locks } });
    expect(await b.count()).toBe(1); // the lock is held: alive, although its heartbeat is an hour old
    release(); // the tab closes: the browser releases its locks
    await expect.poll(() => b.count(), { timeout: 5000 }).toBe(0);
  });

  it('nobody can change a row an import holds (its rollback would undo the change); after it, they can', async () => {
    const name = uniqueName('lease');
    const gate = gatedEmbedder();
    const a = await open(name, gate);
    await a.importArchive(pythonArchive({ memories: [makeMemory('x', 'the original text of x')] }));
    const free = (await a.remember('a memory no import touches')).memory;
    const controller = new AbortController();
    const importing = a.importArchive(pythonArchive({ memories: [makeMemory('x', 'x as the archive has it'), ...rows(300)] }), {
      onConflict: 'overwrite',
      batchSize: 100,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.kind === 'import' && e.phase === 'write' && e.rowsWritten === 100) gate.close();
      },
    });
    await gate.waiting;
    const b = await open(name, createHashEmbedder());
    expect(await code(a.edit('x', { importance: 0.1 }))).toBe('BUSY');
    expect(await code(b.edit('x', { text: 'an edit during the import' }))).toBe('BUSY');
    expect(await code(b.edit('x', { importance: 0.9 }))).toBe('BUSY');
    expect(await code(b.forget('x'))).toBe('BUSY');
    expect(await code(b.forget('row-3'))).toBe('BUSY'); // inserted by the import: also held
    expect(await code(a.link('x', free.id))).toBe('BUSY');
    expect(await code(b.reindex())).toBe('BUSY');
    expect((await b.edit(free.id, { importance: 0.9 })).importance).toBe(0.9); // others are free
    controller.abort();
    gate.open();
    expect(await code(importing)).toBe('ABORTED');
    expect((await a.get('x'))?.text).toBe('the original text of x');
    expect(await a.count()).toBe(2);
    expect((await b.edit('x', { importance: 0.8 })).importance).toBe(0.8);
  });
});
