/**
 * The wire contract between clients (pages, agents, extensions) and the memory worker. Plain
 * data only; functions cross as comlink proxies and AbortSignals as call ids.
 */
import type { ConflictJudge } from '../core/domain/judge.ts';
import type { Reranker } from '../core/domain/rerank.ts';
import type { MoveResult, StoreInfo, StorePlace } from '../core/catalog.ts';
import type { StoreMethod } from '../core/api.ts';
import type { ProgressEvent } from '../core/types.ts';

export type { StoreMethod } from '../core/api.ts';
export { METHODS, STORE_METHODS, methodSpec, type MethodSpec } from './methods.ts';

/** What a client asks the worker to open. Model options must be plain data. */
export interface OpenRequest {
  name: string;
  embedder?: 'auto' | 'minilm' | 'bge-small' | 'use-lite';
  index?: 'hnsw' | 'exact' | 'hnsw-i8';
  /**
   * Where the store lives: 'indexeddb' (the default) or 'opfs' (SQLite in the origin-private file
   * system, for large stores; served by a dedicated worker, which `connectMemory` elects). The two
   * are different stores even under one name.
   */
  storage?: 'indexeddb' | 'opfs';
  onEmbedderChange?: 'error' | 'reindex';
  /** The store's default conflict policy for `remember` ('warn' unless set; the app asks for 'review'). The first opener sets it. */
  conflictPolicy?: 'ignore' | 'warn' | 'supersede' | 'raise' | 'review';
  /** Journal attribution of the store's writes ('ui', 'agent:<name>'…); the first opener of a store sets it. */
  actor?: string;
  /** What journal compaction keeps (`{ keepDays = 90, keepLast = 1000 }`); the first opener of a store sets it. */
  journalRetention?: { keepDays?: number; keepLast?: number };
  /**
   * Recall's second stage for every call: a cross-encoder served beside the embedding models
   * (`{ model: 'Xenova/ms-marco-MiniLM-L-6-v2', top?, weight?, timeoutMs? }`); the first opener of
   * a store sets it. A function reranker is a call's option (`recall(q, { rerank: { reranker } })`), proxied.
   */
  rerank?: { model: string; top?: number; weight?: number; timeoutMs?: number };
  /**
   * This connection's scope (the rules: `SCOPE_POLICY` in core/scope/policy.ts, and the table in
   * docs/scopes.md). `readOnly`: every method that changes the store is refused with
   * PERMISSION_DENIED, recalls do not touch, exports leave no trace. `trust`: below `trusted`,
   * what it writes is stored at most this trusted and never pinned, it may change only memories
   * at most as trusted (and unpinned), and whole-store methods (undo, the trash, compaction,
   * maintenance, the review queue) are refused. `namespace`: every write is tagged
   * `ns:<namespace>` (no other `ns:` tag), changes to memories without that tag are refused,
   * reads only see memories with it, and whole-store methods are refused.
   */
  scope?: { readOnly?: boolean; trust?: 'trusted' | 'reported' | 'untrusted'; namespace?: string };
  /**
   * The folder serving the model files (`npx houkai-web models <dir>` fills it), on the worker's
   * origin; relative URLs resolve against the page that connects. Default: `/models/`.
   */
  models?: string;
  /** Plain-data options for both transformers.js models (local path, device…). */
  transformers?: Record<string, unknown>;
  /** Plain-data options for the MiniLM embedder only. */
  minilm?: Record<string, unknown>;
  /** Plain-data options for the bge-small embedder only. */
  bgeSmall?: Record<string, unknown>;
  /** Plain-data options for the use-lite embedder (model URL, wasm paths…). */
  useLite?: Record<string, unknown>;
}

/** The store options an `OpenRequest` carries, as a composition root passes them to `createMemory`. */
export interface OpenOptions {
  name: string;
  embedder: NonNullable<OpenRequest['embedder']>;
  index?: NonNullable<OpenRequest['index']>;
  storage?: NonNullable<OpenRequest['storage']>;
  onEmbedderChange?: NonNullable<OpenRequest['onEmbedderChange']>;
  actor?: string;
  journalRetention?: NonNullable<OpenRequest['journalRetention']>;
  rerank?: NonNullable<OpenRequest['rerank']>;
  conflicts?: { policy: NonNullable<OpenRequest['conflictPolicy']> };
  minilm?: Record<string, unknown>;
  useLite?: Record<string, unknown>;
}

