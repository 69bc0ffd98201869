/**
 * The embedders the ranking evaluation (bench/relevance-eval.ts) and the calibration
 * (bench/calibrate.ts) run with, and a disk cache of their vectors (bench/.cache, keyed by the
 * embedder's fingerprint, the input kind and the texts).
 *
 * Each is the product's own embedder (bench/eval-embedders.ts: use-lite, and MiniLM / bge-small
 * from the files `npm run models` provisions), so bge's query instruction is the adapter's.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/core/ports.ts';
import { EVAL_EMBEDDERS, evalEmbedder, type EvalEmbedderKey, type LoadedEmbedder } from './eval-embedders.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(REPO, 'bench', '.cache');

export type BenchEmbedderKey = EvalEmbedderKey;

export interface BenchEmbedder {
  key: BenchEmbedderKey;
  /** The id a store records (`Embedder.id`), which selects the shipped calibration. */
  id: string;
  available(): boolean;
  /** Changes with the model files and the embedder's code. */
  fingerprint(): string;
  embed(texts: string[], input: 'query' | 'passage'): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/** The product's own embedder for `key` (bench/eval-embedders.ts), loaded on first use. */
function benchEmbedder(key: BenchEmbedderKey): BenchEmbedder {
  const spec = evalEmbedder(key);
  let loaded: Promise<LoadedEmbedder> | undefined;
  return {
    key,
    id: spec.id,
    available: () => spec.available(),
    fingerprint: () => spec.fingerprint(),
    async embed(texts, input) {
      loaded ??= spec.create();
      return (await loaded).embed(texts, { input });
    },
    async dispose() {
      if (loaded) await (await loaded).dispose();
      loaded = undefined;
    },
  };
}

/** Every embedder, in order (use-lite, MiniLM, bge-small); check `available()`. */
export function benchEmbedders(): BenchEmbedder[] {
  return EVAL_EMBEDDERS.map(benchEmbedder);
}

/** Vectors for `texts` from the cache, else embedded (with progress on stderr) and cached. */
export async function cachedEmbed(embedder: BenchEmbedder, label: string, texts: string[], input: 'query' | 'passage'): Promise<Float32Array[]> {
  // Symmetric models embed queries as passages: share the cache.
  const kind = embedder.key.includes('bge-small') ? input : 'passage';
  const key = createHash('sha256').update(embedder.fingerprint()).update(kind);
  for (const t of texts) key.update(t).update('\u0000');
  const file = path.join(CACHE, `${embedder.key}-${label}-${kind}-${key.digest('hex').slice(0, 16)}.f32`);
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const dim = all.length / Math.max(texts.length, 1);
    if (Number.isInteger(dim)) return texts.map((_, i) => all.slice(i * dim, (i + 1) * dim));
  }
  const t0 = performance.now();
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) {
    out.push(...(await embedder.embed(texts.slice(i, i + 256), kind)));
    process.stderr.write(`  ${embedder.key} ${label}: ${out.length}/${texts.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  const dim = out[0]?.length ?? 0;
  const flat = new Float32Array(out.length * dim);
  out.forEach((v, i) => flat.set(v, i * dim));
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(`${file}.tmp`, Buffer.from(flat.buffer));
  renameSync(`${file}.tmp`, file);
  return out;
}

/**
 * An `Embedder` a store can use that serves vectors computed before (by `cachedEmbed`), so a
 * benchmark runs the real store path without the model: `vectors` maps `p:<text>` (passages) and
 * `q:<text>` (queries) to vectors; a text with neither throws.
 */
export function servedEmbedder(embedder: Pick<BenchEmbedder, 'id'>, vectors: ReadonlyMap<string, Float32Array>, label = 'bench'): Embedder {
  return {
    id: embedder.id,
    dim: vectors.values().next().value!.length,
    async embed(batch, options) {
      const kind = options?.input === 'query' ? 'q' : 'p';
      return batch.map((t) => {
        const v = vectors.get(`${kind}:${t}`) ?? vectors.get(`q:${t}`) ?? vectors.get(`p:${t}`);
        if (!v) throw new Error(`${label}: no vector for ${JSON.stringify(t)}`);
        return v.slice();
      });
    },
  };
}
