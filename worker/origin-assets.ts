/**
 * Where the memory worker (and the bench worker) loads models and runtimes from: its own origin.
 *
 * - Models: the folder `npm run models` / `npx houkai-web models <dir>` fills (`Xenova/…` for
 *   MiniLM and bge-small, `use-lite/` for the Universal Sentence Encoder lite), served at
 *   `/models/` unless the open request names another folder of this origin (`models`).
 * - Runtimes: onnxruntime-web's and TF.js's WASM (./runtime-assets.ts: Vite's hashed assets in
 *   this repository's builds, the files beside the worker in the package's prebuilt worker).
 *
 * Nothing comes from another origin unless a caller's open request asks for it explicitly
 * (`transformers: { allowRemoteModels: true, remoteHost }`).
 */
import type { CreateMemoryOptions } from '../src/local.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { OpenRequest } from '../src/rpc/protocol.ts';
import { RUNTIME_ASSETS } from './runtime-assets.ts';

/** The models folder of an open request, as a URL on this worker's origin (default `/models/`). */
export function modelsFolder(models: string | undefined): URL {
  const here = new URL(import.meta.url);
  const folder = new URL(models ?? '/models/', here);
  if (folder.origin !== here.origin) {
    throw new MemoryError('INVALID_ARGUMENT', `models must be a folder on the worker's own origin (${here.origin}), not ${folder.origin}`, { field: 'models' });
  }
  if (!folder.pathname.endsWith('/')) folder.pathname += '/';
  return folder;
}

/** transformers.js options for this origin's files. */
export function originTransformersOptions(models?: string): NonNullable<CreateMemoryOptions['transformers']> {
  return {
    // A path, not a URL: transformers.js treats an http(s) URL here as remote and skips it.
    localModelPath: modelsFolder(models).pathname,
    allowRemoteModels: false,
    ...(RUNTIME_ASSETS.ort ? { wasmPaths: RUNTIME_ASSETS.ort } : {}),
  };
}

/** The embedder options of `createMemory` for an open request; the request's own options win. */
export function originModelOptions(request: Pick<OpenRequest, 'models' | 'useLite' | 'transformers' | 'minilm' | 'bgeSmall'>): Pick<CreateMemoryOptions, 'useLite' | 'transformers' | 'minilm' | 'bgeSmall'> {
  return {
    useLite: { modelUrl: new URL('use-lite/', modelsFolder(request.models)).href, wasmPaths: RUNTIME_ASSETS.tfjsWasm, ...request.useLite },
    transformers: { ...originTransformersOptions(request.models), ...request.transformers },
    ...(request.minilm ? { minilm: request.minilm } : {}),
    ...(request.bgeSmall ? { bgeSmall: request.bgeSmall } : {}),
  };
}
