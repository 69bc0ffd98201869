/**
 * Every tab of the app with real content, at 1280×800 and 360×740, light and dark (the system
 * setting): the screenshots land in e2e/screenshots/look-*.png for a person to look at. Each view
 * is also checked for what makes a screen look broken — horizontal scrolling, and text that
 * overflows its box.
 */
import { expect, test, type BrowserContext, type Page } from 'playwright/test';
import { expectNoHorizontalScroll, expectReady, guardPages, shot } from './app-helpers.ts';

guardPages();

const STORE = 'team-notes';

/** A small store with a bit of everything: types, tags, links, versions, a conflict, an expired memory. */
async function seed(context: BrowserContext): Promise<void> {
  const harness = await context.newPage();
  await harness.goto('/e2e/harness.html');
  await expect(harness.locator('#status')).toHaveText('ready');
  await harness.evaluate(async (store) => {
    const m = await window.houkai.connect({ name: store, actor: 'ui', conflictPolicy: 'review' });
    const put = async (text: string, o: Record<string, unknown> = {}) => (await m.remember(text, { onConflict: 'ignore', ...o })).memory.id;
    const lint = await put('We lint with ESLint and format with Prettier; the config lives in the repository root.', { type: 'procedural', tags: ['tooling', 'lint'], importance: 0.8 });
    const ci = await put('The CI pipeline runs the linters, the unit tests and the browser tests on every pull request.', { type: 'procedural', tags: ['ci', 'tooling'] });
    const stage = await put('The staging cluster is deploy-stg-2, in the Frankfurt region.', { tags: ['deploy'] });
    const ada = await put('Ada prefers answers in metric units and British spelling.', { type: 'feedback', tags: ['user', 'preferences'], importance: 0.9 });
    await put('Yesterday we paired on the flaky upload test and found a race in the retry loop.', { type: 'episodic', tags: ['testing'] });
    const oldDeploy = await put('Production deploys go out from the main branch every Tuesday.', { type: 'procedural', tags: ['deploy'] });
    const newDeploy = await put('Production deploys go out from the release branch every Thursday after the freeze.', { type: 'procedural', tags: ['deploy'] });
    await m.supersede(oldDeploy, newDeploy);
    await m.link(ci, lint, 'supports');
    await m.link(stage, newDeploy, 'related');
    await m.link(newDeploy, ci, 'causes');
    await m.link(ada, lint, 'related');
    await put('The on-call rota changes on Mondays at 09:00 UTC.', { expiresAt: Date.now() / 1000 + 1 });
    await put('Deploys to production never go out on Fridays.', { type: 'procedural', tags: ['deploy'] });
    // A conflict waiting for review (the store's policy is review).
    await m.remember('Deploys to production do go out on Fridays when the fix is urgent.', { type: 'procedural', tags: ['deploy'], onConflict: 'review' });
    await m.close();
  }, STORE);
  await harness.close();
}

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 740 },
] as const;

async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(250);
}

/** Text inside buttons, chips and badges never spills out of its box. */
async function expectNoOverflowingControls(page: Page): Promise<void> {
  const spills = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, .chip, .badge, .tab, .count-button')]
      .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow === 'visible')
      .map((el) => el.textContent?.trim().slice(0, 40)),
  );
  expect(spills).toEqual([]);
}

for (const scheme of ['light', 'dark'] as const) {
  for (const size of SIZES) {
    test(`every tab at ${size.width}×${size.height}, ${scheme}`, async ({ page, context }) => {
      await seed(context);
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.addInitScript((store) => localStorage.setItem('houkai-web:last-store', store), STORE);
      await page.goto('/');
      await expectReady(page);
      await expect(page.locator('main')).toHaveAttribute('data-store', STORE);
      const tag = `look-${size.name}-${scheme}`;

      await page.locator('#q').fill('how do we deploy to production?');
      await expect(page.locator('.result').first()).toBeVisible();
      await settle(page);
      await expectNoHorizontalScroll(page);
      await expectNoOverflowingControls(page);
      await shot(page, `${tag}-search`, false);
      await shot(page, `${tag}-search-full`);

      await page.locator('.tab', { hasText: 'Browse' }).click();
      await page.locator('.vrow', { hasText: 'release branch' }).click();
      await expect(page.locator('.graph')).toBeVisible();
      await settle(page);
      await expectNoHorizontalScroll(page);
      await shot(page, `${tag}-browse`);

      await page.locator('.tab', { hasText: 'Review' }).click();
      await expect(page.locator('.conflict').first()).toBeVisible();
      await settle(page);
      await expectNoHorizontalScroll(page);
      await shot(page, `${tag}-review`);

      await page.locator('.tab', { hasText: 'Activity' }).click();
      await expect(page.locator('.journal li').first()).toBeVisible();
      await expect(page.locator('[data-list="stale"]')).toBeVisible();
      await settle(page);
      await expectNoHorizontalScroll(page);
      await expectNoOverflowingControls(page);
      await shot(page, `${tag}-activity`);

      await page.locator('.tab', { hasText: 'Stats' }).click();
      await expect(page.locator('.big-number')).toBeVisible();
      await settle(page);
      await expectNoHorizontalScroll(page);
      await shot(page, `${tag}-stats`);

      await page.locator('#manage-stores').click();
      await expect(page.locator('.store-item').first()).toBeVisible();
      await settle(page);
      await shot(page, `${tag}-stores`, false);
      await page.keyboard.press('Escape');

      await page.locator('.tab', { hasText: 'Search' }).click();
      await page.locator('#export-open').click();
      await expect(page.locator('#export-title')).toBeVisible();
      await settle(page);
      await shot(page, `${tag}-export`, false);
      await page.keyboard.press('Escape');

      await page.locator('.tab', { hasText: 'Agent' }).click();
      await expect(page.locator('#agent-run')).toBeEnabled({ timeout: 60_000 });
      await settle(page);
      await shot(page, `${tag}-agent`, false);
    });
  }
}
