/**
 * `npm run bench -- --million` (or `npx tsx bench/million.ts`): a million memories in headless
 * Chromium through the worker, with today's index measured in the same run at 100k.
 *
 *   npx tsx bench/million.ts [--runs hnsw:100000,hnsw-i8:100000,hnsw-i8:1000000] [--storage dexie|opfs] [--out FILE]
 *   npx tsx bench/million.ts --index-only [--sizes 1000000]
 *
 * `--storage opfs`: the stores in SQLite on OPFS (#54; a dedicated worker of the page owns them)
 * instead of IndexedDB; the report says which, and gives `index.n<size>` with the keys of
 * `npm run bench`'s index table.
 *
 * Each run (index kind × size) gets a Chromium profile of its own under bench/.cache/profiles/
 * (git-ignored) so origin storage is the store's alone; a profile that already holds the store
 * is reused (ingesting a million takes a while), so a repeat run measures without re-ingesting
 * (the site is served on the port the earlier runs used, kept in bench/.cache/profiles/port:
 * IndexedDB belongs to an origin, and a new port is a new origin with empty storage).
 * Memories are `m:<i>` texts embedded by the bench worker's synthetic 384-d embedder (the
 * vectors are computed, not modelled: "precomputed vectors"), 2,000 per rememberMany call.
 *
 * Per run: ingest rate (overall and for the last 10% — sustained at size), snapshot flush time,
 * origin storage per memory (navigator.storage.estimate), recall round trip p50/p99 (300
 * recalls, k 10, touch false), recall@10 of the store's answers against exact float32 search
 * over the same vectors (half unseen queries, half near-copies of stored vectors; the truth is
 * computed here in Node and cached), the worker's memory while searching (the renderer
 * process's RSS as the OS reports it, plus the worker's JS heap and index memory), and open to
 * first recall in a fresh worker (median of 3, from page.goto).
 *
 * `--profile`: where the time goes (e2e/profiling.ts): the worker times every storage-engine
 * call and transaction, the index's work and the store's methods, and the run reports the totals
 * for each ingest chunk (per memory), for the recalls (per recall) and for one more open in a
 * fresh worker; the page's own time of each call is there too, so the RPC's share shows.
 *
 * `--index-only`: the int8 index alone in the worker, without store rows (a store ingests a few
 * hundred memories a second on this machine, so a million through the store takes hours): the
 * corpus vectors inserted, the block snapshot written, bare index searches timed and their
 * recall@10 against exact float32, the worker's memory, the snapshot's bytes, and open (load the
 * blocks) to first search in a fresh worker.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, readdirSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.ts';
import { corpusVector, DIM, syntheticVector } from '../e2e/synthetic.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const RUNS = (flag('runs') ?? 'hnsw:100000,hnsw-i8:100000,hnsw-i8:1000000').split(',').map((r) => {
  const [kind, n] = r.split(':');
  return { kind: kind as 'hnsw' | 'hnsw-i8', n: Number(n) };
});
/** Where the stores live: 'dexie' (IndexedDB, the default) or 'opfs' (SQLite in the origin-private file system, #54). */
const STORAGE = (flag('storage') ?? 'dexie') as 'dexie' | 'opfs';
if (STORAGE !== 'dexie' && STORAGE !== 'opfs') throw new Error(`--storage must be dexie or opfs, not ${STORAGE}`);
const OUT = resolve(flag('out') ?? join(root, `bench/.cache/million-result${STORAGE === 'opfs' ? '-opfs' : ''}.json`));
const CACHE = join(root, 'bench/.cache');
const INGEST_CALL = 2_000;
const RECALLS = 300;
const WARMUP = 20;
const K = 10;
const COLD_RUNS = 3;
const PROFILE = args.includes('--profile');

type PhaseTotals = Record<string, { ms: number; calls: number; items: number }>;

