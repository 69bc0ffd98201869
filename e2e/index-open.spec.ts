/**
 * Issue #30 (items 4 and 6): a store on the int8 index keeps it when the app opens it without
 * asking for one (the app's default for new stores is hnswlib), and the opening screen says how
 * much of the saved index it has read ("Loading the search index n%").
 */
import { expect, test } from 'playwright/test';
import { expectReady, guardPages, memoryCount, openingTexts, shot, startWithStore } from './app-helpers.ts';

guardPages();

const N = 3_000;

test('an int8 store opens in the app on its own index, and the opening screen counts the index being read', async ({ page }) => {
  test.setTimeout(300_000);
  const store = `int8-open-${Date.now()}`;
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const made = await page.evaluate(
    async ([name, n]) => {
      const client = await window.houkai.connect({ name: name as string, index: 'hnsw-i8' });
      const texts = Array.from({ length: n as number }, (_, i) => `note ${i}: ${['deploys run on Fridays', 'reviews need two approvals', 'the office is in Berlin', 'lunch is at noon'][i % 4]}`);
      for (let i = 0; i < texts.length; i += 1_000) await client.rememberMany(texts.slice(i, i + 1_000));
      const stats = await client.stats();
      await client.close();
      return stats.index.kind;
    },
    [store, N] as const,
  );
  expect(made).toBe('hnsw-i8');
  await startWithStore(page, store);
  await page.goto('/');
  await expectReady(page);
  await shot(page, 'int8-store-open', false);
  const texts = await openingTexts(page);
  expect(texts).toMatch(/Loading the search index\s+\d+%/);
  // Nothing was rebuilt: the saved int8 index was read, not replaced by the default's.
  expect(texts).not.toContain('Rebuilding the search index');
  expect(await memoryCount(page)).toBe(N);
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const kind = await page.evaluate(async (name) => {
    const client = await window.houkai.connect({ name });
    const stats = await client.stats();
    await client.close();
    return stats.index.kind;
  }, store);
  expect(kind).toBe('hnsw-i8');
});
