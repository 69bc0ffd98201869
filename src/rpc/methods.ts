/**
 * How each store method crosses the worker boundary, in one table: whether a change event
 * follows it, and where its options sit (their `signal` and `onProgress` cannot be cloned: the
 * client strips them, the host rebuilds them). A `Record` over every store method, so a method
 * added to `MemoryApi` does not compile until it has a row here, and a new column is asked of
 * every row.
 *
 * What a method may do on a scoped connection (read-only, trust ceiling, namespace) is the
 * store's own policy, `SCOPE_POLICY` (core/scope/policy.ts): it holds in process too. Which
 * memories a call changed is not in any table: the store reports them with the result
 * (`StoreView.call`).
 */
import type { StoreMethod } from '../core/api.ts';

export interface MethodSpec {
  /**
   * The change event after a call: 'none'; 'always' after it succeeds (with the ids the store
   * reports); 'reported' only when the store reports changed memories (a forget of nothing is
   * silent); 'partial' also after it failed (a cancelled batch write keeps the batches that
   * committed before it).
   */
  changes: 'none' | 'always' | 'reported' | 'partial';
  /** The index of the options argument that may carry `signal`, `onProgress`, `judge` and `rerank.reranker` (functions and signals are not cloned), or null. */
  signalAt: number | null;
}

const read: MethodSpec = { changes: 'none', signalAt: null };
const write: MethodSpec = { changes: 'always', signalAt: null };

export const METHODS = {
  remember: { ...write, signalAt: 1 },
  rememberMany: { changes: 'partial', signalAt: 1 },
  recall: { ...read, signalAt: 1 },
  recallPack: { ...read, signalAt: 1 },
  contextPack: read,
  suggest: read,
  evaluate: read,
  exportArchive: { ...read, signalAt: 0 },
  importArchive: { changes: 'partial', signalAt: 1 },
  archiveInfo: read,
  importChats: { changes: 'partial', signalAt: 1 },
  link: write,
  unlink: write,
  neighbors: read,
  subgraph: read,
  findPath: read,
  supersede: write,
  restore: write,
  findConflicts: read,
  listPendingConflicts: read,
  resolveConflict: write,
  decayScores: read,
  prune: write,
  purgeExpired: write,
  trashList: read,
  maintenanceStatus: read,
  runMaintenance: write,
  reflect: write,
  health: read,
  trashRestore: write,
  // Irreversible, but it changes no live memory.
  trashPurge: read,
  journalTail: read,
  journalCalls: read,
  history: read,
  undo: write,
  stateAt: read,
  compactJournal: write,
  durability: read,
  forget: { changes: 'reported', signalAt: null },
  get: read,
  edit: write,
  listRecent: read,
  count: read,
  stats: read,
  aggregate: read,
  reindex: { changes: 'partial', signalAt: 0 },
  // Writes the index snapshot only.
  flush: read,
  // Its changes arrive in the background too (live mode): the round reports the ones it made.
  sync: { changes: 'partial', signalAt: 0 },
  syncStatus: read,
  stopSync: read,
} as const satisfies Record<StoreMethod, MethodSpec>;

/** Every method a client may call on an open store. */
export const STORE_METHODS = Object.keys(METHODS) as StoreMethod[];

/** The table's row for `method`, or undefined for a name that is not a store method. */
export function methodSpec(method: string): MethodSpec | undefined {
  return Object.prototype.hasOwnProperty.call(METHODS, method) ? METHODS[method as StoreMethod] : undefined;
}
