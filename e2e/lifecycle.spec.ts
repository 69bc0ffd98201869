/**
 * Lifecycle in the browser, against the production build: the maintenance scheduler never runs
 * twice at once across tabs (one shared worker, and two independent owners: a dedicated worker
 * per tab); the app's automatic export downloads an archive when it is due and the archive
 * imports back; the app warns when the store's database was deleted behind its back.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from 'playwright/test';
import type { MemoryClient } from '../src/index.ts';
import { expectReady, openStore } from './app-helpers.ts';

const SHOTS = join(process.cwd(), 'e2e', 'screenshots');
mkdirSync(SHOTS, { recursive: true });

type Run = { job: string; startedAt: number; finishedAt: number; ok: boolean };
type LoopResult = { attempts: number; ticks: number; history: Run[] };

declare global {
  interface Window {
    lifecycle?: MemoryClient;
  }
}

let problems: string[] = [];

function watch(page: Page): Page {
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return page;
}

test.beforeEach(() => {
  problems = [];
});

test.afterEach(() => {
  expect(problems).toEqual([]);
});

async function openHarness(context: BrowserContext): Promise<Page> {
  const page = watch(await context.newPage());
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

/** Forced maintenance ticks in a loop for `ms`, stopping after `maxTicks` ticks that ran. */
function hammer(page: Page, ms: number, maxTicks: number): Promise<LoopResult> {
  return page.evaluate(
    async ({ ms, maxTicks }) => {
      const memory = window.lifecycle!;
      let attempts = 0;
      let ticks = 0;
      const deadline = Date.now() + ms;
      while (Date.now() < deadline && ticks < maxTicks) {
        attempts += 1;
        const runs = await memory.runMaintenance(['purge', 'decay', 'trash', 'journal']);
        if (runs.length > 0) ticks += 1;
      }
      return { attempts, ticks, history: (await memory.maintenanceStatus()).history };
    },
    { ms, maxTicks },
  );
}

/** Pairs of runs from the two histories whose [startedAt, finishedAt] intervals overlap. */
function overlaps(a: Run[], b: Run[]): [Run, Run][] {
  const out: [Run, Run][] = [];
  for (const x of a) for (const y of b) if (x.startedAt < y.finishedAt && y.startedAt < x.finishedAt) out.push([x, y]);
  return out;
}

test('maintenance never runs twice at once across two tabs: two independent owners (a dedicated worker each) and one shared worker', async ({ context }) => {
  const [a, b] = [await openHarness(context), await openHarness(context)];
  const store = 'lifecycle-maintenance';
  // Two owners of one store: each tab starts its own dedicated worker (its own scheduler), so
  // only the cross-tab Web Lock can keep their ticks apart.
  await a.evaluate(async (name) => {
    window.lifecycle = await window.houkai.connectDedicated({ name, index: 'exact' });
    const soon = Date.now() / 1000 + 3600;
    await window.lifecycle.rememberMany(
      Array.from({ length: 300 }, (_, i) => ({ text: `Maintenance note ${i} about topic ${i % 13}`, ...(i % 4 === 0 ? { expiresAt: soon } : {}) })),
      { batchSize: 100 },
    );
  }, store);
  await b.evaluate(async (name) => {
    window.lifecycle = await window.houkai.connectDedicated({ name, index: 'exact' });
  }, store);
  const [ra, rb] = await Promise.all([hammer(a, 8000, 20), hammer(b, 8000, 20)]);
  console.log(`dedicated owners: tab a ${ra.ticks}/${ra.attempts} ticks ran, tab b ${rb.ticks}/${rb.attempts}`);
  // Each owner has its own scheduler: its history holds its own ticks only (4 jobs each).
  expect(ra.history.length).toBe(ra.ticks * 4);
  expect(rb.history.length).toBe(rb.ticks * 4);
  expect(ra.ticks).toBeGreaterThan(0);
  expect(rb.ticks).toBeGreaterThan(0);
  expect([...ra.history, ...rb.history].every((r) => r.ok)).toBe(true);
  // They competed (some ticks found the lock held and were skipped)…
  expect(ra.attempts + rb.attempts).toBeGreaterThan(ra.ticks + rb.ticks);
  // …and no run of one overlapped a run of the other.
  expect(overlaps(ra.history, rb.history)).toEqual([]);

  // The usual set-up: both tabs on the one shared worker, one scheduler for the store.
  const shared = 'lifecycle-maintenance-shared';
  for (const page of [a, b]) {
    await page.evaluate(async (name) => {
      await window.lifecycle?.close();
      window.lifecycle = await window.houkai.connect({ name, index: 'exact' });
      await window.lifecycle.rememberMany(Array.from({ length: 50 }, (_, i) => `Shared note ${i}`));
    }, shared);
  }
  const [sa, sb] = await Promise.all([hammer(a, 4000, 10), hammer(b, 4000, 10)]);
  // One scheduler: both tabs read the same history, holding every tick either of them ran.
  const history = sa.history.length >= sb.history.length ? sa.history : sb.history;
  expect(history.length).toBe((sa.ticks + sb.ticks) * 4);
  const sorted = [...history].sort((x, y) => x.startedAt - y.startedAt);
  for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.startedAt).toBeGreaterThanOrEqual(sorted[i - 1]!.finishedAt);
});

