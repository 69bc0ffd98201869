/**
 * The `minilm` embedder: sentence embeddings from a feature-extraction pipeline of
 * @huggingface/transformers (ONNX Runtime underneath: onnxruntime-web with WebGPU/WASM in
 * browsers, onnxruntime-node on the CPU in Node).
 *
 * transformers.js is imported dynamically so that importing this module costs nothing until an
 * embedder is actually created; only its types are imported statically (erased at build time).
 */
import type {
  DataType,
  FeatureExtractionPipeline,
  ProgressInfo,
  Tensor,
} from '@huggingface/transformers';
import { MemoryError, throwIfAborted } from '../core/errors.ts';
import type { Embedder, EmbedOptions } from '../core/ports.ts';
import type { ProgressEvent } from '../core/types.ts';

/** The default model: 384-d, ~23 MB quantized, the usual small sentence-embedding baseline. */
export const DEFAULT_TRANSFORMERS_MODEL = 'Xenova/all-MiniLM-L6-v2';

/**
 * Where to run. 'auto' = WebGPU when `navigator.gpu` yields an adapter, else WASM (browsers);
 * the CPU backend in Node. 'wasm' means the CPU backend in Node and 'cpu' means WASM in browsers,
 * because each runtime only ships one CPU path.
 */
export type TransformersDevice = 'auto' | 'webgpu' | 'wasm' | 'cpu';

/** The device a pipeline was actually created on. */
export type ResolvedTransformersDevice = 'webgpu' | 'wasm' | 'cpu';

export interface TransformersEmbedderOptions {
  /** Model id (a Hub repo id or a folder under `localModelPath`). Default 'Xenova/all-MiniLM-L6-v2'. */
  model?: string;
  /** Weights variant; 'q8' loads `onnx/model_quantized.onnx`. Default 'q8'. */
  dtype?: DataType;
  /** Default 'auto'. */
  device?: TransformersDevice;
  /**
   * Host to download models from instead of the Hugging Face Hub, e.g. the app's own origin.
   * A relative value is resolved against `location` in browsers.
   */
  remoteHost?: string;
  /** Path under `remoteHost`; `{model}` and `{revision}` are substituted. Hub default: '{model}/resolve/{revision}/'. */
  remotePathTemplate?: string;
  /** Folder (Node) or URL path (browser) holding `<model id>/…`, e.g. '/models/'. Implies `allowLocalModels`. */
  localModelPath?: string;
  /** Default true. False = never download; the model must be local or already cached. */
  allowRemoteModels?: boolean;
  /** Default: true when `localModelPath` is given, else transformers' default (true in Node, false in browsers). */
  allowLocalModels?: boolean;
  /** Node only: where downloaded files are cached on disk. */
  cacheDir?: string;
  /**
   * Browser only: where onnxruntime-web's .wasm/.mjs files are served from. By default
   * transformers.js fetches them from jsDelivr (then caches them), so set this for offline-first apps.
   */
  wasmPaths?: string;
  /** Model loading progress, mirrored from transformers' `progress_callback`. */
  onProgress?: (event: ProgressEvent) => void;
  /** Texts per forward pass. Default 16. */
  batchSize?: number;
}

/** An embedder backed by transformers.js; `device` tells where it actually runs. */
export interface TransformersEmbedder extends Embedder {
  readonly device: ResolvedTransformersDevice;
  dispose(): Promise<void>;
}

type TransformersModule = typeof import('@huggingface/transformers');

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isNodeRuntime(): boolean {
  const proc = (globalThis as { process?: { release?: { name?: string } } }).process;
  return proc?.release?.name === 'node';
}

/** Resolves 'auto' and maps devices the current runtime does not have onto the one it does. */
async function resolveDevice(requested: TransformersDevice): Promise<ResolvedTransformersDevice> {
  if (isNodeRuntime()) return requested === 'webgpu' ? 'webgpu' : 'cpu';
  if (requested === 'webgpu') return 'webgpu';
  if (requested === 'wasm' || requested === 'cpu') return 'wasm';
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)?.gpu;
  if (!gpu) return 'wasm';
  try {
    return (await gpu.requestAdapter()) ? 'webgpu' : 'wasm';
  } catch {
    return 'wasm';
  }
}

/** Maps transformers' progress payloads onto ours; the aggregate 'progress_total' is dropped. */
function toProgressEvent(info: ProgressInfo): ProgressEvent | null {
  switch (info.status) {
    case 'initiate':
    case 'download':
    case 'done':
      return { kind: 'model', status: info.status, file: info.file };
    case 'progress':
      return { kind: 'model', status: 'progress', file: info.file, loaded: info.loaded, total: info.total };
    case 'ready':
      return { kind: 'model', status: 'ready' };
    default:
      return null;
  }
}

/**
 * transformers.js is configured through one global `env`; these settings apply to this load
 * (and to any other transformers.js load in the same realm that follows it).
 */
