/**
 * `npm run bench -- --compare` (or `npx tsx bench/index-compare.ts`): the vector indexes side
 * by side on the same vectors in one process, so their figures compare as ratios within one run.
 *
 *   npx tsx bench/index-compare.ts [--sizes 100000] [--only hnsw-i8,usearch-i8] [--out FILE]
 *
 * Candidates (all WebAssembly, single thread, M = 16, efConstruction = 100, ef = 128):
 * - hnswlib-wasm 0.8.2 (float32, no SIMD): today's index;
 * - hnsw-i8: our int8 kernel (src/adapters/hnsw-i8), with SIMD128 and as a scalar build;
 * - USearch 2.26.6 (C++ headers from the `usearch` crate on crates.io, Debian Emscripten 3.1.6,
 *   SIMD128) holding f32, f16 and i8 — built by bench/usearch/build.mjs, skipped when it
 *   cannot be built here.
 *
 * Per candidate: insert rate, search p50/p99 (k 10), recall@10 against exact float32 search on
 * the same vectors, recall@10 after rescoring the best 40 with float32 (what the store does for a
 * quantised index), and the WebAssembly memory the index holds. The corpus (clustered 384-d
 * vectors, the same distribution as `npm run bench`) is cached in bench/.cache/.
 */
import 'fake-indexeddb/auto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { createHnswIndexFactory } from '../src/adapters/index-hnsw.ts';
import { loadHnswlibModule } from '../src/adapters/hnswlib-loader.ts';
import { createHnswI8IndexFactory } from '../src/adapters/index-hnsw-i8.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import type { VectorIndex } from '../src/core/ports.ts';
import { loadCorpus } from './corpus.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SIZES = (flag('sizes') ?? '100000').split(',').map(Number);
const ONLY = flag('only')?.split(',');
const OUT = flag('out');
const DIM = 384;
const K = 10;
const RESCORE = 40;
const log = (line: string): void => void process.stderr.write(`[compare] ${line}\n`);
const round = (x: number, d = 3): number => Number(x.toFixed(d));

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Candidate {
  name: string;
  notes: string;
  add(labels: number[], vectors: Float32Array[]): void;
  search(query: Float32Array, k: number): number[];
  memoryBytes(): number;
  dispose(): void;
}

function fromIndex(name: string, notes: string, index: VectorIndex, memory: () => number): Candidate {
  return {
    name,
    notes,
    add: (labels, vectors) => index.add(labels, vectors),
    search: (q, k) => index.search(q, k).map((h) => h.label),
    memoryBytes: memory,
    dispose: () => index.dispose(),
  };
}

async function hnswlib(n: number): Promise<Candidate> {
  const index = await createHnswIndexFactory()({ name: `compare-hnswlib-${n}-${Date.now()}`, dim: DIM, capacity: n });
  const lib = (await loadHnswlibModule()) as unknown as { HEAPU8?: Uint8Array; wasmMemory?: WebAssembly.Memory };
  return fromIndex('hnswlib-wasm', 'float32, no SIMD', index, () => lib.HEAPU8?.byteLength ?? lib.wasmMemory?.buffer.byteLength ?? Number.NaN);
}

async function hnswI8(n: number, simd: boolean): Promise<Candidate> {
  const { setKernelBytesForBenchmarks } = await import('../src/adapters/hnsw-i8/kernel.ts');
  if (!simd) {
    // The same kernel compiled without SIMD128, loaded in place of the shipped one.
    const file = join(root, 'bench/.cache/kernel-scalar.ts');
    if (!existsSync(file)) execFileSync('node', [join(root, 'scripts/build-index-wasm.mjs'), '--no-simd', '--out', file], { stdio: 'inherit' });
    setKernelBytesForBenchmarks(((await import(file)) as { KERNEL_WASM_BASE64: string }).KERNEL_WASM_BASE64);
  }
  const name = `compare-i8-${simd ? 'simd' : 'scalar'}-${n}-${Date.now()}`;
  const index = await createHnswI8IndexFactory({ blocks: () => idbBlockStore({ database: `houkai-index:${name}`, create: true }) })({ name, dim: DIM, capacity: n });
  const memory = (index as unknown as { memory(): { usedBytes: number } }).memory;
  const candidate = fromIndex(simd ? 'hnsw-i8 (SIMD128)' : 'hnsw-i8 (scalar)', 'int8 codes, our kernel', index, () => memory.call(index).usedBytes);
  setKernelBytesForBenchmarks(null);
  return candidate;
}

interface USearchModule {
  HEAPF32: Float32Array;
  HEAPU8: Uint8Array;
  _u_init(dim: number, kind: number, m: number, efc: number, efs: number, capacity: number): number;
  _u_reserve(capacity: number): number;
  _u_add(key: number, ptr: number): number;
  _u_search(ptr: number, k: number, keys: number, distances: number): number;
  _u_memory_usage(): number;
  _u_malloc(bytes: number): number;
}

