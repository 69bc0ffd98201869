/**
 * A/B in one process: this tree's store against another checkout's (`--base DIR`, e.g. an
 * extracted `git archive main`), on the same vectors, with every measurement interleaved
 * (alternating which side goes first), so a machine shared with other jobs slows both alike.
 * Prints each side's ingest rate (rememberMany, batches of 2,000) and recall p50/p99 (the default
 * and hybrid with overfetch 4, `k: 10`, no touch), the median of the per-query ratios, the exact index's
 * search p50, and reopening (close, open again, first recall answered) — one JSON line at the end.
 *
 * Usage: npx tsx bench/ab.ts --base /tmp/base [--n 10000] [--queries 300] [--storage dexie|memory] [--texts sentences|real]
 */
import 'fake-indexeddb/auto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Embedder, VectorIndex } from '../src/core/ports.ts';
import type { LocalMemory } from '../src/local.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from '../test/helpers/prng.ts';
import { sentences } from './sentences.ts';
import { realTexts } from './real-texts.ts';
import { resolveDataDir } from './datasets.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const BASE = flag('base');
if (!BASE) throw new Error('--base DIR (another checkout of houkai-web) is required');
const N = Number(flag('n') ?? 10_000);
const QUERIES = Number(flag('queries') ?? 300);
const DIM = 384;
const BATCH = 2000;
/** `dexie` (IndexedDB on fake-indexeddb) or `memory` (each side's own in-memory storage). */
const STORAGE = flag('storage') ?? 'dexie';
const REOPENS = Number(flag('reopens') ?? 4);

interface Side {
  name: 'base' | 'this';
  createMemory: (options: Record<string, unknown>) => Promise<LocalMemory>;
  /** Named in-memory storages: reopening a name finds its memories. */
  storages: (name: string) => unknown;
  createExactIndex: (options: { dim: number; capacity?: number }) => VectorIndex;
}

async function load(root: string, name: Side['name']): Promise<Side> {
  const url = (file: string): string => pathToFileURL(path.join(root, file)).href;
  const local = (await import(url('src/local.ts'))) as { createMemory: Side['createMemory']; memoryStorages: () => Side['storages'] };
  const exact = (await import(url('src/adapters/index-exact.ts'))) as { createExactIndex: Side['createExactIndex'] };
  return { name, createMemory: local.createMemory, storages: local.memoryStorages(), createExactIndex: exact.createExactIndex };
}

const ms = (t0: number): number => performance.now() - t0;
const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};
const round = (x: number, digits = 3): number => Number(x.toFixed(digits));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

const sides = [await load(path.resolve(BASE), 'base'), await load(path.resolve(import.meta.dirname, '..'), 'this')];

// One corpus, one table embedder (precomputed vectors: no model in the timings).
const all = makeClusteredVectors(N + QUERIES, DIM, 42, Math.max(20, Math.round(N / 1000)));
const random = mulberry32(99);
const normal = gaussian(random);
const data = all.slice(0, N);
const queries = all.slice(N).map((fresh, j) => (j % 2 === 0 ? fresh : perturb(data[Math.floor(random() * N)]!, 0.02 / Math.sqrt(DIM), normal)));
/** `--texts real`: real sentences (bench/real-texts.ts) instead of bench/sentences.ts's recombined phrases. */
const TEXTS = flag('texts') ?? 'sentences';
const real = TEXTS === 'real' ? realTexts(resolveDataDir(path.resolve(import.meta.dirname, '..')), N, QUERIES) : null;
if (real && real.texts.length < N) throw new Error(`--texts real holds ${real.texts.length} texts, fewer than ${N}`);
const texts = real ? real.texts : sentences(N, 7);
const queryTexts = real ? real.queries : sentences(QUERIES, 8).map((t, j) => `${t} [query ${j}]`);
const table = new Map<string, Float32Array>();
texts.forEach((t, i) => table.set(t, data[i]!));
queryTexts.forEach((t, j) => table.set(t, queries[j]!));
const embedder: Embedder = {
  id: 'bench-table-384',
  dim: DIM,
  async embed(batch) {
    return batch.map((t) => table.get(t)!);
  },
};

