/**
 * Graph and conflict figures for `npm run bench` (merged under "graph"): the whole-store
 * conflict scan of 10,000 memories (vector neighbours, not all pairs) and incoming-link lookups.
 *
 * Usage: npx tsx bench/graph.ts [--rows 10000]
 */
import 'fake-indexeddb/auto';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from '../test/helpers/fake-embedder.ts';
import { sentences } from './sentences.ts';

const args = process.argv.slice(2);
const rows = Number(args[args.indexOf('--rows') + 1] ?? 10_000) || 10_000;
const store = await createMemory({ name: `graph-${Date.now()}`, embedder: createHashEmbedder({ dim: 384 }), index: 'hnsw', conflicts: { policy: 'ignore' } });
const texts = sentences(rows, 9).map((t, i) => (i % 40 === 0 ? t.replace(/ (prefers|requires|depends on) /, ' never $1 ') : t));
const ids: string[] = [];
for (let i = 0; i < rows; i += 2000) ids.push(...(await store.rememberMany(texts.slice(i, i + 2000), { batchSize: 2000 })).map((r) => r.memory.id));

let t = performance.now();
const conflicts = await store.findConflicts();
const scanS = (performance.now() - t) / 1000;

// One hub with 200 incoming links among 10k memories: incoming lookups must not scan.
const hub = ids[0]!;
for (let i = 1; i <= 200; i++) await store.link(ids[i * 7]!, hub, 'supports');
const times: number[] = [];
for (let i = 0; i < 50; i++) {
  t = performance.now();
  const n = await store.neighbors(hub, { direction: 'in' });
  times.push(performance.now() - t);
  if (n.results.length !== 200) throw new Error(`expected 200 incoming, got ${n.results.length}`);
}
times.sort((a, b) => a - b);
await store.close();
console.log(
  JSON.stringify({
    rows,
    find_conflicts_s: Number(scanS.toFixed(2)),
    conflicts: conflicts.length,
    contradictions: conflicts.filter((c) => c.kind === 'contradiction').length,
    neighbors_in_p50_ms: Number(times[25]!.toFixed(2)),
  }),
);
