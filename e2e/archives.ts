/** Archives built for the browser specs. */
import { serializeRow } from '../src/core/archive/format.ts';
import type { Memory } from '../src/core/types.ts';
import { gzipGoMember, pythonHeader } from '../test/fixtures/make-archives.ts';
import { makeMemory } from '../test/helpers/memory.ts';
import { gaussian, mulberry32 } from '../test/helpers/prng.ts';

/** Models vectorArchive can label its vectors with: the harness's use-lite, and the app's default, bge-small. */
export const USE_LITE_MODEL = { name: 'universal-sentence-encoder-lite', dim: 512 };
export const APP_MODEL = { name: 'bge-small-en-v1.5', dim: 384 };

/**
 * `n` rows "Bulk memory number i …" with vectors labelled as the store's model (use-lite by
 * default; APP_MODEL for a store of the app's default model), so importing it embeds nothing.
 * Each row has its own seeded random vector (two decimals: a short archive, no ties), so the
 * HNSW graph has real work to do.
 */
export function vectorArchive(n: number, prefix = 'bulk', model: { name: string; dim: number } = USE_LITE_MODEL): Uint8Array {
  const base = 1_767_225_600;
  const lines: string[] = [];
  const memories: Memory[] = [];
  for (let i = 0; i < n; i++) {
    const m = makeMemory(`${prefix}-${i}`, `Bulk memory number ${i} for the progress bar`, { createdAt: base + i, lastAccessed: base + i });
    const normal = gaussian(mulberry32(i + 1));
    const vector = Float32Array.from({ length: model.dim }, () => Math.round(normal() * 100) / 100);
    memories.push(m);
    lines.push(serializeRow(m, vector));
  }
  const header = pythonHeader({ memories, vectors: [], model: model.name, dim: model.dim, collection: prefix });
  return gzipGoMember(`${[header, ...lines].join('\n')}\n`);
}
