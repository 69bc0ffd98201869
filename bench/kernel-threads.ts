/**
 * `npx tsx bench/kernel-threads.ts [n] [modes]`: the int8 kernel alone, in Node, inserting the
 * million bench's first `n` corpus vectors (default 200,000; 384-d, M 16, efConstruction 100,
 * 2,000 a call) one at a time (`seq`) and in batches on 1 or 2 threads (`b1`, `b2`), each on a
 * fresh kernel, in the order given (default `seq,b2,b1`). Per mode: the build time and rate, the
 * graph's recall@10 at ef 128 against the exact scan of the same int8 codes (300 queries), and a
 * hash of the link blocks (the batched modes make the same graph whatever the threads).
 */
import { Kernel } from '../src/adapters/hnsw-i8/kernel.ts';
import { loadCorpus } from './corpus.ts';

const N = Number(process.argv[2] ?? 200_000);
const modes = (process.argv[3] ?? 'seq,b2,b1').split(',');
const { data, queries } = await loadCorpus(N, 384);
const labels = data.map((_, i) => i);
const params = { dim: 384, m: 16, efConstruction: 100, seed: 100, capacityHint: N };
let truth: Uint32Array[] | null = null;
for (const mode of modes) {
  const k = await Kernel.create({ ...params, threads: mode === 'seq' ? 1 : Number(mode.slice(1)) });
  const t0 = performance.now();
  if (mode === 'seq') for (let i = 0; i < N; i++) k.add(i, data[i]!);
  else for (let i = 0; i < N; i += 2000) k.addMany(labels.slice(i, i + 2000), data.slice(i, i + 2000));
  k.settle();
  const ms = performance.now() - t0;
  truth ??= queries.map((q) => k.scan(q, 10).labels);
  let hit = 0;
  queries.forEach((q, i) => {
    const got = new Set(k.search(q, 10, 128).labels);
    for (const l of truth![i]!) if (got.has(l)) hit++;
  });
  let hash = 0;
  for (let c = 0; c < k.chunks; c++) {
    const b = k.linkBlock(c);
    for (let j = 0; j < b.length; j += 997) hash = (hash * 31 + b[j]!) >>> 0;
  }
  console.log(
    `${mode}: ${N} in ${(ms / 1000).toFixed(1)} s = ${Math.round(N / (ms / 1000))}/s; graph recall@10 ${(hit / (queries.length * 10)).toFixed(4)}; ` +
      `threads ${k.activeThreads} (helper items ${k.helperItems}); link hash ${hash}`,
  );
  k.reset();
}
