/**
 * Issue 15, finding 5, in the app: the import preview says what the import will do — a file it
 * will refuse gets no Import button, row problems are listed — and the progress bar only grows,
 * with a line that agrees with it (never 100% beside "Writing… 1,500 memories", never "31 of 30").
 */
import { expect, test, type Page } from 'playwright/test';
import { badRowsArchive, duplicateIdsArchive, futureVersionArchive } from '../test/fixtures/make-archives.ts';
import { APP_MODEL, vectorArchive } from './archives.ts';
import { expectNoHorizontalScroll, guardPages, openStore, shot } from './app-helpers.ts';

guardPages();

async function choose(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.locator('#import-file').setInputFiles({ name, mimeType: 'application/gzip', buffer: Buffer.from(bytes) });
}

test('a file the import will refuse is said to be refused, with no Import button', async ({ page }) => {
  await openStore(page, 'preview-refused');
  await choose(page, 'future.ahkai', futureVersionArchive());
  const dialog = page.getByRole('dialog', { name: 'Import an archive' });
  await expect(dialog.getByRole('alert')).toContainText('newer AI-Houkai (format version 99)');
  await expect(dialog.getByRole('alert')).toContainText('INVALID_ARCHIVE');
  await expect(dialog.getByRole('button', { name: /^Import/ })).toHaveCount(0);
  await expect(dialog.getByRole('radio')).toHaveCount(0);
  await shot(page, 'import-preview-refused', false);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('broken lines and repeated ids are listed in the preview; “Stop on conflict” is not offered for repeated ids', async ({ page }) => {
  await openStore(page, 'preview-problems');
  await choose(page, 'bad-rows.ahkai', badRowsArchive());
  const dialog = page.getByRole('dialog', { name: 'Import an archive' });
  const problems = dialog.getByRole('note', { name: 'Problems in this file' });
  await expect(problems).toContainText('5 rows cannot be read and will not be imported.');
  await expect(problems.locator('li')).toHaveCount(5);
  await expect(problems).toContainText('line:3');
  await expect(problems).toContainText('bad json');
  await expect(dialog.getByRole('button', { name: 'Import 2 memories' })).toBeEnabled();
  await shot(page, 'import-preview-problems', false);
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoHorizontalScroll(page);
  await shot(page, 'mobile-import-preview-problems', false);
  await page.setViewportSize({ width: 1280, height: 860 });
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await choose(page, 'duplicates.ahkai', duplicateIdsArchive());
  await expect(problems).toContainText('1 row repeats an id of earlier rows');
  await expect(problems).toContainText('line:4');
  await expect(problems).toContainText('id "dup" already used on line 2');
  const importButton = dialog.getByRole('button', { name: 'Import 3 memories' });
  await expect(importButton).toBeEnabled();
  await dialog.getByText('Stop on conflict', { exact: true }).click();
  await expect(importButton).toBeDisabled();
  await expect(dialog.getByRole('status')).toContainText('“Stop on conflict” refuses this file');
  await dialog.getByText('Keep both', { exact: true }).click();
  await expect(importButton).toBeEnabled();
  await importButton.click();
  const done = page.getByRole('dialog', { name: 'Import finished' });
  await expect(done).toContainText('2 imported');
  await expect(done).toContainText('1 renamed');
});

test('the progress bar only grows and its line agrees with it, to 100% with the last row', async ({ page }) => {
  test.setTimeout(240_000);
  await openStore(page, 'preview-progress');
  const n = 3_000;
  await choose(page, 'bulk.ahkai', vectorArchive(n, 'bulk', APP_MODEL));
  const dialog = page.getByRole('dialog', { name: 'Import an archive' });
  await expect(dialog.getByRole('button', { name: 'Import 3,000 memories' })).toBeEnabled();
  // Record every value the bar and its line take while the import runs.
  await page.evaluate(() => {
    const samples: { value: number; line: string }[] = [];
    (window as unknown as { samples: typeof samples }).samples = samples;
    const record = (): void => {
      const bar = document.querySelector<HTMLProgressElement>('progress.import-progress');
      const line = document.querySelector('.import-line')?.textContent ?? '';
      if (bar) samples.push({ value: bar.value, line });
    };
    // The whole page: the import dialog is one of several <dialog> elements.
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await dialog.getByRole('button', { name: 'Import 3,000 memories' }).click();
  await expect(page.getByRole('dialog', { name: 'Import finished' })).toContainText('3,000 imported', { timeout: 180_000 });
  const samples = await page.evaluate(() => (window as unknown as { samples: { value: number; line: string }[] }).samples);
  expect(samples.length).toBeGreaterThan(3);
  for (let i = 1; i < samples.length; i++) expect(samples[i]!.value, JSON.stringify(samples.slice(i - 1, i + 1))).toBeGreaterThanOrEqual(samples[i - 1]!.value);
  for (const { value, line } of samples) {
    const checking = /^Checking rows… ([\d,]+) of ([\d,]+)$/.exec(line);
    const writing = /^Writing… ([\d,]+) of ([\d,]+) memories( \(embedding on this device\))?$/.exec(line);
    expect(checking ?? writing, line).not.toBeNull();
    const [done, total] = [Number((checking ?? writing)![1]!.replaceAll(',', '')), Number((checking ?? writing)![2]!.replaceAll(',', ''))];
    expect(done).toBeLessThanOrEqual(total);
    expect(total).toBe(n);
    if (value >= 1) expect(line).toBe('Writing… 3,000 of 3,000 memories');
  }
  expect(samples.some((s) => s.line.startsWith('Writing…') && s.value < 1)).toBe(true);
});
