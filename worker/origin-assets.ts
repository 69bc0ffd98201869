/**
 * Where the workers (the memory worker, the bench worker) load models and runtimes from: the
 * app's own origin, beside the worker's folder. `public/models/use-lite/` (Universal Sentence
 * Encoder lite), `public/wasm/tfjs/` (TF.js WASM), `public/models/Xenova/…` (MiniLM and
 * bge-small, put there by `npm run models`) and onnxruntime-web's runtime (./ort-assets.ts).
 * Nothing comes from another origin unless a caller's open request asks for it explicitly
 * (`transformers: { allowRemoteModels: true, remoteHost }`).
 */
import type { CreateMemoryOptions } from '../src/local.ts';
import type { OpenRequest } from '../src/rpc/protocol.ts';
import { ORT_WASM_PATHS } from './ort-assets.ts';

const asset = (path: string): string => new URL(path, import.meta.url).href;

/** transformers.js options for this origin's files. */
export function originTransformersOptions(): NonNullable<CreateMemoryOptions['transformers']> {
  return {
    // A path, not a URL: transformers.js treats an http(s) URL here as remote and skips it.
    localModelPath: new URL('../models/', import.meta.url).pathname,
    allowRemoteModels: false,
    ...(ORT_WASM_PATHS ? { wasmPaths: { mjs: asset(ORT_WASM_PATHS.mjs), wasm: asset(ORT_WASM_PATHS.wasm) } } : {}),
  };
}

/** The embedder options of `createMemory` for an open request; the request's own options win. */
export function originModelOptions(request: Pick<OpenRequest, 'useLite' | 'transformers' | 'minilm' | 'bgeSmall'>): Pick<CreateMemoryOptions, 'useLite' | 'transformers' | 'minilm' | 'bgeSmall'> {
  return {
    useLite: { modelUrl: asset('../models/use-lite/'), wasmPaths: asset('../wasm/tfjs/'), ...request.useLite },
    transformers: { ...originTransformersOptions(), ...request.transformers },
    ...(request.minilm ? { minilm: request.minilm } : {}),
    ...(request.bgeSmall ? { bgeSmall: request.bgeSmall } : {}),
  };
}
