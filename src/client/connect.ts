/**
 * The page side: wraps a comlink endpoint (Worker, SharedWorker port, MessagePort, extension
 * port adapter) into the same typed API as the in-process store.
 */
import type { ConflictJudge } from '../core/domain/judge.ts';
import type { Reranker } from '../core/domain/rerank.ts';
import * as Comlink from 'comlink';
import { MemoryError } from '../core/errors.ts';
import type { MoveResult, StoreInfo, StorePlace } from '../core/catalog.ts';
import type { MemoryApi } from '../core/api.ts';
import type { LongRunOptions, ProgressEvent } from '../core/types.ts';
import { METHODS, STORE_METHODS, changeChannelName, type ChangeEvent, type HostApi, type OpenRequest, type StoreMethod } from '../rpc/protocol.ts';
import { installErrorTransfer } from '../transport/error-transfer.ts';

export type MemoryClient = MemoryApi & {
  readonly name: string;
  readonly embedder: { id: string; dim: number };
  /** The backend computing embeddings in the worker (wasm, webgpu, cpu…), when known. */
  readonly backend: string | undefined;
  /** Change events from every tab of this origin (and this one). Returns an unsubscribe function. */
  subscribe(listener: (event: ChangeEvent) => void): () => void;
  /** Releases this connection's handle (and the worker, when this client started it). */
  close(): Promise<void>;
  /** Every store of the origin, by name, with its memory count, model and whether it is open in the worker. */
  stores(): Promise<StoreInfo[]>;
  /**
   * Deletes a store: its database, index snapshot and registry record. Deleting this client's
   * own store closes this client. @throws MemoryError STORE_IN_USE when another tab or connection
   * has it open, NOT_FOUND when there is no such store.
   */
  deleteStore(name: string): Promise<void>;
  /**
   * Renames a store (copied under the new name, then deleted; its index rebuilds at its next
   * open). Renaming this client's own store closes this client: connect to the new name.
   * @throws MemoryError STORE_IN_USE, NOT_FOUND, STORE_EXISTS when `to` is taken.
   */
  renameStore(from: string, to: string): Promise<StoreInfo>;
  /**
   * Moves a store between IndexedDB and OPFS: its rows, then its index's saved blocks, then the old
   * copy deleted, with `{ kind: 'move', done, total }` progress; `signal` cancels between batches
   * (what was written is deleted, the source kept). OPFS is reached from a dedicated worker: call
   * it on a connection with owner 'elected' or 'dedicated' (one made with `storage: 'opfs'` is).
   * Moving this client's own store closes this client: connect with the new `storage`.
   * @throws MemoryError STORE_IN_USE (open in a tab or worker of the origin), NOT_FOUND,
   *   STORE_EXISTS (the other storage holds a store of that name), ABORTED, STORAGE_QUOTA,
   *   STORAGE_FAILURE (this connection's worker cannot reach OPFS).
   */
  moveStore(name: string, to: StorePlace, options?: LongRunOptions): Promise<MoveResult>;
};

export interface ConnectEndpointOptions extends OpenRequest {
  onProgress?: (event: ProgressEvent) => void;
  /** Called when the client closes, e.g. to terminate a worker it started. */
  onClose?: () => void;
  /**
   * The endpoint is shared with other clients (the elected owner's connection, one per tab):
   * closing this client releases its store only, and leaves the endpoint open for the others.
   */
  sharedEndpoint?: boolean;
}

let nextCallId = 1;

function isStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && value instanceof ReadableStream;
}

/** Splits signal, onProgress, judge and rerank.reranker (which cannot be cloned) off an options argument. */
function extractControl(options: unknown): { rest: unknown; signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void; judge?: ConflictJudge; reranker?: Reranker } {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return { rest: options };
  const { signal, onProgress, judge, ...rest } = options as { signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void; judge?: unknown; rerank?: unknown };
  // A judge that is not a function stays in the options: the store refuses it with its own error.
  const fn = typeof judge === 'function' ? (judge as ConflictJudge) : undefined;
  const kept: Record<string, unknown> = judge !== undefined && !fn ? { ...rest, judge } : rest;
  // The same for a reranker: a function travels as a proxy, anything else stays to be refused.
  let reranker: Reranker | undefined;
  const rerank = kept.rerank;
  if (rerank !== null && typeof rerank === 'object' && typeof (rerank as { reranker?: unknown }).reranker === 'function') {
    const { reranker: own, ...numbers } = rerank as { reranker: Reranker };
    reranker = own;
    kept.rerank = numbers;
  }
  return { rest: kept, ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}), ...(fn ? { judge: fn } : {}), ...(reranker ? { reranker } : {}) };
}

