/**
 * The `minilm` and `bge-small` embedders: sentence embeddings from @huggingface/transformers
 * (ONNX Runtime underneath: onnxruntime-web with WebGPU/WASM in browsers, onnxruntime-node on
 * the CPU in Node). The pipeline loads the tokenizer and the model; the forward pass is ours, so
 * truncation (sentence-transformers' max_seq_length), pooling (mean or [CLS]) and the query
 * instruction of asymmetric models match the reference implementations.
 *
 * transformers.js is imported dynamically so that importing this module costs nothing until an
 * embedder is actually created; only its types are imported statically (erased at build time).
 */
import { safeLog, type Log } from '../core/log.ts';
import type {
  DataType as TransformersDataType,
  FeatureExtractionPipeline,
  ProgressInfo,
  Tensor,
} from '@huggingface/transformers';
import { MemoryError, throwIfAborted } from '../core/errors.ts';
import type { Embedder, EmbedOptions } from '../core/ports.ts';
import type { ProgressEvent } from '../core/types.ts';
import { knownModel, TRANSFORMERS_MODELS } from './model-catalog.ts';
import { configureEnv, isNodeRuntime, resolveDevice, type ResolvedTransformersDevice, type TransformersDevice, type TransformersEnvOptions, type WeightType } from './transformers-env.ts';

export { isNodeRuntime, wasmThreads, type ResolvedTransformersDevice, type TransformersDevice, type WeightType } from './transformers-env.ts';

/** The default model: 384-d, ~23 MB quantized, the usual small sentence-embedding baseline. */
export const DEFAULT_TRANSFORMERS_MODEL = TRANSFORMERS_MODELS.minilm.id;


export interface TransformersEmbedderOptions extends TransformersEnvOptions {
  /** Where the load's diagnostics go (core/log.ts); default: warnings to stderr in Node, the console in browsers. */
  log?: Log;
  /** Model id (a Hub repo id or a folder under `localModelPath`). Default 'Xenova/all-MiniLM-L6-v2'. */
  model?: string;
  /** Weights variant; 'q8' loads `onnx/model_quantized.onnx`. Default 'q8'. */
  dtype?: WeightType;
  /** Default 'auto'. */
  device?: TransformersDevice;
  /** Model loading progress, mirrored from transformers' `progress_callback`. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Texts per forward pass. Default 1: the q8 models quantise activations with one scale per
   * batch, so a text's vector would otherwise depend on its neighbours (and padding); one at a
   * time gives the reference's vectors and, on CPU, as many texts per second.
   */
  batchSize?: number;
  /** Pooling; default the known model's ('mean' for MiniLM, 'cls' for BGE), else 'mean'. */
  pooling?: 'mean' | 'cls';
  /** Tokens kept per text; default the known model's (256 MiniLM, 512 BGE), else the tokenizer's limit. */
  maxTokens?: number;
  /** Prepended to queries (`embed(texts, { input: 'query' })`); default the known model's. '' for none. */
  queryInstruction?: string;
}

/** An embedder backed by transformers.js; `device` tells where it actually runs. */
export interface TransformersEmbedder extends Embedder {
  readonly device: ResolvedTransformersDevice;
  /** Where it runs, for people: 'webgpu', 'wasm · SIMD · 2 threads', 'cpu'. */
  readonly backend: string;
  dispose(): Promise<void>;
}

type TransformersModule = typeof import('@huggingface/transformers');


function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}



/**
 * Maps transformers' progress payloads onto ours. Its aggregate 'progress_total' (sent before each
 * file's 'progress', over every file of the load) becomes `percent` on the events that follow,
 * never going backwards; 'ready' is 100.
 */
function progressMapper(): (info: ProgressInfo) => ProgressEvent | null {
  let percent = 0;
  return (info) => {
    switch (info.status) {
      case 'progress_total':
        percent = Math.max(percent, Math.min(100, Math.floor(info.progress)));
        return null;
      case 'initiate':
      case 'download':
      case 'done':
        return { kind: 'model', status: info.status, file: info.file, percent };
      case 'progress':
        return { kind: 'model', status: 'progress', file: info.file, loaded: info.loaded, total: info.total, percent };
      case 'ready':
        return { kind: 'model', status: 'ready', percent: 100 };
      default:
        return null;
    }
  };
}


/**
 * Tokenizes (padded), truncates to `maxTokens` the way the reference implementations do (the
 * text's first tokens, then the closing [SEP]: transformers.js' own truncation cuts the [SEP]
 * off), runs the model, pools (mean over the attention mask, or the [CLS] token) and
 * L2-normalises: one [n, dim] tensor.
 */
async function forward(
  tf: TransformersModule,
  extractor: FeatureExtractionPipeline,
  texts: string[],
  pooling: 'mean' | 'cls',
  maxTokens: number | undefined,
): Promise<Tensor> {
  const limit = maxTokens ?? extractor.tokenizer.model_max_length;
  const inputs = batchInputs(tf, extractor, texts, limit);
  const outputs = (await extractor.model(inputs)) as Record<string, Tensor | undefined>;
  const hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.logits;
  try {
    if (!hidden) throw new Error(`the model returned none of last_hidden_state, token_embeddings, logits (got ${Object.keys(outputs).join(', ')})`);
    const pooled = pooling === 'cls' ? hidden.slice(null, 0) : tf.mean_pooling(hidden, inputs.attention_mask!);
    const normalized = pooled.normalize(2, -1);
    if (normalized !== pooled) pooled.dispose();
    return normalized;
  } finally {
    for (const tensor of Object.values(outputs)) tensor?.dispose();
    for (const tensor of Object.values(inputs)) tensor.dispose?.();
  }
}

