/**
 * How the int8 index's search breadth trades recall for time at a size, in Node, on the corpus
 * and queries of `bench/million.ts` (whose exact float32 truth it reuses from bench/.cache/):
 * one graph is built, then every `ef` is tried on the same 300 queries, bare and with the
 * store's float32 rescoring of the best `4·k` (what recall does with a quantised index).
 *
 *   npx tsx bench/ef-sweep.ts [--n 1000000] [--ef 128,256,512,1024] [--efc 100]
 *
 * `--efc`: the graph's build breadth (efConstruction; the index's default 100), to weigh a cheaper
 * build for bulk loads against the recall it costs.
 */
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { createHnswI8IndexFactory } from '../src/adapters/index-hnsw-i8.ts';
import { corpusVector, DIM, syntheticVector } from '../e2e/synthetic.ts';
import { cosineInOrder as cosine } from '../src/core/domain/vector-math.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const N = Number(flag('n') ?? 1_000_000);
const EFS = (flag('ef') ?? '128,256,512,1024').split(',').map(Number);
const EFC = Number(flag('efc') ?? 100);
const K = 10;
const RESCORE = 4 * K;
const RECALLS = 300;
const log = (line: string): void => void process.stderr.write(`[ef-sweep] ${new Date().toISOString().slice(11, 19)} ${line}\n`);

const truthFile = join(root, 'bench/.cache', `million-truth-${N}.json`);
if (!existsSync(truthFile)) throw new Error(`${truthFile} is missing: run bench/million.ts at this size first (it computes and caches the truth)`);
const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as number[][];
const queries = Array.from({ length: RECALLS }, (_, j) => syntheticVector(j % 2 === 0 ? `q:${j}` : `q:${j}@${N}`));

const index = await createHnswI8IndexFactory({ blocks: () => idbBlockStore({ database: `houkai-index:ef-sweep-${Date.now()}`, create: true }), efConstruction: EFC })({ name: 'ef-sweep', dim: DIM, capacity: N });
const kernel = (index as unknown as { kernel: { search(q: Float32Array, k: number, ef: number): { labels: Int32Array | number[] } } }).kernel;
const t0 = performance.now();
const BATCH = 1000;
for (let start = 0; start < N; start += BATCH) {
  const labels: number[] = [];
  const vectors: Float32Array[] = [];
  for (let i = start; i < Math.min(N, start + BATCH); i++) {
    labels.push(i);
    vectors.push(corpusVector(i));
  }
  index.add(labels, vectors);
  if ((start / BATCH) % 100 === 99) log(`${(start + BATCH).toLocaleString('en')} inserted (${Math.round((start + BATCH) / ((performance.now() - t0) / 1000))}/s)`);
}
log(`efConstruction ${EFC}, built: ${N.toLocaleString('en')} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
const rows: Record<string, number>[] = [];
for (const ef of EFS) {
  let bare = 0;
  let rescored = 0;
  const times: number[] = [];
  for (let j = 0; j < RECALLS; j++) {
    const want = new Set(truth[j]);
    const s = performance.now();
    const found = [...kernel.search(queries[j]!, RESCORE, Math.max(ef, RESCORE)).labels];
    times.push(performance.now() - s);
    bare += found.slice(0, K).filter((l) => want.has(l)).length;
    const best = found
      .map((label) => ({ label, c: cosine(queries[j]!, corpusVector(label)) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, K);
    rescored += best.filter((b) => want.has(b.label)).length;
  }
  times.sort((a, b) => a - b);
  const row = {
    ef,
    recall_at_10: Number((bare / (K * RECALLS)).toFixed(4)),
    recall_at_10_rescored_40: Number((rescored / (K * RECALLS)).toFixed(4)),
    search_p50_ms: Number(times[Math.floor(RECALLS / 2)]!.toFixed(2)),
    search_p99_ms: Number(times[Math.floor(RECALLS * 0.99)]!.toFixed(2)),
  };
  rows.push(row);
  log(JSON.stringify(row));
}
process.stdout.write(`${JSON.stringify({ n: N, efConstruction: EFC, date: new Date().toISOString(), rows }, null, 1)}\n`);
process.exit(0);
