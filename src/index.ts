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
import { connectFollowingOwner } from './client/follow-owner.ts';
import { canElectOwner, electOwner, type OwnerElection } from './client/owner-election.ts';
import { MemoryError } from './core/errors.ts';
import type { ProgressEvent } from './core/types.ts';
import type { OpenRequest } from './rpc/protocol.ts';

export * from './core/types.ts';
export { MemoryError, ERROR_CODES, type ErrorCode } from './core/errors.ts';
export type { Embedder, EmbedOptions } from './core/ports.ts';
export type * from './core/api.ts';
export type { MemoryClient } from './client/connect.ts';
export type { ChangeEvent, OpenRequest } from './rpc/protocol.ts';
export type { MoveResult, StoreInfo, StorePlace } from './core/catalog.ts';
export type { ConflictJudge, JudgeLabel, JudgePair, JudgeVerdict } from './core/domain/judge.ts';
export { connectEndpoint } from './client/connect.ts';
export { encodeJson, decodeJson, type Json } from './transport/json-codec.ts';
export { portEndpoint, type PortEndpoint, type RuntimePort, type RuntimePortEvent } from './transport/port-endpoint.ts';
export { connectTools, type RemoteTools, type ToolFormat, type ToolsHostApi } from './client/tools.ts';
export { openConnection, bridgeEndpoint, allowCalls, type Connection } from './rpc/port-host.ts';
export { canonicalModelName, isSameModel } from './core/archive/format.ts';
export { SCOPE_POLICY, type ConnectionScope, type Access, type ApiMethod, type MethodPolicy } from './core/scope/index.ts';

export interface ConnectOptions extends Partial<OpenRequest> {
  /**
   * Talk to an existing worker instead of starting one: a `Worker`, a `SharedWorker`, a
   * `MessagePort`, or any comlink `Endpoint` (e.g. `portEndpoint(chrome.runtime.connect(…))`).
   */
  endpoint?: Worker | SharedWorker | MessagePort | Endpoint;
  /** Starts the worker; by default a module SharedWorker (see `owner` where SharedWorker is missing). */
  worker?: () => Worker | SharedWorker;
  /**
   * Where the host serves the package's prebuilt worker (`houkai-web/worker.js` and the files
   * beside it, e.g. copied by `npx houkai-web worker public/houkai`), when the page's bundler
   * does not bundle it (esbuild, Rollup) or the worker lives elsewhere. Default: the worker
   * beside this module, which Vite and webpack 5 bundle and a page without a bundler loads as is.
   */
  workerUrl?: string | URL;
  /**
   * Who runs the worker when neither `endpoint` nor `worker` is given. 'shared' (the default
   * where SharedWorker exists): one SharedWorker for the origin. 'elected' (the default
   * without SharedWorker, given Web Locks and BroadcastChannel): the tabs elect one owner that
   * runs a dedicated worker, the others reach it through the channel and take over when its tab
   * closes. 'dedicated': this page's own worker (an independent owner; two tabs writing one
   * store then each keep their own index until reopened).
   */
  owner?: 'shared' | 'elected' | 'dedicated';
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

/**
 * The worker this package ships, in literal `new Worker(new URL(…, import.meta.url))` form so that
 * Vite and webpack 5 bundle it (the package build points it at the prebuilt worker,
 * scripts/finish-lib.mjs); `workerUrl` starts the one a host serves instead.
 */
function sharedWorker(workerUrl?: string | URL): SharedWorker {
  if (workerUrl !== undefined) return new SharedWorker(workerUrl, { type: 'module', name: 'houkai-web' });
  return new SharedWorker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web' });
}

function dedicatedWorker(workerUrl?: string | URL): Worker {
  if (workerUrl !== undefined) return new Worker(workerUrl, { type: 'module', name: 'houkai-web' });
  return new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web' });
}

/** A relative `models` folder names a place relative to this page, not to the worker's file. */
function pageRelative(url: string | undefined): string | undefined {
  if (url === undefined || typeof location === 'undefined') return url;
  return new URL(url, location.href).href;
}

function defaultOwner(): NonNullable<ConnectOptions['owner']> {
  if (typeof SharedWorker !== 'undefined') return 'shared';
  return canElectOwner() ? 'elected' : 'dedicated';
}

/** This page's place in the owner election (one per page, shared by its connections). */
let election: OwnerElection | null = null;

/**
 * Opens a store in the memory worker.
 * @throws MemoryError (with its code, across the boundary) when the store cannot be opened.
 */
export async function connectMemory(options: ConnectOptions = {}): Promise<MemoryClient> {
  const { endpoint, worker, workerUrl, owner, persist = true, onProgress, ...request } = options;
  // An OPFS store needs a dedicated worker (a SharedWorker has no synchronous file access): elected by default.
  const opfs = request.storage === 'opfs';
  if (opfs && owner === 'shared') throw new MemoryError('INVALID_ARGUMENT', "storage: 'opfs' needs a dedicated worker: owner 'elected' or 'dedicated'", { field: 'owner' });
  const mode = endpoint || worker ? 'given' : (owner ?? (opfs ? (canElectOwner() ? 'elected' : 'dedicated') : defaultOwner()));
  if (mode === 'elected' && !canElectOwner()) {
    throw new MemoryError('INVALID_ARGUMENT', "owner: 'elected' needs Web Locks, BroadcastChannel and Worker", { field: 'owner' });
  }
  let target: Worker | SharedWorker | MessagePort | Endpoint | null = null;
  let onClose: (() => void) | undefined;
  if (endpoint) {
    target = endpoint;
  } else if (mode !== 'elected') {
    const started = worker ? worker() : mode === 'shared' ? sharedWorker(workerUrl) : dedicatedWorker(workerUrl);
    target = started;
    onClose = () => (isSharedWorker(started) ? started.port.close() : (started as Worker).terminate());
  }
  if (persist) await requestPersistentStorage();
  const open = {
    ...request,
    name: request.name ?? 'default',
    ...(request.models !== undefined ? { models: pageRelative(request.models) } : {}),
    ...(onProgress ? { onProgress } : {}),
    ...(onClose ? { onClose } : {}),
  };
  if (target === null) {
    election ??= electOwner({ startWorker: () => dedicatedWorker(workerUrl) });
    return connectFollowingOwner(election, open);
  }
  return connectEndpoint(toEndpoint(target), open);
}
