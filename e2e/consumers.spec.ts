// The consumer matrix (issue #28): the packed tarball, installed into fresh folders and built
// with Vite, webpack 5, esbuild and Rollup, plus a page without a bundler (an import map to the
// package's files) and an MV3 extension bundled with esbuild. Each build runs in Chromium: a
// store opens, remembers, recalls with MiniLM served from the user's own folder, and closes —
// under a CSP without 'unsafe-eval' or `blob:` (the extension under MV3's own).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, expect, test } from 'playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { WEB_EXAMPLES, buildExample, strictCsp, tarball, type WebExample } from './consumers.ts';
import { serveStatic } from './offline-servers.ts';

test.describe.configure({ mode: 'serial' });

interface Result {
  first: string;
  score: number;
  confidence: string;
  embedder: string;
}

test.beforeAll(() => {
  test.setTimeout(10 * 60_000);
  tarball();
});

test.afterAll(() => rmSync(tarball().work, { recursive: true, force: true }));

for (const name of Object.keys(WEB_EXAMPLES) as WebExample[]) {
  test(`${name}: built from the tarball, a page remembers and recalls with MiniLM`, async ({ browser }) => {
    test.setTimeout(5 * 60_000);
    const { serve, models } = WEB_EXAMPLES[name];
    const root = join(buildExample(name), serve);
    const csp = strictCsp(readFileSync(join(root, 'index.html'), 'utf8'));
    const site = await serveStatic(root, { headers: { 'content-security-policy': csp } });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    try {
      await page.goto(`${site.url}/`);
      await expect(page.locator('body')).toHaveAttribute('data-status', /done|failed/, { timeout: 120_000 });
      const text = (await page.locator('#out').textContent()) ?? '';
      expect(await page.locator('body').getAttribute('data-status'), text).toBe('done');
      const result = JSON.parse(text) as Result;
      expect(result.embedder).toBe('Xenova/all-MiniLM-L6-v2');
      expect(result.first).toBe('Code reviews need two approvals before merging.');
      expect(['strong', 'weak']).toContain(result.confidence);
      expect(problems).toEqual([]);
      // Everything came from the site itself: the worker, its WASM, the model files.
      expect(site.requests.some((path) => path.endsWith('.wasm'))).toBe(true);
      expect(site.requests.some((path) => path.startsWith(`${models}Xenova/all-MiniLM-L6-v2/`))).toBe(true);
    } finally {
      await page.close();
      await site.close();
    }
  });
}

test('an MV3 extension bundled with esbuild: the popup remembers, a content script recalls through the offscreen document', async () => {
  test.setTimeout(5 * 60_000);
  const dir = join(buildExample('extension'), 'dist');
  const { work } = tarball();
  const context = await chromium.launchPersistentContext(join(work, 'extension-profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
  try {
    const background = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
    const id = new URL(background.url()).host;
    const popup = await context.newPage();
    await popup.goto(`chrome-extension://${id}/popup.html`);
    await expect(popup.locator('body')).toHaveAttribute('data-status', /done|failed/, { timeout: 120_000 });
    const popupText = (await popup.locator('#out').textContent()) ?? '';
    expect(await popup.locator('body').getAttribute('data-status'), popupText).toBe('done');
    expect(JSON.parse(popupText)).toEqual({ remembered: 2 });

    await context.route('https://example.com/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>A page</title><p>Reviews, approvals and standups.</p>' }),
    );
    const page = await context.newPage();
    await page.goto('https://example.com/notes');
    await expect(page.locator('html')).toHaveAttribute('data-houkai', /.+/, { timeout: 120_000 });
    const recalled = JSON.parse((await page.locator('html').getAttribute('data-houkai')) ?? '{}') as { first?: string; error?: string };
    expect(recalled.error).toBeUndefined();
    expect(recalled.first).toBe('Code reviews need two approvals before merging.');
  } finally {
    await context.close();
  }
});