/** What an open request asks of the store, in `createMemory`'s terms (the scope is the host's business, not the store's). */
export function openOptions(request: OpenRequest): OpenOptions {
  return {
    name: request.name,
    embedder: request.embedder ?? 'auto',
    ...(request.index ? { index: request.index } : {}),
    ...(request.storage ? { storage: request.storage } : {}),
    ...(request.onEmbedderChange ? { onEmbedderChange: request.onEmbedderChange } : {}),
    ...(request.actor ? { actor: request.actor } : {}),
    ...(request.journalRetention ? { journalRetention: request.journalRetention } : {}),
    ...(request.rerank ? { rerank: request.rerank } : {}),
    ...(request.conflictPolicy ? { conflicts: { policy: request.conflictPolicy } } : {}),
    ...(request.transformers ? { transformers: request.transformers } : {}),
    ...(request.minilm ? { minilm: request.minilm } : {}),
    ...(request.bgeSmall ? { bgeSmall: request.bgeSmall } : {}),
    ...(request.useLite ? { useLite: request.useLite } : {}),
  };
}

export interface OpenInfo {
  handle: number;
  name: string;
  embedder: { id: string; dim: number };
  /** Which backend computes embeddings (wasm, webgpu, cpu…), when the embedder reports it. */
  backend?: string;
}


/** Broadcast after each change, to every tab of the origin. */
export interface ChangeEvent {
  store: string;
  op: StoreMethod;
  /** Ids of the memories affected, when known. */
  ids: string[];
  /** Unix seconds. (No count: counting rows is linear in IndexedDB, too slow for every write.) */
  at: number;
}

/** The object the worker exposes on every connection. */
export interface HostApi {
  open(request: OpenRequest, onProgress?: (event: ProgressEvent) => void): Promise<OpenInfo>;
  /**
   * Calls a store method. `callId` is set when the caller passed an AbortSignal (`abort(callId)`
   * fires it here); `onProgress` is a comlink proxy. Both are top-level arguments because
   * comlink only proxies functions at the top level.
   */
  /**
   * `judge`: the call's conflict judge, proxied from the page (remember, rememberMany);
   * `reranker`: the call's `rerank.reranker`, proxied likewise (recall, recallPack, evaluate).
   */
  call(
    handle: number,
    method: StoreMethod,
    args: unknown[],
    callId?: number,
    onProgress?: (event: ProgressEvent) => void,
    judge?: ConflictJudge,
    reranker?: Reranker,
  ): Promise<unknown>;
  abort(callId: number): void;
  release(handle: number): Promise<void>;
  ping(): Promise<{ ok: true; stores: string[]; shared: boolean }>;
  /** Every store of the origin, with its memory count, model and whether it is open in this worker. */
  stores(): Promise<StoreInfo[]>;
  /**
   * Deletes a store (database, index snapshot, registry record). This connection's own handles
   * on it close; a store open in another connection is refused with STORE_IN_USE.
   */
  deleteStore(name: string): Promise<void>;
  /** Renames a store (a copy, then a delete): the same rules as deleteStore, and STORE_EXISTS when `to` is taken. */
  renameStore(from: string, to: string): Promise<StoreInfo>;
  /**
   * Moves a store between IndexedDB and OPFS (`moveMemory`): the same rules as deleteStore, and
   * STORE_IN_USE while a tab or worker of the origin has it open. OPFS is reached from a dedicated
   * worker only (a connection with owner 'elected' or 'dedicated'). `callId`: `abort(callId)`
   * cancels it between batches; `onProgress` hears `{ kind: 'move', done, total }`.
   */
  moveStore(name: string, to: StorePlace, callId?: number, onProgress?: (event: ProgressEvent) => void): Promise<MoveResult>;
}

/** The BroadcastChannel name on which a store's change events travel. */
export function changeChannelName(store: string): string {
  return `houkai-web:changes:${store}`;
}