/** Runs `fn` once per side per round, alternating which side goes first; returns each side's samples. */
async function interleaved(rounds: number, fn: (side: Side, round: number) => Promise<number>): Promise<number[][]> {
  const samples: number[][] = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) samples[i]!.push(await fn(sides[i]!, r));
  }
  return samples;
}

const stamp = Date.now();
const openStore = (s: Side): Promise<LocalMemory> =>
  s.createMemory({ name: `ab-${s.name}-${stamp}`, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000, ...(STORAGE === 'memory' ? { storage: s.storages } : {}) });
const stores = await Promise.all(sides.map(openStore));
const storeOf = (side: Side): LocalMemory => stores[sides.indexOf(side)]!;

log(`ingest: ${N} memories per side, batches of ${BATCH}, interleaved`);
const ingest = await interleaved(Math.ceil(N / BATCH), async (side, r) => {
  const items = texts.slice(r * BATCH, (r + 1) * BATCH).map((text) => ({ text }));
  const t = performance.now();
  await storeOf(side).rememberMany(items, { batchSize: BATCH });
  return ms(t);
});

const recallTimes = async (options: Record<string, unknown>): Promise<number[][]> => {
  await interleaved(20, (side, j) => storeOf(side).recall(queryTexts[j]!, { k: 10, touch: false, ...options }).then(() => 0));
  return interleaved(QUERIES, async (side, j) => {
    const t = performance.now();
    await storeOf(side).recall(queryTexts[j]!, { k: 10, touch: false, ...options });
    return ms(t);
  });
};
log('recall: default');
const byDefault = await recallTimes({});
log('recall: hybrid');
const hybrid = await recallTimes({ mode: 'hybrid', overfetch: 4 });

log('exact index: search');
const exacts = sides.map((s) => {
  const index = s.createExactIndex({ dim: DIM, capacity: N });
  index.add(data.map((_, i) => i), data);
  return index;
});
const exact = await interleaved(QUERIES, async (side, j) => {
  const t = performance.now();
  exacts[sides.indexOf(side)]!.search(queries[j]!, 10);
  return ms(t);
});
for (const e of exacts) e.dispose();

log(`reopen: close, open, first recall; ${REOPENS} rounds`);
const reopen = await interleaved(REOPENS, async (side, r) => {
  const i = sides.indexOf(side);
  await stores[i]!.close();
  const t = performance.now();
  stores[i] = await openStore(side);
  await stores[i]!.recall(queryTexts[r]!, { k: 10, touch: false });
  return ms(t);
});
for (const s of stores) await s.close();

const ratio = (samples: number[][]): number => percentile(samples[1]!.map((t, i) => t / samples[0]![i]!), 50);
const summary = (samples: number[][]) =>
  Object.fromEntries(sides.map((s, i) => [s.name, { p50_ms: round(percentile(samples[i]!, 50)), p99_ms: round(percentile(samples[i]!, 99)) }]));
const result = {
  n: N,
  storage: STORAGE,
  queries: QUERIES,
  ingest_per_s: Object.fromEntries(sides.map((s, i) => [s.name, Math.round(N / (ingest[i]!.reduce((a, b) => a + b, 0) / 1000))])),
  ingest_ratio_median: round(ratio(ingest)),
  default: { ...summary(byDefault), ratio_median: round(ratio(byDefault)) },
  hybrid: { ...summary(hybrid), ratio_median: round(ratio(hybrid)) },
  exact_search: { ...summary(exact), ratio_median: round(ratio(exact)) },
  reopen: { ...summary(reopen), ratio_median: round(ratio(reopen)) },
};
log(JSON.stringify(result, null, 2));
console.log(JSON.stringify(result));
