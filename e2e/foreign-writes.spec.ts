import { expect, test } from 'playwright/test';

// A store's read cache re-reads the metadata row only when a write may have happened unseen
// (core/storage/read-cache.ts). Writes in another realm are announced by Dexie over its
// BroadcastChannel: here the memory worker writes, and the page, holding the same database
// through its own engine, hears of each commit.
test('a commit in the memory worker is announced to another realm holding the same store', async ({ page }) => {
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'foreign-writes' });
    await memory.remember('The staging cluster runs on three nodes.');
    await window.houkai.watchWrites('foreign-writes');
  });
  await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'foreign-writes' });
    await memory.remember('The quarterly budget review is on Friday.');
  });
  await expect.poll(() => page.evaluate(() => window.houkai.writesHeard['foreign-writes']), { timeout: 10_000 }).toBeGreaterThan(0);
});