/** Totals scaled to one unit of work (a memory, a recall): ms and calls per unit, longest first. */
function perUnit(totals: PhaseTotals, units: number, pageMs?: number): Record<string, { ms: number; calls: number }> {
  const out: Record<string, { ms: number; calls: number }> = {};
  if (pageMs !== undefined) out['page (round trip)'] = { ms: round(pageMs / units, 4), calls: 1 };
  for (const [name, t] of Object.entries(totals)) out[name] = { ms: round(t.ms / units, 4), calls: round(t.calls / units, 4) };
  return out;
}

function logProfile(title: string, profile: Record<string, { ms: number; calls: number }>): void {
  log(`  profile, ${title}:`);
  for (const [name, t] of Object.entries(profile).slice(0, 14)) log(`    ${t.ms.toFixed(4).padStart(10)} ms  ${String(t.calls).padStart(8)} calls  ${name}`);
}

const log = (line: string): void => void process.stderr.write(`[bench:million] ${new Date().toISOString().slice(11, 19)} ${line}\n`);
const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

// ---------------------------------------------------------------------------------------------
// Server and browser (cleaned up whatever happens)

let server: ChildProcess | undefined;
let context: BrowserContext | undefined;
let siteDir: string | undefined;

async function cleanup(): Promise<void> {
  if (context) await Promise.race([context.close().catch(() => undefined), sleep(15_000)]);
  context = undefined;
  if (server?.pid !== undefined && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  server = undefined;
  if (siteDir) rmSync(siteDir, { recursive: true, force: true });
  siteDir = undefined;
}

/** Bytes of the files under `path` (0 when absent). */
function diskBytes(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, entry) => sum + diskBytes(join(path, entry)), 0);
}

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce((m, entry) => Math.max(m, newest(join(path, entry))), info.mtimeMs);
}

function ensureBuild(): void {
  const built = join(root, 'dist/e2e/e2e/bench.html');
  const stale = !existsSync(built) || ['src', 'worker', 'e2e', 'vite.config.ts'].some((f) => newest(join(root, f)) > statSync(built).mtimeMs);
  if (!stale && !args.includes('--rebuild')) return;
  log('building dist/e2e (e2e mode)…');
  const run = spawnSync('npm', ['run', '--silent', 'build:app', '--', '--mode', 'e2e'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new Error('the e2e build failed');
}

/** Binds `port` on loopback and lets it go: the port it got (any free one for 0), or null when taken. */
async function probePort(port: number): Promise<number | null> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(null));
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : null));
    });
  });
}

async function freePort(): Promise<number> {
  const port = await probePort(0);
  if (port === null) throw new Error('no free port on 127.0.0.1');
  return port;
}

/**
 * The port the site is served on. IndexedDB belongs to an origin, port included, so a profile's
 * store is found again only on the port it was written from: the port is kept beside the
 * profiles and used again while it is free.
 */
async function sitePort(): Promise<number> {
  const file = join(CACHE, 'profiles', 'port');
  const saved = existsSync(file) ? Number(readFileSync(file, 'utf8')) : NaN;
  if (Number.isInteger(saved) && saved > 0) {
    if ((await probePort(saved)) !== null) return saved;
    log(`port ${saved} is taken: the stores of earlier runs will not be found (a new origin)`);
    return freePort();
  }
  const port = await freePort();
  mkdirSync(join(CACHE, 'profiles'), { recursive: true });
  writeFileSync(file, String(port));
  return port;
}

async function startServer(): Promise<string> {
  siteDir = mkdtempSync(join(tmpdir(), 'houkai-million-site-'));
  cpSync(join(root, 'dist/e2e'), siteDir, { recursive: true });
  const port = await sitePort();
  const base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'preview', '--outDir', siteDir, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    cwd: root,
    detached: true,
    stdio: 'ignore',
  });
  for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
    try {
      if ((await fetch(`${base}/e2e/bench.html`)).ok) return base;
    } catch {
      /* not yet */
    }
  }
  throw new Error('vite preview did not answer');
}

