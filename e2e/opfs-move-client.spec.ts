import { expect, test, type Page } from 'playwright/test';

// Issue #54 item 5 through the worker API: client.moveStore moves an IndexedDB store to OPFS and
// back with progress, cancels between batches leaving the source whole, and refuses a store
// that a tab has open in another worker (the SharedWorker here), which this worker's registry
// cannot see: the store's name is held with a Web Lock while it is open.

async function openHarness(page: Page): Promise<void> {
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
}

test('client.moveStore: IndexedDB to OPFS and back, with progress; listed where it lives; cancelled, the source is whole', async ({ page }) => {
  await openHarness(page);
  const result = await page.evaluate(async () => {
    const { connect, MemoryError } = window.houkai;
    const texts = Array.from({ length: 300 }, (_, i) => `Moved note ${i}: the ${['kettle', 'bicycle', 'violin', 'lantern'][i % 4]} is on shelf ${i}`);
    // Written in IndexedDB through the shared worker, then closed there.
    const source = await connect({ name: 'to-move' });
    await source.rememberMany(texts);
    await source.close();
    const big = await connect({ name: 'to-cancel' });
    await big.rememberMany(Array.from({ length: 3000 }, (_, i) => `cancel note ${i}`));
    await big.close();

    // A connection whose worker holds OPFS (an elected dedicated one) moves it.
    const owner = await connect({ name: 'scratch', storage: 'opfs' });
    const progress: number[] = [];
    const moved = await owner.moveStore('to-move', 'opfs', { onProgress: (e) => void (e.kind === 'move' && progress.push(e.done)) });
    const listed = (await owner.stores()).filter((s) => s.name === 'to-move').map((s) => s.storage);
    const onOpfs = await connect({ name: 'to-move', storage: 'opfs' });
    const there = { count: await onOpfs.count(), top: (await onOpfs.recall('which shelf holds the violin, 42?', { k: 1, touch: false }))[0]?.memory.text };
    await onOpfs.close();
    // The IndexedDB copy went once the OPFS one was whole.
    const inIndexedDb = (await owner.stores()).filter((s) => s.name === 'to-move' && s.storage === 'indexeddb').length;
    // And back.
    const back = await owner.moveStore('to-move', 'indexeddb');
    const again = await connect({ name: 'to-move' });
    const backThere = { count: await again.count(), top: (await again.recall('the lantern on shelf 7', { k: 1, touch: false }))[0]?.memory.text };
    await again.close();

    // Cancelled after its first batch: nothing on OPFS, the source whole.
    const controller = new AbortController();
    let cancelled = 'moved';
    try {
      await owner.moveStore('to-cancel', 'opfs', { signal: controller.signal, onProgress: () => controller.abort() });
    } catch (error) {
      cancelled = error instanceof MemoryError ? error.code : String(error);
    }
    const kept = await (await connect({ name: 'to-cancel' })).count();
    const opfsAfterCancel = (await owner.stores()).some((s) => s.name === 'to-cancel' && s.storage === 'opfs');
    return { moved, progress: { some: progress.length > 0, last: progress.at(-1) }, listed, there, inIndexedDb, back, backThere, cancelled, kept, opfsAfterCancel };
  });
  expect(result.moved.index).toBe('rebuilt at next open');
  expect(result.moved.rows).toBeGreaterThanOrEqual(300);
  expect(result.progress.some).toBe(true);
  expect(result.listed).toEqual(['opfs']);
  expect(result.there).toEqual({ count: 300, top: 'Moved note 42: the violin is on shelf 42' });
  expect(result.inIndexedDb).toBe(0);
  expect(result.backThere).toEqual({ count: 300, top: 'Moved note 7: the lantern is on shelf 7' });
  expect(result.cancelled).toBe('ABORTED');
  expect(result.kept).toBe(3000);
  expect(result.opfsAfterCancel).toBe(false);
});

test('client.moveStore refuses a store open in another worker, and a connection that cannot reach OPFS says why', async ({ page }) => {
  await openHarness(page);
  const codes = await page.evaluate(async () => {
    const { connect, MemoryError } = window.houkai;
    const code = async (work: () => Promise<unknown>): Promise<string> => {
      try {
        await work();
        return 'moved';
      } catch (error) {
        return error instanceof MemoryError ? error.code : String(error);
      }
    };
    // Open in the shared worker (another worker than the OPFS owner's).
    const held = await connect({ name: 'held-open' });
    await held.remember('still open in the shared worker');
    const owner = await connect({ name: 'scratch-2', storage: 'opfs' });
    const whileOpen = await code(() => owner.moveStore('held-open', 'opfs'));
    const stillThere = await held.count();
    await held.close();
    const afterClose = await code(() => owner.moveStore('held-open', 'opfs'));
    // The shared worker has no synchronous file access: a typed refusal, nothing moved.
    const shared = await connect({ name: 'shared-side' });
    await shared.remember('x');
    await shared.close();
    const fromShared = await code(() => shared.moveStore('shared-side', 'opfs'));
    const viaShared = await connect({ name: 'another' });
    const fromSharedOpen = await code(() => viaShared.moveStore('shared-side', 'opfs'));
    const missing = await code(() => owner.moveStore('no-such-store', 'opfs'));
    return { whileOpen, stillThere, afterClose, fromShared, fromSharedOpen, missing };
  });
  expect(codes).toEqual({ whileOpen: 'STORE_IN_USE', stillThere: 1, afterClose: 'moved', fromShared: 'CLOSED', fromSharedOpen: 'STORAGE_FAILURE', missing: 'NOT_FOUND' });
});

test('deleteStore and renameStore refuse a store open in another worker; a store closed by its own deleteStore is not refused', async ({ page }) => {
  await openHarness(page);
  const codes = await page.evaluate(async () => {
    const { connect, MemoryError } = window.houkai;
    const code = async (work: () => Promise<unknown>): Promise<string> => {
      try {
        await work();
        return 'done';
      } catch (error) {
        return error instanceof MemoryError ? error.code : String(error);
      }
    };
    // Open in the shared worker; the calls come from the OPFS owner's dedicated worker, whose
    // registry cannot see it (before the name's lock, IndexedDB closed the other connection and
    // the delete went ahead).
    const held = await connect({ name: 'held-del' });
    await held.remember('still open in the shared worker');
    const owner = await connect({ name: 'scratch-3', storage: 'opfs' });
    const deleteWhileOpen = await code(() => owner.deleteStore('held-del'));
    const renameWhileOpen = await code(() => owner.renameStore('held-del', 'held-del-2'));
    const stillThere = await held.count();
    // The shared worker's own connection deletes its store: the worker closes it, lets go of its
    // name (the close waits for that) and takes the name alone, straight away.
    const own = await code(() => held.deleteStore('held-del'));
    const listed = (await owner.stores()).some((s) => s.name === 'held-del');
    return { deleteWhileOpen, renameWhileOpen, stillThere, own, listed };
  });
  expect(codes).toEqual({ deleteWhileOpen: 'STORE_IN_USE', renameWhileOpen: 'STORE_IN_USE', stillThere: 1, own: 'done', listed: false });
});
