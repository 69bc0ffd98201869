/**
 * Issue #52 item 4: one memory, browser and desktop. `npx houkai-web mcp --sync URL` (a store in a
 * folder, SQLite, driven by the MCP SDK's own stdio client) and the app in Chromium replicate
 * through pouchdb-server, end-to-end encrypted with one passphrase: a memory remembered through
 * MCP appears in the app after a sync, and a forget made in the app reaches the MCP store (both
 * sides live).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test } from 'playwright/test';
import { serveAppForSync } from './sync-app.ts';
import { startCouchServer, type CouchServer } from '../test/helpers/couch-server.ts';
import { guardPages, openStore, shot } from './app-helpers.ts';

const ALICE = { username: 'alice', password: 'alice-pw' };
const PASSPHRASE = 'one memory, browser and desktop';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let couch: CouchServer;
let app: Awaited<ReturnType<typeof serveAppForSync>> | null = null;
let appUrl = '';
const dir = mkdtempSync(join(tmpdir(), 'houkai-mcp-e2e-'));

test.beforeAll(async () => {
  couch = await startCouchServer();
  app = await serveAppForSync(couch.url);
  appUrl = app.url;
});

test.afterAll(async () => {
  app?.close();
  await couch?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

guardPages();

const text = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

test('a memory remembered through MCP appears in the app; a forget in the app reaches the MCP store', async ({ page }) => {
  test.setTimeout(240_000);
  const url = await couch.userDatabase('desk-and-browser', [ALICE]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/mcp/cli.ts', '--dir', dir, '--name', 'desk', '--models', join(ROOT, 'public', 'models'), '--sync', url],
    cwd: ROOT,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), HOUKAI_SYNC_USERNAME: ALICE.username, HOUKAI_SYNC_PASSWORD: ALICE.password, HOUKAI_SYNC_PASSPHRASE: PASSPHRASE },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const agent = new Client({ name: 'houkai-e2e', version: '1.0.0' });
  await agent.connect(transport);
  try {
    const stored = JSON.parse(text(await agent.callTool({ name: 'remember', arguments: { text: 'The desk booking system is called Deskly.' } }))) as { id: string };
    expect(stderr).toMatch(/syncing with .*end-to-end encrypted/);

    // The app: the same database, the same passphrase, live.
    await page.goto(appUrl);
    await openStore(page, 'shared-with-desk');
    await page.getByRole('link', { name: 'Activity' }).click();
    const panel = page.locator('.sync-panel');
    await panel.getByLabel('Database address').fill(url);
    await panel.getByLabel('User name', { exact: true }).fill(ALICE.username);
    await panel.getByLabel('Password').fill(ALICE.password);
    await panel.getByLabel(/^Passphrase/).fill(PASSPHRASE);
    await panel.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect(panel.locator('[data-sync-state]')).toHaveAttribute('data-sync-state', 'idle', { timeout: 90_000 });

    // Remembered on the desktop, found in the browser.
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Search your memories').fill('what is the desk booking system called?');
    const card = page.locator('.result').filter({ hasText: 'Deskly' });
    await expect(card).toHaveCount(1, { timeout: 30_000 });
    await shot(page, 'mcp-memory-in-app', false);

    // Forgotten in the browser, gone on the desktop.
    await card.getByRole('link', { name: /Details/ }).click();
    await page.locator('.detail').getByRole('button', { name: 'Forget' }).click();
    await expect(page.locator('.toast').filter({ hasText: 'Memory forgotten.' })).toBeVisible();
    await expect
      .poll(
        async () => {
          const hits = JSON.parse(text(await agent.callTool({ name: 'recall', arguments: { query: 'what is the desk booking system called?' } }))) as { id: string }[];
          return hits.some((h) => h.id === stored.id);
        },
        { timeout: 90_000, intervals: [1_000] },
      )
      .toBe(false);
  } finally {
    await agent.close();
  }
});