/** Connects to a memory worker over `endpoint` and opens the store named in `options`. */
export async function connectEndpoint(endpoint: Comlink.Endpoint, options: ConnectEndpointOptions): Promise<MemoryClient> {
  installErrorTransfer();
  const remote = Comlink.wrap<HostApi>(endpoint);
  const { onProgress, onClose, sharedEndpoint = false, ...request } = options;
  const info = await remote.open(request, onProgress ? Comlink.proxy(onProgress) : undefined);
  const handle = info.handle;
  let closed = false;

  function refuseClosed(): void {
    if (closed) throw new MemoryError('CLOSED', `Store "${info.name}" is closed`);
  }

  async function invoke(method: StoreMethod, args: unknown[], optionsAt?: number): Promise<unknown> {
    refuseClosed();
    let callId: number | undefined;
    let onProgress: ((e: ProgressEvent) => void) | undefined;
    let signal: AbortSignal | undefined;
    let judge: ConflictJudge | undefined;
    let reranker: Reranker | undefined;
    const wireArgs = [...args];
    if (optionsAt !== undefined && optionsAt < wireArgs.length) {
      const split = extractControl(wireArgs[optionsAt]);
      wireArgs[optionsAt] = split.rest;
      signal = split.signal;
      if (split.onProgress) onProgress = Comlink.proxy(split.onProgress);
      if (split.judge) judge = Comlink.proxy(split.judge);
      if (split.reranker) reranker = Comlink.proxy(split.reranker);
    }
    while (wireArgs.length > 0 && wireArgs[wireArgs.length - 1] === undefined) wireArgs.pop();
    if (signal?.aborted) throw new MemoryError('ABORTED', 'The operation was cancelled');
    let onAbort: (() => void) | undefined;
    if (signal) {
      const id = nextCallId++;
      callId = id;
      onAbort = () => void remote.abort(id);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    try {
      return await remote.call(handle, method, wireArgs, callId, onProgress, judge, reranker);
    } finally {
      if (signal && onAbort) signal.removeEventListener('abort', onAbort);
      
    }
  }

  const listeners = new Set<(event: ChangeEvent) => void>();
  let channel: BroadcastChannel | undefined;

  // One forwarding function per store method; a stream argument becomes a (still compressed)
  // Blob first, since Blobs cross the boundary cheaply and streams cannot be cloned.
  const methods = Object.fromEntries(
    STORE_METHODS.map((method) => [
      method,
      async (...args: unknown[]) => {
        if (method === 'importArchive' || method === 'archiveInfo' || method === 'importChats') {
          if (isStream(args[0])) args[0] = await new Response(args[0]).blob();
        }
        return invoke(method, args, METHODS[method].signalAt ?? undefined);
      },
    ]),
  ) as unknown as MemoryApi;

  const client: MemoryClient = {
    ...methods,
    name: info.name,
    embedder: info.embedder,
    backend: info.backend,
    subscribe(listener) {
      listeners.add(listener);
      if (!channel && typeof BroadcastChannel !== 'undefined') {
        channel = new BroadcastChannel(changeChannelName(info.name));
        channel.onmessage = (message: MessageEvent<ChangeEvent>) => {
          for (const l of listeners) l(message.data);
        };
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && channel) {
          channel.close();
          channel = undefined;
        }
      };
    },
    async stores() {
      refuseClosed();
      return remote.stores();
    },
    async deleteStore(name) {
      refuseClosed();
      await remote.deleteStore(name);
      if (name === info.name) await client.close();
    },
    async renameStore(from, to) {
      refuseClosed();
      const renamed = await remote.renameStore(from, to);
      if (from === info.name) await client.close();
      return renamed;
    },
    async moveStore(name, to, options = {}) {
      refuseClosed();
      const { signal, onProgress } = options;
      if (signal?.aborted) throw new MemoryError('ABORTED', 'The operation was cancelled');
      const callId = signal ? nextCallId++ : undefined;
      const onAbort = callId === undefined ? undefined : () => void remote.abort(callId);
      if (onAbort) signal!.addEventListener('abort', onAbort, { once: true });
      try {
        const moved = await remote.moveStore(name, to, callId, onProgress ? Comlink.proxy(onProgress) : undefined);
        if (name === info.name) await client.close();
        return moved;
      } finally {
        if (onAbort) signal!.removeEventListener('abort', onAbort);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      channel?.close();
      listeners.clear();
      try {
        await remote.release(handle);
      } finally {
        // Releasing the proxy closes the endpoint (and the worker's end of it): not one others use.
        if (!sharedEndpoint) remote[Comlink.releaseProxy]();
        onClose?.();
      }
    },
  };
  return client;
}
