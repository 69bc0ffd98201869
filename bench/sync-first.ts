/**
 * The first sync of a large database in Node (issue #31): pouchdb-server on loopback seeded with
 * `rows` small memory documents (dense 512-d vectors of the store's model, so nothing is
 * embedded), one store on fake-indexeddb with the default index pulls them all.
 *
 *   npm run bench -- --sync-first [--rows 50000]
 *
 * Measures the round (and its phases), the longest `count()` while it runs (asked every 250 ms),
 * the process's peak RSS in the round (sampled every 200 ms; in Node the store and PouchDB's
 * replica both live in the heap), then how long the background graph build takes. Prints a JSON
 * line. `bench/sync-browser.ts` measures the same in Chromium.
 */
import 'fake-indexeddb/auto';
import { createMemory } from '../src/local.ts';
import type { Embedder } from '../src/core/ports.ts';
import { startCouchServer } from '../test/helpers/couch-server.ts';
import { denseUnit, seedMemoryDocs } from './sync-seed.ts';

const args = process.argv.slice(2);
const ROWS = Number(args[args.indexOf('--rows') + 1] ?? 0) || 50_000;
const DIM = 512;
const auth = { username: 'bench', password: 'bench-pw' };

/** The documents carry their vectors: the embedder only names the model (a query embeds by its text's length). */
const embedder: Embedder = { id: 'bench-first-sync-512', dim: DIM, embed: async (texts) => texts.map((t) => denseUnit(t.length + 1, DIM)) };

const server = await startCouchServer();
try {
  const url = await server.userDatabase('first', [auth]);
  await seedMemoryDocs(url, auth, ROWS, { model: embedder.id, dim: DIM }, 'first');
  const store = await createMemory({ name: `first-${process.pid}-${Date.now()}`, embedder });
  let peak = 0;
  const sampler = setInterval(() => void (peak = Math.max(peak, process.memoryUsage().rss)), 200);
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
  const phases: Record<string, number> = {};
  let phase = '';
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
  if (phase) phases[phase] = (phases[phase] ?? 0) + Math.round(performance.now() - at);
  running = false;
  await probe;
  clearInterval(sampler);
  const t1 = performance.now();
  while ((await store.stats()).index.pending > 0) await new Promise((r) => setTimeout(r, 250));
  const graphMs = performance.now() - t1;
  await store.close();
  console.log(JSON.stringify({ date: new Date().toISOString(), rows: ROWS, dim: DIM, syncMs: Math.round(syncMs), phases, applied: result.applied, maxCountLagMs: Math.round(maxLag), peakRssMBInRound: Math.round(peak / 1048576), graphAfterMs: Math.round(graphMs) }));
} finally {
  await server.dispose();
}
