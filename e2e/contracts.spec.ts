// The storage contract suites of test/contracts/ in Chromium, in a dedicated worker: the engine
// port and the MemoryStorage contract on Dexie over the real IndexedDB and on SQLite in OPFS
// (sqlite-wasm's opfs-sahpool VFS), the scripted life of a store giving the same answers on both,
// a store on OPFS through createMemory, and the index block store on both (e2e/contracts.worker.ts,
// e2e/contracts-opfs.ts).
import { expect, test } from 'playwright/test';

test('the storage contracts pass in a Chromium worker on IndexedDB and on OPFS', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/e2e/contracts.html');
  const results = await page.evaluate(() => window.contracts.done);
  const failed = results.filter((r) => !r.ok);
  console.log(`contracts: ${results.length} cases, ${failed.length} failed, OPFS ${results.filter((r) => r.name.includes('OPFS')).length}`);
  for (const f of failed) console.log(`FAILED ${f.name}: ${f.error}`);
  expect(failed).toEqual([]);
  const on = (backend: string) => results.filter((r) => r.name.includes(backend)).length;
  // Every case of both suites ran on OPFS, as many as on IndexedDB.
  expect(on('sqlite (OPFS)')).toBeGreaterThanOrEqual(25);
  expect(on('sqlite (OPFS)')).toBe(on('dexie (IndexedDB)'));
  expect(results.some((r) => r.name.startsWith('the store over each storage gives the same answers'))).toBe(true);
  expect(results.filter((r) => r.name.startsWith('a store on OPFS')).length).toBe(5);
  // The index block store's cases, on both (the OPFS driver lends blobs from SQLite's memory).
  expect(results.filter((r) => r.name.startsWith('index block store: SQLite (OPFS)')).length).toBe(2);
  expect(results.filter((r) => r.name.startsWith('index block store: IndexedDB')).length).toBe(2);
});