async function launch(profile: string): Promise<BrowserContext> {
  const launched = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  launched.on('weberror', (e) => log(`[page error] ${e.error().message}`));
  return launched;
}

async function readyPage(base: string, query = ''): Promise<Page> {
  const page = await context!.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') log(`[console.error] ${m.text()}`);
  });
  await page.goto(`${base}/e2e/bench.html${query}`);
  if (!query) await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready', undefined, { timeout: 60_000 });
  return page;
}

/** RSS (bytes) of this profile's Chromium renderer processes: the worker's is the largest. */
function rendererRss(profile: string): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const procs = ps
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), rss: Number(m[3]) * 1024, args: m[4]! }));
  const main = procs.find((p) => p.args.includes(`--user-data-dir=${profile}`) && !p.args.includes('--type='));
  if (!main) return [];
  const family = new Set([main.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!family.has(p.pid) && family.has(p.ppid)) family.add(p.pid) && (grew = true);
  }
  return procs.filter((p) => family.has(p.pid) && p.args.includes('--type=renderer')).map((p) => p.rss);
}

// ---------------------------------------------------------------------------------------------
// Ground truth: exact float32 top 10 over the same vectors

function queriesFor(n: number): string[] {
  // Half unseen points of the distribution, half near-copies of stored vectors.
  return Array.from({ length: RECALLS }, (_, j) => (j % 2 === 0 ? `q:${j}` : `q:${j}@${n}`));
}

