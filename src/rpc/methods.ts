/**
 * What the worker surface knows of each store method, in one table: whether it changes the
 * store (and so is followed by a change event), where its options sit (their `signal` and
 * `onProgress` cannot be cloned: the client strips them, the host rebuilds them), and how it
 * behaves on a read-only or a namespaced connection. The table is a `Record` over every store
 * method, so a method added to `MemoryApi` does not compile until it has a row here, and a new
 * policy is one more column the compiler asks of every row.
 *
 * Which memories a call changed is not in the table: the store reports them with the result
 * (`StoreView.call`).
 */
import type { StoreMethod } from '../core/api.ts';

export interface MethodSpec {
  /**
   * Whether the method changes the store, so a change event follows it: `true` after it
   * succeeds; 'if-changed' only when it reports changed memories (a forget of nothing is
   * silent); 'partial' also after it failed (a cancelled batch write keeps the batches that
   * committed before it).
   */
  mutates: boolean | 'if-changed' | 'partial';
  /** The index of the options argument that may carry `signal` and `onProgress`, or null. */
  optionsAt: number | null;
  /**
   * On a read-only connection: 'allowed', 'refused' (PERMISSION_DENIED), or 'no-touch' (allowed,
   * but its recalls do not update access tracking).
   */
  readOnly: 'allowed' | 'refused' | 'no-touch';
  /**
   * On a connection scoped to a namespace (see `namespace.ts`): 'scoped' (arguments and results
   * kept inside it), 'refused' (works on the whole store), or 'free' (touches no memory).
   */
  namespace: 'scoped' | 'refused' | 'free';
}

const read = { mutates: false, optionsAt: null, readOnly: 'allowed' } as const;
const write = { mutates: true, optionsAt: null, readOnly: 'refused' } as const;

export const METHODS = {
  remember: { ...write, namespace: 'scoped' },
  rememberMany: { ...write, mutates: 'partial', optionsAt: 1, namespace: 'scoped' },
  recall: { ...read, optionsAt: 1, readOnly: 'no-touch', namespace: 'scoped' },
  recallPack: { ...read, optionsAt: 1, readOnly: 'no-touch', namespace: 'scoped' },
  contextPack: { ...read, readOnly: 'no-touch', namespace: 'refused' },
  suggest: { ...read, namespace: 'scoped' },
  evaluate: { ...read, namespace: 'refused' },
  exportArchive: { ...read, optionsAt: 0, namespace: 'refused' },
  importArchive: { ...write, mutates: 'partial', optionsAt: 1, namespace: 'refused' },
  // Reads an archive the caller passes: nothing of the store's memories.
  archiveInfo: { ...read, namespace: 'free' },
  link: { ...write, namespace: 'scoped' },
  unlink: { ...write, namespace: 'scoped' },
  neighbors: { ...read, namespace: 'scoped' },
  subgraph: { ...read, namespace: 'scoped' },
  findPath: { ...read, namespace: 'scoped' },
  supersede: { ...write, namespace: 'scoped' },
  restore: { ...write, namespace: 'scoped' },
  findConflicts: { ...read, namespace: 'scoped' },
  listPendingConflicts: { ...read, namespace: 'refused' },
  resolveConflict: { ...write, namespace: 'refused' },
  decayScores: { ...read, namespace: 'refused' },
  prune: { ...write, namespace: 'refused' },
  purgeExpired: { ...write, namespace: 'refused' },
  trashList: { ...read, namespace: 'refused' },
  // The scheduler's state: nothing of the store's memories.
  maintenanceStatus: { ...read, namespace: 'free' },
  runMaintenance: { ...write, namespace: 'refused' },
  reflect: { ...write, namespace: 'refused' },
  health: { ...read, namespace: 'refused' },
  trashRestore: { ...write, namespace: 'refused' },
  // Irreversible, though it changes no live memory (no change event).
  trashPurge: { ...read, readOnly: 'refused', namespace: 'refused' },
  journalTail: { ...read, namespace: 'refused' },
  history: { ...read, namespace: 'scoped' },
  undo: { ...write, namespace: 'refused' },
  stateAt: { ...read, namespace: 'refused' },
  compactJournal: { ...write, namespace: 'refused' },
  // Reading the report is fine; acknowledging a loss is refused on a read-only connection (host.ts).
  durability: { ...read, namespace: 'refused' },
  forget: { ...write, mutates: 'if-changed', namespace: 'scoped' },
  get: { ...read, namespace: 'scoped' },
  edit: { ...write, namespace: 'scoped' },
  listRecent: { ...read, namespace: 'scoped' },
  count: { ...read, namespace: 'refused' },
  stats: { ...read, namespace: 'refused' },
  aggregate: { ...read, namespace: 'refused' },
  reindex: { ...write, mutates: 'partial', optionsAt: 0, namespace: 'refused' },
  // Writes the index snapshot only: no change event, but not for a read-only connection.
  flush: { ...read, readOnly: 'refused', namespace: 'free' },
} as const satisfies Record<StoreMethod, MethodSpec>;

/** Every method a client may call on an open store. */
export const STORE_METHODS = Object.keys(METHODS) as StoreMethod[];

/** The table's row for `method`, or undefined for a name that is not a store method. */
export function methodSpec(method: string): MethodSpec | undefined {
  return Object.prototype.hasOwnProperty.call(METHODS, method) ? METHODS[method as StoreMethod] : undefined;
}
