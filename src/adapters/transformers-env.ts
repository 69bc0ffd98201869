/**
 * What the transformers.js adapters (the embedder, embedder-transformers.ts, and the
 * cross-encoder, reranker-transformers.ts) share: where they run (the device) and how
 * transformers.js' one global `env` is set for a load (where files come from, the WASM runtime's
 * paths and threads). Types only from transformers.js, and none in what it exports: importing
 * this costs nothing, and the published types do not need transformers.js installed.
 */
import type * as Transformers from '@huggingface/transformers';

type TransformersModule = typeof Transformers;

/**
 * The weight types transformers.js can load (its `DataType`), spelled out here so that the
 * published types do not need @huggingface/transformers installed (an optional peer: only Node,
 * or an in-page store, loads it; the prebuilt worker carries its own copy).
 */
export type WeightType = 'auto' | 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16' | 'q2' | 'q2f16' | 'q1' | 'q1f16';
// Fails to compile when transformers.js changes its list.
type SameWeightTypes = [WeightType] extends [Transformers.DataType] ? ([Transformers.DataType] extends [WeightType] ? true : never) : never;
const sameWeightTypes: SameWeightTypes = true;
void sameWeightTypes;

/** Where transformers.js reads model files from, and how its WASM runtime runs (browsers). */
export interface TransformersEnvOptions {
  /**
   * Host to download models from instead of the Hugging Face Hub, e.g. the app's own origin.
   * A relative value is resolved against `location` in browsers.
   */
  remoteHost?: string;
  /** Path under `remoteHost`; `{model}` and `{revision}` are substituted. Hub default: '{model}/resolve/{revision}/'. */
  remotePathTemplate?: string;
  /** Folder (Node) or URL path (browser) holding `<model id>/…`, e.g. '/models/'. Implies `allowLocalModels`. */
  localModelPath?: string;
  /**
   * Whether files may be downloaded from `remoteHost` (the Hugging Face hub unless set). Default:
   * true only when `remoteHost` is given, so nothing is fetched from another origin unless asked.
   */
  allowRemoteModels?: boolean;
  /** Default: true when `localModelPath` is given, else transformers' default (true in Node, false in browsers). */
  allowLocalModels?: boolean;
  /** Node only: where downloaded files are cached on disk. */
  cacheDir?: string;
  /**
   * Browser only: where onnxruntime-web's .wasm/.mjs files are served from (a folder URL, or
   * each file's URL). Unset, transformers.js fetches them from jsDelivr: the app's worker always
   * sets them to files on its own origin.
   */
  wasmPaths?: string | { mjs?: string; wasm?: string };
  /**
   * Browser only: WASM threads. Default: every core (up to 4) where the realm is cross-origin
   * isolated (SharedArrayBuffer), else 1.
   */
  threads?: number;
}

/**
 * Where to run. 'auto' = WebGPU when `navigator.gpu` yields an adapter, else WASM (browsers);
 * the CPU backend in Node. 'wasm' means the CPU backend in Node and 'cpu' means WASM in browsers,
 * because each runtime only ships one CPU path.
 */
export type TransformersDevice = 'auto' | 'webgpu' | 'wasm' | 'cpu';

/** The device a pipeline was actually created on. */
export type ResolvedTransformersDevice = 'webgpu' | 'wasm' | 'cpu';

export function isNodeRuntime(): boolean {
  const proc = (globalThis as { process?: { release?: { name?: string } } }).process;
  return proc?.release?.name === 'node';
}

/** Resolves 'auto' and maps devices the current runtime does not have onto the one it does. */
export async function resolveDevice(requested: TransformersDevice): Promise<ResolvedTransformersDevice> {
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

/**
 * transformers.js is configured through one global `env`; these settings apply to this load
 * (and to any other transformers.js load in the same realm that follows it).
 */
let envDefaults: { localModelPath: string; allowLocalModels: boolean } | undefined;

export function configureEnv(loaded: { env: unknown }, options: TransformersEnvOptions): void {
  // The module is typed as `{ env }` in the signature: the published types name nothing of
  // transformers.js (an optional peer), and the checks happen here.
  const { env } = loaded as TransformersModule;
  // transformers' own defaults, kept from the first load: a later load that does not set a path
  // must not inherit the previous load's.
  envDefaults ??= { localModelPath: env.localModelPath, allowLocalModels: env.allowLocalModels };
  env.allowRemoteModels = options.allowRemoteModels ?? options.remoteHost !== undefined;
  env.localModelPath = options.localModelPath ?? envDefaults.localModelPath;
  env.allowLocalModels = options.allowLocalModels ?? (options.localModelPath !== undefined ? true : envDefaults.allowLocalModels);
  if (options.remoteHost !== undefined) env.remoteHost = absoluteHost(options.remoteHost);
  if (options.remotePathTemplate !== undefined) env.remotePathTemplate = options.remotePathTemplate;
  if (options.cacheDir !== undefined) env.cacheDir = options.cacheDir;
  // Browsers: keep files downloaded from another host in the Cache API so the model works offline
  // later. Files from the app's own origin are the service worker's to cache (no second copy).
  if (!isNodeRuntime() && typeof caches !== 'undefined') env.useBrowserCache = env.allowRemoteModels;
  const wasm = env.backends.onnx.wasm;
  if (wasm) {
    if (options.wasmPaths !== undefined) {
      wasm.wasmPaths = options.wasmPaths;
      // The runtime is served by whoever named these paths: let onnxruntime import it from there.
      // transformers.js would otherwise re-serve its glue from a `blob:` URL, which a strict
      // CSP (an extension's, a site's without `blob:` in script-src) refuses.
      if (!isNodeRuntime()) (env as { useWasmCache?: boolean }).useWasmCache = false;
    }
    if (!isNodeRuntime()) wasm.numThreads = wasmThreads(options.threads);
  }
}

/** WASM threads for this realm: multi-threaded only where SharedArrayBuffer is allowed. */
export function wasmThreads(requested?: number): number {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  if (!isolated) return 1;
  const cores = (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.floor(requested ?? Math.min(4, cores)));
}

function absoluteHost(host: string): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  try {
    return new URL(host, base).href;
  } catch {
    return host;
  }
}
