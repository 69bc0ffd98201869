/**
 * Issue #27 in the app: a changed fact is offered as an update, never as a repeat; a contested
 * answer says another memory disagrees; score bars share one scale across cards; the opening card
 * says which step runs; Health says what "recalled" counts; no red storage chip before the person
 * asked the browser to keep the storage; the toast keeps off the header's tagline at 1280 px.
 * Issue #26 too: "When it happened" on Remember, and the breakdown's conversational rows. Issue
 * #50: the current memory answers first, the one it updates marked outdated.
 */
import { expect, test, type Page } from 'playwright/test';
import { guardPages, openStore, remember, shot } from './app-helpers.ts';

guardPages();

/** Searches and waits for this query's results; a first hit judged "No real match" is folded, so the fold is opened. */
async function search(page: Page, query: string): Promise<void> {
  await page.getByRole('link', { name: 'Search' }).click();
  await page.getByRole('searchbox').fill(query);
  // The answer to this query, not the skeleton cards shown while it runs (they are `.result` too)
  // nor the answer to an earlier query: every answered state names the query it answers.
  const area = page.locator('.results-area');
  await expect(area).toContainText(`“${query}”`, { timeout: 30_000 });
  await expect(area).toHaveAttribute('aria-busy', 'false');
  const fold = page.getByTestId('weaker-matches');
  if ((await page.locator('.results-area > ol.results > .result').count()) === 0 && (await fold.count())) await fold.locator('summary').click();
  await expect(page.locator('.result').first()).toBeVisible();
}

test('a changed time is an update to review, not a repeat; "keep both" leaves the answer marked as contested', async ({ page }) => {
  await openStore(page, 'trust-changed');
  await remember(page, 'The standup is at 9:30');
  await remember(page, 'The standup moved to 10:00');
  const toast = page.locator('.toast', { hasText: 'Remembered' });
  await expect(toast).toContainText('updates a memory you already have');
  await expect(toast).not.toContainText('repeats');
  // Kept, and worth a look: styled as a notice, not as an error (#50 item 8).
  await expect(toast).toHaveClass(/\bnotice\b/);
  await expect(toast).not.toHaveClass(/\berror\b/);
  await shot(page, 'trust-update-notice', false);
  // Review offers it as the newer replacing the older.
  await page.getByRole('link', { name: /^Review/ }).click();
  const item = page.locator('.review-item, [data-conflict]').first();
  await expect(item).toContainText('The standup moved to 10:00');
  await expect(item).toContainText('The standup is at 9:30');
  await shot(page, 'trust-review-update', false);
  // Waiting in review, the answer is already the current one (#50 items 1 and 2): the new time
  // first, the old one marked outdated, pointing at the newer.
  await search(page, 'what time is the standup?');
  await expect(page.locator('.result').first()).toContainText('The standup moved to 10:00');
  const fold = page.getByText(/^Weaker matches/);
  if (await fold.count()) await fold.click();
  const stale = page.locator('.result').filter({ hasText: 'The standup is at 9:30' });
  await expect(stale.locator('.outdated')).toContainText('Outdated: a newer memory replaces this');
  await expect(stale.locator('.outdated a')).toHaveCount(1);
  await shot(page, 'trust-outdated-card', false);
  // "New replaces old" keeps the answer (#50 item 2): the question that found the old time finds
  // the new one first, with a badge that says it answers.
  await page.getByRole('link', { name: /^Review/ }).click();
  await page.locator('.review-item, [data-conflict]').filter({ hasText: 'The standup moved to 10:00' }).getByRole('button', { name: 'New replaces old' }).click();
  await search(page, 'what time is the standup?');
  const first = page.locator('.result').first();
  await expect(first).toContainText('The standup moved to 10:00');
  await expect(first.locator('.confidence')).toHaveClass(/c-(strong|weak)/);
  await expect(page.locator('.result').filter({ hasText: 'The standup is at 9:30' })).toHaveCount(0);
  // The issue's own case: a new manager, the old one replaced, "who is my boss now?".
  await remember(page, 'My manager is Priya Shah.');
  await remember(page, 'My new manager is Tom Okafor.');
  await page.getByRole('link', { name: /^Review/ }).click();
  await page.locator('.review-item, [data-conflict]').filter({ hasText: 'My new manager is Tom Okafor.' }).getByRole('button', { name: 'New replaces old' }).click();
  await search(page, 'who is my boss now?');
  await expect(page.locator('.result').first()).toContainText('My new manager is Tom Okafor.');
  // The badge is the default model's verdict: bge-small puts this pair at P 0.64, just under the
  // weak cut (0.65), so it is not asserted here (issue #50 item 2 stays open for it; the standup
  // case above is badged). The replaced manager is gone from the answers.
  await expect(page.locator('.result').filter({ hasText: 'My manager is Priya Shah.' })).toHaveCount(0);
  await shot(page, 'trust-replaced-answer', false);

  // A contradiction kept both ways: the answer says another memory disagrees.
  await page.getByRole('link', { name: 'Search' }).click();
  await remember(page, 'We deploy on Fridays');
  await remember(page, 'We never deploy on Fridays');
  await page.getByRole('link', { name: /^Review/ }).click();
  const pair = page.locator('.review-item, [data-conflict]').filter({ hasText: 'We never deploy on Fridays' });
  await pair.getByRole('button', { name: /keep both/i }).click();
  await search(page, 'do we ship on Fridays?');
  const contested = page.locator('.result').filter({ hasText: 'deploy on Fridays' }).first();
  await expect(contested.locator('.contested')).toContainText('Another memory says otherwise');
  await expect(contested.locator('.contested a')).toHaveCount(2);
  await shot(page, 'trust-contested-card', false);
});

