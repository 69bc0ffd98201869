import { expect, test } from 'playwright/test';

// #54 item 5: a full disk under a store on OPFS. The origin's quota is cut (DevTools'
// Storage.overrideQuotaForOrigin) until a rememberMany no longer fits: the call fails with
// STORAGE_QUOTA, its batch is not half-written (the store holds whole batches, its index matches),
// and once room is given back the store writes again.

test('a full disk under an OPFS store: STORAGE_QUOTA, whole batches, and writes again once there is room', async ({ page, context, baseURL }) => {
  test.setTimeout(180_000);
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const origin = new URL(baseURL!).origin;
  const cdp = await context.newCDPSession(page);
  const used = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'full', storage: 'opfs' });
    await memory.rememberMany(Array.from({ length: 50 }, (_, i) => `a note that fits ${i}`));
    await memory.flush();
    return (await navigator.storage.estimate()).usage ?? 0;
  });
  // Room for a little more than what is there: the next large call runs out of it.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: used + 256 * 1024 });
  const outcome = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'full', storage: 'opfs' });
    const long = 'x'.repeat(2000);
    let code = '';
    let message = '';
    for (let call = 0; call < 40 && !code; call++) {
      try {
        await memory.rememberMany(Array.from({ length: 200 }, (_, i) => `call ${call} note ${i}: ${long}`), { batchSize: 50 });
      } catch (error) {
        code = error instanceof window.houkai.MemoryError ? error.code : String(error);
        message = (error as Error).message;
      }
    }
    const stats = await memory.stats();
    return { code, message, count: stats.count, index: stats.index.size };
  });
  expect(outcome.code, outcome.message).toBe('STORAGE_QUOTA');
  expect((outcome.count - 50) % 50).toBe(0);
  expect(outcome.index).toBe(outcome.count);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  const after = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'full', storage: 'opfs' });
    await memory.remember('written once there is room again');
    return { count: await memory.count(), top: (await memory.recall('written once there is room again', { k: 1 }))[0]!.memory.text };
  });
  expect(after).toEqual({ count: outcome.count + 1, top: 'written once there is room again' });
});
