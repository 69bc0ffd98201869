/**
 * Archive figures for `npm run bench` (merged under "archive"); run in a child process per
 * mode so each peak memory is its own.
 *
 * - `--rows N` (default 10,000): export and import throughput for N memories with 384-d
 *   vectors reused, the import's wall and CPU time, and proof that the rows are searchable
 *   when `importArchive` returns (a recall of the last row while the HNSW graph is still being
 *   built in the background), then how long the background insertion took.
 * - `--memory [--rows 50000]`: peak memory while importing a large archive. The archive is
 *   written Python-style to a temporary file first (by node:zlib, outside the code under test)
 *   and imported from a file-backed Blob, so neither its bytes nor its text sit in the heap;
 *   RSS and heap are sampled every 20 ms during the import. Run with `--expose-gc` so the
 *   baseline and the retained figures (what the store keeps afterwards) follow a full GC.
 *
 * Usage: node --import tsx [--expose-gc] bench/archive.ts [--rows 10000] [--memory]
 */
import 'fake-indexeddb/auto';
import { createWriteStream, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { serializeHeader, serializeRow } from '../src/core/archive/format.ts';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory } from '../src/local.ts';
import type { Memory } from '../src/core/types.ts';
import { makeClusteredVectors } from '../test/helpers/prng.ts';
import { sentences } from './sentences.ts';

const args = process.argv.slice(2);
const memoryMode = args.includes('--memory');
const rowsArg = args.indexOf('--rows');
const rows = (rowsArg >= 0 ? Number(args[rowsArg + 1]) : NaN) || (memoryMode ? 50_000 : 10_000);
const DIM = 384;
const MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Serves precomputed vectors by text, so the timing is the archive path, not a model. */
function tableEmbedder(texts: string[], vectors: Float32Array[]): Embedder {
  const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
  return { id: MODEL, dim: DIM, embed: async (batch) => batch.map((t) => byText.get(t) ?? vectors[0]!) };
}

const cpuSeconds = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);

/** Samples RSS and heap until stopped; returns the peaks. */
function sampleMemory(): () => { rss: number; heap: number } {
  let rss = process.memoryUsage().rss;
  let heap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 20);
  return () => {
    clearInterval(timer);
    return { rss, heap };
  };
}

async function throughput(): Promise<Record<string, number>> {
  const texts = sentences(rows, 5);
  const vectors = makeClusteredVectors(rows, DIM, 3, Math.max(20, rows / 1000));
  const embedder = tableEmbedder(texts, vectors);
  // The source's index plays no part in an export: the exact one is quickest to fill.
  const source = await createMemory({ name: `archive-src-${Date.now()}`, embedder, index: 'exact', snapshotDelayMs: 3_600_000 });
  for (let i = 0; i < rows; i += 2000) await source.rememberMany(texts.slice(i, i + 2000), { batchSize: 2000 });

  let t = performance.now();
  const blob = await source.exportArchive();
  const exportS = (performance.now() - t) / 1000;
  await source.close();

  const target = await createMemory({ name: `archive-dst-${Date.now()}`, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000 });
  const cpu = process.cpuUsage();
  t = performance.now();
  const result = await target.importArchive(blob, { batchSize: 1000 });
  const importS = (performance.now() - t) / 1000;
  const importCpu = cpuSeconds(cpu);
  if (result.imported !== rows || result.vectorsRegenerated) throw new Error(`unexpected import result ${JSON.stringify(result)}`);

  // Searchable on return: the last row (the last one the background insertion reaches).
  const last = texts[rows - 1]!;
  const hits = await target.recall(last, { k: 1, touch: false });
  const pending = (await target.stats()).index.pending;
  if (hits[0]?.memory.text !== last) throw new Error('not searchable after import');
  t = performance.now();
  await target.flush(); // waits for the background insertion, then writes the snapshot
  const settleS = (performance.now() - t) / 1000;
  const after = await target.recall(texts[123]!, { k: 1, touch: false });
  if (after[0]?.memory.text !== texts[123]) throw new Error('not searchable after the graph was built');
  await target.close();

  return {
    rows,
    archive_bytes: blob.size,
    export_per_s: Math.round(rows / exportS),
    import_per_s: Math.round(rows / importS),
    import_s: round(importS),
    import_cpu_s: round(importCpu),
    pending_in_graph_at_return: pending,
    graph_catch_up_s: round(settleS),
  };
}

/** A Python-style archive of `n` rows with vectors, written to a temporary file. */
async function writeArchiveFile(n: number): Promise<string> {
  const file = join(tmpdir(), `houkai-bench-${process.pid}-${Date.now()}.ahkai`);
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(file);
  gzip.pipe(out);
  const write = async (text: string): Promise<void> => {
    if (!gzip.write(text)) await once(gzip, 'drain');
  };
  const now = 1_760_000_000;
  await write(
    `${serializeHeader({ exportedAt: now, collection: 'bench', embeddingModel: 'all-MiniLM-L6-v2', embeddingDim: DIM, count: n, includeVectors: true, includeSuperseded: false, types: null, tags: null, since: null })}\n`,
  );
  const chunk = 5000;
  for (let start = 0; start < n; start += chunk) {
    const count = Math.min(chunk, n - start);
    const texts = sentences(count, 1000 + start);
    const vectors = makeClusteredVectors(count, DIM, 7 + start, 20);
    let text = '';
    for (let i = 0; i < count; i++) {
      const id = `00000000-0000-4000-8000-${String(start + i).padStart(12, '0')}`;
      const memory: Memory = {
        id, text: texts[i]!, type: 'semantic', tags: ['bench'], importance: 0.5, createdAt: now + start + i, lastAccessed: now + start + i,
        accessCount: 0, source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false,
        trust: 'trusted', contentHash: '', validFrom: 0, validUntil: 0, surfacesWhen: [],
      };
      text += `${serializeRow(memory, vectors[i])}\n`;
      if (text.length > 1 << 20) {
        await write(text);
        text = '';
      }
    }
    if (text) await write(text);
  }
  gzip.end();
  await once(out, 'finish');
  return file;
}

async function peakMemory(): Promise<Record<string, number>> {
  const file = await writeArchiveFile(rows);
  try {
    const blob = await openAsBlob(file);
    const embedder: Embedder = { id: MODEL, dim: DIM, embed: async () => Promise.reject(new Error('vectors are reused')) };
    const target = await createMemory({ name: `archive-big-${Date.now()}`, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000 });
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage();
    const stop = sampleMemory();
    const t = performance.now();
    const result = await target.importArchive(blob, { batchSize: 1000 });
    const importS = (performance.now() - t) / 1000;
    const peak = stop();
    if (result.imported !== rows) throw new Error(`unexpected import result ${JSON.stringify(result)}`);
    await target.close();
    // What stays after the import: the rows fake-indexeddb keeps in this process's heap and
    // the HNSW graph. Peak minus this is what the import itself held at most.
    (globalThis as { gc?: () => void }).gc?.();
    const after = process.memoryUsage();
    return {
      rows,
      archive_bytes: blob.size,
      import_s: round(importS, 1),
      peak_rss_mb: mb(peak.rss),
      rss_growth_mb: mb(peak.rss - before.rss),
      peak_heap_mb: mb(peak.heap),
      heap_growth_mb: mb(peak.heap - before.heapUsed),
      heap_retained_mb: mb(after.heapUsed - before.heapUsed),
      rss_retained_mb: mb(after.rss - before.rss),
    };
  } finally {
    rmSync(file, { force: true });
  }
}

console.log(JSON.stringify(memoryMode ? await peakMemory() : await throughput()));
