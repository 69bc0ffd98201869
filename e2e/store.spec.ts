import { expect, test, type BrowserContext, type Page } from 'playwright/test';

// Every request any page, worker or service worker makes is recorded; none may leave the origin.
const foreign: string[] = [];
const seen: string[] = [];
let origin = '';

async function openHarness(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

function watchRequests(context: BrowserContext, base: string): void {
  origin = new URL(base).origin;
  context.on('request', (request) => {
    const url = request.url();
    seen.push(url);
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
  });
}

test.beforeEach(async ({ context, baseURL }) => {
  watchRequests(context, baseURL!);
});

test.afterEach(() => {
  // Scenario 7: no request leaves the origin at any time with use-lite.
  expect(foreign).toEqual([]);
});

const MEMORIES = [
  'We lint the TypeScript codebase with ESLint and format it with Prettier.',
  'Production deploys run from the main branch through the release pipeline every Tuesday.',
  'The user prefers answers in British English with metric units.',
];

test('1. memories persist in IndexedDB across a reload', async ({ context }) => {
  const page = await openHarness(context);
  const stored = await page.evaluate(async (texts) => {
    const memory = await window.houkai.connect({ name: 'persist' });
    const ids = [];
    for (const text of texts) ids.push((await memory.remember(text)).memory.id);
    await memory.flush();
    return { ids, backend: memory.backend, embedder: memory.embedder };
  }, MEMORIES);
  expect(stored.embedder).toEqual({ id: 'universal-sentence-encoder-lite', dim: 512 });
  console.log(`use-lite backend in the worker: ${stored.backend}`);
  await page.reload();
  await expect(page.locator('#status')).toHaveText('ready');
  const hits = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'persist' });
    return (await memory.recall('which linter do we use?', { k: 3 })).map((h) => h.memory.id);
  });
  expect(hits[0]).toBe(stored.ids[0]);
  expect(hits).toHaveLength(3);
  // The request watch sees the worker's own traffic (model files), so a zero foreign count means something.
  expect(seen.some((url) => url.includes('/models/use-lite/model.json'))).toBe(true);
  expect(seen.some((url) => url.includes('/wasm/tfjs/'))).toBe(true);
});

test('2. two tabs write 200 memories each at once; both see 400 and the index matches the data', async ({ context }) => {
  const [a, b] = [await openHarness(context), await openHarness(context)];
  const write = (page: Page, tab: string) =>
    page.evaluate(async (tab) => {
      const memory = await window.houkai.connect({ name: 'two-tabs' });
      const items = Array.from({ length: 200 }, (_, i) => ({ text: `Note ${i} written by tab ${tab} about topic ${i % 17}`, tags: [`tab-${tab}`] }));
      await memory.rememberMany(items, { batchSize: 25 });
      return true;
    }, tab);
  await Promise.all([write(a, 'a'), write(b, 'b')]);
  for (const page of [a, b]) {
    const seen = await page.evaluate(async () => {
      const memory = await window.houkai.connect({ name: 'two-tabs' });
      const stats = await memory.stats();
      const fromA = await memory.recall('Note 7 written by tab a', { k: 5, tag: 'tab-a' });
      const fromB = await memory.recall('Note 7 written by tab b', { k: 5, tag: 'tab-b' });
      return { count: stats.count, index: stats.index.size, a: fromA.length, b: fromB.length, firstA: fromA[0]?.memory.text ?? '' };
    });
    expect(seen).toMatchObject({ count: 400, index: 400, a: 5, b: 5 });
    expect(seen.firstA).toContain('tab a');
  }
  // Reopen: close every tab (the worker goes away), then a fresh tab loads the snapshot.
  await a.evaluate(async () => (await window.houkai.connect({ name: 'two-tabs' })).flush());
  await a.close();
  await b.close();
  const c = await openHarness(context);
  const reopened = await c.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'two-tabs' });
    const stats = await memory.stats();
    return { count: stats.count, index: stats.index.size };
  });
  expect(reopened).toEqual({ count: 400, index: 400 });
});

test('3. after the first load the app works offline', async ({ context }) => {
  const page = await openHarness(context);
  expect(await page.evaluate(() => window.houkai.swReady)).toBe(true);
  await page.evaluate(async () => {
    await (await window.houkai.connect({ name: 'offline' })).remember('Warm-up so every model file has been fetched once.');
  });
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await context.setOffline(true);
  try {
    await page.reload();
    await expect(page.locator('#status')).toHaveText('ready');
    const top = await page.evaluate(async (texts) => {
      const memory = await window.houkai.connect({ name: 'offline' });
      await memory.rememberMany(texts);
      return (await memory.recall('how are releases shipped?', { k: 1 }))[0]!.memory.text;
    }, MEMORIES);
    expect(top).toBe(MEMORIES[1]);
  } finally {
    await context.setOffline(false);
  }
});

