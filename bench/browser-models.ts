/**
 * The real embedding models in Debian's Chromium (part of `npm run bench`; alone:
 * `npx tsx bench/browser-models.ts [out.json]`), against the app's e2e build served the way it
 * is meant to be (cross-origin-isolation headers):
 *
 * - first visit to ready: a fresh profile opens the app and waits until the default store is
 *   ready on the default model (bge-small) from the origin (service worker install, model and
 *   runtime download, WASM compile, store open), twice, median;
 * - a new store on each model in a fresh profile (the bench page, no service worker): model and
 *   runtime download, compile, store open — the part of a first visit that depends on the model;
 * - the precache: what the service worker stores on install (entries and bytes, from sw.js);
 * - embedding throughput of each model in the module SharedWorker (not cross-origin isolated in
 *   Chromium: one thread) and in a dedicated worker of the isolated page (multi-threaded), and
 *   `rememberMany` per second in the shared worker, with use-lite measured in the same run.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.ts';
import { serveStatic } from '../e2e/offline-servers.ts';
import { sentences } from './sentences.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const N = 256;

function ensureBuild(): void {
  if (existsSync(join(root, 'dist/e2e/e2e/bench.html')) && existsSync(join(root, 'dist/e2e/sw.js'))) return;
  log('building dist/e2e (e2e mode)…');
  const built = spawnSync('npm', ['run', '--silent', 'build:app', '--', '--mode', 'e2e'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) throw new Error('the e2e build failed');
}

/** The service worker's precache list (workbox writes `{url:"…",revision:…}` entries into sw.js). */
function precache(site: string): { entries: number; bytes: number; model_bytes: number; ort_bytes: number } {
  const sw = readFileSync(join(site, 'sw.js'), 'utf8');
  const urls = [...sw.matchAll(/url:"([^"]+)"/g)].map((m) => m[1]!);
  let bytes = 0;
  let model = 0;
  let ort = 0;
  for (const url of urls) {
    const size = statSync(join(site, decodeURIComponent(url))).size;
    bytes += size;
    if (url.startsWith('models/Xenova/')) model += size;
    if (url.includes('ort-wasm')) ort += size;
  }
  return { entries: urls.length, bytes, model_bytes: model, ort_bytes: ort };
}

async function firstVisit(browser: Browser, base: string): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${base}/`);
    await page.locator('main[data-phase="ready"]').waitFor({ timeout: 300_000 });
    const ms = Date.now() - t0;
    const chips = await page.locator('.chips').innerText();
    if (!chips.includes('bge-small-en-v1.5')) throw new Error(`first visit opened on another model: ${chips}`);
    return ms;
  } finally {
    await context.close();
  }
}

/** A fresh profile opens the bench page and a new store on `embedder`; ms from the open call to ready. */
async function freshStore(browser: Browser, base: string, embedder: 'use-lite' | 'minilm' | 'bge-small'): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/e2e/bench.html`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
    const name = `fresh-${embedder}`;
    const t0 = Date.now();
    await page.evaluate(([n, e]) => window.bench.open(n!, { embedder: e as 'minilm' }), [name, embedder]);
    const ms = Date.now() - t0;
    await page.evaluate((n) => window.bench.close(n), name);
    return ms;
  } finally {
    await context.close();
  }
}

export async function benchBrowserModels(): Promise<Record<string, unknown>> {
  ensureBuild();
  const site = mkdtempSync(join(tmpdir(), 'houkai-bench-models-'));
  cpSync(join(root, 'dist/e2e'), site, { recursive: true });
  const server = await serveStatic(site);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const visits: number[] = [];
    for (let i = 0; i < 2; i++) {
      visits.push(await firstVisit(browser, server.url));
      log(`first visit to ready on bge-small (the default): ${visits.at(-1)} ms`);
    }
    const storeReady: Record<string, number[]> = {};
    for (let i = 0; i < 2; i++) {
      for (const embedder of ['use-lite', 'minilm', 'bge-small'] as const) {
        const ms = await freshStore(browser, server.url, embedder);
        (storeReady[embedder] ??= []).push(ms);
        log(`a new ${embedder} store in a fresh profile, to ready: ${ms} ms`);
      }
    }

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/e2e/bench.html`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
    const texts = sentences(N + 32, 23);
    const throughput: Record<string, unknown> = {};
    for (const [key, id] of [['minilm', 'Xenova/all-MiniLM-L6-v2'], ['bge-small', 'Xenova/bge-small-en-v1.5']] as const) {
      for (const dedicated of [false, true]) {
        const run = await page.evaluate(({ id, texts, dedicated }) => window.bench.embed(id, texts, { dedicated }), { id, texts: texts.slice(0, N), dedicated });
        const perS = Math.round((N / run.embedMs) * 1000);
        throughput[`${key}_${dedicated ? 'dedicated' : 'shared'}`] = { per_s: perS, backend: run.backend, load_ms: Math.round(run.loadMs), cross_origin_isolated: run.isolation.crossOriginIsolated };
        log(`${key} in a ${dedicated ? 'dedicated' : 'shared'} worker (${run.backend}): ${perS} texts/s, load ${Math.round(run.loadMs)} ms`);
      }
    }
    const rememberMany: Record<string, number> = {};
    for (const embedder of ['use-lite', 'minilm', 'bge-small'] as const) {
      const name = `bench-models-${embedder}-${Date.now()}`;
      await page.evaluate(([n, e]) => window.bench.open(n!, { embedder: e as 'minilm' }), [name, embedder]);
      await page.evaluate(([n, t]) => window.bench.rememberTexts(n as string, t as string[], 32), [name, texts.slice(N)] as const);
      const ms = await page.evaluate(([n, t]) => window.bench.rememberTexts(n as string, t as string[], 128), [name, texts.slice(0, N)] as const);
      rememberMany[embedder] = Math.round((N / ms) * 1000);
      log(`rememberMany in the shared worker, ${embedder}: ${rememberMany[embedder]}/s`);
      await page.evaluate((n) => window.bench.close(n), name);
    }
    await context.close();
    return {
      first_visit_ready_ms_bge_small: median(visits),
      new_store_ready_ms: Object.fromEntries(Object.entries(storeReady).map(([k, v]) => [k, { median: median(v), runs: v }])),
      first_visit_runs_ms: visits,
      precache: precache(site),
      embed_per_s: throughput,
      remember_many_per_s: rememberMany,
    };
  } finally {
    await browser.close();
    await server.close();
    rmSync(site, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchBrowserModels();
  const out = process.argv[2];
  if (out) writeFileSync(out, JSON.stringify(result));
  console.log(JSON.stringify(result));
}
