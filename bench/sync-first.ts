/**
 * The first sync of a large database in Node (issue #31): pouchdb-server on loopback seeded with
 * `rows` small memory documents (dense 512-d vectors of the store's model, so nothing is
 * embedded), one store on fake-indexeddb with the default index pulls them all.
 *
 *   npm run bench -- --sync-first [--rows 50000] [--dir]
 *
 * `--dir`: the store in a folder (SQLite through better-sqlite3, the int8 index's blocks in its
 * file, the sync replica beside it) instead of fake-indexeddb, the Node store an agent keeps.
 *
 * Measures the round (and its phases), the longest `count()` while it runs (asked every 250 ms),
 * the process's RSS before the round and its peak in the round (sampled every 200 ms; the server
 * is seeded from a child process, so this process holds only what the sync does), then how long
 * the background graph build takes. Prints a JSON line. `HOUKAI_BENCH_TRACE=1` prints the
 * process's memory by kind to stderr every 2 s; `HOUKAI_BENCH_HEAP=<file>` writes a V8 heap
 * snapshot when the round ends (what is live then). `bench/sync-browser.ts` measures the same in Chromium.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../src/core/ports.ts';
import { startCouchServer } from '../test/helpers/couch-server.ts';
import { denseUnit, seedInChild } from './sync-seed.ts';

const args = process.argv.slice(2);
const ROWS = Number(args[args.indexOf('--rows') + 1] ?? 0) || 50_000;
const DIR = args.includes('--dir');
/** Resident memory by kind (anonymous, file-backed, shared), from /proc where there is one. */
const statusLine = (): string => {
  try {
    return readFileSync('/proc/self/status', 'utf8').split('\n').filter((l) => /^Rss(Anon|File|Shmem):/.test(l)).map((l) => l.replace(/\s+/g, ' ')).join(' ');
  } catch {
    return '';
  }
};
const DIM = 512;
// A specifier in a variable: the package's types do not resolve through its exports map.
const fake = 'fake-indexeddb/auto';
if (!DIR) await import(fake);
const { createMemory } = await import('../src/local.ts');
const auth = { username: 'bench', password: 'bench-pw' };

/** The documents carry their vectors: the embedder only names the model (a query embeds by its text's length). */
const embedder: Embedder = { id: 'bench-first-sync-512', dim: DIM, embed: async (texts) => texts.map((t) => denseUnit(t.length + 1, DIM)) };

const server = await startCouchServer();
try {
  const url = await server.userDatabase('first', [auth]);
  await seedInChild(url, auth, ROWS, { model: embedder.id, dim: DIM }, 'first');
  const folder = DIR ? mkdtempSync(join(tmpdir(), 'houkai-first-sync-')) : undefined;
  const store = await createMemory({ name: `first-${process.pid}-${Date.now()}`, embedder, ...(folder ? { dir: folder } : {}) });
  const before = Math.round(process.memoryUsage().rss / 1048576);
  const phases: Record<string, number> = {};
  let phase = '';
  let peak = 0;
  let atPeak = null as NodeJS.MemoryUsage | null;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) [peak, atPeak] = [usage.rss, usage];
    if (process.env.HOUKAI_BENCH_TRACE) process.stderr.write(`${Math.round(performance.now() / 1000)}s ${phase} rss ${usage.rss >> 20} heap ${usage.heapUsed >> 20}/${usage.heapTotal >> 20} external ${usage.external >> 20} arrayBuffers ${usage.arrayBuffers >> 20} ${statusLine()}\n`);
  }, process.env.HOUKAI_BENCH_TRACE ? 2000 : 200);
  let running = true;
  let maxLag = 0;
  const probe = (async () => {
    while (running) {
      const s = performance.now();
      await store.count();
      maxLag = Math.max(maxLag, performance.now() - s);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  let at = performance.now();
  const t0 = performance.now();
  const result = await store.sync({
    url,
    auth,
    onProgress: (e) => {
      if (e.kind !== 'sync' || e.phase === phase) return;
      const now = performance.now();
      if (phase) phases[phase] = (phases[phase] ?? 0) + Math.round(now - at);
      [phase, at] = [e.phase, now];
    },
  });
  const syncMs = performance.now() - t0;
  if (process.env.HOUKAI_BENCH_HEAP) (await import('node:v8')).writeHeapSnapshot(process.env.HOUKAI_BENCH_HEAP);
  if (phase) phases[phase] = (phases[phase] ?? 0) + Math.round(performance.now() - at);
  running = false;
  await probe;
  clearInterval(sampler);
  const t1 = performance.now();
  while ((await store.stats()).index.pending > 0) await new Promise((r) => setTimeout(r, 250));
  const graphMs = performance.now() - t1;
  await store.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  console.log(JSON.stringify({ date: new Date().toISOString(), store: DIR ? 'sqlite (dir)' : 'fake-indexeddb', rows: ROWS, dim: DIM, rssBeforeMB: before, syncMs: Math.round(syncMs), phases, applied: result.applied, maxCountLagMs: Math.round(maxLag), peakRssMBInRound: Math.round(peak / 1048576), atPeakMB: atPeak && { heapUsed: atPeak.heapUsed >> 20, external: atPeak.external >> 20, arrayBuffers: atPeak.arrayBuffers >> 20 }, graphAfterMs: Math.round(graphMs) }));
} finally {
  await server.dispose();
}
