/**
 * The product UI (index.html) end to end, in Chromium against the production build: what a
 * person sees when they add, search, edit, forget and undo, import by drag-and-drop, export,
 * browse 10k memories, and use the app on a 360 px screen. Each test opens its own store
 * through the store picker. Screenshots of the main screens land in e2e/screenshots/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from 'playwright/test';
import { gzipGoMember, gzipPythonMember, pythonArchive, pythonHeader, pythonText } from '../test/fixtures/make-archives.ts';
import { serializeRow } from '../src/core/archive/format.ts';
import type { Memory } from '../src/core/types.ts';
import { makeMemory } from '../test/helpers/memory.ts';
import { dropFile, expectNoHorizontalScroll, guardPages, memoryCount, openStore, remember, shot, SHOTS } from './app-helpers.ts';

// Every test: no page error, no CSP violation, and no script-opened dialog.
const guarded = guardPages();
const dialogs = guarded.dialogs;

// ---------------------------------------------------------------------------------------------
// Helpers

function memoryRow(partial: Partial<Memory> & { id: string; text: string }): Memory {
  return makeMemory(partial.id, partial.text, { createdAt: 1767225600, lastAccessed: 1767225600, ...partial });
}

/**
 * An archive of `n` memories with 512-d vectors labelled as the store's own model
 * (use-lite: the harness page opens stores on it), so importing it embeds nothing. Rows are the project's own serialisation; only
 * 64 distinct vectors are serialised (the slow part) and reused.
 */
function seedArchive(n: number, base: number): Uint8Array {
  const levels = [-1, -0.5, 0, 0.5, 1];
  let seed = 7;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const probe = memoryRow({ id: 'probe', text: 'probe' });
  const bare = serializeRow(probe);
  const vectorParts = Array.from({ length: 64 }, () => {
    const line = serializeRow(probe, Float32Array.from({ length: 512 }, () => levels[Math.floor(random() * levels.length)]!));
    return line.slice(bare.length - 1); // ',"vector":[…]}'
  });
  const memories: Memory[] = [];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = String(i).padStart(5, '0');
    const m = memoryRow({ id: `seed-${id}`, text: `Seed memory ${id} about ${TOPICS[i % 10]}`, tags: [TOPICS[i % 10]!], createdAt: base + i * 60, lastAccessed: base + i * 60 });
    memories.push(m);
    lines.push(serializeRow(m).slice(0, -1) + vectorParts[i % vectorParts.length]!);
  }
  const header = pythonHeader({ memories, vectors: [], model: 'universal-sentence-encoder-lite', dim: 512, collection: 'seed' });
  return gzipGoMember(`${[header, ...lines].join('\n')}\n`); // level 6: level 9 takes ~25 s on this repetitive text
}

/** Opens a memory in Browse through the hash route (no page load). */
async function openMemory(page: Page, id: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#/browse/${encodeURIComponent(id)}`);
  await expect(page.locator('.detail')).toBeVisible();
}

const TOPICS = ['deploys', 'linting', 'testing', 'databases', 'caching', 'logging', 'billing', 'search', 'auth', 'queues'];

// ---------------------------------------------------------------------------------------------

