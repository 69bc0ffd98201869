/**
 * A store in Node: SQLite in a folder (`createMemory({ dir })`, better-sqlite3, the int8 index's
 * blocks in the same file) against fake-indexeddb (the heap; the default index), at N memories
 * (issue #52). Each backend in a child process of its own (RSS is the process's): ingest with
 * `rememberMany` (batches of 500, `onConflict: 'ignore'`, vectors from a seeded embedder that costs
 * nothing, so the figure is the store's), then 200 recalls (default options, `touch: false`; the
 * query's embedding excluded as it costs nothing here), then close and reopen to the first recall,
 * then RSS and, for SQLite, bytes on disk a memory.
 *
 * Run: `npm run bench -- --node-store [--rows 10000]` (or `npx tsx bench/node-store.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/core/ports.ts';

const args = process.argv.slice(2);
const arg = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const ROWS = Number(arg('--rows') ?? 10_000);
const DIM = 384;

/** Unit vectors from a seeded generator, one per text (the same text, the same vector). */
function seededEmbedder(): Embedder {
  const vectorOf = (text: string): Float32Array => {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    const v = new Float32Array(DIM);
    let norm = 0;
    for (let i = 0; i < DIM; i++) {
      h = Math.imul(h ^ (h >>> 15), 2246822507) ^ i;
      v[i] = ((h >>> 0) / 4294967296) * 2 - 1;
      norm += v[i]! * v[i]!;
    }
    for (let i = 0; i < DIM; i++) v[i]! /= Math.sqrt(norm);
    return v;
  };
  return { id: 'bench-seeded', dim: DIM, embed: async (texts) => texts.map(vectorOf) };
}

const WORDS = ['deploy', 'staging', 'invoice', 'garden', 'meeting', 'manager', 'rent', 'train', 'doctor', 'password', 'python', 'concert', 'holiday', 'kitchen', 'budget', 'review'];
const text = (i: number): string => `Note ${i}: the ${WORDS[i % 16]} and the ${WORDS[(i * 7) % 16]} of week ${i % 52}, item ${i}.`;

async function child(backend: 'sqlite' | 'fake-indexeddb'): Promise<void> {
  // A specifier in a variable: the package's types do not resolve through its exports map.
  const fake = 'fake-indexeddb/auto';
  if (backend === 'fake-indexeddb') await import(fake);
  const { createMemory } = await import('../src/local.ts');
  const dir = mkdtempSync(join(tmpdir(), 'houkai-bench-store-'));
  const options = { name: 'bench', embedder: seededEmbedder(), ...(backend === 'sqlite' ? { dir } : {}) };
  try {
    let memory = await createMemory(options);
    const items = Array.from({ length: ROWS }, (_, i) => text(i));
    const t0 = performance.now();
    await memory.rememberMany(items, { batchSize: 500 });
    await memory.flush();
    const ingest = ROWS / ((performance.now() - t0) / 1000);
    const times: number[] = [];
    for (let q = 0; q < 200; q++) {
      const s = performance.now();
      await memory.recall(`the ${WORDS[q % 16]} of week ${q % 52}`, { touch: false });
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    await memory.close();
    const r0 = performance.now();
    memory = await createMemory(options);
    await memory.recall('the rent of week 3', { touch: false });
    const reopen = performance.now() - r0;
    const opened = memory.opened;
    await memory.close();
    const bytes = backend === 'sqlite' ? readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) : null;
    process.stdout.write(
      `${JSON.stringify({ backend, rows: ROWS, ingestPerSecond: Math.round(ingest), recallP50: +times[100]!.toFixed(2), recallP99: +times[198]!.toFixed(2), reopenMs: Math.round(reopen), opened, rssMB: Math.round(process.memoryUsage().rss / 2 ** 20), bytesPerMemory: bytes === null ? null : Math.round(bytes / ROWS) })}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (args[0] === '--child') await child(args[1] as 'sqlite' | 'fake-indexeddb');
else {
  for (const backend of ['sqlite', 'fake-indexeddb']) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', backend, '--rows', String(ROWS)], { encoding: 'utf8', timeout: 3_600_000 });
    if (run.status !== 0) throw new Error(`${backend}: ${run.stderr}`);
    process.stdout.write(run.stdout);
  }
}
