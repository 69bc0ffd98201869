/**
 * The embedders the ranking evaluation (bench/relevance-eval.ts) and the calibration
 * (bench/calibrate.ts) run with, and a disk cache of their vectors (bench/.cache, keyed by the
 * embedder's fingerprint, the input kind and the texts).
 *
 * use-lite is the product's adapter. MiniLM and bge-small run through transformers.js from the
 * files `npm run models` provisions (public/models), pooled as their model cards say (mean for
 * MiniLM, [CLS] for bge), normalised, bge's retrieval instruction before queries only.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { USE_LITE_ID, createUseLiteEmbedder } from '../src/adapters/embedder-use-lite.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(REPO, 'bench', '.cache');
const MODELS = path.join(REPO, 'public', 'models');

export type BenchEmbedderKey = 'use-lite' | 'minilm' | 'bge-small';

export interface BenchEmbedder {
  key: BenchEmbedderKey;
  /** The id a store records (`Embedder.id`), which selects the shipped calibration. */
  id: string;
  available(): boolean;
  /** Changes with the model files and this code. */
  fingerprint(): string;
  embed(texts: string[], input: 'query' | 'passage'): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

const SPECS = {
  minilm: { id: 'Xenova/all-MiniLM-L6-v2', pooling: 'mean', instruction: '' },
  'bge-small': { id: 'Xenova/bge-small-en-v1.5', pooling: 'cls', instruction: 'Represent this sentence for searching relevant passages: ' },
} as const;

function fileHash(hash: ReturnType<typeof createHash>, file: string): void {
  if (existsSync(file)) hash.update(readFileSync(file));
}

function useLite(): BenchEmbedder {
  let model: ReturnType<typeof createUseLiteEmbedder> | undefined;
  return {
    key: 'use-lite',
    id: USE_LITE_ID,
    available: () => true,
    fingerprint() {
      const hash = createHash('sha256').update(USE_LITE_ID);
      fileHash(hash, path.join(REPO, 'src/adapters/embedder-use-lite.ts'));
      fileHash(hash, path.join(REPO, 'src/adapters/use-lite-tokenizer.ts'));
      return hash.digest('hex');
    },
    async embed(texts) {
      model ??= createUseLiteEmbedder();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 64) out.push(...(await (await model).embed(texts.slice(i, i + 64))));
      return out;
    },
    async dispose() {
      if (model) (await model).dispose();
      model = undefined;
    },
  };
}

function transformers(key: 'minilm' | 'bge-small'): BenchEmbedder {
  const spec = SPECS[key];
  const onnx = path.join(MODELS, spec.id, 'onnx', 'model_quantized.onnx');
  type Extractor = (text: string, options: { pooling: 'mean' | 'cls'; normalize: boolean }) => Promise<{ data: Float32Array }>;
  let pipe: Promise<Extractor> | undefined;
  const load = async (): Promise<Extractor> => {
    const tf = await import('@huggingface/transformers');
    tf.env.allowRemoteModels = false;
    tf.env.localModelPath = `${MODELS}${path.sep}`;
    return (await tf.pipeline('feature-extraction', spec.id, { dtype: 'q8', device: 'cpu' })) as unknown as Extractor;
  };
  return {
    key,
    id: spec.id,
    available: () => existsSync(onnx),
    fingerprint() {
      const hash = createHash('sha256').update(spec.id).update(spec.pooling).update(spec.instruction);
      fileHash(hash, onnx);
      fileHash(hash, path.join(MODELS, spec.id, 'tokenizer.json'));
      return hash.digest('hex');
    },
    async embed(texts, input) {
      pipe ??= load();
      const extract = await pipe;
      const out: Float32Array[] = [];
      // One text per run, as the product's adapter does (no padding inside a batch).
      for (const t of texts) out.push(Float32Array.from((await extract(input === 'query' ? spec.instruction + t : t, { pooling: spec.pooling, normalize: true })).data));
      return out;
    },
    async dispose() {
      pipe = undefined;
    },
  };
}

/** Every embedder, in order (use-lite, MiniLM, bge-small); check `available()`. */
export function benchEmbedders(): BenchEmbedder[] {
  return [useLite(), transformers('minilm'), transformers('bge-small')];
}

/** Vectors for `texts` from the cache, else embedded (with progress on stderr) and cached. */
export async function cachedEmbed(embedder: BenchEmbedder, label: string, texts: string[], input: 'query' | 'passage'): Promise<Float32Array[]> {
  // Symmetric models embed queries as passages: share the cache.
  const kind = embedder.key === 'bge-small' ? input : 'passage';
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