test('add → search shows the score breakdown → edit in the detail pane → forget → Undo restores it', async ({ page }) => {
  await openStore(page, 'flow-basic');
  await expect(page.getByText('This store is empty.')).toBeVisible();

  await remember(page, 'We lint the TypeScript codebase with ESLint and format it with Prettier.', { type: 'procedural', tags: 'tooling, lint' });
  await remember(page, 'Production deploys run from the main branch through the release pipeline every Tuesday.', { type: 'semantic', tags: 'deploy' });
  await remember(page, 'The user prefers answers in British English with metric units.', { type: 'feedback', tags: 'prefs' });
  await expect.poll(() => memoryCount(page)).toBe(3);

  await page.getByLabel('Search your memories').fill('which linter does the codebase use? eslint');
  const first = page.locator('.result').first();
  await expect(first).toContainText('We lint the TypeScript codebase with ESLint');
  // The score, a confidence verdict and a breakdown with the four hybrid signals.
  await expect(first.locator('.score-value')).toHaveText(/^\d\.\d{3}$/);
  await expect(first.locator('.confidence')).toHaveText(/Strong match|Weak match|No real match/);
  const breakdown = first.locator('table.breakdown');
  for (const label of ['Meaning', 'Keywords', 'Recency', 'Importance']) await expect(breakdown.getByRole('rowheader', { name: label })).toBeVisible();
  // Matched query terms are highlighted as text.
  await expect(first.locator('mark').filter({ hasText: /^ESLint$/ })).toHaveCount(1);
  await expect(first.locator('mark').filter({ hasText: /^codebase$/ })).toHaveCount(1);
  await expect(page.locator('.result')).toHaveCount(3);
  await shot(page, 'search-results');

  // Semantic mode: the breakdown is cosine alone.
  await page.locator('.segmented label', { hasText: 'Semantic' }).click();
  await expect(first.locator('table.breakdown').getByRole('rowheader', { name: 'Keywords' })).toHaveCount(0);
  await expect(first.locator('table.breakdown').getByRole('rowheader', { name: 'Meaning' })).toBeVisible();
  // A filter narrows the results.
  await page.locator('#f-type').selectOption('feedback');
  await expect(page.locator('.result')).toHaveCount(1);
  await expect(page.locator('.result').first()).toContainText('British English');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.locator('.result')).toHaveCount(3);
  await page.locator('.segmented label', { hasText: 'Hybrid' }).click();

  // Open the lint memory in Browse and edit every editable field.
  await page.locator('.result').filter({ hasText: 'ESLint' }).getByRole('link', { name: /Details/ }).click();
  await expect(page).toHaveURL(/#\/browse\//);
  const detail = page.locator('.detail');
  await expect(detail.locator('.detail-text')).toHaveText('We lint the TypeScript codebase with ESLint and format it with Prettier.');
  await expect(page.getByRole('listbox').getByRole('option', { selected: true })).toContainText('We lint the TypeScript');
  await detail.getByRole('button', { name: 'Edit' }).click();
  await page.locator('#edit-text').fill('We lint the TypeScript codebase with Biome now, not ESLint.');
  await page.locator('#edit-type').selectOption('semantic');
  await page.locator('#edit-tags').fill('tooling, biome');
  await page.locator('#edit-importance').fill('0.9');
  await page.locator('#edit-pinned').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(detail.locator('.detail-text')).toHaveText('We lint the TypeScript codebase with Biome now, not ESLint.');
  await expect(detail.locator('.meta')).toContainText('#biome');
  await expect(detail.locator('.meta .badge')).toHaveText('semantic');
  await expect(detail.locator('.meta')).toContainText('pinned');
  await expect(detail.locator('.fields')).toContainText('0.90');
  await expect(page.locator('.vrow').filter({ hasText: 'Biome now' })).toHaveCount(1);
  await shot(page, 'browse-detail');

  // Forget, then Undo within the toast's few seconds: the journal's undo brings back the same
  // memory (same id, creation time and every field), not a copy.
  const id = decodeURIComponent(new URL(page.url()).hash.replace('#/browse/', ''));
  const fieldsBefore = await detail.locator('.fields').innerText();
  expect(fieldsBefore).toContain(id);
  await detail.getByRole('button', { name: 'Forget' }).click();
  const toast = page.locator('.toast').filter({ hasText: 'Memory forgotten.' });
  await expect(toast).toBeVisible();
  await expect(page.locator('.vrow').filter({ hasText: 'Biome now' })).toHaveCount(0);
  await expect(page.getByText('Select a memory')).toBeVisible();
  await expect.poll(() => memoryCount(page)).toBe(2);
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('.toast').filter({ hasText: 'Restored.' })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`#/browse/${id}$`));
  await expect(page.locator('.vrow').filter({ hasText: 'Biome now' })).toHaveCount(1);
  await expect(detail.locator('.detail-text')).toHaveText('We lint the TypeScript codebase with Biome now, not ESLint.');
  await expect(detail.locator('.meta')).toContainText('#biome');
  await expect(detail.locator('.meta')).toContainText('pinned');
  expect(await detail.locator('.fields').innerText()).toBe(fieldsBefore);
  await expect.poll(() => memoryCount(page)).toBe(3);
  // The journal shows the forget and its undo.
  await page.getByRole('link', { name: /^Activity/ }).click();
  await expect(page.locator('ol.journal > li').first()).toContainText('Undid');
  await expect(page.locator('ol.journal > li').nth(1)).toContainText('Forgot');

  // Stats reflect the store.
  await page.getByRole('link', { name: 'Stats' }).click();
  await expect(page.locator('.big-number')).toHaveText('3');
  await expect(page.locator('.hbars').first()).toContainText('feedback');
  await expect(page.getByRole('img', { name: /3 memories created in the last 30 days/ })).toBeVisible();
  await expect(page.locator('.stat-card').filter({ hasText: 'Top tags' })).toContainText('#tooling');
  await expect(page.locator('.stat-card').filter({ hasText: 'Search index' })).toContainText('HNSW');
  await expect(page.locator('.stat-card').filter({ hasText: 'Embedder' })).toContainText('Xenova/bge-small-en-v1.5');
  await shot(page, 'stats');
});