function truthFor(n: number): number[][] {
  const file = join(CACHE, `million-truth-${n}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as number[][];
  log(`exact top ${K} of ${RECALLS} queries over ${n.toLocaleString('en')} vectors (cached afterwards)…`);
  mkdirSync(CACHE, { recursive: true });
  // The vectors come from the worker's own generator (e2e/synthetic.ts), written out as float32;
  // the dot products run in native code (bench/truth.c).
  const vectors = join(CACHE, `million-vectors-${n}-${process.pid}.f32`);
  const fd = openSync(vectors, 'w');
  try {
    for (const q of queriesFor(n)) writeSync(fd, new Uint8Array(syntheticVector(q).buffer));
    const block = new Float32Array(1000 * DIM);
    for (let start = 0; start < n; start += 1000) {
      const end = Math.min(n, start + 1000);
      for (let i = start; i < end; i++) block.set(corpusVector(i), (i - start) * DIM);
      writeSync(fd, new Uint8Array(block.buffer, 0, (end - start) * DIM * 4));
    }
  } finally {
    closeSync(fd);
  }
  const tool = join(CACHE, 'truth');
  execFileSync('cc', ['-O3', '-march=native', '-o', tool, join(root, 'bench/truth.c')], { stdio: 'inherit' });
  const truth = JSON.parse(execFileSync(tool, [vectors, String(n), String(RECALLS), String(DIM), String(K)], { encoding: 'utf8', maxBuffer: 64 << 20 })) as number[][];
  rmSync(vectors, { force: true });
  writeFileSync(file, JSON.stringify(truth));
  return truth;
}

// ---------------------------------------------------------------------------------------------
// One run

interface RunResult {
  kind: string;
  n: number;
  ingest_per_s: number | null;
  ingest_sustained_per_s: number | null;
  ingest_reused_profile: boolean;
  flush_ms: number;
  storage_usage_bytes: number | null;
  bytes_per_memory: number | null;
  /**
   * The profile's IndexedDB files on disk once the browser has closed: what the store occupies
   * (navigator.storage.estimate, above, counts LevelDB's log and files awaiting compaction too,
   * so it swings with the moment it is read; measured 45 vs 26 MB for one 10k store).
   */
  disk_bytes: number;
  disk_bytes_per_memory: number;
  recall_p50_ms: number;
  recall_p99_ms: number;
  recall_at_10: number;
  worker_rss_bytes: number;
  worker_js_heap_bytes: number | null;
  index_wasm_bytes: number | null;
  /** Threads the int8 index inserted batches with at the end (1: no helper threads, #54). */
  index_threads: number;
  open_to_first_recall_ms: number;
  /** The same, under the name `npm run bench`'s index table gives it. */
  reopen_ms: number;
  open_runs: { ms: number; in_page_ms: number; opened: string | null; fresh_worker: boolean }[];
  /** With --profile: per memory for each ingest chunk, per recall, and one open in a fresh worker. */
  profile?: {
    ingest: { to: number; per_s: number; per_memory: Record<string, { ms: number; calls: number }> }[];
    recall: Record<string, { ms: number; calls: number }>;
    open: { ms: number; phases: Record<string, { ms: number; calls: number }> };
  };
}

async function run(base: string, kind: 'hnsw' | 'hnsw-i8', n: number): Promise<RunResult> {
  const profileDir = join(CACHE, 'profiles', `${STORAGE === 'opfs' ? 'opfs-' : ''}${kind}-${n}`);
  mkdirSync(profileDir, { recursive: true });
  context = await launch(profileDir);
  const name = `million-${kind}-${n}`;
  let page = await readyPage(base);
  const profile: NonNullable<RunResult['profile']> = { ingest: [], recall: {}, open: { ms: 0, phases: {} } };
  if (PROFILE) await page.evaluate(([storage]) => window.bench.setProfiling(true, storage === 'opfs' ? 'opfs' : undefined), [STORAGE]);
  const opening = performance.now();
  await page.evaluate(([name, index, storage]) => window.bench.open(name!, { index: index as 'hnsw', ...(storage === 'opfs' ? { storage: 'opfs' as const } : {}) }), [name, kind, STORAGE]);
  // The first open after a schema change upgrades the stored store (v12 moves every row), so it is said.
  log(`${name}: opened in ${((performance.now() - opening) / 1000).toFixed(1)} s`);
  if (PROFILE) await page.evaluate(() => window.bench.profile());
  const existing = await page.evaluate(([name]) => window.bench.stats(name!).then((s) => s.count), [name]);
  if (existing > n) throw new Error(`${name} holds ${existing} memories, more than ${n}`);
  const reused = existing === n;
  let ingestMs = 0;
  let sustained: number | null = null;
  if (!reused) {
    log(`${name}: ingesting ${existing.toLocaleString('en')} → ${n.toLocaleString('en')}…`);
    const chunk = Math.max(INGEST_CALL, Math.min(50_000, n / 20));
    for (let from = existing; from < n; from += chunk) {
      const to = Math.min(n, from + chunk);
      const ms = await page.evaluate(([name, from, to, batch]) => window.bench.ingest(name as string, from as number, to as number, batch as number), [name, from, to, INGEST_CALL] as const);
      ingestMs += ms;
      const rate = (to - from) / (ms / 1000);
      if (to > n * 0.9) sustained = sustained === null ? rate : Math.min(sustained, rate);
      log(`  ${to.toLocaleString('en')} / ${n.toLocaleString('en')}: ${Math.round(rate)}/s`);
      if (PROFILE) {
        const perMemory = perUnit(await page.evaluate(() => window.bench.profile()), to - from, ms);
        profile.ingest.push({ to, per_s: Math.round(rate), per_memory: perMemory });
        logProfile(`ingest to ${to.toLocaleString('en')}, per memory`, perMemory);
      }
    }
  }
  const flushMs = await page.evaluate(([name]) => window.bench.flush(name!), [name]);
  let stats = await page.evaluate(([name]) => window.bench.stats(name!), [name]);
  if (stats.count !== n || stats.index.size !== n) throw new Error(`${name}: count ${stats.count}, index ${stats.index.size}`);
  log(`${name}: flush ${Math.round(flushMs)} ms, index ${stats.index.kind} ${stats.index.size}`);

  // Search: latency, quality, memory.
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(Math.max(0, ...rendererRss(profileDir))), 250);
  if (PROFILE) await page.evaluate(() => window.bench.profile());
  const { samples } = await page.evaluate(([name, count, warmup, k]) => window.bench.recallLatency(name as string, count as number, warmup as number, k as number, 500_000), [name, RECALLS, WARMUP, K] as const);
  if (PROFILE) {
    // The warm-up recalls are in the totals too: per recall over all of them.
    profile.recall = perUnit(await page.evaluate(() => window.bench.profile()), RECALLS + WARMUP, samples.reduce((a, b) => a + b, 0) * ((RECALLS + WARMUP) / RECALLS));
    logProfile('per recall', profile.recall);
  }
  const hits = await page.evaluate(([name, queries, k]) => window.bench.recallHits(name as string, queries as string[], k as number), [name, queriesFor(n), K] as const);
  const memory = await page.evaluate(() => window.bench.workerMemory());
  clearInterval(sampler);
  rss.push(Math.max(0, ...rendererRss(profileDir)));
  const truth = truthFor(n);
  let found = 0;
  hits.forEach((texts, j) => {
    const want = new Set(truth[j]);
    found += texts.filter((t) => want.has(Number(/^m:(\d+)$/.exec(t)?.[1] ?? -1))).length;
  });
  stats = await page.evaluate(([name]) => window.bench.stats(name!), [name]);
  const usage = stats.storage?.usage ?? null;
  const recallAt10 = found / (K * RECALLS);
  log(`${name}: recall p50 ${round(percentile(samples, 0.5), 3)} ms, p99 ${round(percentile(samples, 0.99), 3)} ms, recall@10 ${round(recallAt10, 4)}, RSS ${Math.round(Math.max(...rss) / 2 ** 20)} MiB, storage ${usage === null ? '?' : Math.round(usage / 2 ** 20)} MiB, index threads ${memory.i8IndexThreads ?? 1}`);

  // Open to first recall in a fresh worker.
  const openRuns: RunResult['open_runs'] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const p of context.pages()) await p.close();
    const closedAt = Date.now();
    await sleep(1500);
    const before = Date.now();
    page = await readyPage(base, `?cold=${encodeURIComponent(name)}&index=${kind}${STORAGE === 'opfs' ? '&storage=opfs' : ''}`);
    await page.waitForFunction(() => window.bench?.cold !== undefined, undefined, { timeout: 300_000, polling: 5 });
    const cold = await page.evaluate(() => window.bench.cold!);
    const opened = cold.info.opens.find((o) => o.name === name)?.opened ?? null;
    openRuns.push({ ms: Math.round(cold.firstRecallEpochMs - before), in_page_ms: Math.round(cold.inPageMs), opened, fresh_worker: cold.info.startedAt > closedAt });
    log(`  open → first recall: ${openRuns[i]!.ms} ms (in page ${openRuns[i]!.in_page_ms} ms, index ${opened}, fresh worker ${openRuns[i]!.fresh_worker})`);
  }
  if (PROFILE) {
    // One more open in a fresh worker, profiled (switching profiling on starts the worker first).
    for (const p of context.pages()) await p.close();
    await sleep(1500);
    const before = Date.now();
    page = await readyPage(base, `?cold=${encodeURIComponent(name)}&index=${kind}&profile=1${STORAGE === 'opfs' ? '&storage=opfs' : ''}`);
    await page.waitForFunction(() => window.bench?.cold !== undefined, undefined, { timeout: 300_000, polling: 5 });
    const cold = await page.evaluate(() => window.bench.cold!);
    profile.open = { ms: Math.round(cold.firstRecallEpochMs - before), phases: perUnit(cold.profile ?? {}, 1) };
    logProfile(`open → first recall (${profile.open.ms} ms)`, profile.open.phases);
  }
  await context.close();
  context = undefined;
  // The store's files: IndexedDB's LevelDB folder, or OPFS's (Chromium keeps it under "File System"),
  // where the pool preallocates a few empty files.
  const disk = diskBytes(join(profileDir, 'Default', STORAGE === 'opfs' ? 'File System' : 'IndexedDB'));
  log(`${name}: ${Math.round(disk / 2 ** 20)} MiB of ${STORAGE === 'opfs' ? 'OPFS' : 'IndexedDB'} files on disk, ${Math.round(disk / n)} B a memory`);
  const sortedOpen = openRuns.map((r) => r.ms).sort((a, b) => a - b);
  return {
    kind,
    n,
    ingest_per_s: reused ? null : Math.round((n - existing) / (ingestMs / 1000)),
    ingest_sustained_per_s: sustained === null ? null : Math.round(sustained),
    ingest_reused_profile: reused,
    flush_ms: Math.round(flushMs),
    storage_usage_bytes: usage,
    bytes_per_memory: usage === null ? null : Math.round(usage / n),
    disk_bytes: disk,
    disk_bytes_per_memory: Math.round(disk / n),
    recall_p50_ms: round(percentile(samples, 0.5), 3),
    recall_p99_ms: round(percentile(samples, 0.99), 3),
    recall_at_10: round(recallAt10, 4),
    worker_rss_bytes: Math.max(...rss),
    worker_js_heap_bytes: memory.jsHeapUsedBytes,
    index_wasm_bytes: kind === 'hnsw-i8' ? memory.i8IndexBytes.reserved : memory.hnswlibBytes,
    index_threads: kind === 'hnsw-i8' ? (memory.i8IndexThreads ?? 1) : 1,
    open_to_first_recall_ms: sortedOpen[sortedOpen.length >> 1]!,
    reopen_ms: sortedOpen[sortedOpen.length >> 1]!,
    open_runs: openRuns,
    ...(PROFILE ? { profile } : {}),
  };
}

interface IndexOnlyResult {
  n: number;
  insert_per_s: number;
  insert_last_tenth_per_s: number;
  snapshot_write_ms: number;
  snapshot_bytes: number;
  snapshot_bytes_per_vector: number;
  origin_usage_bytes: number | null;
  search_p50_ms: number;
  search_p99_ms: number;
  recall_at_10: number;
  worker_rss_bytes: number;
  worker_js_heap_bytes: number | null;
  index_wasm_bytes: number;
  open_runs: { ms: number; load_ms: number; first_search_ms: number; fresh_worker: boolean; rss_bytes: number }[];
  open_to_first_search_ms: number;
}

async function runIndexOnly(base: string, n: number): Promise<IndexOnlyResult> {
  const profile = join(CACHE, 'profiles', `index-only-${n}`);
  rmSync(profile, { recursive: true, force: true });
  mkdirSync(profile, { recursive: true });
  context = await launch(profile);
  const name = `index-only-${n}`;
  let page = await readyPage(base);
  log(`${name}: inserting ${n.toLocaleString('en')} vectors into the int8 index in the worker…`);
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(Math.max(0, ...rendererRss(profile))), 500);
  const result = await page.evaluate(([name, n, queries, k]) => window.bench.indexBench(name as string, n as number, queries as string[], k as number), [name, n, queriesFor(n), K] as const);
  clearInterval(sampler);
  const usage = await page.evaluate(() => navigator.storage.estimate().then((e) => e.usage ?? null));
  const truth = truthFor(n);
  let found = 0;
  result.hits.forEach((labels, j) => {
    const want = new Set(truth[j]);
    found += labels.filter((l) => want.has(l)).length;
  });
  log(`${name}: ${result.insertPerS}/s (last tenth ${result.insertLastTenthPerS}/s), snapshot ${Math.round(result.blockBytes / 2 ** 20)} MiB in ${result.saveMs} ms, search p50 ${result.searchMs.p50} ms p99 ${result.searchMs.p99} ms, recall@10 ${round(found / (K * RECALLS), 4)}, RSS ${Math.round(Math.max(...rss) / 2 ** 20)} MiB`);
  const openRuns: IndexOnlyResult['open_runs'] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const p of context.pages()) await p.close();
    const closedAt = Date.now();
    await sleep(1500);
    const before = Date.now();
    page = await readyPage(base, `?indexOpen=${encodeURIComponent(name)}`);
    await page.waitForFunction(() => window.bench?.indexCold !== undefined, undefined, { timeout: 60_000, polling: 5 });
    const cold = await page.evaluate(() => window.bench.indexCold!);
    const run = {
      ms: Math.round(cold.firstSearchEpochMs - before),
      load_ms: cold.loadMs,
      first_search_ms: cold.firstSearchMs,
      fresh_worker: cold.workerStartedAt > closedAt,
      rss_bytes: Math.max(0, ...rendererRss(profile)),
    };
    if (cold.size !== n) throw new Error(`the reopened index holds ${cold.size}, not ${n}`);
    openRuns.push(run);
    log(`  open → first search: ${run.ms} ms (load ${run.load_ms} ms, search ${run.first_search_ms} ms, fresh worker ${run.fresh_worker})`);
  }
  await context.close();
  context = undefined;
  const sorted = openRuns.map((r) => r.ms).sort((a, b) => a - b);
  return {
    n,
    insert_per_s: result.insertPerS,
    insert_last_tenth_per_s: result.insertLastTenthPerS,
    snapshot_write_ms: result.saveMs,
    snapshot_bytes: result.blockBytes,
    snapshot_bytes_per_vector: Math.round(result.blockBytes / n),
    origin_usage_bytes: usage,
    search_p50_ms: result.searchMs.p50,
    search_p99_ms: result.searchMs.p99,
    recall_at_10: round(found / (K * RECALLS), 4),
    worker_rss_bytes: Math.max(...rss),
    worker_js_heap_bytes: result.memory.jsHeapUsedBytes,
    index_wasm_bytes: result.memory.i8IndexBytes.reserved,
    open_runs: openRuns,
    open_to_first_search_ms: sorted[sorted.length >> 1]!,
  };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const load = loadavg()[0]!;
  ensureBuild();
  const base = await startServer();
  if (args.includes('--index-only')) {
    const out: Record<string, IndexOnlyResult> = {};
    for (const n of (flag('sizes') ?? '1000000').split(',').map(Number)) {
      out[`hnsw-i8@${n}`] = await runIndexOnly(base, n);
      const report = {
        machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
        date: new Date().toISOString(),
        load_average: { start: round(load, 2), now: round(loadavg()[0]!, 2) },
        index_only: out,
        total_s: Math.round((Date.now() - startedAt) / 1000),
      };
      mkdirSync(resolve(OUT, '..'), { recursive: true });
      writeFileSync(OUT, `${JSON.stringify(report, null, 1)}\n`);
    }
    console.log(readFileSync(OUT, 'utf8'));
    return;
  }
  const results: RunResult[] = [];
  for (const { kind, n } of RUNS) {
    const result = await run(base, kind, n);
    results.push(result);
    // Written after every run: a million run takes long, and a later failure keeps what was measured.
    const report = {
      machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
      date: new Date().toISOString(),
      load_average: { start: round(load, 2), now: round(loadavg()[0]!, 2) },
      storage: STORAGE,
      million: Object.fromEntries(results.map((r) => [`${r.kind}@${r.n}`, r])),
      // The keys `npm run bench` writes for its index sizes, by size (bytes a memory: on disk).
      index: Object.fromEntries(
        results.map((r) => [
          `n${r.n}`,
          { kind: r.kind, ingest_per_s: r.ingest_per_s, recall_p50_ms: r.recall_p50_ms, recall_p99_ms: r.recall_p99_ms, recall_at_10: r.recall_at_10, reopen_ms: r.reopen_ms, bytes_per_memory: r.disk_bytes_per_memory, worker_rss_bytes: r.worker_rss_bytes },
        ]),
      ),
      total_s: Math.round((Date.now() - startedAt) / 1000),
    };
    mkdirSync(resolve(OUT, '..'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(report, null, 1)}\n`);
  }
  console.log(readFileSync(OUT, 'utf8'));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup();
    process.exit(1);
  });
