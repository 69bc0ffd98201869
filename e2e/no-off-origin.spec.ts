// #16 item 4: the installed app loads models only from its own origin. Chromium runs behind a
// recording proxy that every non-loopback request goes through, whichever context makes it (the
// page, the service worker, the memory SharedWorker): the app opens a new store — on bge-small
// from the origin, and, on a host that answers 404 for the model files, on the bundled use-lite —
// and the proxy sees nothing. Playwright's page events would not see the SharedWorker's requests.
import { fileURLToPath } from 'node:url';
import { chromium, expect, test, type Browser } from 'playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { recordingProxy, serveStatic } from './offline-servers.ts';
import { expectReady } from './app-helpers.ts';

const APP = fileURLToPath(new URL('../dist/e2e/', import.meta.url));

/**
 * Chromium's own services (component updates, sign-in, autofill) call Google's hosts whatever
 * the page does; they are the browser's traffic, not the app's, and are left out. Everything
 * else that reaches the proxy fails the test.
 */
const BROWSER_SERVICES = /^(CONNECT )?(https?:\/\/)?([a-z0-9-]+\.)*(googleapis\.com|google\.com|gvt1\.com|gstatic\.com)(:\d+)?(\/|$)/;
const offOrigin = (): string[] => proxy.seen.filter((entry) => !BROWSER_SERVICES.test(entry));

let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let browser: Browser;

test.beforeAll(async () => {
  proxy = await recordingProxy();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, `--proxy-server=${proxy.url}`] });
});

test.afterAll(async () => {
  await browser?.close();
  await proxy?.close();
});

for (const scenario of [
  { name: 'the models served', missing: undefined, model: 'bge-small-en-v1.5' },
  { name: 'a host answering 404 for the models', missing: /^\/models\/Xenova\//, model: 'USE-lite' },
]) {
  test(`a new store opens with no off-origin request: ${scenario.name}`, async () => {
    const app = await serveStatic(APP, scenario.missing ? { missing: scenario.missing } : {});
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      await expectReady(page, 150_000);
      await expect(page.locator('.chips')).toContainText(scenario.model);
      // The model files were asked of the origin (and, in the 404 case, refused there).
      expect(app.requests.some((path) => path.startsWith('/models/Xenova/bge-small-en-v1.5/'))).toBe(true);
      await page.waitForTimeout(1_000);
      expect(offOrigin()).toEqual([]);
    } finally {
      await context.close();
      await app.close();
      proxy.seen.length = 0;
    }
  });
}

// Last, so its own requests (the page, its favicon) cannot mix with the app's.
test('the proxy sees what leaves the loopback (the check works)', async () => {
  const page = await browser.newPage();
  await page.goto('http://models.invalid/probe').catch(() => undefined);
  expect(offOrigin()).toContain('http://models.invalid/probe');
  expect(BROWSER_SERVICES.test('CONNECT huggingface.co:443')).toBe(false);
  expect(BROWSER_SERVICES.test('CONNECT cdn.jsdelivr.net:443')).toBe(false);
  await page.close();
});