test('a memory whose text is HTML renders literally and runs nothing', async ({ page }) => {
  await openStore(page, 'flow-xss');
  const payload = '<img src=x onerror=alert(1)>';
  const scriptTag = '<script>alert("tag")</script>';
  await remember(page, payload, { tags: scriptTag.replace(/\s/g, '') });
  await remember(page, `Notes: ${scriptTag} and <b onmouseover=alert(2)>bold</b> text`);

  await page.getByLabel('Search your memories').fill('img src onerror alert');
  await expect(page.locator('.result').first()).toBeVisible();
  const hit = page.locator('.result').filter({ hasText: payload });
  await expect(hit.locator('.text')).toHaveText(payload);
  await expect(hit.locator('mark').first()).toBeVisible();
  await expect(page.locator('.result img, .result script, .result b')).toHaveCount(0);

  await page.getByRole('link', { name: 'Browse' }).click();
  await page.locator('.vrow').filter({ hasText: payload }).click();
  await expect(page.locator('.detail-text')).toHaveText(payload);
  await expect(page.locator('.detail .meta')).toContainText('#<script>alert("tag")</script>');
  await expect(page.locator('.detail img, .detail script, .vlist img, .vlist b')).toHaveCount(0);
  await page.locator('.vrow').filter({ hasText: 'bold' }).hover();
  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
});