async function usearch(n: number, kind: 0 | 1 | 2): Promise<Candidate | null> {
  const file = join(root, 'bench/.cache/usearch/usearch.mjs');
  if (!existsSync(file)) {
    try {
      execFileSync('node', [join(root, 'bench/usearch/build.mjs')], { stdio: 'inherit' });
    } catch (error) {
      log(`USearch could not be built here: ${(error as Error).message.split('\n')[0]}`);
      return null;
    }
  }
  // Emscripten 3.1.6's ES module glue still reaches for CommonJS globals under Node.
  const g = globalThis as { __dirname?: string; require?: NodeRequire };
  g.__dirname ??= dirname(file);
  g.require ??= createRequire(file);
  const factory = ((await import(file)) as { default: (o: object) => Promise<USearchModule> }).default;
  const m = await factory({ wasmBinary: readFileSync(join(dirname(file), 'usearch.wasm')) });
  if (!m._u_init(DIM, kind, 16, 100, 128, n)) throw new Error('usearch init failed');
  const vec = m._u_malloc(DIM * 4);
  const keys = m._u_malloc(8 * 64);
  const dists = m._u_malloc(4 * 64);
  const scalar = ['f32', 'f16', 'i8'][kind]!;
  return {
    name: `USearch ${scalar}`,
    notes: `${scalar} vectors, SIMD128 build, no NumKong kernels`,
    add(labels, vectors) {
      for (let i = 0; i < labels.length; i++) {
        m.HEAPF32.set(vectors[i]!, vec >> 2);
        if (!m._u_add(labels[i]!, vec)) throw new Error('usearch add failed');
      }
    },
    search(q, k) {
      m.HEAPF32.set(q, vec >> 2);
      const found = m._u_search(vec, k, keys, dists);
      const view = new BigUint64Array(m.HEAPU8.buffer, keys, found);
      return Array.from(view, (x) => Number(x));
    },
    memoryBytes: () => m._u_memory_usage(),
    dispose: () => undefined,
  };
}

async function run(n: number): Promise<Record<string, Record<string, number | string>>> {
  const t0 = performance.now();
  const { data, queries } = await loadCorpus(n, DIM);
  log(`n=${n}: corpus ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const exact = createExactIndex({ dim: DIM, capacity: n });
  const labels = data.map((_, i) => i);
  exact.add(labels, data);
  const truth = queries.map((q) => exact.search(q, K).map((h) => h.label));
  const exactTimes = queries.map((q) => {
    const t = performance.now();
    exact.search(q, K);
    return performance.now() - t;
  });
  exact.dispose();
  const cosine = (a: Float32Array, b: Float32Array): number => {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += a[j]! * b[j]!;
    return s;
  };

  const makers: [string, () => Promise<Candidate | null>][] = [
    ['hnswlib', () => hnswlib(n)],
    ['hnsw-i8', () => hnswI8(n, true)],
    ['hnsw-i8-scalar', () => hnswI8(n, false)],
    ['usearch-f32', () => usearch(n, 0)],
    ['usearch-f16', () => usearch(n, 1)],
    ['usearch-i8', () => usearch(n, 2)],
  ];
  const out: Record<string, Record<string, number | string>> = {
    exact: { search_p50_ms: round(percentile(exactTimes, 50)), note: 'brute force float32 (JS)' },
  };
  for (const [key, make] of makers) {
    if (ONLY && !ONLY.includes(key)) continue;
    const candidate = await make();
    if (!candidate) continue;
    const tb = performance.now();
    for (let start = 0; start < n; start += 1000) candidate.add(labels.slice(start, start + 1000), data.slice(start, start + 1000));
    const buildS = (performance.now() - tb) / 1000;
    for (let j = 0; j < 20; j++) candidate.search(queries[j]!, K);
    const times: number[] = [];
    let found = 0;
    let rescored = 0;
    queries.forEach((q, j) => {
      const t = performance.now();
      const hits = candidate.search(q, K);
      times.push(performance.now() - t);
      const want = new Set(truth[j]);
      found += hits.filter((l) => want.has(l)).length;
      const top = candidate
        .search(q, RESCORE)
        .map((l) => [cosine(data[l]!, q), l] as const)
        .sort((a, b) => b[0] - a[0])
        .slice(0, K);
      rescored += top.filter(([, l]) => want.has(l)).length;
    });
    const figures = {
      insert_per_s: Math.round(n / buildS),
      search_p50_ms: round(percentile(times, 50)),
      search_p99_ms: round(percentile(times, 99)),
      recall_at_10: round(found / (K * queries.length), 4),
      recall_at_10_rescored_40: round(rescored / (K * queries.length), 4),
      memory_mb: round(candidate.memoryBytes() / 2 ** 20, 1),
      memory_bytes_per_vector: Math.round(candidate.memoryBytes() / n),
      note: candidate.notes,
    };
    log(`n=${n} ${candidate.name}: ${JSON.stringify(figures)}`);
    out[candidate.name] = figures;
    candidate.dispose();
  }
  return out;
}

const results: Record<string, unknown> = {};
const startLoad = loadavg()[0]!;
for (const n of SIZES) results[`n${n}`] = await run(n);
const report = {
  machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  date: new Date().toISOString(),
  load_average: [round(startLoad, 2), round(loadavg()[0]!, 2)],
  index_compare: results,
};
if (OUT) writeFileSync(OUT, JSON.stringify(report, null, 1));
console.log(JSON.stringify(report));
