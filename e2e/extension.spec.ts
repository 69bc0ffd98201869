// The MV3 extension (dist/extension, `npm run build:ext`) loaded unpacked into Debian's Chromium
// in headless mode: a content script keeps text from a web page, the popup recalls it, tools and
// errors cross the chrome.runtime ports. This spec launches its own persistent context (an
// extension needs one) and serves its web page through context.route, so it ignores baseURL.
import { execSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, test, type BrowserContext, type Page } from 'playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { request, startCouchServer, type CouchServer } from '../test/helpers/couch-server.ts';
import { startFlakyProxy, type FlakyProxy } from '../test/helpers/flaky-proxy.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXTENSION_DIR = join(ROOT, 'dist', 'extension');
const ARTICLE_URL = 'https://houkai.test/articles/tea.html';
const FACT =
  'Gyokuro green tea is brewed with water at 50 to 60 degrees Celsius for about two minutes; boiling water makes it bitter. <img src=x onerror="document.title=1">';
const ARTICLE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Brewing notes</title></head>
<body><main><h1>Brewing notes</h1>
<p id="fact">${FACT.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>
<p>Sencha takes slightly hotter water, around 70 to 80 degrees.</p>
</main></body></html>`;
const OWN_NOTES = [
  'We lint the TypeScript codebase with ESLint and format it with Prettier.',
  'Production deploys run from the main branch through the release pipeline every Tuesday.',
];

interface Houkai {
  memory: {
    recall(query: string, options: Record<string, unknown>): Promise<{ memory: { id: string; text: string; trust: string } }[]>;
    exportArchive(): Promise<Blob>;
    stats(): Promise<unknown>;
    count(): Promise<number>;
    embedder: { id: string; dim: number };
  };
  tools: { dispatch(name: string, args: string | Record<string, unknown>): Promise<string>; list(format?: string): Promise<unknown[]> };
}

let context: BrowserContext;
let couch: CouchServer;
/** The server as a CouchDB without CORS answers: only the host permission lets the extension in. */
let noCors: FlakyProxy;
let userDataDir = '';
let loadedDir = '';
let extensionId = '';
const foreign: string[] = [];
const pageErrors: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  couch = await startCouchServer();
  noCors = await startFlakyProxy(couch.url, () => false, { noCors: true });
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) {
    execSync('npm run --silent build:ext', { cwd: ROOT, stdio: 'inherit' });
  }
  userDataDir = mkdtempSync(join(tmpdir(), 'houkai-extension-'));
  // The extension as built asks for a sync server's host at run time (nothing at install).
  // Headless Chromium cannot click Chrome's permission prompt, so the copy loaded here already
  // holds the one grant the person gives there, for the loopback test server; the popup still
  // asks (and Chrome answers yes without a prompt). The refusal is tested in sync-form.test.ts.
  const built = JSON.parse(readFileSync(join(EXTENSION_DIR, 'manifest.json'), 'utf8')) as { host_permissions?: string[]; optional_host_permissions?: string[] };
  expect(built.host_permissions).toBeUndefined();
  expect(built.optional_host_permissions).toContain('http://127.0.0.1/*');
  loadedDir = join(userDataDir, 'extension');
  cpSync(EXTENSION_DIR, loadedDir, { recursive: true });
  writeFileSync(join(loadedDir, 'manifest.json'), JSON.stringify({ ...built, host_permissions: ['http://127.0.0.1/*'] }));
  context = await chromium.launchPersistentContext(join(userDataDir, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${loadedDir}`, `--load-extension=${loadedDir}`],
  });
  const background = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
  extensionId = new URL(background.url()).host;
  expect(background.url()).toBe(`chrome-extension://${extensionId}/background.js`);
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`chrome-extension://${extensionId}/`) && !url.startsWith('https://houkai.test/') && !url.startsWith(`${noCors.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      foreign.push(url);
    }
  });
  context.on('page', (page) => page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`)));
  await context.route('https://houkai.test/**', (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: ARTICLE }));
});