test('drag-and-drop import: preview, progress, summary with row errors; a non-archive changes nothing', async ({ page }) => {
  await openStore(page, 'flow-import');
  await remember(page, 'A memory that was here before the import.');

  const base = 1767225600;
  const memories = Array.from({ length: 240 }, (_, i) =>
    memoryRow({
      id: `imp-${String(i).padStart(3, '0')}`,
      text: `Imported note ${i}: the ${TOPICS[i % TOPICS.length]} service uses setting number ${i * 7}.`,
      type: (['semantic', 'episodic', 'procedural', 'feedback'] as const)[i % 4],
      tags: [TOPICS[i % TOPICS.length]!],
      createdAt: base + i * 3600,
      lastAccessed: base + i * 3600,
      links: i > 0 && i % 10 === 0 ? [{ to: `imp-${String(i - 1).padStart(3, '0')}`, rel: 'related' }] : [],
    }),
  );
  // A vectorless AI-Houkai (Python) archive, plus one broken line to show in the summary.
  const text = `${pythonText({ memories, model: 'sentence-transformers/all-MiniLM-L6-v2', collection: 'ai_houkai' })}{not json}\n`;
  const archive = gzipPythonMember(text, 'export.ahkai');

  await dropFile(page, 'team-memory.ahkai', archive, 'application/gzip', 'drop-overlay');
  const dialog = page.getByRole('dialog', { name: 'Import an archive' });
  await expect(dialog).toBeVisible();
  const preview = dialog.getByLabel('Archive contents');
  await expect(preview).toContainText('241'); // rows in the file (the broken one included)
  await expect(preview).toContainText('ai_houkai');
  await expect(preview).toContainText('all-MiniLM-L6-v2');
  await expect(preview).toContainText('not included');
  await expect(dialog).toContainText('This archive has no vectors');
  await expect(dialog.getByRole('radio', { name: /Skip/ })).toBeChecked();
  await shot(page, 'import-preview', false);

  await dialog.getByRole('radio', { name: /Keep both/ }).check();
  // The broken line is listed in the preview and not counted in what the import offers.
  await expect(dialog.getByRole('note', { name: 'Problems in this file' })).toContainText('line:242');
  await dialog.getByRole('button', { name: /^Import 240 memories$/ }).click();
  await expect(dialog.locator('progress.import-progress')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel import' })).toBeVisible();
  const done = page.getByRole('dialog', { name: 'Import finished' });
  await expect(done).toBeVisible({ timeout: 120_000 });
  const summary = done.getByLabel('Import summary');
  await expect(summary).toContainText('240 imported');
  await expect(summary).toContainText('1 row error');
  await expect(done.locator('.row-errors')).toContainText('line:242');
  await expect(done).toContainText('Vectors were computed on this device');
  await shot(page, 'import-summary', false);
  await done.getByRole('button', { name: 'Done' }).click();
  await expect(done).toHaveCount(0);
  await expect.poll(() => memoryCount(page)).toBe(241);

  // The imported memories are in Browse, with their links navigable.
  await page.getByRole('link', { name: 'Browse' }).click();
  await expect(page.locator('.list-count')).toHaveText('241 memories shown');
  await page.locator('#b-tag').fill('deploys');
  await expect(page.locator('.list-count')).toHaveText('24 memories match the filters');
  await page.locator('.vrow').filter({ hasText: 'Imported note 230:' }).click();
  const links = page.locator('.links');
  await expect(links).toContainText('related');
  await links.getByRole('link').first().click();
  await expect(page.locator('.detail-text')).toHaveText(/^Imported note 229:/);
  await expect(page).toHaveURL(/#\/browse\/imp-229$/);

  // Dropping a file that is not an archive: a clear message, and nothing changes.
  await dropFile(page, 'notes.txt', new TextEncoder().encode('just some notes, not an archive\n'), 'text/plain');
  const failed = page.getByRole('dialog', { name: 'Not a readable archive' });
  await expect(failed).toBeVisible();
  await expect(failed).toContainText('not an .ahkai archive');
  await expect(failed).toContainText('INVALID_ARCHIVE · not-gzip');
  await expect(failed).toContainText('Your store was not changed.');
  await shot(page, 'import-error', false);
  await failed.getByRole('button', { name: 'Close' }).click();
  await expect.poll(() => memoryCount(page)).toBe(241);

  // Cancelling an import rolls it back.
  const more = Array.from({ length: 400 }, (_, i) => memoryRow({ id: `late-${i}`, text: `Late note ${i} about ${TOPICS[i % 10]}`, createdAt: base + 1e6 + i }));
  await dropFile(page, 'late.ahkai', pythonArchive({ memories: more, collection: 'late' }));
  const again = page.getByRole('dialog', { name: 'Import an archive' });
  await again.getByRole('button', { name: /^Import 400 memories$/ }).click();
  await again.getByRole('button', { name: 'Cancel import' }).click();
  const cancelled = page.getByRole('dialog', { name: 'Import cancelled' });
  await expect(cancelled).toBeVisible({ timeout: 60_000 });
  await expect(cancelled).toContainText('Nothing was imported');
  await cancelled.getByRole('button', { name: 'Close' }).click();
  await expect.poll(() => memoryCount(page)).toBe(241);
});

test('export downloads <store>-<date>.ahkai, and its bytes import back into a fresh store with identical texts', async ({ page }) => {
  await openStore(page, 'flow-export');
  const texts = [
    'The staging cluster is deploy-stg-2.',
    'Café au lait ☕ — 日本語 🚀 <b>&amp;</b> "quoted"',
    'Always run the migrations before the seed script.',
    'Line one\nline two of a multi-line memory',
  ];
  for (const t of texts) await remember(page, t, { tags: 'export-test' });
  await expect.poll(() => memoryCount(page)).toBe(texts.length);

  const downloadPromise = page.waitForEvent('download');
  await page.locator('#export-open').click();
  await page.getByRole('dialog', { name: /^Export/ }).getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloadPromise;
  const today = new Date();
  const ymd = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  expect(download.suggestedFilename()).toBe(`flow-export-${ymd}.ahkai`);
  const bytes = new Uint8Array(readFileSync((await download.path())!));
  expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);

  await openStore(page, 'flow-export-copy');
  await expect.poll(() => memoryCount(page)).toBe(0);
  await dropFile(page, download.suggestedFilename(), bytes);
  const dialog = page.getByRole('dialog', { name: 'Import an archive' });
  await expect(dialog.getByLabel('Archive contents')).toContainText('flow-export');
  await expect(dialog.getByLabel('Archive contents').locator('dd', { hasText: /^included$/ })).toHaveCount(1);
  await dialog.getByRole('button', { name: `Import ${texts.length} memories` }).click();
  const done = page.getByRole('dialog', { name: 'Import finished' });
  await expect(done.getByLabel('Import summary')).toContainText(`${texts.length} imported`);
  await expect(done).toContainText('The archive’s vectors were reused.');
  await done.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('link', { name: 'Browse' }).click();
  await expect(page.locator('.vrow')).toHaveCount(texts.length);
  const listed = await page.locator('.vrow-text').allTextContents();
  expect([...listed].sort()).toEqual([...texts].sort());
  // The multi-line text came back whole (the list shows it on one line; the detail keeps it).
  await page.locator('.vrow').filter({ hasText: 'Line one' }).click();
  await expect(page.locator('.detail-text')).toHaveText(texts[3]!);
});

test('Browse stays light with 10,000 memories: few rows in the DOM, and the last one is reachable', async ({ page, context }) => {
  test.setTimeout(300_000);
  const N = 10_000;
  const archive = seedArchive(N, 1767225600);

  // Seed through the test harness page (same origin, same SharedWorker): the store stays open
  // there with the exact index, so the app joins it without a 10k-vector HNSW build.
  const harness = await context.newPage();
  await harness.goto('/e2e/harness.html');
  await expect(harness.locator('#status')).toHaveText('ready');
  const imported = await harness.evaluate(async (b64) => {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const memory = await window.houkai.connect({ name: 'flow-10k', index: 'exact' });
    return (await memory.importArchive(new Blob([bin]))).imported;
  }, Buffer.from(archive).toString('base64'));
  expect(imported).toBe(N);

  await openStore(page, 'flow-10k');
  await page.getByRole('link', { name: 'Browse' }).click();
  await expect(page.locator('.list-count')).toHaveText('10,000 memories shown');
  const list = page.getByRole('listbox', { name: /Memories/ });
  await expect(list.getByRole('option').first()).toContainText('Seed memory 09999');
  const rendered = await page.locator('.vrow').count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(100);

  // Scroll to the very end (pages load as it goes) until the oldest memory shows.
  await expect(async () => {
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.locator('.vrow-text').filter({ hasText: 'Seed memory 00000' })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 120_000 });
  expect(await page.locator('.vrow').count()).toBeLessThan(100);
  await page.locator('.vrow').filter({ hasText: 'Seed memory 00000' }).click();
  await expect(page.locator('.detail-text')).toHaveText('Seed memory 00000 about deploys');

  // Keyboard: Home goes back to the newest, End to the oldest.
  await list.focus();
  await page.keyboard.press('Home');
  await expect(page.locator('.vrow-text').filter({ hasText: 'Seed memory 09999' })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.locator('.detail-text')).toHaveText('Seed memory 09998 about auth');
  await page.keyboard.press('End');
  await expect(page.locator('.vrow-text').filter({ hasText: 'Seed memory 00000' })).toBeVisible();

  // A tag filter over 10k rows (applied page by page).
  await page.locator('#b-tag').fill('auth');
  await expect(page.locator('.vrow').first()).toContainText('Seed memory 09998');
  await expect(page.locator('.vrow-text').first()).toHaveText('Seed memory 09998 about auth');
  await page.locator('#b-tag').fill('');
  await expect(page.locator('.list-count')).toHaveText('10,000 memories shown');
  await shot(page, 'browse-10k');

  // Stats count every memory, not the newest few thousand: each of the 10 tags is on 1,000.
  await page.getByRole('link', { name: 'Stats' }).click();
  const tagsCard = page.locator('.stat-card').filter({ hasText: 'Top tags' });
  await expect(tagsCard).toContainText('All 10 tags, across the 10,000 active memories.');
  await expect(tagsCard.locator('td.num')).toHaveCount(10);
  expect(new Set(await tagsCard.locator('td.num').allInnerTexts())).toEqual(new Set(['1,000']));
  await harness.close();
});

test('works at 360 px wide: no horizontal scroll on any screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await openStore(page, 'flow-mobile');
  await expectNoHorizontalScroll(page);
  // Every tab is on screen, inside the tab row (which would scroll otherwise).
  const nav = page.getByRole('navigation', { name: 'Sections' });
  const row = (await nav.boundingBox())!;
  expect(await nav.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  for (const tab of await nav.getByRole('link').all()) {
    const box = (await tab.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(row.x);
    expect(box.x + box.width).toBeLessThanOrEqual(row.x + row.width + 0.5);
  }
  await remember(page, 'Production deploys run from the main branch through the release pipeline every Tuesday.', { tags: 'deploy, release, pipeline' });
  await remember(page, 'A very long unbroken token: https://example.com/a/really/long/path/that/should/wrap/instead/of/overflowing/the/screen?with=query&and=more', { tags: 'links' });
  await page.getByLabel('Search your memories').fill('how are deploys shipped');
  await expect(page.locator('.result')).toHaveCount(2);
  await expectNoHorizontalScroll(page);
  await shot(page, 'mobile-search');

  await page.getByRole('link', { name: 'Browse' }).click();
  await page.locator('.vrow').first().click();
  await expect(page.locator('.detail')).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, 'mobile-browse');

  await page.getByRole('link', { name: 'Stats' }).click();
  await expect(page.locator('.big-number')).toHaveText('2');
  await expectNoHorizontalScroll(page);
  await shot(page, 'mobile-stats');

  await page.getByRole('link', { name: 'Activity' }).click();
  await expect(page.locator('ol.journal > li')).toHaveCount(2);
  await expectNoHorizontalScroll(page);
  await shot(page, 'mobile-activity');
});

test('the production build runs under its Content-Security-Policy (worker, WASM and model load)', async ({ page }) => {
  await openStore(page, 'flow-csp');
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).toContain("object-src 'none'");
  // Models load from the origin only: nothing else may be fetched.
  expect(csp).toContain("connect-src 'self';");
  // Embedding ran (remember + recall) in the SharedWorker with the WASM backend and the default model (bge-small, from the origin).
  await remember(page, 'The CSP allows WebAssembly but no eval.');
  await page.getByLabel('Search your memories').fill('webassembly policy');
  await expect(page.locator('.result').first()).toContainText('The CSP allows WebAssembly');
  await expect(page.locator('.chips')).toContainText('bge-small-en-v1.5 · 33 MB · 384-d · wasm · SIMD');
  // Inline script is refused: the policy is really in force.
  const inlineRan = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
    await new Promise((r) => setTimeout(r, 50));
    return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
  });
  expect(inlineRan).toBe(false);
  // That refusal is the one expected violation.
  await page.waitForTimeout(300);
  await page.evaluate(() => ((window as unknown as { cspViolations: string[] }).cspViolations.length = 0));
  const kept = guarded.problems.filter((p) => !p.startsWith('csp:'));
  guarded.problems.splice(0, guarded.problems.length, ...kept);
});

