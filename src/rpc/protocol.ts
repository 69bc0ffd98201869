/**
 * The wire contract between clients (pages, agents, extensions) and the memory worker. Plain
 * data only; functions cross as comlink proxies and AbortSignals as call ids.
 */
import type { MemoryApi } from '../core/store.ts';
import type { ProgressEvent } from '../core/types.ts';

/** Methods a client may call on an open store. */
export const STORE_METHODS = [
  'remember',
  'rememberMany',
  'recall',
  'recallPack',
  'contextPack',
  'suggest',
  'evaluate',
  'exportArchive',
  'importArchive',
  'archiveInfo',
  'link',
  'unlink',
  'neighbors',
  'subgraph',
  'findPath',
  'supersede',
  'restore',
  'findConflicts',
  'listPendingConflicts',
  'resolveConflict',
  'decayScores',
  'prune',
  'purgeExpired',
  'trashList',
  'maintenanceStatus',
  'runMaintenance',
  'reflect',
  'health',
  'trashRestore',
  'trashPurge',
  'journalTail',
  'history',
  'undo',
  'stateAt',
  'compactJournal',
  'durability',
  'forget',
  'get',
  'edit',
  'listRecent',
  'count',
  'stats',
  'aggregate',
  'reindex',
  'flush',
] as const satisfies readonly (keyof MemoryApi)[];
export type StoreMethod = (typeof STORE_METHODS)[number];

/** Methods that change the store; each is followed by a change event. */
export const MUTATING_METHODS: ReadonlySet<StoreMethod> = new Set([
  'remember',
  'rememberMany',
  'forget',
  'edit',
  'reindex',
  'importArchive',
  'link',
  'unlink',
  'supersede',
  'restore',
  'resolveConflict',
  'undo',
  'prune',
  'purgeExpired',
  'trashRestore',
  'reflect',
  'compactJournal',
  'runMaintenance',
]);

/**
 * Where each method's options object (the one that may carry `signal` and `onProgress`) sits in
 * its arguments. Those two cannot be cloned: the client strips them, the host rebuilds them.
 */
export const OPTIONS_AT: Partial<Record<StoreMethod, number>> = {
  rememberMany: 1,
  recall: 1,
  recallPack: 1,
  reindex: 0,
  exportArchive: 0,
  importArchive: 1,
};

/** What a client asks the worker to open. Model options must be plain data. */
export interface OpenRequest {
  name: string;
  embedder?: 'auto' | 'minilm' | 'bge-small' | 'use-lite';
  index?: 'hnsw' | 'exact' | 'hnsw-i8';
  onEmbedderChange?: 'error' | 'reindex';
  /** The store's default conflict policy for `remember` ('warn' unless set; the app asks for 'review'). The first opener sets it. */
  conflictPolicy?: 'ignore' | 'warn' | 'supersede' | 'raise' | 'review';
  /** Journal attribution of the store's writes ('ui', 'agent:<name>'…); the first opener of a store sets it. */
  actor?: string;
  /** What journal compaction keeps (`{ keepDays = 90, keepLast = 1000 }`); the first opener of a store sets it. */
  journalRetention?: { keepDays?: number; keepLast?: number };
  /**
   * This connection's scope (the rules: `SCOPE_POLICY` in core/scope/policy.ts, and the README's
   * Scopes table). `readOnly`: every method that changes the store is refused with
   * PERMISSION_DENIED, recalls do not touch, exports leave no trace. `trust`: below `trusted`,
   * what it writes is stored at most this trusted and never pinned, it may change only memories
   * at most as trusted (and unpinned), and whole-store methods (undo, the trash, compaction,
   * maintenance, the review queue) are refused. `namespace`: every write is tagged
   * `ns:<namespace>` (no other `ns:` tag), changes to memories without that tag are refused,
   * reads only see memories with it, and whole-store methods are refused.
   */
  scope?: { readOnly?: boolean; trust?: 'trusted' | 'reported' | 'untrusted'; namespace?: string };
  /** Plain-data options for both transformers.js models (local path, device…). */
  transformers?: Record<string, unknown>;
  /** Plain-data options for the MiniLM embedder only. */
  minilm?: Record<string, unknown>;
  /** Plain-data options for the bge-small embedder only. */
  bgeSmall?: Record<string, unknown>;
  /** Plain-data options for the use-lite embedder (model URL, wasm paths…). */
  useLite?: Record<string, unknown>;
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
  call(handle: number, method: StoreMethod, args: unknown[], callId?: number, onProgress?: (event: ProgressEvent) => void): Promise<unknown>;
  abort(callId: number): void;
  release(handle: number): Promise<void>;
  ping(): Promise<{ ok: true; stores: string[]; shared: boolean }>;
}

/** The BroadcastChannel name on which a store's change events travel. */
export function changeChannelName(store: string): string {
  return `houkai-web:changes:${store}`;
}

/** Compile-time check: every MemoryApi method (but close, which is per connection) crosses the boundary. */
type AssertNever<T extends never> = T;
export type AllMethodsForwarded = AssertNever<Exclude<keyof MemoryApi, StoreMethod | 'close'>>;
