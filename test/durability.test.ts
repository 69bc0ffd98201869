import { afterEach, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import Dexie from 'dexie';
import { connectEndpoint } from '../src/client/connect.ts';
import { REGISTRY_DATABASE } from '../src/adapters/registry-dexie.ts';
import { databaseName, openDexieEngine } from '../src/adapters/storage-dexie.ts';
import { storageOver } from '../src/core/storage/index.ts';
import { PhaseLedger, timedEngine } from '../e2e/profiling.ts';
import { assess, nextRecord } from '../src/core/services/durability.ts';
import type { DurabilitySnapshot, StoreRecord } from '../src/core/ports.ts';
import { createMemory, deleteMemory, type CreateMemoryOptions, type LocalMemory } from '../src/local.ts';
import { createHost, StoreRegistry } from '../src/rpc/host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { duplicateIdsArchive, pythonArchive, sampleMemories, truncatedArchive } from './fixtures/make-archives.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { manualClock, uniqueName } from './helpers/store.ts';

const open = (name: string, options: CreateMemoryOptions = {}): Promise<LocalMemory> =>
  createMemory({ name, embedder: createHashEmbedder(), index: 'exact', conflicts: { policy: 'ignore' }, ...options });

/** Deletes a store's database the way the browser (or devtools) would: behind the library's back. */
function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  });
}