test('score bars share one scale across cards: a weak match never shows a full bar', async ({ page }) => {
  await openStore(page, 'trust-bars');
  await remember(page, 'Code reviews need two approvals before merging');
  await remember(page, 'The office plants are watered on Mondays');
  await search(page, 'how many approvals does a code review need?');
  const cards = page.locator('.result');
  await expect(cards).toHaveCount(2);
  // The weaker card is folded away: open it to compare the two.
  const fold = page.getByText(/^Weaker matches/);
  if (await fold.count()) await fold.click();
  for (let i = 0; i < 2; i++) {
    const rows = cards.nth(i).locator('.breakdown tr');
    const n = await rows.count();
    for (let r = 0; r < n; r++) {
      const row = rows.nth(r);
      const part = Math.abs(Number((await row.locator('.num').innerText()).replace('−', '-')));
      const ratio = await row.evaluate((tr) => {
        const bar = tr.querySelector<HTMLElement>('.bar')!.getBoundingClientRect().width;
        const track = tr.querySelector<HTMLElement>('.bar-track')!.getBoundingClientRect().width;
        return bar / track;
      });
      // A full bar is a part worth 1 on every card.
      expect(Math.abs(ratio - Math.min(1, part)), `${await row.innerText()}: part ${part}, bar ${ratio}`).toBeLessThan(0.03);
    }
  }
  await shot(page, 'trust-one-scale', false);
});

test('the first open says which step runs; no red storage chip before asking; Health says what recalled counts; the toast keeps off the tagline', async ({ page }) => {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { openingSteps: string[] }).openingSteps = seen;
    new MutationObserver(() => {
      for (const li of document.querySelectorAll<HTMLElement>('.opening [data-step]')) {
        const entry = `${li.dataset['step']}:${li.className.includes('active') ? 'active' : li.className.includes('done') ? 'done' : 'waiting'}`;
        if (!seen.includes(entry)) seen.push(entry);
      }
      const all = [...document.querySelectorAll<HTMLElement>('.opening [data-step]')];
      if (all.length && all.every((li) => li.classList.contains('done'))) seen.push('ALL-DONE-WHILE-OPENING');
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  await openStore(page, 'trust-opening');
  const steps = await page.evaluate(() => (window as unknown as { openingSteps: string[] }).openingSteps);
  expect(steps).toContain('index-open:active');
  expect(steps).not.toContain('ALL-DONE-WHILE-OPENING');

  // Storage the browser has not been asked to keep is not an alarm.
  const storageChip = page.locator('.chips .chip').nth(2);
  await expect(storageChip).not.toHaveClass(/warn/);
  await expect(storageChip).not.toContainText('Not persistent');

  // Remember with a date: shown as when it happened.
  await page.locator('#add-text').fill('The team offsite was in Porto');
  await page.locator('#add-when').fill('2024-05-08');
  await page.getByRole('button', { name: 'Remember', exact: true }).click();
  await expect(page.locator('#add-text')).toHaveValue('');
  await expect(page.locator('#add-when')).toHaveValue('');
  // The toast sits clear of the header's title and tagline at 1280 px.
  const toast = page.locator('.toast').first();
  await expect(toast).toBeVisible();
  const overlap = await page.evaluate(() => {
    const t = document.querySelector('.toast')!.getBoundingClientRect();
    return [...document.querySelectorAll('header h1, header .tagline')].some((el) => {
      const r = el.getBoundingClientRect();
      return r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom;
    });
  });
  expect(overlap).toBe(false);
  await shot(page, 'trust-toast-clear-of-tagline', false);

  await search(page, 'where was the offsite in May 2024?');
  const card = page.locator('.result').first();
  await expect(card).toContainText('Porto');
  await expect(card.locator('time')).toHaveAttribute('datetime', /^2024-05-08/);
  await expect(card.locator('.breakdown')).toContainText('Time');
  await shot(page, 'trust-time-breakdown', false);

  await page.getByRole('link', { name: 'Activity' }).click();
  await expect(page.getByText('searches in this app do not count')).toBeVisible({ timeout: 30_000 });
});
