/**
 * Sync in Chromium: two browser contexts (two devices: each its own IndexedDB and worker)
 * converge through pouchdb-server on loopback. The app is served with the sync server's origin
 * allowed in the worker's policy (HOUKAI_SYNC_ORIGINS), as a host would deploy it; one device
 * turns sync on in the Sync panel (live), the other syncs through the harness's client.
 */
import { expect, test } from 'playwright/test';
import { serveAppForSync } from './sync-app.ts';
import { plainParts, startCouchServer, type CouchServer } from '../test/helpers/couch-server.ts';
import { guardPages, openStore, remember, shot } from './app-helpers.ts';

const ALICE = { username: 'alice', password: 'alice-pw' };

let couch: CouchServer;
let app: Awaited<ReturnType<typeof serveAppForSync>> | null = null;
let appUrl = '';

test.beforeAll(async () => {
  couch = await startCouchServer();
  app = await serveAppForSync(couch.url);
  appUrl = app.url;
});

test.afterAll(async () => {
  app?.close();
  await couch?.dispose();
});

guardPages();

test('two devices converge through the server: the Sync panel turns live sync on, the other device syncs, a write comes back live', async ({ page, browser }) => {
  const url = await couch.userDatabase('team-notes', [ALICE]);
  await page.goto(appUrl);
  await openStore(page, 'synced');
  await remember(page, 'The team offsite is in Porto this year.');

  // Device A: the Sync panel, live.
  await page.getByRole('link', { name: 'Activity' }).click();
  const panel = page.locator('.sync-panel');
  await expect(panel.getByRole('heading', { name: 'Sync' })).toBeVisible();
  await panel.getByLabel('Database address').fill(url);
  await panel.getByLabel('User name', { exact: true }).fill(ALICE.username);
  await panel.getByLabel('Password').fill(ALICE.password);
  await expect(panel.getByLabel('Keep syncing while the app is open (live)')).toBeChecked();
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel.locator('[data-sync-state]')).toHaveAttribute('data-sync-state', 'idle', { timeout: 60_000 });
  await expect(panel.locator('[data-sync-state]')).toContainText('live');
  await expect(panel).toContainText(url);
  await panel.scrollIntoViewIfNeeded();
  await shot(page, 'sync-panel-live', false);

  // Device B: another browser context (its own IndexedDB and worker), through the client.
  const other = await browser.newContext();
  try {
    const b = await other.newPage();
    await b.goto(`${appUrl}/e2e/harness.html`);
    await expect(b.locator('#status')).toHaveText('ready', { timeout: 120_000 });
    const got = await b.evaluate(
      async ({ url, auth }) => {
        const m = await window.houkai.connect({ name: 'synced' });
        const result = await m.sync({ url, auth });
        const hits = await m.recall('where is the offsite', { k: 1 });
        await m.remember('Flights to Porto are booked through the travel desk.');
        const second = await m.sync({ url, auth });
        const status = await m.syncStatus();
        await m.close();
        return { applied: result.applied, reembedded: result.reembedded, model: m.embedder.id, pushed: second.pushed, top: hits[0]?.memory.text ?? null, state: status.state };
      },
      { url, auth: ALICE },
    );
    // The harness's client runs use-lite, the app bge-small: the memory came with a vector of another model and was embedded here.
    expect(got).toEqual({ applied: 1, reembedded: 1, model: 'universal-sentence-encoder-lite', pushed: 1, top: 'The team offsite is in Porto this year.', state: 'off' });
  } finally {
    await other.close();
  }

  // Device A, still live, receives B's memory without doing anything; the search finds it.
  await page.getByRole('link', { name: 'Search' }).click();
  await expect
    .poll(
      async () => {
        await page.getByLabel('Search your memories').fill('travel desk flights');
        await page.getByLabel('Search your memories').press('Enter');
        return page.locator('.result').first().innerText().catch(() => '');
      },
      { timeout: 30_000 },
    )
    .toContain('travel desk');

  // Turning it off stops it; the panel says so.
  await page.getByRole('link', { name: 'Activity' }).click();
  await panel.getByRole('button', { name: 'Turn sync off' }).click();
  await expect(panel.getByRole('button', { name: 'Sync', exact: true })).toBeVisible();
  await expect(panel).toContainText('Last synced');
});