test.afterAll(async () => {
  await context?.close();
  await noCors?.close();
  await couch?.dispose();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function openPopup(): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  await expect(popup.locator('#status')).toHaveText('ready', { timeout: 60_000 });
  return popup;
}

test('a content script keeps page text as untrusted; the popup recalls it first, as text', async () => {
  const popup = await openPopup();
  for (const note of OWN_NOTES) {
    await popup.locator('#remember-text').fill(note);
    await popup.getByRole('button', { name: 'Remember', exact: true }).click();
    await expect(popup.locator('#status')).toHaveText('Remembered');
    await expect(popup.locator('.hit .badge')).toHaveText('trusted');
  }

  const article = await context.newPage();
  await article.goto(ARTICLE_URL);
  await article.evaluate(() => {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById('fact')!);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  });
  await article.keyboard.press('Alt+Shift+KeyM');
  await expect(article.locator('#houkai-toast [role=status]')).toHaveText('Remembered in Houkai (untrusted page content)', { timeout: 60_000 });
  expect(await article.title()).toBe('Brewing notes'); // the page saw a status line, nothing else

  await popup.bringToFront();
  await popup.locator('#recall-query').fill('what temperature should green tea be brewed at?');
  await popup.getByRole('button', { name: 'Recall', exact: true }).click();
  const first = popup.locator('.hit').first();
  await expect(first.locator('.text')).toHaveText(FACT);
  await expect(first).toHaveAttribute('data-trust', 'untrusted');
  await expect(first.locator('.badge')).toHaveText('untrusted');
  await expect(first.locator('.source')).toHaveText(ARTICLE_URL);
  await expect(first).toHaveAttribute('data-tags', 'web-page ns:web');
  await expect(popup.locator('.hit')).toHaveCount(3);
  await expect(popup.locator('.hit img')).toHaveCount(0); // the markup in the text stayed text
  await popup.setViewportSize({ width: 380, height: 520 });
  await popup.screenshot({ path: join(ROOT, 'e2e', 'screenshots', 'extension-popup.png') });
  await article.close();
  await popup.close();
});

test("the popup's page buttons reach the tab's content script: capture and related", async () => {
  const popup = await openPopup();
  const article = await context.newPage();
  await article.goto(`${ARTICLE_URL}?session=secret#part`);
  await article.bringToFront(); // the tab under the popup is the active tab of its window
  await popup.locator('#related').click();
  await expect(popup.locator('#status')).toHaveText(/related to this page$/);
  const related = popup.locator('.hit').first();
  await expect(related.locator('.text')).toHaveText(FACT);
  await expect(related).toHaveAttribute('data-trust', 'untrusted');
  // The content script lives in the namespace 'web': the user's own notes are not visible to it.
  await expect(popup.locator('.hit')).toHaveCount(1);

  await popup.locator('#capture').click(); // no selection: the title and the first paragraphs
  await expect(popup.locator('#status')).toHaveText('Remembered from the page');
  await expect(popup.locator('.hit .text')).toHaveText(/^Brewing notes\nGyokuro green tea/);
  await expect(popup.locator('.hit .badge')).toHaveText('untrusted');
  const source = await popup.evaluate(async (id) => {
    const houkai = (window as unknown as { houkai: Houkai }).houkai;
    return JSON.parse(await houkai.tools.dispatch('get', { memory_id: id })) as { source: string };
  }, (await popup.locator('.hit').getAttribute('data-id'))!);
  expect(source.source).toBe(ARTICLE_URL); // query and fragment left out
  await article.close();
  await popup.close();
});

