import { expect, test, type BrowserContext, type Page } from 'playwright/test';

// A store on OPFS through the product client, where SharedWorker exists (the default path for
// IndexedDB stores): connectMemory({ storage: 'opfs' }) elects one tab's dedicated worker as the
// owner (a SharedWorker has no synchronous file access), the other tabs reach it, the survivor
// takes over when the owner's tab closes, and the memories outlive every tab.

async function openTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

const memoryWorkers = (page: Page): number => page.workers().filter((w) => w.url().includes('memory.worker')).length;

test('connectMemory({ storage: "opfs" }): one elected owner, shared by the tabs, taken over, kept across a reload', async ({ context }) => {
  const a = await openTab(context);
  const b = await openTab(context);
  const written = await a.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'on-opfs', storage: 'opfs' });
    await memory.rememberMany(Array.from({ length: 40 }, (_, i) => `OPFS note ${i}: the ${['kettle', 'bicycle', 'violin', 'lantern'][i % 4]} is in room ${i}`));
    const top = (await memory.recall('where is the violin in room 22?', { k: 1, touch: false }))[0]!.memory.text;
    return { count: await memory.count(), top };
  });
  expect(written).toEqual({ count: 40, top: 'OPFS note 22: the violin is in room 22' });
  // The IndexedDB store of that name is another store (served by the SharedWorker).
  expect(await b.evaluate(async () => (await window.houkai.connect({ name: 'on-opfs' })).count())).toBe(0);
  // The other tab reaches the OPFS store through the elected owner: no second owner starts.
  const fromB = await b.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'on-opfs', storage: 'opfs' });
    await memory.remember('written from tab b');
    (window as unknown as { kept: unknown }).kept = memory;
    return memory.count();
  });
  expect(fromB).toBe(41);
  expect(memoryWorkers(a) + memoryWorkers(b)).toBe(1 + 0);

  // The owner's tab closes: tab b takes the pool over with its own dedicated worker.
  await a.evaluate(async () => (await window.houkai.connect({ name: 'on-opfs', storage: 'opfs' })).flush());
  await a.close();
  await expect.poll(() => memoryWorkers(b), { timeout: 30_000 }).toBe(1);
  const after = await b.evaluate(async () => {
    const memory = (window as unknown as { kept: Awaited<ReturnType<typeof window.houkai.connect>> }).kept;
    await memory.remember('written after the takeover');
    return { count: await memory.count(), top: (await memory.recall('written after the takeover', { k: 1 }))[0]!.memory.text };
  });
  expect(after).toEqual({ count: 42, top: 'written after the takeover' });

  await b.reload();
  await expect(b.locator('#status')).toHaveText('ready');
  const reloaded = await b.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'on-opfs', storage: 'opfs' });
    return { count: await memory.count(), top: (await memory.recall('the lantern in room 7', { k: 1, touch: false }))[0]!.memory.text };
  });
  expect(reloaded).toEqual({ count: 42, top: 'OPFS note 7: the lantern is in room 7' });
});

test('an OPFS store refuses the shared worker and a second worker, with typed errors that say why', async ({ context }) => {
  const page = await openTab(context);
  const codes = await page.evaluate(async () => {
    const code = async (options: Parameters<typeof window.houkai.connect>[0]) => {
      try {
        await window.houkai.connect(options);
        return 'opened';
      } catch (error) {
        return error instanceof window.houkai.MemoryError ? `${error.code}: ${error.message}` : String(error);
      }
    };
    const owner = await code({ name: 'opfs-shared', storage: 'opfs', owner: 'shared' });
    // The elected owner holds the OPFS files; a second dedicated worker of the origin cannot.
    const held = await window.houkai.connect({ name: 'opfs-held', storage: 'opfs' });
    let second = 'opened';
    try {
      await window.houkai.connectDedicated({ name: 'opfs-held-2', storage: 'opfs' });
    } catch (error) {
      second = error instanceof window.houkai.MemoryError ? error.code : String(error);
    }
    await held.close();
    return { owner, second };
  });
  expect(codes.owner).toMatch(/^INVALID_ARGUMENT: .*dedicated worker/);
  expect(codes.second).toBe('STORE_IN_USE');
});

test('several OPFS connections in a tab, owner or not: closing one leaves the others working', async ({ context }) => {
  const a = await openTab(context);
  const b = await openTab(context);
  const run = (page: Page, prefix: string) =>
    page.evaluate(async (p) => {
      const first = await window.houkai.connect({ name: `${p}-first`, storage: 'opfs' });
      const second = await window.houkai.connect({ name: `${p}-second`, storage: 'opfs' });
      await second.remember(`${p} second note`);
      await second.close();
      await first.remember(`${p} first note`);
      const third = await window.houkai.connect({ name: `${p}-second`, storage: 'opfs' });
      return { first: await first.count(), third: await third.count(), listed: (await first.stores()).filter((s) => s.name.startsWith(p)).map((s) => `${s.name}:${s.storage}`) };
    }, prefix);
  // Tab a owns the worker (its connections share one channel to it); tab b reaches it through a.
  expect(await run(a, 'owner')).toEqual({ first: 1, third: 1, listed: ['owner-first:opfs', 'owner-second:opfs'] });
  expect(await run(b, 'client')).toEqual({ first: 1, third: 1, listed: ['client-first:opfs', 'client-second:opfs'] });
});
