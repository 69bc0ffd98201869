/**
 * The app as an installed PWA, against the production build: the manifest Chromium accepts for
 * installation (checked by Chromium itself over CDP, and field by field), icons that load at
 * their stated sizes, a service worker that controls the page and keeps it working offline, and
 * the update prompt end to end — a second build of the app (a changed precached page, so a
 * changed service worker) served to the same origin installs in the background, waits, and the
 * banner's Reload switches to it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type Page } from 'playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { expectNoHorizontalScroll, expectReady, guardPages, openStore, remember, shot } from './app-helpers.ts';
import { serve } from '../scripts/serve.mjs';

guardPages();

const DIST = join(process.cwd(), 'dist', 'e2e');

/** PNG width and height from the IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function waitForController(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

test('installable: a valid manifest with loading icons, a service worker in control, and offline use', async ({ page, context }) => {
  await openStore(page, 'pwa-install');

  // The manifest is linked and holds what installation needs.
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/manifest.webmanifest');
  const response = await page.request.get(href!);
  expect(response.ok()).toBe(true);
  const manifest = (await response.json()) as {
    name: string;
    short_name: string;
    start_url: string;
    scope: string;
    display: string;
    icons: { src: string; sizes: string; type: string; purpose?: string }[];
  };
  expect(manifest.name).toBe('Houkai Web');
  expect(manifest.short_name).toBe('Houkai');
  expect(manifest.display).toBe('standalone');
  expect(manifest.start_url).toBe('/');
  expect(manifest.scope).toBe('/');
  // Every icon loads, is a PNG, and has the size it claims; 192 and 512 are there, one maskable.
  for (const icon of manifest.icons) {
    const img = await page.request.get(new URL(icon.src, new URL(href!, page.url())).href);
    expect(img.ok()).toBe(true);
    expect(img.headers()['content-type']).toContain('image/png');
    const { width, height } = pngSize(await img.body());
    expect(`${width}x${height}`).toBe(icon.sizes);
  }
  expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  expect(manifest.icons.some((i) => i.purpose === 'maskable')).toBe(true);

  // A service worker controls the page (after one reload at most).
  await waitForController(page);
  await expectReady(page);

  // Chromium parses the manifest without errors (its installability verdict is the next test:
  // it needs a profile that is not incognito).
  const cdp = await context.newCDPSession(page);
  const app = (await cdp.send('Page.getAppManifest')) as { url: string; errors: { message: string; critical: number }[] };
  expect(app.url).toMatch(/\/manifest\.webmanifest$/);
  expect(app.errors).toEqual([]);

  // Offline: the reload comes from the precache, the model from the precache, and the store works.
  await remember(page, 'Written before going offline.');
  await context.setOffline(true);
  try {
    await page.reload();
    await expectReady(page);
    await expect(page.locator('main')).toHaveAttribute('data-store', 'pwa-install');
    // The default model (bge-small) came from the precache: the installed app embeds with no network.
    await expect(page.locator('.chips')).toContainText('bge-small-en-v1.5');
    await remember(page, 'Written while offline: the app keeps working without the network.');
    await page.getByLabel('Search your memories').fill('does the app work offline without network?');
    await expect(page.locator('.result').first()).toContainText('Written while offline');
    await expect(page.locator('.result')).toHaveCount(2);
  } finally {
    await context.setOffline(false);
  }
});

test('Chromium itself finds the app installable (a normal, non-incognito profile)', async ({ baseURL }) => {
  const profile = mkdtempSync(join(tmpdir(), 'houkai-pwa-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, baseURL: baseURL! });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/');
    await expectReady(page);
    await waitForController(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    expect(installabilityErrors).toEqual([]);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// The update flow: the app's own server (scripts/serve.mjs) for the e2e build, switched to a
// "second build" — index.html changed, and the service worker's precache revision for it changed
// with it, exactly what a new deploy of the app looks like to a browser that has the old one.

interface AppServer {
  origin: string;
  /** Switches what the server hands out to build 2. */
  deploySecondBuild(): void;
  close(): Promise<void>;
}

async function serveApp(): Promise<AppServer> {
  const overrides = new Map<string, Buffer>();
  const { server, url } = await serve({ dir: DIST, port: 0, override: (path) => overrides.get(path) });
  const port = new URL(url).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    deploySecondBuild() {
      const html = readFileSync(join(DIST, 'index.html'), 'utf8');
      const next = html.replace('<head>', '<head>\n    <meta name="app-build" content="2" />');
      expect(next).not.toBe(html);
      const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
      const nextSw = sw.replace(/(\{url:"index\.html",revision:")[0-9a-f]+(")/, '$1e2e-second-build$2');
      expect(nextSw).not.toBe(sw);
      overrides.set('/index.html', Buffer.from(next));
      overrides.set('/sw.js', Buffer.from(nextSw));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('a new version waits for the person: the banner offers Reload, Later puts it off, Reload switches to the new build', async ({ page }) => {
  const server = await serveApp();
  try {
    await page.goto(`${server.origin}/`);
    await expectReady(page);
    await waitForController(page);
    await expect(page.locator('meta[name="app-build"]')).toHaveCount(0);
    await expect(page.locator('.update-banner')).toHaveCount(0);

    // A new build is deployed; the open app finds it (the app checks hourly and on reconnect;
    // here the test asks the registration now).
    server.deploySecondBuild();
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    const banner = page.getByRole('status').filter({ hasText: 'A new version is available.' });
    await expect(banner).toBeVisible({ timeout: 60_000 });
    await expect(banner.getByRole('button', { name: 'Reload' })).toBeVisible();
    await shot(page, 'update-banner', false);
    // Nothing switched behind the person's back: the new worker waits, the page is the old build.
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.waiting !== null)).toBe(true);
    await expect(page.locator('meta[name="app-build"]')).toHaveCount(0);

    // Later hides the banner; the next visit still runs the old build and asks again.
    await banner.getByRole('button', { name: 'Later' }).click();
    await expect(page.locator('.update-banner')).toHaveCount(0);
    await page.reload();
    await expectReady(page);
    await expect(page.locator('meta[name="app-build"]')).toHaveCount(0);
    await expect(banner).toBeVisible({ timeout: 60_000 });

    // Reload: the waiting worker takes over and the page reloads into the second build.
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoHorizontalScroll(page);
    await shot(page, 'mobile-update-banner', false);
    const reloaded = page.waitForEvent('load');
    await banner.getByRole('button', { name: 'Reload' }).click();
    await reloaded;
    await expect(page.locator('meta[name="app-build"]')).toHaveAttribute('content', '2');
    await expectReady(page);
    await expect(page.locator('.update-banner')).toHaveCount(0);
    const state = await page.evaluate(async () => {
      const registration = (await navigator.serviceWorker.getRegistration())!;
      return { controlled: navigator.serviceWorker.controller !== null, waiting: registration.waiting !== null, active: registration.active?.state };
    });
    expect(state).toEqual({ controlled: true, waiting: false, active: 'activated' });
  } finally {
    await server.close();
  }
});
