/**
 * Shared by the app specs (app-*.spec.ts): the page guards every test runs under (no page error,
 * no CSP violation, no script-opened dialog), opening a store through the store picker, and
 * screenshots into e2e/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from 'playwright/test';

export const SHOTS = join(process.cwd(), 'e2e', 'screenshots');
mkdirSync(SHOTS, { recursive: true });

export const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });

/** What the guards collected during the current test; emptied before each test. */
export interface Guarded {
  problems: string[];
  dialogs: string[];
}

/**
 * Registers beforeEach/afterEach hooks: a 1280×860 viewport, and after each test no page error,
 * no CSP violation and no dialog. Tests that expect one (the CSP test) clear it from `guarded`.
 */
export function guardPages(): Guarded {
  const guarded: Guarded = { problems: [], dialogs: [] };
  test.beforeEach(async ({ page }) => {
    guarded.problems.length = 0;
    guarded.dialogs.length = 0;
    await page.setViewportSize({ width: 1280, height: 860 });
    page.on('pageerror', (e) => guarded.problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) guarded.problems.push(`csp: ${m.text()}`);
    });
    page.on('dialog', (d) => {
      guarded.dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    await page.addInitScript(() => {
      (window as unknown as { cspViolations: string[] }).cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { cspViolations: string[] }).cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
  });
  test.afterEach(async ({ page }) => {
    const violations = await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []).catch(() => []);
    expect(violations).toEqual([]);
    expect(guarded.problems).toEqual([]);
    expect(guarded.dialogs).toEqual([]);
  });
  return guarded;
}

/**
 * Waits until the app has its store open. A store that could not be opened fails the test at once,
 * with what the app's failure screen says (not two minutes later with only "failed").
 */
export async function expectReady(page: Page, timeout = 120_000): Promise<void> {
  const main = page.locator('main');
  await expect(main).toHaveAttribute('data-phase', /^(ready|failed)$/, { timeout });
  if ((await main.getAttribute('data-phase')) !== 'failed') return;
  const said = await page.locator('section.failure').innerText({ timeout: 5_000 }).catch(() => '(no failure screen)');
  throw new Error(`The app could not open its store: ${said}`);
}

/** Opens the app (when the page is blank) and switches to `store` with the store picker; resolves once it is ready. */
export async function openStore(page: Page, store: string): Promise<void> {
  if (!page.url().startsWith('http')) await page.goto('/');
  await expectReady(page);
  await page.locator('#store-name').fill(store);
  await page.locator('#store-name').press('Enter');
  await expect(page.locator('main')).toHaveAttribute('data-store', store);
  await expectReady(page);
}

/**
 * Makes `store` the one the app starts with, as for someone who used it before (call on a page of
 * the app's origin), and records every text the opening screen shows from the next navigation on,
 * however fast its steps go; `openingTexts(page)` reads them.
 */
export async function startWithStore(page: Page, store: string): Promise<void> {
  await page.evaluate((name) => {
    localStorage.setItem('houkai-web:last-store', name);
    localStorage.setItem('houkai-web:visited', String(Date.now()));
  }, store);
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { openingTexts: string[] }).openingTexts = seen;
    new MutationObserver(() => {
      const opening = document.querySelector('.opening');
      if (opening) seen.push((opening as HTMLElement).innerText);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/** Everything the opening screen showed since `startWithStore`, one text after another. */
export async function openingTexts(page: Page): Promise<string> {
  return (await page.evaluate(() => (window as unknown as { openingTexts: string[] }).openingTexts)).join('\n');
}

/** Adds a memory with the Search tab's form. */
export async function remember(page: Page, text: string, options: { type?: string; tags?: string } = {}): Promise<void> {
  await page.locator('#add-text').fill(text);
  if (options.type) await page.locator('#add-type').selectOption(options.type);
  await page.locator('#add-tags').fill(options.tags ?? '');
  await page.getByRole('button', { name: 'Remember', exact: true }).click();
  // Saved (the form is cleared) or refused (the form says why): a refusal fails with its words,
  // and a form still saving after the wait says so, not only that the text is still there.
  const form = page.locator('form.add');
  await expect(async () => {
    const error = form.locator('.inline-error');
    if (await error.count()) throw new Error(`Remember was refused: ${await error.first().innerText()}`);
    const submit = form.locator('button[type="submit"]');
    const button = await submit.innerText();
    // What a click at the button's centre would reach (a toast or overlay over it says so).
    const onTop = await submit.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit === el || el.contains(hit) ? 'the button' : `${hit?.tagName.toLowerCase() ?? 'nothing'}.${String(hit?.className ?? '')}`;
    });
    expect(await page.locator('#add-text').inputValue(), `the form still shows the text (its button: ${button}, disabled: ${await submit.isDisabled()}, on top at its centre: ${onTop})`).toBe('');
  }).toPass({ timeout: 30_000 });
}

/** The memory count in the status chips. */
export async function memoryCount(page: Page): Promise<number> {
  const text = await page.locator('.chips .chip').first().innerText();
  return Number(text.replace(/[^\d]/g, ''));
}

/** No horizontal scrolling at the current viewport width. */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/** Dispatches a real DragEvent pair (dragenter, then drop) carrying `bytes` as a File. */
export async function dropFile(page: Page, name: string, bytes: Uint8Array, type = 'application/gzip', screenshot?: string): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ b64, name, type }) => {
      const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bin], name, { type }));
      return dt;
    },
    { b64: Buffer.from(bytes).toString('base64'), name, type },
  );
  await page.dispatchEvent('main', 'dragenter', { dataTransfer });
  await expect(page.locator('.drop-overlay')).toBeVisible();
  await expect(page.locator('.drop-overlay')).toContainText('Drop to import');
  if (screenshot) await page.screenshot({ path: join(SHOTS, `${screenshot}.png`) });
  await page.dispatchEvent('main', 'drop', { dataTransfer });
  await expect(page.locator('.drop-overlay')).toHaveCount(0);
}