test('4. closing the tab that is writing leaves no half-written memory; the other tab carries on', async ({ context }) => {
  const writer = await openHarness(context);
  const survivor = await openHarness(context);
  await survivor.evaluate(async () => {
    await window.houkai.connect({ name: 'takeover' });
  });
  await writer.evaluate(() => {
    void window.houkai.connect({ name: 'takeover' }).then((memory) =>
      memory.rememberMany(Array.from({ length: 2000 }, (_, i) => `bulk memory number ${i}`), {
        batchSize: 50,
        onProgress: (e) => void window.houkai.progress.push(e),
      }),
    );
  });
  await writer.waitForFunction(() => window.houkai.progress.some((e) => (e as { kind: string; done: number }).kind === 'write' && (e as { done: number }).done >= 200));
  await writer.close();
  const after = await survivor.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'takeover' });
    await memory.remember('the survivor still writes');
    const hit = (await memory.recall('survivor writes', { k: 1 }))[0]!.memory.text;
    // Let in-flight batches settle, then compare the data with the index.
    let stats = await memory.stats();
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await memory.stats();
      if (next.count === stats.count) break;
      stats = next;
    }
    stats = await memory.stats();
    const listed = await memory.listRecent({ limit: 5000 });
    return { hit, count: stats.count, index: stats.index.size, listed: listed.length, whole: listed.every((m) => m.text.length > 0 && m.contentHash.length === 32) };
  });
  expect(after.hit).toBe('the survivor still writes');
  expect(after.count).toBe(after.index);
  expect(after.listed).toBe(after.count);
  expect(after.whole).toBe(true);
  expect((after.count - 1) % 50).toBe(0);
});

test('5. an error raised in the worker is caught on the page with its code', async ({ context }) => {
  const page = await openHarness(context);
  const caught = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'errors' });
    const results = [];
    for (const call of [() => memory.recall('x', { k: 0 }), () => memory.edit('missing-id', { importance: 1 }), () => memory.remember('   ')]) {
      try {
        await call();
        results.push({ ok: true });
      } catch (e) {
        const err = e as InstanceType<typeof window.houkai.MemoryError>;
        results.push({ instance: e instanceof window.houkai.MemoryError, code: err.code, message: err.message, details: err.details });
      }
    }
    return { results, count: await memory.count() };
  });
  expect(caught.results).toMatchObject([
    { instance: true, code: 'INVALID_ARGUMENT', details: { field: 'k' } },
    { instance: true, code: 'NOT_FOUND', details: { id: 'missing-id' } },
    { instance: true, code: 'INVALID_ARGUMENT', details: { field: 'text' } },
  ]);
  expect(caught.count).toBe(0);
});

test('6. a 2,000-memory rememberMany reports ordered progress and cancels cleanly', async ({ context }) => {
  const page = await openHarness(context);
  const outcome = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'cancel' });
    const events: { kind: string; done: number; total: number }[] = [];
    const controller = new AbortController();
    let code = '';
    try {
      await memory.rememberMany(Array.from({ length: 2000 }, (_, i) => `progress memory ${i}`), {
        batchSize: 100,
        signal: controller.signal,
        onProgress: (e) => {
          events.push(e as never);
          if (e.kind === 'write' && e.done >= 600) controller.abort();
        },
      });
    } catch (e) {
      code = (e as { code: string }).code;
    }
    const stats = await memory.stats();
    return { code, events, count: stats.count, index: stats.index.size };
  });
  expect(outcome.code).toBe('ABORTED');
  const writes = outcome.events.filter((e) => e.kind === 'write').map((e) => e.done);
  expect(writes.slice(0, 7)).toEqual([0, 100, 200, 300, 400, 500, 600]);
  expect([...writes].sort((x, y) => x - y)).toEqual(writes);
  const embeds = outcome.events.filter((e) => e.kind === 'embed').map((e) => e.done);
  expect([...embeds].sort((x, y) => x - y)).toEqual(embeds);
  expect(outcome.events.every((e) => e.total === 2000)).toBe(true);
  expect(outcome.count).toBeGreaterThanOrEqual(600);
  expect(outcome.count).toBeLessThan(2000);
  expect(outcome.count % 100).toBe(0);
  expect(outcome.index).toBe(outcome.count);
});
