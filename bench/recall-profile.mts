/**
 * Where the default recall's time goes in Node (fake-indexeddb): the store of `npm run bench
 * -- --texts real` (real sentences, synthetic clustered vectors), every storage-port call timed
 * while the default recall runs. A profiling aid for issue #26's latency target, not a figure of
 * record (that is `npm run bench`).
 *
 * Usage: npx tsx bench/recall-profile.mts [--n 100000] [--queries 300] [--rounds 1] [--cpu-prof FILE]
 */
import 'fake-indexeddb/auto';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory } from '../src/local.ts';
import { makeClusteredVectors } from '../test/helpers/prng.ts';
import { resolveDataDir } from './datasets.ts';
import { realTexts } from './real-texts.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const N = flag('n', 100_000);
const QUERIES = flag('queries', 300);
const DIM = 384;
/** `--cpu-prof FILE`: a V8 CPU profile of the default recalls alone (open it in Chrome's DevTools). */
const PROFILE_OUT = args.includes('--cpu-prof') ? args[args.indexOf('--cpu-prof') + 1] : undefined;
const ROUNDS = flag('rounds', 1);
const log = (line: string): void => void process.stderr.write(`${line}\n`);

const all = makeClusteredVectors(N + QUERIES, DIM, 42, Math.max(20, Math.round(N / 1000)));
const { texts, queries } = realTexts(resolveDataDir(path.resolve(import.meta.dirname, '..')), N, QUERIES);
const table = new Map<string, Float32Array>();
texts.forEach((t, i) => table.set(t, all[i]!));
queries.forEach((t, j) => table.set(t, all[N + j]!));
const embedder: Embedder = { id: 'bench-table-384', dim: DIM, embed: async (ts) => ts.map((t) => table.get(t)!) };

const spent = new Map<string, { ms: number; calls: number; items?: number }>();
let timing = false;
function timed<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value = Reflect.get(obj, key, receiver);
      if (typeof value !== 'function') return value;
      return (...a: unknown[]) => {
        const t = performance.now();
        const out = value.apply(obj, a);
        const record = (): void => {
          if (!timing) return;
          const s = spent.get(String(key)) ?? { ms: 0, calls: 0 };
          s.ms += performance.now() - t;
          s.calls++;
          if (Array.isArray(a[0])) s.items = (s.items ?? 0) + (a[0] as unknown[]).length;
          spent.set(String(key), s);
        };
        if (out instanceof Promise) return out.finally(record);
        record();
        return out;
      };
    },
  });
}

const name = `profile-${Date.now()}`;
const store = await createMemory({ name, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000, storage: async (n) => timed(await openDexieStorage(n)) });
const t0 = performance.now();
for (let start = 0; start < N; start += 2000) await store.rememberMany(texts.slice(start, start + 2000).map((text) => ({ text })), { batchSize: 2000 });
log(`ingested ${N} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
for (const [label, options] of [
  ['semantic', { mode: 'semantic' }],
  ['default', {}],
  ['default, no context', { weights: { context: 0 } }],
] as const) {
  for (let j = 0; j < 20; j++) await store.recall(queries[j]!, { k: 10, touch: false, ...options });
  spent.clear();
  const session = PROFILE_OUT && label === 'default' ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  timing = true;
  const times: number[] = [];
  for (let j = 0; j < QUERIES * ROUNDS; j++) {
    const t = performance.now();
    await store.recall(queries[j % QUERIES]!, { k: 10, touch: false, ...options });
    times.push(performance.now() - t);
  }
  timing = false;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(PROFILE_OUT!, JSON.stringify(profile));
    session.disconnect();
  }
  log(`${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`);
  for (const [key, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms)) log(`  ${key}: ${(s.ms / times.length).toFixed(2)} ms a recall (${(s.calls / times.length).toFixed(1)} calls${s.items ? `, ${(s.items / times.length).toFixed(1)} items` : ''})`);
}
await store.close();