/**
 * One padded batch of model inputs. Each text is tokenized on its own (with its special tokens),
 * then a text longer than `limit` keeps its first `limit - 1` tokens and its last one ([SEP]).
 */
function batchInputs(tf: TransformersModule, extractor: FeatureExtractionPipeline, texts: string[], limit: number): Record<string, Tensor> {
  const rows = texts.map((text) => {
    // A token never covers more than ~100 characters ([UNK] for longer words), so this prefix holds
    // every token that can be kept, and a megabyte of text is not tokenized for nothing.
    const head = Number.isFinite(limit) && text.length > limit * 128 ? text.slice(0, limit * 128) : text;
    // encode(): ids with the special tokens; a single text is all token type 0.
    const ids = extractor.tokenizer.encode(head);
    const kept = ids.length <= limit ? ids : [...ids.slice(0, limit - 1), ids[ids.length - 1]!];
    return { ids: kept, types: kept.map(() => 0) };
  });
  const width = Math.max(1, ...rows.map((r) => r.ids.length));
  const ids = new BigInt64Array(rows.length * width);
  const mask = new BigInt64Array(rows.length * width);
  const types = new BigInt64Array(rows.length * width);
  rows.forEach((row, i) => {
    for (let j = 0; j < row.ids.length; j++) {
      ids[i * width + j] = BigInt(row.ids[j]!);
      mask[i * width + j] = 1n;
      types[i * width + j] = BigInt(row.types[j]!);
    }
  });
  // Padding stays 0: the [PAD] id, mask 0 and token type 0 of BERT tokenizers.
  const dims = [rows.length, width];
  return {
    input_ids: new tf.Tensor('int64', ids, dims),
    attention_mask: new tf.Tensor('int64', mask, dims),
    token_type_ids: new tf.Tensor('int64', types, dims),
  };
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
  const spec = knownModel(model);
  const pooling = options.pooling ?? spec?.pooling ?? 'mean';
  const maxTokens = options.maxTokens ?? spec?.maxTokens;
  const queryInstruction = options.queryInstruction ?? spec?.queryInstruction ?? '';
  const dtype: TransformersDataType = options.dtype ?? 'q8';
  const requested = options.device ?? 'auto';
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1));
  // In Node without a local folder, say which option points at the files (not transformers' own default path).
  const hint =
    isNodeRuntime() && options.localModelPath === undefined && !options.allowRemoteModels
      ? ' — set transformers.localModelPath to the folder that holds Xenova/<model>/… (`npm run models` fills public/models/; ./public/models and ./models are looked in by default)'
      : '';
  const fail = (stage: string, cause: unknown, device?: string): MemoryError =>
    new MemoryError('MODEL_UNAVAILABLE', `Embedding model "${model}" is unavailable (${stage}): ${errorMessage(cause)}${hint}`, {
      model,
      dtype,
      ...(device ? { device } : {}),
      cause: errorMessage(cause),
      ...(hint ? { option: 'transformers.localModelPath' } : {}),
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
  const log = safeLog(options.log);
  const toProgressEvent = progressMapper();
  const progress_callback = onProgress
    ? (info: ProgressInfo): void => {
        const event = toProgressEvent(info);
        if (!event) return;
        try {
          onProgress(event);
        } catch (error) {
          log('warn', `[houkai] onProgress threw during model load: ${errorMessage(error)}`);
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
      probe = await forward(tf, extractor, ['dimension probe'], pooling, maxTokens);
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
    log('warn', `[houkai] WebGPU failed for "${model}", falling back to WASM: ${errorMessage(error)}`);
    device = 'wasm';
    loaded = await load(device);
  }
  const { extractor, dim } = loaded;
  const threads = device === 'wasm' ? tf.env.backends.onnx.wasm?.numThreads ?? 1 : 0;
  const backend = device === 'wasm' ? `wasm · SIMD · ${threads} thread${threads === 1 ? '' : 's'}` : device;
  log('info', `[houkai] embedder ${model} (${dtype}, ${dim}-d) running on ${backend}`);

  let disposed = false;
  return {
    id: model,
    dim,
    device,
    backend,
    ...(queryInstruction ? { queryInstruction } : {}),
    async embed(texts: string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      const { signal, onProgress } = embedOptions;
      if (embedOptions.input === 'query' && queryInstruction) texts = texts.map((t) => queryInstruction + t);
      if (disposed) throw new MemoryError('CLOSED', `Embedder "${model}" has been disposed`);
      const total = texts.length;
      throwIfAborted(signal, { done: 0, total });
      const out: Float32Array[] = [];
      for (let start = 0; start < total; start += batchSize) {
        if (start > 0) throwIfAborted(signal, { done: out.length, total });
        const batch = texts.slice(start, start + batchSize);
        const tensor = await forward(tf, extractor, batch, pooling, maxTokens);
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