test('a contradicting memory waits in the review queue; each decision does what it says', async ({ page }) => {
  await openStore(page, 'flow-review');
  await remember(page, 'The team standup is at nine every weekday.', { type: 'semantic', tags: 'team' });
  await remember(page, 'The team standup is not at nine every weekday.', { type: 'semantic', tags: 'team' });
  // Said on the spot, with a way to the review queue.
  await expect(page.getByText(/it contradicts a memory you already have/)).toBeVisible();
  await remember(page, 'Deploys are frozen on Fridays.', { type: 'procedural', tags: 'deploy' });
  await remember(page, 'Deploys are never frozen on Fridays.', { type: 'procedural', tags: 'deploy' });
  await expect.poll(() => memoryCount(page)).toBe(4); // both sides of each pair are stored: nothing is resolved alone

  await page.getByRole('link', { name: /^Review/ }).click();
  const items = page.locator('li.conflict');
  await expect(items).toHaveCount(2);
  const standup = items.filter({ hasText: 'standup' });
  await expect(standup).toContainText('The team standup is at nine every weekday.');
  await expect(standup).toContainText('The team standup is not at nine every weekday.');
  await expect(standup).toContainText('negation differs');
  await page.screenshot({ path: join(SHOTS, 'review-queue.png') });

  await standup.getByRole('button', { name: 'New replaces old' }).click();
  await expect(items).toHaveCount(1);
  await expect.poll(() => memoryCount(page)).toBe(4); // superseded, kept for audit
  await items.first().getByRole('button', { name: 'Drop the new one' }).click();
  await expect(items).toHaveCount(0);
  await expect(page.getByText('Nothing to review.')).toBeVisible();
  await expect.poll(() => memoryCount(page)).toBe(3);

  // The superseded standup memory no longer comes back by default; its replacement does.
  await page.getByRole('link', { name: /^Search/ }).click();
  await page.getByLabel('Search your memories').fill('when is the team standup?');
  await expect(page.locator('.result').first()).toContainText('The team standup is not at nine every weekday.');
  await expect(page.locator('.result').filter({ hasText: 'The team standup is at nine every weekday.' })).toHaveCount(0);
});

