/**
 * `houkai-web`: the browser entry. `connectMemory()` starts (or joins) the memory worker and
 * returns the same API as the in-process store, every method async, fully typed.
 *
 * @example
 * ```ts
 * import { connectMemory } from 'houkai-web';
 * const memory = await connectMemory({ name: 'agent', embedder: 'use-lite' });
 * await memory.remember('The staging cluster is deploy-stg-2', { type: 'semantic' });
 * const hits = await memory.recall('where do we stage deploys?');
 * ```
 */
import type { Endpoint } from 'comlink';
import { requestPersistentStorage } from './adapters/browser-storage.ts';
import { connectEndpoint, type MemoryClient } from './client/connect.ts';
import type { ProgressEvent } from './core/types.ts';
import type { OpenRequest } from './rpc/protocol.ts';

export * from './core/types.ts';
export { MemoryError, ERROR_CODES, type ErrorCode } from './core/errors.ts';
export type { Embedder, EmbedOptions } from './core/ports.ts';
export type { MemoryApi } from './core/store.ts';
export type { MemoryClient } from './client/connect.ts';
export type { ChangeEvent, OpenRequest } from './rpc/protocol.ts';
export type { ArchiveInfo, ImportResult } from './core/archive/store-ops.ts';
export { connectEndpoint } from './client/connect.ts';
export { portEndpoint, encodeJson, decodeJson, type PortEndpoint, type RuntimePort, type RuntimePortEvent, type Json } from './client/chrome-port.ts';
export { connectTools, type RemoteTools, type ToolFormat, type ToolsHostApi } from './client/tools.ts';
export { openConnection, bridgeEndpoint, allowCalls, type Connection } from './rpc/port-host.ts';
export { canonicalModelName, isSameModel } from './core/archive/format.ts';

export interface ConnectOptions extends Partial<OpenRequest> {
  /**
   * Talk to an existing worker instead of starting one: a `Worker`, a `SharedWorker`, a
   * `MessagePort`, or any comlink `Endpoint` (e.g. `portEndpoint(chrome.runtime.connect(…))`).
   */
  endpoint?: Worker | SharedWorker | MessagePort | Endpoint;
  /** Starts the worker; by default a module SharedWorker (a dedicated Worker where SharedWorker is missing). */
  worker?: () => Worker | SharedWorker;
  /** Model download and index rebuild progress while the store opens. */
  onProgress?: (event: ProgressEvent) => void;
  /** Ask the browser to keep this origin's storage (default true, window contexts only). */
  persist?: boolean;
}

function isSharedWorker(value: unknown): value is SharedWorker {
  return typeof SharedWorker !== 'undefined' && value instanceof SharedWorker;
}

function toEndpoint(target: Worker | SharedWorker | MessagePort | Endpoint): Endpoint {
  if (isSharedWorker(target)) {
    target.port.start();
    return target.port;
  }
  return target as Endpoint;
}

/** The worker this package ships, bundled by Vite (and other bundlers that follow `new URL(…, import.meta.url)`). */
function defaultWorker(): Worker | SharedWorker {
  if (typeof SharedWorker !== 'undefined') {
    return new SharedWorker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web' });
  }
  return new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web' });
}

/**
 * Opens a store in the memory worker.
 * @throws MemoryError (with its code, across the boundary) when the store cannot be opened.
 */
export async function connectMemory(options: ConnectOptions = {}): Promise<MemoryClient> {
  const { endpoint, worker, persist = true, onProgress, ...request } = options;
  let target: Worker | SharedWorker | MessagePort | Endpoint;
  let onClose: (() => void) | undefined;
  if (endpoint) {
    target = endpoint;
  } else {
    const started = worker ? worker() : defaultWorker();
    target = started;
    onClose = () => (isSharedWorker(started) ? started.port.close() : (started as Worker).terminate());
  }
  if (persist) await requestPersistentStorage();
  return connectEndpoint(toEndpoint(target), {
    name: request.name ?? 'default',
    ...(request.embedder ? { embedder: request.embedder } : {}),
    ...(request.index ? { index: request.index } : {}),
    ...(request.onEmbedderChange ? { onEmbedderChange: request.onEmbedderChange } : {}),
    ...(request.actor ? { actor: request.actor } : {}),
    ...(request.conflictPolicy ? { conflictPolicy: request.conflictPolicy } : {}),
    ...(request.scope ? { scope: request.scope } : {}),
    ...(request.minilm ? { minilm: request.minilm } : {}),
    ...(request.useLite ? { useLite: request.useLite } : {}),
    ...(onProgress ? { onProgress } : {}),
    ...(onClose ? { onClose } : {}),
  });
}
