/**
 * A cross-encoder run by transformers.js, for recall's rerank stage (core/domain/rerank.ts): a
 * sequence-classification model loaded through the `text-classification` task from the models
 * folder, fed the query and each memory as a pair (the tokenizer's `text_pair`: token types 0
 * and 1), one score a pair. transformers.js' pipeline softmaxes its labels, which says nothing
 * for a one-logit cross-encoder (the ms-marco kind), so the pipeline's own tokenizer and model
 * are called and the logits read: one label, the logit; two or more, the last label's log-odds
 * against the others (the "relevant" class of a binary cross-encoder).
 *
 * Nothing here is downloaded unless `allowRemoteModels` or `remoteHost` says so; the files sit
 * under `localModelPath` as `<model>/{config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model_quantized.onnx}` (q8, the default) — the layout `npm run models` uses.
 */
import { MemoryError } from '../core/errors.ts';
import { safeLog } from '../core/log.ts';
import type { Reranker, RerankerLoader } from '../core/domain/rerank.ts';
import type { Log } from '../core/log.ts';
import { configureEnv, isNodeRuntime, resolveDevice, type TransformersDevice, type TransformersEnvOptions, type WeightType } from './transformers-env.ts';

export interface CrossEncoderOptions extends TransformersEnvOptions {
  /** The model's folder under `localModelPath` (or a Hub id when remote models are allowed). */
  model: string;
  /** Weights variant; 'q8' (default) loads `onnx/model_quantized.onnx`. */
  dtype?: WeightType;
  /** Default: the CPU backend in Node, WASM in browsers. */
  device?: TransformersDevice;
  /** Where the load's diagnostics go; default: warnings to stderr in Node, the console in browsers. */
  log?: Log;
  /** Tokens kept per pair; default the tokenizer's limit, at most 512. */
  maxTokens?: number;
  /** Pairs per forward pass; default 16. */
  batchSize?: number;
}

export interface CrossEncoder {
  readonly model: string;
  /** One score per text: how well it answers `query` (higher is better). */
  score(query: string, texts: string[]): Promise<number[]>;
  dispose(): Promise<void>;
}

type Logits = { dims: number[]; data: ArrayLike<number | bigint>; dispose?(): void };

/** A row of logits as one score: the logit itself, or the last label's log-odds against the rest. */
export function pairScore(row: readonly number[]): number {
  if (row.length === 1) return row[0]!;
  const last = row[row.length - 1]!;
  const others = row.slice(0, -1);
  const top = Math.max(...others);
  return last - (top + Math.log(others.reduce((sum, x) => sum + Math.exp(x - top), 0)));
}

/** Loads a cross-encoder. @throws MemoryError MODEL_UNAVAILABLE naming the model and what failed. */
export async function createCrossEncoder(options: CrossEncoderOptions): Promise<CrossEncoder> {
  const { model } = options;
  const log = safeLog(options.log);
  const fail = (stage: string, cause: unknown): MemoryError =>
    new MemoryError('MODEL_UNAVAILABLE', `Cross-encoder "${model}" is unavailable (${stage}): ${cause instanceof Error ? cause.message : String(cause)}`, {
      model,
      cause: cause instanceof Error ? cause.message : String(cause),
    });
  let tf: typeof import('@huggingface/transformers');
  try {
    tf = await import('@huggingface/transformers');
  } catch (cause) {
    throw fail('loading @huggingface/transformers', cause);
  }
  configureEnv(tf, options);
  const device = await resolveDevice(options.device ?? (isNodeRuntime() ? 'cpu' : 'wasm'));
  let pipe: Awaited<ReturnType<typeof tf.pipeline<'text-classification'>>>;
  try {
    pipe = await tf.pipeline('text-classification', model, { dtype: options.dtype ?? 'q8', device });
  } catch (cause) {
    throw fail('load', cause);
  }
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const maxTokens = options.maxTokens ?? Math.min(512, pipe.tokenizer.model_max_length || 512);
  log('info', `[houkai] cross-encoder ${model} running on ${device}`);
  let disposed = false;
  return {
    model,
    async score(query, texts) {
      if (disposed) throw new MemoryError('CLOSED', `Cross-encoder "${model}" has been disposed`);
      const out: number[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        const batch = texts.slice(start, start + batchSize);
        const inputs = pipe.tokenizer(
          batch.map(() => query),
          { text_pair: batch, padding: true, truncation: true, max_length: maxTokens },
        ) as Record<string, { dispose?(): void }>;
        const outputs = (await pipe.model(inputs)) as Record<string, Logits | undefined>;
        try {
          const logits = outputs.logits;
          if (!logits) throw fail('scoring', new Error(`the model returned no logits (got ${Object.keys(outputs).join(', ')})`));
          const labels = logits.dims.at(-1) ?? 1;
          for (let i = 0; i < batch.length; i++) {
            const row: number[] = [];
            for (let j = 0; j < labels; j++) row.push(Number(logits.data[i * labels + j]));
            out.push(pairScore(row));
          }
        } finally {
          for (const tensor of Object.values(outputs)) tensor?.dispose?.();
          for (const tensor of Object.values(inputs)) tensor.dispose?.();
        }
      }
      return out;
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await pipe.dispose();
    },
  };
}

/**
 * A store's loader for `rerank: { model }`: each model loaded once (a failed load is tried again
 * next time), all disposed with `dispose()` when the store closes. In Node with no folder given,
 * the models are looked for where `npm run models` puts them.
 */
export function crossEncoderLoader(base: Omit<CrossEncoderOptions, 'model'>): { load: RerankerLoader; dispose(): Promise<void> } {
  const loaded = new Map<string, Promise<CrossEncoder>>();
  const load: RerankerLoader = async (model) => {
    let encoder = loaded.get(model);
    if (!encoder) {
      encoder = (async () => {
        const options: CrossEncoderOptions = { ...base, model };
        if (options.localModelPath === undefined && !options.allowRemoteModels && isNodeRuntime()) {
          const { findLocalModelPath } = await import('./node-model-path.ts');
          const found = await findLocalModelPath(model);
          if (found) options.localModelPath = found;
        }
        return createCrossEncoder(options);
      })();
      loaded.set(model, encoder);
      encoder.catch(() => loaded.delete(model));
    }
    const ready = await encoder;
    const reranker: Reranker = (query, texts) => ready.score(query, texts);
    return reranker;
  };
  return {
    load,
    async dispose() {
      const all = [...loaded.values()];
      loaded.clear();
      await Promise.all(all.map((p) => p.then((e) => e.dispose(), () => undefined)));
    },
  };
}
