/**
 * `npx tsx bench/kernel-search.ts [n] [variant.ts …]`: the int8 kernel's search alone, in Node, at
 * the million bench's breadth. The graph of the million bench's first `n` vectors (default
 * 1,000,000; 384-d, M 16, efConstruction 100) is built once with the shipped kernel and cached in
 * bench/.cache/graph-synthetic-<n>.bin (git-ignored; delete it after a change to the kernel's block
 * layout: loading it then fails); then the shipped kernel and each variant (a kernel-wasm.ts written
 * by `node scripts/build-index-wasm.mjs --out FILE` from another kernel.c) load the same blocks and
 * search the corpus's 300 queries for 40 candidates at the breadth a store of `n` uses, in
 * alternating rounds so that the machine's drift falls on all of them alike. Per kernel: the
 * median and p90 of each round's per-search time, and recall@10 against the exact int8 scan.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kernel, setKernelBytesForBenchmarks } from '../src/adapters/hnsw-i8/kernel.ts';
import { HNSW_I8_DEFAULTS, searchBreadth } from '../src/adapters/index-hnsw-i8.ts';
import { corpusVector, syntheticVector } from '../e2e/synthetic.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const variants = process.argv.slice(3);
const ROUNDS = Number(process.env['ROUNDS'] ?? 7);
const K = 40;
const ef = searchBreadth(HNSW_I8_DEFAULTS.efSearch, N, K);
// The million bench's own vectors (e2e/synthetic.ts: 100 clusters, as its store holds them) and
// its 300 queries, half unseen points and half near-copies of stored vectors.
const data = Array.from({ length: N }, (_, i) => corpusVector(i));
const queries = Array.from({ length: 300 }, (_, j) => syntheticVector(j % 2 === 0 ? `q:${j}` : `q:${j}@${N}`));
const params = { dim: 384, m: 16, efConstruction: 100, seed: 100, capacityHint: N };
const cache = fileURLToPath(new URL(`./.cache/graph-synthetic-${N}.bin`, import.meta.url));

interface Blocks {
  slots: number;
  entry: number;
  top: number;
  vectors: Uint8Array[];
  links: Uint8Array[];
}

function save(k: Kernel): Blocks {
  const blocks: Blocks = { slots: k.slots, entry: k.entry, top: k.topLevel, vectors: [], links: [] };
  for (let c = 0; c < k.chunks; c++) {
    blocks.vectors.push(k.vectorBlock(c));
    blocks.links.push(k.linkBlock(c));
  }
  const parts: Uint8Array[] = [new Uint8Array(new Uint32Array([blocks.slots, blocks.entry, blocks.top, k.chunks]).buffer)];
  for (let c = 0; c < k.chunks; c++) {
    parts.push(new Uint8Array(new Uint32Array([blocks.vectors[c]!.length, blocks.links[c]!.length]).buffer), blocks.vectors[c]!, blocks.links[c]!);
  }
  writeFileSync(cache, Buffer.concat(parts));
  return blocks;
}

function read(): Blocks {
  const bytes = readFileSync(cache);
  const u32 = (at: number): number => bytes.readUInt32LE(at);
  const blocks: Blocks = { slots: u32(0), entry: u32(4), top: u32(8), vectors: [], links: [] };
  let at = 16;
  for (let c = 0; c < u32(12); c++) {
    const v = u32(at), l = u32(at + 4);
    at += 8;
    blocks.vectors.push(bytes.subarray(at, at + v));
    blocks.links.push(bytes.subarray(at + v, at + v + l));
    at += v + l;
  }
  return blocks;
}

async function build(): Promise<Blocks> {
  const k = await Kernel.create({ ...params, threads: 2 });
  const labels = data.map((_, i) => i);
  const t0 = performance.now();
  for (let i = 0; i < N; i += 2000) k.addMany(labels.slice(i, i + 2000), data.slice(i, i + 2000));
  k.settle();
  console.log(`graph of ${N} built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const blocks = save(k);
  k.reset();
  return blocks;
}

async function load(blocks: Blocks, base64: string | null): Promise<Kernel> {
  setKernelBytesForBenchmarks(base64);
  const k = await Kernel.create({ ...params, threads: 1 });
  setKernelBytesForBenchmarks(null);
  if (!k.loadBegin(blocks.slots)) throw new Error('loadBegin');
  blocks.vectors.forEach((v, c) => {
    if (!k.loadVectorBlock(c, v) || !k.loadLinkBlock(c, blocks.links[c]!)) throw new Error(`block ${c}`);
  });
  if (k.loadEnd(blocks.slots, blocks.entry, blocks.top) !== N) throw new Error('loadEnd');
  return k;
}

const blocks = existsSync(cache) ? read() : await build();
const kernels: { name: string; k: Kernel; rounds: number[]; p90: number[] }[] = [{ name: 'shipped', k: await load(blocks, null), rounds: [], p90: [] }];
for (const file of variants) {
  const mod = (await import(new URL(file, `file://${process.cwd()}/`).href)) as { KERNEL_WASM_BASE64: string };
  kernels.push({ name: file, k: await load(blocks, mod.KERNEL_WASM_BASE64), rounds: [], p90: [] });
}
const truth = queries.map((q) => kernels[0]!.k.scan(q, 10).labels);
for (const { k } of kernels) for (const q of queries) k.search(q, K, ef); // warm
for (let r = 0; r < ROUNDS; r++) {
  for (const entry of r % 2 ? [...kernels].reverse() : kernels) {
    const times: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      entry.k.search(q, K, ef);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    entry.rounds.push(times[times.length >> 1]!);
    entry.p90.push(times[Math.floor(times.length * 0.9)]!);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const { name, k, rounds, p90 } of kernels) {
  let hit = 0;
  queries.forEach((q, i) => {
    const got = new Set(k.search(q, 10, ef).labels);
    for (const l of truth[i]!) if (got.has(l)) hit++;
  });
  console.log(
    `${name}: search p50 ${median(rounds).toFixed(3)} ms (rounds ${rounds.map((x) => x.toFixed(2)).join(' ')}), p90 ${median(p90).toFixed(3)} ms; ` +
      `recall@10 ${(hit / (queries.length * 10)).toFixed(4)} at ef ${ef}`,
  );
}
