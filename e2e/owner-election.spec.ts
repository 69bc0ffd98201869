import { expect, test, type BrowserContext, type Page } from 'playwright/test';

// Browsers without SharedWorker: the tabs elect one owner of the memory worker with a Web Lock and
// the others reach it over a BroadcastChannel. SharedWorker is removed from every page here, so
// connectMemory() takes that path on its own (no option forces it).

async function openTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.addInitScript(() => {
    delete (globalThis as { SharedWorker?: unknown }).SharedWorker;
  });
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

/** How many dedicated memory workers this context runs (one per owner). */
function memoryWorkers(pages: Page[]): number {
  return pages.reduce((n, page) => n + page.workers().filter((w) => w.url().includes('memory.worker')).length, 0);
}

test('without SharedWorker, one elected tab owns the worker; the others use it and take over when it closes', async ({ context }) => {
  const a = await openTab(context);
  const b = await openTab(context);
  const write = (page: Page, tab: string) =>
    page.evaluate(async (tab) => {
      const memory = await window.houkai.connect({ name: 'elected' });
      const progress: number[] = [];
      const items = Array.from({ length: 60 }, (_, i) => ({ text: `Note ${i} written by tab ${tab} about topic ${i % 7}`, tags: [`tab-${tab}`] }));
      await memory.rememberMany(items, { batchSize: 20, onProgress: (e) => void (e.kind === 'write' && progress.push(e.done)) });
      return progress;
    }, tab);
  // Both tabs write at once: one through its own worker, the other through the owner's.
  const [progressA, progressB] = await Promise.all([write(a, 'a'), write(b, 'b')]);
  expect(progressA.at(-1)).toBe(60);
  expect(progressB.at(-1)).toBe(60); // progress callbacks cross the channel too
  expect(memoryWorkers([a, b])).toBe(1);

  for (const page of [a, b]) {
    const seen = await page.evaluate(async () => {
      const memory = await window.houkai.connect({ name: 'elected' });
      const stats = await memory.stats();
      const fromA = await memory.recall('Note 3 written by tab a', { k: 3, tag: 'tab-a' });
      let code = '';
      try {
        await memory.remember('   ');
      } catch (error) {
        code = error instanceof window.houkai.MemoryError ? error.code : 'not a MemoryError';
      }
      return { count: stats.count, index: stats.index.size, a: fromA.length, code };
    });
    expect(seen).toEqual({ count: 120, index: 120, a: 3, code: 'INVALID_ARGUMENT' });
  }

  // The owner's tab goes away: the other tab is next in the lock's queue, starts its own worker
  // and keeps the same client working.
  const ownerIsA = a.workers().some((w) => w.url().includes('memory.worker'));
  const [owner, survivor] = ownerIsA ? [a, b] : [b, a];
  await survivor.evaluate(async () => {
    (window as unknown as { kept: unknown }).kept = await window.houkai.connect({ name: 'elected' });
  });
  await owner.evaluate(async () => (await window.houkai.connect({ name: 'elected' })).flush());
  await owner.close();
  await expect.poll(() => memoryWorkers([survivor]), { timeout: 30_000 }).toBe(1);
  const after = await survivor.evaluate(async () => {
    const memory = (window as unknown as { kept: Awaited<ReturnType<typeof window.houkai.connect>> }).kept;
    await memory.remember('written after the takeover');
    const stats = await memory.stats();
    const top = (await memory.recall('written after the takeover', { k: 1 }))[0]!.memory.text;
    return { count: stats.count, index: stats.index.size, top };
  });
  expect(after).toEqual({ count: 121, index: 121, top: 'written after the takeover' });

  // A tab opened now finds the new owner.
  const c = await openTab(context);
  const third = await c.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'elected' });
    return (await memory.stats()).count;
  });
  expect(third).toBe(121);
  expect(memoryWorkers([survivor, c])).toBe(1);
});

test('when the owner tab crashes (no goodbye), the next tab in the lock queue takes over', async ({ context }) => {
  const a = await openTab(context);
  await a.evaluate(async () => {
    await (await window.houkai.connect({ name: 'elected-crash' })).remember('written before the crash');
  });
  const b = await openTab(context);
  await b.evaluate(async () => {
    (window as unknown as { kept: unknown }).kept = await window.houkai.connect({ name: 'elected-crash' });
  });
  expect(memoryWorkers([a])).toBe(1);
  expect(memoryWorkers([b])).toBe(0);
  await a.evaluate(async () => (await window.houkai.connect({ name: 'elected-crash' })).flush());
  // A renderer crash: no pagehide, no goodbye on the channel; the browser frees the Web Lock.
  const cdp = await context.newCDPSession(a);
  void cdp.send('Page.crash').catch(() => undefined); // answers never come from a crashed page
  await expect.poll(() => memoryWorkers([b]), { timeout: 30_000 }).toBe(1);
  const after = await b.evaluate(async () => {
    const memory = (window as unknown as { kept: Awaited<ReturnType<typeof window.houkai.connect>> }).kept;
    await memory.remember('written after the crash');
    return { count: (await memory.stats()).count, top: (await memory.recall('written before the crash', { k: 1 }))[0]!.memory.text };
  });
  expect(after).toEqual({ count: 2, top: 'written before the crash' });
});