test('refused credentials are said beside the form, and nothing is synced', async ({ page }) => {
  const url = await couch.userDatabase('private-notes', [ALICE]);
  await page.goto(appUrl);
  await openStore(page, 'refused');
  await page.getByRole('link', { name: 'Activity' }).click();
  const panel = page.locator('.sync-panel');
  await panel.getByLabel('Database address').fill(url);
  await panel.getByLabel('User name', { exact: true }).fill('mallory');
  await panel.getByLabel('Password').fill('guess');
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel.locator('.inline-error').first()).toContainText('refused', { timeout: 30_000 });
  await expect(panel.locator('.error-code').first()).toHaveText('SYNC_AUTH');
  await panel.scrollIntoViewIfNeeded();
  await shot(page, 'sync-panel-refused', false);
});

test('an address the app\'s connect policy does not allow: the panel names the policy and HOUKAI_SYNC_ORIGINS, nothing is sent', async ({ page }) => {
  // The app allows the server's origin as 127.0.0.1:<port>; "localhost" is another origin.
  const url = (await couch.userDatabase('blocked-notes', [ALICE])).replace('127.0.0.1', 'localhost');
  await page.goto(appUrl);
  await openStore(page, 'blocked');
  await page.getByRole('link', { name: 'Activity' }).click();
  const panel = page.locator('.sync-panel');
  await panel.getByLabel('Database address').fill(url);
  await panel.getByLabel('User name', { exact: true }).fill(ALICE.username);
  await panel.getByLabel('Password').fill(ALICE.password);
  await panel.getByLabel('Keep syncing while the app is open (live)').uncheck();
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel).toContainText('connect policy', { timeout: 30_000 });
  await expect(panel).toContainText('HOUKAI_SYNC_ORIGINS');
  await expect(panel).toContainText(new URL(url).origin);
  await expect(panel).not.toContainText('cannot be reached');
  await panel.scrollIntoViewIfNeeded();
  await shot(page, 'sync-panel-blocked-by-policy', false);
});

test('the same memory edited on two devices: both converge, and the device whose edit lost offers it back in Review', async ({ page, browser }) => {
  const url = await couch.userDatabase('clash-notes', [ALICE]);
  const other = await browser.newContext();
  try {
    const second = await other.newPage();
    const devices = [page, second];
    for (const p of devices) {
      await p.goto(`${appUrl}/e2e/harness.html`);
      await expect(p.locator('#status')).toHaveText('ready', { timeout: 120_000 });
    }
    const run = <T,>(i: number, fn: (args: { url: string; auth: typeof ALICE; id: string; text: string }) => Promise<T>, id = '', text = ''): Promise<T> =>
      devices[i]!.evaluate(fn, { url, auth: ALICE, id, text });
    const id = await run(0, async ({ url, auth }) => {
      const m = await window.houkai.connect({ name: 'clash' });
      const { memory } = await m.remember('The backup runs at midnight.');
      await m.sync({ url, auth });
      await m.close();
      return memory.id;
    });
    await run(1, async ({ url, auth }) => {
      const m = await window.houkai.connect({ name: 'clash' });
      await m.sync({ url, auth });
      await m.close();
    });
    // Both edit before either syncs again.
    for (const [i, text] of [[0, 'The backup runs at 02:00.'], [1, 'The backup runs at 03:00.']] as const) {
      await run(i, async ({ id, text }) => {
        const m = await window.houkai.connect({ name: 'clash' });
        await m.edit(id, { text });
        await m.close();
      }, id, text);
    }
    const states = [];
    for (const i of [0, 1, 0, 1, 0]) {
      states.push(
        await run(i, async ({ url, auth, id }) => {
          const m = await window.houkai.connect({ name: 'clash' });
          await m.sync({ url, auth });
          const now = await m.get(id);
          const pending = (await m.listPendingConflicts()).filter((c) => c.reason === 'sync_conflict').length;
          await m.close();
          return { text: now?.text, pending };
        }, id),
      );
    }
    const [lastA, lastB] = [states[4]!, states[3]!];
    expect(lastA.text).toBe(lastB.text);
    expect(lastA.pending + lastB.pending).toBe(1);
    const loser = lastA.pending ? page : second;
    const lostText = lastA.text === 'The backup runs at 02:00.' ? 'The backup runs at 03:00.' : 'The backup runs at 02:00.';

    // On the device whose edit lost, the app's Review offers it back.
    await loser.goto(`${appUrl}/`);
    await openStore(loser, 'clash');
    await loser.getByRole('link', { name: /^Review/ }).click();
    const item = loser.locator('.conflict');
    await expect(item).toHaveCount(1);
    await expect(item).toContainText('Edited on two devices');
    await expect(item.getByRole('heading', { name: 'The edit that lost' })).toBeVisible();
    await expect(item).toContainText(lostText);
    await shot(loser, 'sync-conflict-review', false);
    await item.getByRole('button', { name: 'Restore that edit' }).click();
    await expect(item).toHaveCount(0);
  } finally {
    await other.close();
  }
});

