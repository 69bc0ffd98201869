// The int8 index's helper threads in the browser (#54): in the page's cross-origin-isolated
// dedicated worker that serves an OPFS store, batches of insertions are searched by a helper
// worker of the kernel too (src/adapters/hnsw-i8/kernel-threads.ts), and what was inserted is found.
import { expect, test } from 'playwright/test';

test('an OPFS store inserts into its int8 index on helper threads, and finds what it holds', async ({ page }) => {
  await page.goto('/e2e/bench.html');
  await expect(page.locator('#status')).toHaveText('ready');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  const name = `threads-${Date.now()}`;
  await page.evaluate((n) => window.bench.open(n, { storage: 'opfs', index: 'hnsw-i8' }), name);
  // 8,000 memories: batches use the helpers once the graph holds 4,096.
  await page.evaluate((n) => window.bench.ingest(n, 0, 8000, 2000), name);
  await page.evaluate((n) => window.bench.flush(n), name);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const memory = await page.evaluate(() => window.bench.workerMemory());
  test.info().annotations.push({ type: 'index threads', description: `${memory.i8IndexThreads} (cores ${cores}), ${memory.i8HelperItems} items searched by helpers` });
  expect(memory.i8IndexThreads).toBe(Math.min(4, cores));
  // The helpers took part (a helper worker that failed to load would leave this at 0).
  if (cores > 1) expect(memory.i8HelperItems).toBeGreaterThan(0);
  const probes = [5, 4095, 4321, 6001, 7999];
  const hits = await page.evaluate(([n, queries]) => window.bench.recallHits(n as string, queries as string[], 1), [name, probes.map((i) => `m:${i}`)] as const);
  expect(hits).toEqual(probes.map((i) => [`m:${i}`]));
  expect((await page.evaluate((n) => window.bench.stats(n), name)).count).toBe(8000);
  await page.evaluate((n) => window.bench.close(n), name);
});