/** Opens a store's database raw (no schema: Dexie reads the one it has). */
async function raw(name: string): Promise<Dexie> {
  const db = new Dexie(databaseName(name));
  await db.open();
  return db;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('durability: the canary and the registry', () => {
  it('a new store reports canary new; reopened it is ok, with when it was last seen and its count then', async () => {
    const clock = manualClock(1_800_000_000);
    const name = uniqueName('dur');
    const first = await open(name, { clock });
    const fresh = await first.durability();
    expect(fresh).toMatchObject({ canary: 'new', suspectedLoss: false, loss: null, count: 0, registry: true, lastExportAt: null, persisted: null });
    await first.rememberMany(['one', 'two', 'three']);
    clock.advance(60);
    await first.close();
    clock.advance(3600);
    const again = await open(name, { clock });
    const report = await again.durability();
    expect(report).toMatchObject({ canary: 'ok', suspectedLoss: false, count: 3, lastCount: 3, lastSeen: 1_800_000_060 });
    await again.close();
  });

  it('the first check runs a moment after the open, not in front of the first recalls (its row count is linear); close or durability() runs it', async () => {
    const name = uniqueName('dur');
    const first = await open(name);
    await first.rememberMany(['one', 'two', 'three']);
    await first.close();
    for (const settle of ['close', 'durability'] as const) {
      // The row counts of the memory rows table (`idb count memoryRows`), counted at the engine.
      const ledger = new PhaseLedger();
      const engine = await openDexieEngine(name);
      const counts = (): number => ledger.take(false)['idb count memoryRows']?.calls ?? 0;
      const store = await open(name, { storage: () => storageOver(timedEngine(engine, ledger)) });
      await store.recall('one', { touch: false });
      await store.recall('two', { touch: false, mode: 'semantic' });
      expect(counts()).toBe(0);
      if (settle === 'durability') {
        expect((await store.durability()).count).toBe(3);
        expect(counts()).toBe(1);
        await store.close();
      } else {
        await store.close();
        expect(counts()).toBe(1);
      }
    }
  });

  it('a database deleted behind the registry’s back is a suspected loss, kept until acknowledged; the last export time survives it', async () => {
    const clock = manualClock(1_800_100_000);
    const name = uniqueName('dur');
    const store = await open(name, { clock });
    await store.rememberMany(['alpha', 'beta']);
    clock.advance(100);
    await store.exportArchive({ types: ['episodic'] }); // filtered: not a backup
    expect((await store.durability()).lastExportAt).toBeNull();
    await store.exportArchive();
    const exportedAt = clock.now();
    expect((await store.durability()).lastExportAt).toBe(exportedAt);
    await store.close();

    await deleteDatabase(databaseName(name));
    clock.advance(86_400);
    const reopened = await open(name, { clock });
    const report = await reopened.durability();
    expect(report).toMatchObject({
      canary: 'missing',
      suspectedLoss: true,
      count: 0,
      lastCount: 2,
      lastSeen: exportedAt,
      lastExportAt: exportedAt,
      loss: { reason: 'canary', lastCount: 2, found: 0, detectedAt: clock.now() },
    });
    await reopened.remember('a new start');
    await reopened.close();
    // Still reported after a restart…
    const later = await open(name, { clock });
    expect(await later.durability()).toMatchObject({ canary: 'missing', suspectedLoss: true, loss: { reason: 'canary', lastCount: 2 } });
    // …until acknowledged.
    expect(await later.durability({ acknowledge: true })).toMatchObject({ canary: 'ok', suspectedLoss: false, loss: null, lastExportAt: exportedAt, count: 1 });
    expect((await later.durability()).suspectedLoss).toBe(false);
    await later.close();
    const last = await open(name, { clock });
    expect(await last.durability()).toMatchObject({ canary: 'ok', suspectedLoss: false });
    await last.close();
  });

  it('sees a database deleted while the store is open', async () => {
    const name = uniqueName('dur');
    const store = await open(name);
    await store.remember('here today');
    expect((await store.durability()).suspectedLoss).toBe(false);
    await deleteDatabase(databaseName(name)); // Dexie closes on versionchange and lets the delete through
    const report = await store.durability();
    expect(report).toMatchObject({ canary: 'missing', suspectedLoss: true, count: 0, loss: { reason: 'canary', lastCount: 1 } });
    await store.close();
  });

  it('rows cleared behind the store’s back (the canary still there) are a loss too; acknowledged, they are not reported again', async () => {
    const name = uniqueName('dur');
    const store = await open(name);
    await store.rememberMany(['one', 'two', 'three', 'four']);
    await store.close();
    const db = await raw(name);
    await db.table('memoryRows').clear();
    db.close();
    const reopened = await open(name);
    const report = await reopened.durability();
    expect(report).toMatchObject({ canary: 'ok', suspectedLoss: true, count: 0, loss: { reason: 'rows', expected: 4, found: 0, lastCount: 4 } });
    expect((await reopened.durability({ acknowledge: true })).suspectedLoss).toBe(false);
    await reopened.remember('five');
    expect((await reopened.durability()).suspectedLoss).toBe(false);
    await reopened.close();
    // Losing more rows later is a new loss.
    const db2 = await raw(name);
    await db2.table('memoryRows').clear();
    db2.close();
    const third = await open(name);
    expect(await third.durability()).toMatchObject({ suspectedLoss: true, loss: { reason: 'rows', found: 0 } });
    await third.close();
  });

  it('an older copy of the database coming back (its journal ends earlier) is a suspected rollback', async () => {
    const name = uniqueName('dur');
    const store = await open(name);
    await store.rememberMany(['one', 'two']);
    await store.close();
    // Copy every table, write more, then put the old copy back.
    const db = await raw(name);
    const copy = new Map<string, { keys: unknown[]; rows: unknown[] }>();
    for (const table of db.tables) copy.set(table.name, { keys: await table.toCollection().primaryKeys(), rows: await table.toArray() });
    db.close();
    const later = await open(name);
    await later.rememberMany(['three', 'four', 'five']);
    await later.close();
    const db2 = await raw(name);
    await db2.transaction('rw', db2.tables, async () => {
      for (const table of db2.tables) {
        await table.clear();
        const { keys, rows } = copy.get(table.name)!;
        if (table.schema.primKey.keyPath) await table.bulkAdd(rows);
        else await table.bulkAdd(rows, keys as never);
      }
    });
    db2.close();
    const back = await open(name);
    expect(await back.durability()).toMatchObject({ canary: 'ok', suspectedLoss: true, count: 2, loss: { reason: 'rollback', lastCount: 5 } });
    await back.close();
  });

  it('raises no false alarm through a long mix of writes, imports (with a rollback), trash, reflection, quota eviction, undo and compaction', async () => {
    const clock = manualClock(1_800_200_000);
    const name = uniqueName('dur');
    let store = await open(name, { clock, quota: { maxMemories: 40, policy: 'lru' } });
    const check = async (step: string) => {
      const report = await store.durability();
      expect(report.suspectedLoss, `${step}: ${JSON.stringify(report.loss)}`).toBe(false);
      expect(report.count, step).toBe(await store.count());
    };
    const a = (await store.remember('the deploy runs on tuesday')).memory;
    await store.rememberMany(Array.from({ length: 12 }, (_, i) => ({ text: `episode ${i} about the release train`, type: 'episodic' as const })));
    await check('writes');
    await store.edit(a.id, { text: 'the deploy runs on wednesday' });
    await store.forget(a.id);
    await store.undo();
    await check('edit, forget, undo');
    await store.importArchive(pythonArchive({ memories: sampleMemories() }));
    await store.importArchive(duplicateIdsArchive(), { onConflict: 'overwrite' }).catch(() => undefined);
    await expect(store.importArchive(truncatedArchive({ memories: sampleMemories() }), { onConflict: 'rename' })).rejects.toMatchObject({ code: 'INVALID_ARCHIVE' });
    await check('imports');
    clock.advance(400 * 86_400);
    await store.prune({ dryRun: false, minScore: 0.5 });
    const trashed = await store.trashList();
    if (trashed[0]) await store.trashRestore(trashed[0].id);
    await check('prune and trash restore');
    await store.reflect({ dryRun: false, consolidate: 'hard', threshold: 0.3 });
    await check('reflection');
    for (let round = 0; round < 6; round++) await store.rememberMany(Array.from({ length: 5 }, (_, i) => `filler ${round}-${i}`));
    expect(await store.count()).toBeLessThanOrEqual(40);
    await check('quota eviction');
    await store.compactJournal({ keepDays: 0, keepLast: 5 });
    await check('compaction');
    await store.close();
    store = await open(name, { clock, quota: { maxMemories: 40, policy: 'lru' } });
    await check('reopened');
    await store.close();
  });

  it('deleteMemory forgets the registry record: a store made again under the name is new, not lost', async () => {
    const name = uniqueName('dur');
    const store = await open(name);
    await store.remember('temporary');
    await store.close();
    await deleteMemory(name, { index: 'exact' });
    const again = await open(name);
    expect(await again.durability()).toMatchObject({ canary: 'new', suspectedLoss: false });
    await again.close();
  });

  it('two owners opening one store at once (two dedicated workers) agree on one canary', async () => {
    const name = uniqueName('dur');
    const [x, y] = await Promise.all([open(name), open(name)]);
    const [rx, ry] = await Promise.all([x.durability(), y.durability()]);
    expect(rx.suspectedLoss || ry.suspectedLoss).toBe(false);
    await x.remember('from x');
    await y.remember('from y');
    expect((await x.durability()).suspectedLoss).toBe(false);
    expect((await y.durability()).suspectedLoss).toBe(false);
    await Promise.all([x.close(), y.close()]);
    const z = await open(name);
    expect(await z.durability()).toMatchObject({ canary: 'ok', suspectedLoss: false, count: 2 });
    await z.close();
  });

  it('with the registry itself deleted the store is still whole (its canary is there); only the last export time is gone', async () => {
    const name = uniqueName('dur');
    const store = await open(name);
    await store.remember('kept');
    await store.exportArchive();
    await store.close();
    await deleteDatabase(REGISTRY_DATABASE);
    const again = await open(name);
    expect(await again.durability()).toMatchObject({ canary: 'ok', suspectedLoss: false, lastExportAt: null, count: 1 });
    await again.close();
  });

  it('crosses the worker boundary', async () => {
    installErrorTransfer();
    const registry = new StoreRegistry({ open: (request) => open(request.name) });
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(createHost(registry), port1);
    const client = await connectEndpoint(port2, { name: uniqueName('dur') });
    cleanups.push(async () => {
      await client.close();
      port1.close();
      port2.close();
    });
    await client.remember('over the wire');
    expect(await client.durability()).toMatchObject({ canary: 'new', suspectedLoss: false, count: 1 });
    await expect(client.durability({ acknowledge: 'yes' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await client.compactJournal({ keepDays: 0, keepLast: 0 })).removed).toBe(1);
  });
});

describe('durability: the assessment rules', () => {
  const snapshot = (over: Partial<DurabilitySnapshot> = {}): DurabilitySnapshot => ({ canary: 'c1', count: 5, booked: 5, newestSeq: 10, importPending: false, ...over });
  const record = (over: Partial<StoreRecord> = {}): StoreRecord => ({
    name: 's',
    canary: 'c1',
    firstSeen: 1,
    lastSeen: 100,
    lastCount: 5,
    lastSeq: 10,
    lastExportAt: 50,
    loss: null,
    acceptedGap: 0,
    ...over,
  });

  it('tells new, ok and each kind of loss apart', () => {
    expect(assess(snapshot({ canary: null }), 'fresh', undefined, 200)).toEqual({ canary: 'new', found: null });
    expect(assess(snapshot(), 'c1', undefined, 200)).toEqual({ canary: 'ok', found: null }); // the registry was lost, not the store
    expect(assess(snapshot(), 'c1', record(), 200)).toEqual({ canary: 'ok', found: null });
    expect(assess(snapshot({ canary: null, count: 0, booked: 0, newestSeq: 0 }), 'c2', record(), 200)).toMatchObject({
      canary: 'missing',
      found: { reason: 'canary', lastSeen: 100, lastCount: 5, found: 0 },
    });
    // Another worker planted the canary the registry already holds: not a loss.
    expect(assess(snapshot({ canary: null }), 'c1', record(), 200)).toEqual({ canary: 'ok', found: null });
    expect(assess(snapshot({ count: 2 }), 'c1', record(), 200)).toMatchObject({ canary: 'ok', found: { reason: 'rows', expected: 5, found: 2 } });
    expect(assess(snapshot({ count: 2 }), 'c1', record({ acceptedGap: 3 }), 200)).toEqual({ canary: 'ok', found: null });
    expect(assess(snapshot({ newestSeq: 7 }), 'c1', record(), 200)).toMatchObject({ found: { reason: 'rollback' } });
    // Deletions the store made itself change both books and rows: no loss.
    expect(assess(snapshot({ count: 3, booked: 3, newestSeq: 14 }), 'c1', record(), 200).found).toBeNull();
  });

  it('keeps the first loss until acknowledged, keeps settled counts while an import is half written, and keeps the export time', () => {
    const loss = assess(snapshot({ count: 2 }), 'c1', record(), 200).found!;
    const withLoss = nextRecord({ name: 's', previous: record(), snapshot: snapshot({ count: 2 }), planted: 'c1', found: loss, now: 200, acknowledge: false, exportedAt: undefined });
    expect(withLoss).toMatchObject({ loss: { detectedAt: 200 }, lastSeen: 200, lastCount: 2, lastExportAt: 50, acceptedGap: 0 });
    const later = nextRecord({ name: 's', previous: withLoss, snapshot: snapshot({ count: 2 }), planted: 'c1', found: { ...loss, detectedAt: 300 }, now: 300, acknowledge: false, exportedAt: undefined });
    expect(later.loss!.detectedAt).toBe(200);
    const acknowledged = nextRecord({ name: 's', previous: later, snapshot: snapshot({ count: 2 }), planted: 'c1', found: null, now: 400, acknowledge: true, exportedAt: 390 });
    expect(acknowledged).toMatchObject({ loss: null, acceptedGap: 3, lastExportAt: 390 });
    const importing = nextRecord({ name: 's', previous: record(), snapshot: snapshot({ count: 900, booked: 900, newestSeq: 910, importPending: true }), planted: 'c1', found: null, now: 500, acknowledge: false, exportedAt: undefined });
    expect(importing).toMatchObject({ lastCount: 5, lastSeq: 10, lastSeen: 500 });
    const replaced = nextRecord({ name: 's', previous: record(), snapshot: snapshot({ canary: null, count: 0, booked: 0 }), planted: 'c9', found: null, now: 600, acknowledge: false, exportedAt: undefined });
    expect(replaced).toMatchObject({ canary: 'c9', firstSeen: 600, lastExportAt: 50, acceptedGap: 0 });
  });
});
