import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type BrowserContext, type Page } from 'playwright/test';
import { pythonArchive } from '../test/fixtures/make-archives.ts';
import { makeMemory } from '../test/helpers/memory.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';

// #54 item 6 (in part): the browser killed (SIGKILL of every Chromium process) in the middle of
// `rememberMany`, an import and a reindex of a store on OPFS, and a move from IndexedDB to OPFS.
// The store reopens in a new browser on the same profile with whole batches only (an import is
// all or nothing: rolled back; a reindex swaps every vector at once or none) and an index that
// matches its rows; a move's source is whole, and a new move completes.

/** Every process of the Chromium that runs on `profile` (the browser and its children). */
function chromiumFamily(profile: string): number[] {
  const procs = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const main = procs.find((p) => p.args.includes(`--user-data-dir=${profile}`) && !p.args.includes('--type='));
  if (!main) return [];
  const family = new Set([main.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!family.has(p.pid) && family.has(p.ppid) && (family.add(p.pid), true)) grew = true;
  }
  return [...family];
}

async function launch(profile: string, baseURL: string, path = '/e2e/harness.html'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true, baseURL });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto(path);
  await expect(page.locator('#status')).toHaveText('ready');
  return { context, page };
}

/** SIGKILL to the whole browser at once: nothing of it gets to close a file. */
async function killBrowser(profile: string, context: BrowserContext): Promise<void> {
  const pids = chromiumFamily(profile);
  expect(pids.length).toBeGreaterThan(1);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  await Promise.race([context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
}

test('killed during rememberMany on OPFS: whole batches, an index that matches its rows', async ({ baseURL }) => {
  test.setTimeout(300_000);
  const profile = mkdtempSync(join(tmpdir(), 'houkai-opfs-crash-'));
  try {
    let { context, page } = await launch(profile, baseURL!);
    await page.evaluate(() => {
      const w = window as unknown as { written: number };
      w.written = 0;
      void (async () => {
        const memory = await window.houkai.connect({ name: 'crash', storage: 'opfs' });
        for (let call = 0; ; call++) {
          const notes = Array.from({ length: 100 }, (_, i) => `crash note ${call}-${i}: the value is ${call * 100 + i}`);
          await memory.rememberMany(notes, { batchSize: 25, onProgress: (e) => void (e.kind === 'write' && (w.written = call * 100 + e.done)) });
        }
      })();
    });
    // Mid-call: once a batch is written past 4,600 memories (the int8 index inserts its batches on
    // a helper thread from 4,096 on), while the call goes on.
    const written = await page.waitForFunction(() => ((w) => (w.written >= 4600 && w.written % 100 >= 25 && w.written % 100 < 100 ? w.written : 0))(window as unknown as { written: number }), undefined, { timeout: 180_000, polling: 5 });
    const atKill = (await written.jsonValue()) as number;
    await killBrowser(profile, context);

    ({ context, page } = await launch(profile, baseURL!));
    const after = await page.evaluate(async () => {
      const memory = await window.houkai.connect({ name: 'crash', storage: 'opfs' });
      const stats = await memory.stats();
      const last = Math.floor(stats.count / 100);
      const probes = [`crash note 0-0: the value is 0`, `crash note ${last - 1}-99: the value is ${last * 100 - 1}`];
      const found = [];
      for (const probe of probes) found.push((await memory.recall(probe, { k: 1, touch: false, mode: 'hybrid' }))[0]?.memory.text === probe);
      return { count: stats.count, index: stats.index.size, found };
    });
    console.log(`killed with ${atKill} written: ${after.count} memories, index ${after.index}`);
    expect(after.count % 25).toBe(0);
    expect(after.count).toBeGreaterThanOrEqual(atKill);
    expect(after.index).toBe(after.count);
    expect(after.found).toEqual([true, true]);
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});

/** An archive of `rows` memories for the use-lite store (most with a vector, every twentieth embedded on import). */
function archiveBase64(rows: number): string {
  const memories = Array.from({ length: rows }, (_, i) => makeMemory(`imp-${i}`, `imported note ${i}: service ${i % 97} builds on runner ${i % 13}`));
  const vectors = memories.map((_, i) => {
    if (i % 20 === 19) return undefined as unknown as Float32Array;
    const v = new Float32Array(512);
    v[i % 512] = 1;
    return v;
  });
  return Buffer.from(pythonArchive({ memories, vectors, model: 'universal-sentence-encoder-lite', dim: 512 })).toString('base64');
}

test('killed during an import into OPFS: the import is rolled back whole, the memories before it stay', async ({ baseURL }) => {
  test.setTimeout(240_000);
  const profile = mkdtempSync(join(tmpdir(), 'houkai-opfs-crash-'));
  try {
    let { context, page } = await launch(profile, baseURL!);
    await page.evaluate(async (b64) => {
      const w = window as unknown as { written: number };
      w.written = 0;
      const memory = await window.houkai.connect({ name: 'crash-import', storage: 'opfs' });
      await memory.remember('kept from before the import');
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      void memory.importArchive(new Blob([bytes]), { batchSize: 50, onProgress: (e) => void (e.kind === 'import' && e.phase === 'write' && (w.written = e.rowsWritten)) }).catch(() => undefined);
    }, archiveBase64(4000));
    await page.waitForFunction(() => (window as unknown as { written: number }).written >= 200, undefined, { timeout: 120_000, polling: 5 });
    await killBrowser(profile, context);

    ({ context, page } = await launch(profile, baseURL!));
    const after = await page.evaluate(async () => {
      const memory = await window.houkai.connect({ name: 'crash-import', storage: 'opfs' });
      // The import's owner is gone (its Web Lock with it): the open rolls it back.
      for (let i = 0; i < 100 && (await memory.count()) !== 1; i++) await new Promise((r) => setTimeout(r, 300));
      const stats = await memory.stats();
      return { count: stats.count, index: stats.index.size, texts: (await memory.listRecent({ limit: 5 })).map((m) => m.text) };
    });
    expect(after).toEqual({ count: 1, index: 1, texts: ['kept from before the import'] });
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});

test('killed during a reindex of an OPFS store: every memory still there and found, the index whole', async ({ baseURL }) => {
  test.setTimeout(240_000);
  const profile = mkdtempSync(join(tmpdir(), 'houkai-opfs-crash-'));
  try {
    let { context, page } = await launch(profile, baseURL!);
    await page.evaluate(async () => {
      const w = window as unknown as { reembedded: number };
      w.reembedded = 0;
      const memory = await window.houkai.connect({ name: 'crash-reindex', storage: 'opfs' });
      await memory.rememberMany(Array.from({ length: 1200 }, (_, i) => `reindexed note ${i}: the parcel for flat ${i} waits at desk ${i % 9}`));
      void memory.reindex({ onProgress: (e) => void (e.kind === 'reindex' && (w.reembedded = e.done)) }).catch(() => undefined);
    });
    await page.waitForFunction(() => ((w) => w.reembedded >= 200 && w.reembedded < 1200)(window as unknown as { reembedded: number }), undefined, { timeout: 120_000, polling: 5 });
    await killBrowser(profile, context);

    ({ context, page } = await launch(profile, baseURL!));
    const after = await page.evaluate(async () => {
      const memory = await window.houkai.connect({ name: 'crash-reindex', storage: 'opfs' });
      const stats = await memory.stats();
      const probe = 'reindexed note 777: the parcel for flat 777 waits at desk 3';
      return { count: stats.count, index: stats.index.size, found: (await memory.recall(probe, { k: 1, touch: false }))[0]?.memory.text === probe };
    });
    expect(after).toEqual({ count: 1200, index: 1200, found: true });
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});

test('killed during a move from IndexedDB to OPFS: the source whole, the copy not a store, a new move completes', async ({ baseURL }) => {
  test.setTimeout(300_000);
  const profile = mkdtempSync(join(tmpdir(), 'houkai-opfs-crash-'));
  try {
    let { context, page } = await launch(profile, baseURL!, '/e2e/move.html');
    expect(await page.evaluate(() => window.mover.seed('moving', 4000))).toBe(4000);
    await page.evaluate(() => window.mover.startMove('moving', 'opfs'));
    let atKill = { done: 0, total: 0, error: 'not started' };
    for (const until = Date.now() + 120_000; Date.now() < until; await page.waitForTimeout(10)) {
      atKill = await page.evaluate(() => window.mover.progress());
      if (atKill.error || (atKill.done >= 2000 && atKill.done < atKill.total)) break;
    }
    expect(atKill.error).toBe('');
    expect(atKill.done).toBeLessThan(atKill.total);
    await killBrowser(profile, context);

    ({ context, page } = await launch(profile, baseURL!, '/e2e/move.html'));
    expect(await page.evaluate(() => window.mover.check('moving', 'indexeddb', 3210))).toEqual({ count: 4000, index: 4000, found: true });
    await page.evaluate(() => window.mover.move('moving', 'opfs'));
    expect(await page.evaluate(() => window.mover.check('moving', 'opfs', 3210))).toEqual({ count: 4000, index: 4000, found: true });
    console.log(`killed at ${atKill.done} of ${atKill.total} rows copied; moved whole afterwards`);
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});
