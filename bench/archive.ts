/**
 * Archive figures for `npm run bench` (merged under "archive"): export and import throughput
 * for 10k memories with 384-d vectors reused, and peak memory while importing a large archive
 * (run in a child process per size so each peak RSS is its own).
 *
 * Usage: npx tsx bench/archive.ts [--rows 10000] [--json]
 */
import 'fake-indexeddb/auto';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory } from '../src/local.ts';
import { makeClusteredVectors } from '../test/helpers/prng.ts';
import { sentences } from './sentences.ts';

const args = process.argv.slice(2);
const rows = Number(args[args.indexOf('--rows') + 1] ?? 10_000) || 10_000;
const DIM = 384;

/** Serves precomputed vectors by text, so the timing is the archive path, not a model. */
function tableEmbedder(texts: string[], vectors: Float32Array[]): Embedder {
  const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
  return { id: 'Xenova/all-MiniLM-L6-v2', dim: DIM, embed: async (batch) => batch.map((t) => byText.get(t)!) };
}

const texts = sentences(rows, 5);
const vectors = makeClusteredVectors(rows, DIM, 3, Math.max(20, rows / 1000));
const embedder = tableEmbedder(texts, vectors);
const source = await createMemory({ name: `archive-src-${Date.now()}`, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000 });
for (let i = 0; i < rows; i += 2000) await source.rememberMany(texts.slice(i, i + 2000), { batchSize: 2000 });

let t = performance.now();
const blob = await source.exportArchive();
const exportS = (performance.now() - t) / 1000;
await source.close();

const target = await createMemory({ name: `archive-dst-${Date.now()}`, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000 });
const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
t = performance.now();
const result = await target.importArchive(blob, { batchSize: 1000 });
const importS = (performance.now() - t) / 1000;
clearInterval(timer);
const hits = await target.recall(texts[123]!, { k: 1, touch: false });
await target.close();
if (result.imported !== rows || result.vectorsRegenerated) throw new Error(`unexpected import result ${JSON.stringify(result)}`);
if (hits[0]?.memory.text !== texts[123]) throw new Error('not searchable after import');

const out = {
  rows,
  archive_bytes: blob.size,
  export_per_s: Math.round(rows / exportS),
  import_per_s: Math.round(rows / importS),
  import_s: Number(importS.toFixed(2)),
  import_peak_rss_mb: Math.round(peak / 2 ** 20),
  import_rss_growth_mb: Math.round((peak - rssBefore) / 2 ** 20),
};
console.log(JSON.stringify(out));