test('agent tools and MemoryErrors cross the extension port; Blobs too', async () => {
  const popup = await openPopup();
  const result = await popup.evaluate(async () => {
    const { memory, tools } = (window as unknown as { houkai: Houkai }).houkai;
    const names = await tools.list();
    const hits = JSON.parse(await tools.dispatch('recall', JSON.stringify({ query: 'which linter do we use?', k: 2 }))) as { text: string; trust: string }[];
    const badTool = JSON.parse(await tools.dispatch('recall', '{"query":"x","k":0}')) as { error: { code: string; details?: { field?: string } } };
    let thrown: Record<string, unknown> = {};
    try {
      await memory.recall('x', { k: 0 });
    } catch (e) {
      const error = e as Error & { code?: string; details?: { field?: string } };
      thrown = { isError: error instanceof Error, name: error.name, code: error.code, field: error.details?.field, message: error.message };
    }
    const archive = await memory.exportArchive();
    const head = [...new Uint8Array(await archive.slice(0, 2).arrayBuffer())];
    const stats = (await memory.stats()) as unknown as { index: { kind: string; size: number } };
    return { names, hits, badTool, thrown, isBlob: archive instanceof Blob, head, size: archive.size, count: await memory.count(), embedder: memory.embedder, index: stats.index };
  });
  expect(result.names).toContain('recall');
  expect(result.hits[0]).toMatchObject({ text: OWN_NOTES[0], trust: 'trusted' });
  expect(result.badTool.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'k' } });
  expect(result.thrown).toMatchObject({ isError: true, name: 'MemoryError', code: 'INVALID_ARGUMENT', field: 'k' });
  expect(result.isBlob).toBe(true);
  expect(result.head).toEqual([0x1f, 0x8b]);
  expect(result.count).toBe(4);
  expect(result.embedder).toEqual({ id: 'universal-sentence-encoder-lite', dim: 512 });
  expect(result.index).toMatchObject({ kind: 'hnsw', size: 4 }); // hnswlib runs under the extension CSP (no 'unsafe-eval')
  await popup.close();
});

test('the popup syncs with the person\'s server, asking Chrome for that host at run time; the server gets ciphertext', async () => {
  const ALICE = { username: 'alice', password: 'alice-pw' };
  const url = (await couch.userDatabase('extension-notes', [ALICE])).replace(couch.url, noCors.url);
  const popup = await openPopup();

  await popup.locator('#sync-section summary').click();
  await popup.getByLabel('Database address').fill('http://couch.example.com/memories');
  await popup.getByRole('button', { name: 'Sync now' }).click();
  await expect(popup.locator('#sync-status')).toHaveText(/^INVALID_ARGUMENT: The extension syncs over https only/);

  await popup.getByLabel('Database address').fill(url);
  await popup.getByLabel('User name').fill(ALICE.username);
  await popup.getByLabel('Password', { exact: true }).fill(ALICE.password);
  await popup.getByLabel('Encryption passphrase (optional)').fill('correct horse battery staple');
  await popup.getByRole('button', { name: 'Sync now' }).click();
  await expect(popup.locator('#sync-status')).toHaveText('Synced, end-to-end encrypted: 4 sent, 0 received', { timeout: 60_000 });
  await popup.setViewportSize({ width: 380, height: 640 });
  await popup.screenshot({ path: join(ROOT, 'e2e', 'screenshots', 'extension-sync.png') });

  const docs = (await request(`${url}/_all_docs?include_docs=true`, 'GET', undefined, ALICE)).body as { rows: { id: string; doc: Record<string, unknown> }[] };
  const memories = docs.rows.filter((r) => r.id.startsWith('m:'));
  expect(memories).toHaveLength(4);
  const raw = JSON.stringify(memories);
  for (const secret of ['Gyokuro', 'ESLint', 'Tuesday', 'web-page']) expect(raw).not.toContain(secret);

  // Reopened, the popup remembers the address and the user name, never the password.
  await popup.close();
  const again = await openPopup();
  await again.locator('#sync-section summary').click();
  await expect(again.getByLabel('Database address')).toHaveValue(url);
  await expect(again.getByLabel('User name')).toHaveValue(ALICE.username);
  await expect(again.getByLabel('Password', { exact: true })).toHaveValue('');
  await again.close();
});

test('nothing left the extension and the test page; no page error', () => {
  expect(foreign).toEqual([]);
  expect(pageErrors).toEqual([]);
});
