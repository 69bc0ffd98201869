/**
 * The first sync of a large database in Chromium (issue #31), where the product runs: the app's
 * e2e build (`dist/e2e`, built when missing) served by scripts/serve.mjs with the sync server's
 * origin allowed, the harness page's client (use-lite, 512-d) talking to the memory worker, real
 * IndexedDB on disk.
 *
 *   npm run bench -- --sync-browser [--rows 50000]
 *
 * The database is seeded with `rows` small memory documents carrying use-lite-shaped vectors (no
 * embedding happens: the model matches). While `sync()` runs, the page times `count()` every
 * 250 ms and one `recall()`, `listRecent()` and `health()` mid-round (the store answering other
 * calls), and this process samples the resident memory of every Chromium process (/proc): the
 * worker runs in the page's renderer, IndexedDB's backend in the browser process. After the round: how long the background
 * HNSW build takes, then an `exportArchive()` and a whole-store `findConflicts()`. Prints a JSON
 * line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.ts';
import { startCouchServer } from '../test/helpers/couch-server.ts';
import { seedMemoryDocs } from './sync-seed.ts';

const args = process.argv.slice(2);
const ROWS = Number(args[args.indexOf('--rows') + 1] ?? 0) || 50_000;
const DIM = 512;
const MODEL = 'universal-sentence-encoder-lite';
const auth = { username: 'bench', password: 'bench-pw' };
const root = fileURLToPath(new URL('..', import.meta.url));

/** Resident memory (MiB) of every Chromium process, by kind (`renderer`, `browser`, `gpu-process`, …). */
function chromiumRss(): { kind: string; mb: number }[] {
  const out: { kind: string; mb: number }[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('chromium')) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) out.push({ kind: /--type=([a-z-]+)/.exec(cmdline)?.[1] ?? 'browser', mb: Number(rss[1]) / 1024 });
    } catch {
      /* gone */
    }
  }
  return out;
}

if (!existsSync(`${root}dist/e2e/e2e/harness.html`)) spawnSync('npm', ['run', '--silent', 'build:app', '--', '--mode', 'e2e'], { cwd: root, stdio: 'inherit' });

const couch = await startCouchServer();
let app: ChildProcess | null = null;
try {
  const url = await couch.userDatabase('big', [auth]);
  const seeded = performance.now();
  await seedMemoryDocs(url, auth, ROWS, { model: MODEL, dim: DIM }, 'big');
  const seedMs = performance.now() - seeded;

  app = spawn(process.execPath, ['scripts/serve.mjs', '--dir', 'dist/e2e', '--port', '0', '--host', '127.0.0.1'], { cwd: root, env: { ...process.env, HOUKAI_SYNC_ORIGINS: couch.url }, stdio: ['ignore', 'pipe', 'inherit'] });
  const appUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve.mjs printed no URL within 20 s')), 20_000);
    let out = '';
    app!.stdout!.on('data', (chunk: Buffer) => {
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec((out += chunk.toString()));
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
  });

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    // tsx names the functions it compiles with a helper the page does not have.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await page.goto(`${appUrl}/e2e/harness.html`);
    await page.locator('#status').filter({ hasText: 'ready' }).waitFor({ timeout: 120_000 });
    // The page says when its sync round ends, so the memory peaks split into the round and after.
    let inRound = true;
    await page.exposeFunction('benchRoundDone', () => void (inRound = false));
    const largest = (kind: string, list: { kind: string; mb: number }[]): number => Math.max(0, ...list.filter((p) => p.kind === kind).map((p) => p.mb));
    const baseline = chromiumRss();
    const peaks = { round: { renderer: 0, browser: 0, all: 0 }, after: { renderer: 0, browser: 0, all: 0 } };
    const sampler = setInterval(() => {
      const now = chromiumRss();
      const peak = inRound ? peaks.round : peaks.after;
      peak.renderer = Math.max(peak.renderer, Math.round(largest('renderer', now)));
      peak.browser = Math.max(peak.browser, Math.round(largest('browser', now)));
      peak.all = Math.max(peak.all, Math.round(now.reduce((a, p) => a + p.mb, 0)));
    }, 200);
    const figures = await page.evaluate(
      async ({ url, auth }) => {
        const m = await window.houkai.connect({ name: `big-${Date.now()}` });
        let running = true;
        let syncing = true;
        const lag = { sync: 0, after: 0 };
        let probes = 0;
        const probe = (async () => {
          while (running) {
            const s = performance.now();
            const during = syncing;
            await m.count();
            const took = performance.now() - s;
            if (during) lag.sync = Math.max(lag.sync, took);
            else lag.after = Math.max(lag.after, took);
            probes++;
            await new Promise((r) => setTimeout(r, 250));
          }
        })();
        const during: Record<string, number> = {};
        const phases: Record<string, number> = {};
        let phase = '';
        let phaseAt = performance.now();
        let asked = false;
        const t0 = performance.now();
        const result = await m.sync({
          url,
          auth,
          onProgress: (e) => {
            if (e.kind === 'sync' && e.phase !== phase) {
              const now = performance.now();
              if (phase) phases[phase] = (phases[phase] ?? 0) + Math.round(now - phaseAt);
              phase = e.phase;
              phaseAt = now;
            }
            if (asked || e.kind !== 'sync' || e.phase !== 'apply' || (e.done ?? 0) < 10_000) return;
            asked = true;
            for (const [name, call] of [['recall', () => m.recall('small memory about topic 12', { k: 10 })], ['listRecent', () => m.listRecent({ limit: 50 })], ['health', () => m.health()]] as const) {
              const s = performance.now();
              void call().then(() => void (during[name] = Math.round(performance.now() - s)));
            }
          },
        });
        const syncMs = performance.now() - t0;
        syncing = false;
        await (window as unknown as { benchRoundDone(): Promise<void> }).benchRoundDone();
        if (phase) phases[phase] = (phases[phase] ?? 0) + Math.round(performance.now() - phaseAt);
        const t1 = performance.now();
        while ((await m.stats()).index.pending > 0) await new Promise((r) => setTimeout(r, 250));
        const drainMs = performance.now() - t1;
        running = false;
        await probe;
        const t2 = performance.now();
        const archive = await m.exportArchive({ record: false });
        const exportMs = performance.now() - t2;
        const t3 = performance.now();
        const conflicts = await m.findConflicts({});
        const findConflictsMs = performance.now() - t3;
        const count = await m.count();
        await m.close();
        return { syncMs: Math.round(syncMs), phases, applied: result.applied, count, maxCountLagMs: { duringSync: Math.round(lag.sync), whileGraphBuilds: Math.round(lag.after) }, probes, during, drainMs: Math.round(drainMs), exportMs: Math.round(exportMs), findConflictsMs: Math.round(findConflictsMs), conflicts: conflicts.length, archiveMB: Math.round(archive.size / 1048576) };
      },
      { url, auth },
    );
    clearInterval(sampler);
    const result = {
      date: new Date().toISOString(),
      rows: ROWS,
      dim: DIM,
      seedMs: Math.round(seedMs),
      ...figures,
      // The worker runs in the page's renderer; Chromium's IndexedDB backend in the browser process.
      rssMB: { before: { renderer: Math.round(largest('renderer', baseline)), browser: Math.round(largest('browser', baseline)) }, peakInRound: peaks.round, peakAfter: peaks.after },
      load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    };
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
  }
} finally {
  app?.kill('SIGTERM');
  await couch.dispose();
}