// ---------------------------------------------------------------------------------------------
// The app

const openApp = openStore;

async function remember(page: Page, text: string): Promise<void> {
  await page.locator('#add-text').fill(text);
  await page.getByRole('button', { name: 'Remember', exact: true }).click();
  await expect(page.locator('#add-text')).toHaveValue('');
}

function ymd(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const TEXTS = ['Backups run every night at two.', 'The staging database is reset on Sundays.', 'Release notes go to the #ops channel.'];

test('automatic export: downloads <store>-<date>.ahkai at once, not again before it is due, again when due; the archive imports back', async ({ page, context }) => {
  watch(page);
  await page.clock.install();
  const store = 'lifecycle-auto-export';
  await openApp(page, store);
  for (const text of TEXTS) await remember(page, text);
  await page.getByRole('link', { name: /^Activity/ }).click();
  const panel = page.locator('section.durability');
  await expect(panel.getByTestId('last-export')).toHaveText('never');

  const downloads: string[] = [];
  page.on('download', (d) => downloads.push(d.suggestedFilename()));
  await panel.locator('#auto-export-days').fill('2');
  await panel.locator('#auto-export-days').press('Tab');
  // Turning it on with no export yet exports now.
  const first = page.waitForEvent('download');
  await panel.locator('#auto-export-enabled').check();
  const firstDownload = await first;
  const start = new Date(await page.evaluate(() => Date.now()));
  expect(firstDownload.suggestedFilename()).toBe(`${store}-${ymd(start)}.ahkai`);
  await expect(panel.getByTestId('last-export')).not.toHaveText('never');
  await expect(panel).toContainText('Next export on');
  await panel.screenshot({ path: join(SHOTS, 'durability-auto-export.png') });

  // A day later: not due (every 2 days), nothing is downloaded.
  await page.clock.fastForward('24:00:00');
  await page.waitForTimeout(1500);
  expect(downloads).toEqual([firstDownload.suggestedFilename()]);

  // Two days and an hour later: due, and the timer exports on its own.
  const second = page.waitForEvent('download');
  await page.clock.fastForward('25:00:00');
  const secondDownload = await second;
  const later = new Date(await page.evaluate(() => Date.now()));
  expect(secondDownload.suggestedFilename()).toBe(`${store}-${ymd(later)}.ahkai`);
  expect(ymd(later)).not.toBe(ymd(start));

  // The archive imports back into a fresh store with the same memories.
  const bytes = readFileSync((await secondDownload.path())!);
  const harness = await openHarness(context);
  const restored = await harness.evaluate(async (b64) => {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const memory = await window.houkai.connect({ name: 'lifecycle-auto-export-restore', embedder: 'auto' }); // the app's default model, as the archive's vectors
    const result = await memory.importArchive(new Blob([bin]));
    const texts = (await memory.listRecent({ limit: 10 })).map((m) => m.text);
    return { imported: result.imported, texts };
  }, bytes.toString('base64'));
  expect(restored.imported).toBe(TEXTS.length);
  expect([...restored.texts].sort()).toEqual([...TEXTS].sort());
});

test('the app warns when the store’s database was deleted behind its back, until dismissed', async ({ page }) => {
  watch(page);
  const store = 'lifecycle-canary';
  await openApp(page, store);
  await remember(page, TEXTS[0]!);
  await remember(page, TEXTS[1]!);
  await page.getByRole('link', { name: /^Activity/ }).click();
  const panel = page.locator('section.durability');
  await expect(panel.locator('[data-canary]')).toHaveAttribute('data-canary', /^(ok|new)$/);
  await expect(panel.locator('.durability-alert')).toHaveCount(0);
  // The registry records the count after a quiet period; the Export now button makes one at once.
  const download = page.waitForEvent('download');
  await panel.getByRole('button', { name: 'Export now' }).click();
  await download;
  await expect(panel.getByTestId('last-export')).not.toHaveText('never');

  // The browser (or anything else) deletes the store's database. Dexie in the worker closes its
  // connection on the versionchange event, so the delete goes through.
  await page.evaluate(
    (name) =>
      new Promise<void>((resolve, reject) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = () => resolve();
        request.onerror = () => reject(request.error);
      }),
    `houkai-web:${store}`,
  );
  await page.reload();
  await expectReady(page);
  await expect(page.locator('main')).toHaveAttribute('data-store', store);
  await expect(page.locator('.toast', { hasText: 'looks lost or cleared' })).toBeVisible();
  await page.goto('/#/activity');
  const alert = page.locator('section.durability .durability-alert');
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('held 2 memories');
  await expect(alert).toContainText('Your last export was made on');
  await expect(page.locator('section.durability [data-canary]')).toHaveAttribute('data-canary', 'missing');
  await page.screenshot({ path: join(SHOTS, 'durability-loss.png'), fullPage: true });
  await alert.getByRole('button', { name: 'Dismiss' }).click();
  await expect(alert).toHaveCount(0);
  await page.reload();
  await expectReady(page);
  await expect(page.locator('section.durability')).toBeVisible();
  await expect(page.locator('section.durability [data-canary]')).toHaveAttribute('data-canary', 'ok');
  await expect(page.locator('section.durability .durability-alert')).toHaveCount(0);
});