function configureEnv(tf: TransformersModule, options: TransformersEmbedderOptions): void {
  const { env } = tf;
  env.allowRemoteModels = options.allowRemoteModels ?? true;
  if (options.localModelPath !== undefined) env.localModelPath = options.localModelPath;
  if (options.allowLocalModels !== undefined) env.allowLocalModels = options.allowLocalModels;
  else if (options.localModelPath !== undefined) env.allowLocalModels = true;
  if (options.remoteHost !== undefined) env.remoteHost = absoluteHost(options.remoteHost);
  if (options.remotePathTemplate !== undefined) env.remotePathTemplate = options.remotePathTemplate;
  if (options.cacheDir !== undefined) env.cacheDir = options.cacheDir;
  // Browsers: keep downloaded model files in the Cache API so the model works offline later.
  if (!isNodeRuntime() && typeof caches !== 'undefined') env.useBrowserCache = true;
  const wasm = env.backends.onnx.wasm;
  if (options.wasmPaths !== undefined && wasm) wasm.wasmPaths = options.wasmPaths;
}

function absoluteHost(host: string): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  try {
    return new URL(host, base).href;
  } catch {
    return host;
  }
}

/** Copies one row per text out of a [n, dim] tensor (the tensor's buffer is disposed after). */
function rows(tensor: Tensor): Float32Array[] {
  const [n = 0, dim = 0] = tensor.dims;
  const data = tensor.data;
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    if (data instanceof Float32Array) {
      out.push(data.slice(i * dim, (i + 1) * dim));
    } else {
      // fp16 models can yield Float16Array/Uint16Array-backed outputs; convert element-wise.
      const row = new Float32Array(dim);
      for (let j = 0; j < dim; j++) row[j] = Number(data[i * dim + j]);
      out.push(row);
    }
  }
  return out;
}

/**
 * Creates the embedder: loads tokenizer + ONNX model (downloading or reading them as configured),
 * runs one probe embedding to learn the dimension, and logs the device once.
 * Any load failure becomes `MemoryError('MODEL_UNAVAILABLE')`.
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
  const model = options.model ?? DEFAULT_TRANSFORMERS_MODEL;
  const dtype: DataType = options.dtype ?? 'q8';
  const requested = options.device ?? 'auto';
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const fail = (stage: string, cause: unknown, device?: string): MemoryError =>
    new MemoryError('MODEL_UNAVAILABLE', `Embedding model "${model}" is unavailable (${stage}): ${errorMessage(cause)}`, {
      model,
      dtype,
      ...(device ? { device } : {}),
      cause: errorMessage(cause),
    });

  let tf: TransformersModule;
  try {
    tf = await import('@huggingface/transformers');
  } catch (cause) {
    throw fail('loading @huggingface/transformers', cause);
  }
  configureEnv(tf, options);

  // Only hook progress when asked: with a callback, transformers also probes every file's size.
  const { onProgress } = options;
  const progress_callback = onProgress
    ? (info: ProgressInfo): void => {
        const event = toProgressEvent(info);
        if (!event) return;
        try {
          onProgress(event);
        } catch (error) {
          console.warn('[houkai] onProgress threw during model load:', error);
        }
      }
    : undefined;

  const load = async (device: ResolvedTransformersDevice): Promise<{ extractor: FeatureExtractionPipeline; dim: number }> => {
    let extractor: FeatureExtractionPipeline;
    try {
      extractor = await tf.pipeline('feature-extraction', model, {
        dtype,
        device,
        ...(progress_callback ? { progress_callback } : {}),
      });
    } catch (cause) {
      throw fail('load', cause, device);
    }
    // The dimension comes from the model itself (384 for MiniLM), not from a table of known models.
    let probe: Tensor | undefined;
    try {
      probe = await extractor('dimension probe', { pooling: 'mean', normalize: true });
      const dim = probe.dims.at(-1);
      if (!dim) throw new Error(`unexpected output shape [${probe.dims.join(', ')}]`);
      return { extractor, dim };
    } catch (cause) {
      await extractor.dispose().catch(() => undefined);
      throw fail('probe embedding', cause, device);
    } finally {
      probe?.dispose();
    }
  };

  let device = await resolveDevice(requested);
  let loaded: { extractor: FeatureExtractionPipeline; dim: number };
  try {
    loaded = await load(device);
  } catch (error) {
    // An adapter can exist and still fail to create a session (driver, limits): fall back to WASM.
    if (requested !== 'auto' || device !== 'webgpu') throw error;
    console.warn(`[houkai] WebGPU failed for "${model}", falling back to WASM:`, errorMessage(error));
    device = 'wasm';
    loaded = await load(device);
  }
  const { extractor, dim } = loaded;
  console.info(`[houkai] embedder ${model} (${dtype}, ${dim}-d) running on ${device}`);

  let disposed = false;
  return {
    id: model,
    dim,
    device,
    async embed(texts: string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      const { signal, onProgress } = embedOptions;
      if (disposed) throw new MemoryError('CLOSED', `Embedder "${model}" has been disposed`);
      const total = texts.length;
      throwIfAborted(signal, { done: 0, total });
      const out: Float32Array[] = [];
      for (let start = 0; start < total; start += batchSize) {
        if (start > 0) throwIfAborted(signal, { done: out.length, total });
        const batch = texts.slice(start, start + batchSize);
        const tensor = await extractor(batch, { pooling: 'mean', normalize: true });
        try {
          out.push(...rows(tensor));
        } finally {
          tensor.dispose();
        }
        onProgress?.({ kind: 'embed', done: out.length, total });
      }
      return out;
    },
    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      await extractor.dispose();
    },
  };
}