test('the activity journal lists each change and undoes it; health and maintenance are shown', async ({ page }) => {
  await openStore(page, 'flow-activity');
  await remember(page, 'Backups run every night at two.', { type: 'procedural', tags: 'ops' });
  await remember(page, 'The staging database is reset on Sundays.', { type: 'semantic', tags: 'ops' });
  await expect.poll(() => memoryCount(page)).toBe(2);

  await page.getByRole('link', { name: /^Activity/ }).click();
  const journal = page.locator('ol.journal > li');
  await expect(journal).toHaveCount(2);
  await expect(journal.first()).toContainText('Remembered');
  await expect(journal.first()).toContainText('The staging database is reset on Sundays.');
  await expect(journal.first()).toContainText('ui');
  // Two fresh unlinked memories: nothing needs attention (no "orphan" flags), and the counts are listed.
  await expect(page.getByTestId('health-ok')).toBeVisible();
  await expect(page.locator('[data-list="unlinked"]')).toContainText('2');

  await journal.first().getByRole('button', { name: /^Undo/ }).click();
  await expect.poll(() => memoryCount(page)).toBe(1);
  await expect(journal.first()).toContainText('Undid');
  await expect(journal).toHaveCount(3);
  // The undone entry says so and offers no second Undo; the list follows changes made elsewhere.
  await expect(journal.nth(1)).toContainText('undone');
  await expect(journal.nth(1).getByRole('button')).toHaveCount(0);
  // The undo itself can be redone.
  await expect(journal.first().getByRole('button', { name: /^Redo/ })).toBeVisible();
  await expect(journal.nth(2).getByRole('link', { name: 'Backups run every night at two.' })).toBeVisible();

  // Maintenance on demand: the run is listed with what it did.
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.locator('.toast').filter({ hasText: 'Maintenance done.' })).toBeVisible();
  await expect(page.locator('.runs li')).toHaveCount(2);
  await expect(page.locator('.runs')).toContainText('TTL purge');
  await expect(page.locator('.runs')).toContainText('Trash retention');
  await page.screenshot({ path: join(SHOTS, 'activity.png') });

  // A change made in another tab shows up without leaving the tab.
  const other = await page.context().newPage();
  await other.goto('/e2e/harness.html');
  await other.evaluate(async () => {
    await (await window.houkai.connect({ name: 'flow-activity' })).remember('Written from another tab.');
  });
  await expect(journal.first()).toContainText('Written from another tab.');
  await other.close();
});