test('end-to-end encrypted: the panel takes a passphrase and says the database is encrypted, the server holds ciphertext only, another device needs the same passphrase', async ({ page, browser }) => {
  const url = await couch.userDatabase('sealed-notes', [ALICE]);
  await page.goto(appUrl);
  await openStore(page, 'sealed');
  await remember(page, 'The door code for the studio is 2468.');

  await page.getByRole('link', { name: 'Activity' }).click();
  const panel = page.locator('.sync-panel');
  await panel.getByLabel('Database address').fill(url);
  await panel.getByLabel('User name', { exact: true }).fill(ALICE.username);
  await panel.getByLabel('Password').fill(ALICE.password);
  await expect(panel).toContainText('A lost passphrase cannot be recovered');
  await panel.getByLabel(/^Passphrase/).fill('studio passphrase 1');
  await panel.getByLabel('Keep syncing while the app is open (live)').uncheck();
  await panel.locator('.sync-e2e').scrollIntoViewIfNeeded();
  await shot(page, 'sync-panel-passphrase', false);
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel).toContainText('Last synced', { timeout: 60_000 });
  await expect(panel.getByRole('alert')).toHaveCount(0);

  // What the server holds: no text, tags or vectors.
  const raw = plainParts(await fetch(`${url}/_all_docs?include_docs=true`, { headers: { authorization: `Basic ${Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64')}` } }).then((r) => r.json()));
  expect(raw).not.toContain('door code');
  expect(raw).not.toContain('2468');
  expect(raw).toContain('"enc"');

  // Another device: a wrong passphrase is refused with nothing written; the right one reads the memory.
  const other = await browser.newContext();
  try {
    const b = await other.newPage();
    await b.goto(`${appUrl}/e2e/harness.html`);
    await expect(b.locator('#status')).toHaveText('ready', { timeout: 120_000 });
    const got = await b.evaluate(
      async ({ url, auth }) => {
        const m = await window.houkai.connect({ name: 'sealed-b' });
        const wrong = await m.sync({ url, auth, encryption: { passphrase: 'not the passphrase' } }).then(() => 'resolved', (e: { code?: string }) => e.code);
        const countAfterWrong = await m.count();
        await m.sync({ url, auth, encryption: { passphrase: 'studio passphrase 1' } });
        const texts = (await m.listRecent({ limit: 10 })).map((x) => x.text);
        await m.close();
        return { wrong, countAfterWrong, texts };
      },
      { url, auth: ALICE },
    );
    expect(got).toEqual({ wrong: 'SYNC_KEY', countAfterWrong: 0, texts: ['The door code for the studio is 2468.'] });
  } finally {
    await other.close();
  }

  // Live now: the panel shows the session is end-to-end encrypted.
  await panel.getByLabel(/^Passphrase/).fill('studio passphrase 1');
  await panel.getByLabel('Keep syncing while the app is open (live)').check();
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel.locator('[data-encrypted]')).toHaveAttribute('data-encrypted', 'yes', { timeout: 60_000 });
  await expect(panel.locator('[data-encrypted]')).toContainText('End-to-end encrypted');
  await panel.scrollIntoViewIfNeeded();
  await shot(page, 'sync-panel-encrypted', false);
  await panel.getByRole('button', { name: 'Turn sync off' }).click();

  // A wrong passphrase in the panel: said plainly beside the form.
  await panel.getByLabel('Password').fill(ALICE.password);
  await panel.getByLabel(/^Passphrase/).fill('the wrong passphrase');
  await panel.getByLabel('Keep syncing while the app is open (live)').uncheck();
  await panel.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(panel).toContainText('That passphrase does not open this database', { timeout: 60_000 });
});
