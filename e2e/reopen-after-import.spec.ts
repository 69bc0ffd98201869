/**
 * Issue 15, finding 4, in Chromium: a tab closed soon after a big import (the HNSW graph still
 * being built, no snapshot yet) does not block the next open. The reopened store answers at
 * once, while the graph is rebuilt behind, and the snapshot is written as soon as that drain
 * ends. (That the pending vectors are searched exactly, against an exact-index oracle, is
 * test/archive-index-drain.test.ts.)
 */
import { expect, test, type BrowserContext, type Page } from 'playwright/test';
import { vectorArchive } from './archives.ts';
import { targetUrls } from './worker-targets.ts';

const N = 4_000;

async function harness(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

test('closing the tab right after a big import: the next open is usable at once while the graph catches up, then snapshotted', async ({ context, browser }) => {
  test.setTimeout(300_000);
  const name = `reopen-import-${Date.now()}`;
  const first = await harness(context);
  const afterImport = await first.evaluate(
    async ({ name, b64 }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const memory = await window.houkai.connect({ name, index: 'hnsw' });
      const result = await memory.importArchive(new Blob([bytes]));
      const { index } = await memory.stats();
      return { imported: result.imported, pending: index.pending, snapshot: index.snapshotGeneration };
    },
    { name, b64: Buffer.from(vectorArchive(N, 'reopen')).toString('base64') },
  );
  expect(afterImport.imported).toBe(N);
  expect(afterImport.pending).toBeGreaterThan(0);
  expect(afterImport.snapshot).toBeNull();

  // The tab closes; with it goes the only client of the SharedWorker, which ends mid-drain.
  await first.close();
  await expect.poll(async () => (await targetUrls(browser, 'shared_worker', /memory\.worker/)).length, { timeout: 30_000 }).toBe(0);

  const second = await harness(context);
  const reopened = await second.evaluate(
    async ({ name }) => {
      const started = performance.now();
      const memory = await window.houkai.connect({ name, index: 'hnsw' });
      const { index, count } = await memory.stats();
      const hits = await memory.recall('Bulk memory number 3999', { k: 5, touch: false });
      return { openMs: performance.now() - started, count, size: index.size, pending: index.pending, generation: index.generation, top: hits.map((h) => h.memory.id) };
    },
    { name },
  );
  test.info().annotations.push({ type: 'reopen', description: JSON.stringify({ openMs: Math.round(reopened.openMs), pending: reopened.pending }) });
  expect(reopened.count).toBe(N);
  expect(reopened.size).toBe(N);
  // The open did not wait for the graph: most of it is still pending, and recall answers.
  expect(reopened.pending).toBeGreaterThan(N / 2);
  expect(reopened.top).toHaveLength(5);

  // The snapshot follows the drain's end (not a debounce later), covering every vector.
  await expect
    .poll(async () => second.evaluate(async ({ name }) => (await (await window.houkai.connect({ name, index: 'hnsw' })).stats()).index, { name }), { timeout: 120_000, intervals: [250] })
    .toMatchObject({ pending: 0, snapshotGeneration: reopened.generation, size: N });
});