test('the detail pane maps the neighbourhood and the versions: nodes navigate by click and Enter, restore, forget + undo keeps the links', async ({ page, context }) => {
  // Links and supersedes are made through the harness page (same origin, same SharedWorker).
  const harness = await context.newPage();
  await harness.goto('/e2e/harness.html');
  await expect(harness.locator('#status')).toHaveText('ready');
  const ids = await harness.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'flow-graph' });
    const add = async (text: string) => (await memory.remember(text, { onConflict: 'ignore' })).memory.id;
    const hub = await add('The billing service is written in Go and owned by the payments team.');
    const invoices = await add('Invoices are generated nightly by the billing service.');
    const postgres = await add('Billing talks to Postgres through the pgx driver.');
    const webhooks = await add('<b>Stripe</b> webhooks land in the billing queue first.');
    const lonely = await add('The office plant needs water on Mondays.');
    const v1 = await add('The billing service runs on two replicas.');
    const v2 = await add('The billing service runs on four replicas.');
    const v3 = await add('The billing service runs on six replicas.');
    await memory.link(hub, invoices, 'related');
    await memory.link(postgres, hub, 'supports');
    await memory.link(hub, webhooks, 'example_of');
    await memory.link(invoices, webhooks, 'causes');
    await memory.supersede(v1, v2);
    await memory.supersede(v2, v3);
    return { hub, invoices, postgres, webhooks, lonely, v1, v2, v3 };
  });

  await openStore(page, 'flow-graph');
  await openMemory(page, ids.hub);
  const graph = page.locator('svg.graph');
  await expect(graph).toBeVisible();
  // Outgoing and incoming links, and the link between two neighbours: 3 neighbours, 4 edges.
  await expect(graph.locator('a.node')).toHaveCount(3);
  await expect(graph.locator('line.edge')).toHaveCount(4);
  // The label wraps to two lines of words, and the whole text is one focus away.
  await expect(graph.locator('.center-label tspan')).toHaveText(['The billing service is', 'written in Go and owned…']);
  for (const rel of ['related', 'supports', 'example_of', 'causes']) {
    // An edge label is drawn only where it overlaps nothing: at most once; the legend names them all.
    expect(await graph.locator('text.edge-label', { hasText: rel }).count()).toBeLessThanOrEqual(1);
    await expect(page.locator('.legend')).toContainText(rel);
  }
  // Labels are text: the <b> in a memory is shown, never parsed.
  await expect(graph.locator('a.node text', { hasText: '<b>Stripe</b>' })).toHaveCount(1);
  await expect(page.locator('.detail b, .detail img')).toHaveCount(0);
  await expect(page.getByRole('heading', { name: /Neighbourhood \(3\)/ })).toBeVisible();
  await shot(page, 'browse-graph');

  // Click a node: its memory opens.
  await graph.getByRole('link', { name: /Open linked memory: Invoices are generated nightly/ }).click();
  await expect(page).toHaveURL(new RegExp(`#/browse/${ids.invoices}$`));
  await expect(page.locator('.detail-text')).toHaveText('Invoices are generated nightly by the billing service.');
  // From there, by keyboard: focus the webhooks node and press Enter.
  const webhookNode = page.locator('svg.graph').getByRole('link', { name: /Open linked memory: <b>Stripe<\/b> webhooks/ });
  await webhookNode.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/browse/${ids.webhooks}$`));
  await expect(page.locator('.detail-text')).toHaveText('<b>Stripe</b> webhooks land in the billing queue first.');

  // A memory without links: the designed empty state.
  await openMemory(page, ids.lonely);
  await expect(page.locator('.graph-empty')).toContainText('No links yet');
  await expect(page.locator('.chain-section')).toContainText('The only version');

  // The supersede chain, from the middle version: newest first, each one navigable.
  await openMemory(page, ids.v2);
  const versions = page.locator('ol.chain > li');
  await expect(versions).toHaveCount(3);
  await expect(versions.nth(0)).toContainText('Newer version');
  await expect(versions.nth(0)).toContainText('six replicas');
  await expect(versions.nth(0)).toContainText('active');
  await expect(versions.nth(1)).toContainText('This memory');
  await expect(versions.nth(1)).toContainText('superseded');
  await expect(versions.nth(2)).toContainText('Older version');
  await expect(versions.nth(2)).toContainText('two replicas');
  // Superseding draws a 'supersedes' edge in the graph too.
  await expect(page.locator('svg.graph line.edge title', { hasText: 'supersedes' })).toHaveCount(2);
  await shot(page, 'browse-versions');
  await versions.nth(2).getByRole('link', { name: /two replicas/ }).click();
  await expect(page).toHaveURL(new RegExp(`#/browse/${ids.v1}$`));
  await expect(versions).toHaveCount(3);
  await expect(versions.nth(2)).toHaveAttribute('aria-current', 'true');
  // Restore the oldest: it is active again and no longer part of the chain.
  await versions.nth(2).getByRole('button', { name: /Restore this version/ }).click();
  await expect(page.locator('.toast').filter({ hasText: 'Restored: that version is active again.' })).toBeVisible();
  await expect(page.locator('.chain-section')).toContainText('The only version');
  await expect(page.locator('.detail .meta')).not.toContainText('superseded');

  // Forget the hub and undo: the same memory comes back, and so do its links (in and out).
  await openMemory(page, ids.hub);
  await expect(page.locator('svg.graph a.node')).toHaveCount(3);
  const fieldsBefore = await page.locator('.detail .fields').innerText();
  await page.locator('.detail').getByRole('button', { name: 'Forget' }).click();
  await page.locator('.toast').filter({ hasText: 'Memory forgotten.' }).getByRole('button', { name: 'Undo' }).click();
  await expect(page).toHaveURL(new RegExp(`#/browse/${ids.hub}$`));
  await expect(page.locator('svg.graph a.node')).toHaveCount(3);
  await expect(page.locator('svg.graph line.edge')).toHaveCount(4);
  expect(await page.locator('.detail .fields').innerText()).toBe(fieldsBefore);

  // Readable at 360 px: the map fits, labels stay at their size, nothing scrolls sideways.
  await page.setViewportSize({ width: 360, height: 780 });
  await expect(page.locator('svg.graph a.node')).toHaveCount(3);
  await expectNoHorizontalScroll(page);
  const box = await page.locator('svg.graph').boundingBox();
  expect(box!.width).toBeLessThanOrEqual(360);
  // The map is laid out again at the new width (not scaled down), so labels keep their size.
  const labelPx = () =>
    page.locator('svg.graph .node-label').first().evaluate((el) => {
      const svg = (el as SVGTextElement).ownerSVGElement!;
      return (parseFloat(getComputedStyle(el).fontSize) * svg.getBoundingClientRect().width) / svg.viewBox.baseVal.width;
    });
  await expect.poll(labelPx).toBeGreaterThanOrEqual(10.5);
  await page.locator('.graph-section').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'mobile-graph.png') });
  await harness.close();
});
