/**
 * The scope policy: one row per store method saying what the method does to the store, from
 * which every scope rule follows. A connection's scope has three independent parts:
 *
 * - `readOnly`: only `read` methods (recalls then do not touch);
 * - `trust` (a ceiling below `trusted`): writes are capped — new rows stored at most that
 *   trusted and never pinned; a `change` may only touch memories at most as trusted as the
 *   ceiling and not pinned (it could have written them itself); conflict policies that change
 *   existing memories are refused; `admin` methods are refused;
 * - `namespace`: see `namespace.ts` (the `namespace` column).
 *
 * A `Record` over every method, so a method added to the API does not compile until it is
 * classified here. The enforcement is `scopedCall` in `enforce.ts`, and nowhere else.
 */
import type { StoreMethod } from '../api.ts';

/** Every method a connection can call (all of the API but `close`, which is per connection). */
export type ApiMethod = StoreMethod;

/**
 * - `read`: changes no memory (recalls record access unless `touch: false`);
 * - `create`: adds new memories;
 * - `change`: changes the memories it names (its `targets`);
 * - `import`: writes an archive's rows;
 * - `admin`: works on the whole store, its history or its trash, or applies decisions that are
 *   the owner's (undo, review, maintenance): needs a writable, fully trusted connection;
 * - `cache`: persists derived state only (the index snapshot).
 */
export type Access = 'read' | 'create' | 'change' | 'import' | 'admin' | 'cache';

/** How a namespaced connection may use the method: inside its namespace, not at all, or as is. */
export type NamespaceRule = 'scoped' | 'refused' | 'free';

export interface MethodPolicy {
  access: Access;
  namespace: NamespaceRule;
  /** Index of the options argument (where `touch`, `record`, `onConflict`, `maxTrust` go). */
  options?: number;
  /** `create`: index of the items array (`rememberMany`); without it the call stores one memory. */
  items?: number;
  /**
   * `change`: the memories the call changes, by argument index; `supersession` adds the memory
   * that superseded the first target (a restore changes it too).
   */
  targets?: readonly number[];
  supersession?: boolean;
  /** A `read` that becomes `admin` when this option is `true` (`durability({ acknowledge })`). */
  adminWhen?: string;
  /** A recall: a read-only connection runs it with `touch: false`. */
  touches?: boolean;
  /** An export: journaled and counted as a backup only on a writable, fully trusted connection. */
  records?: boolean;
}

export const SCOPE_POLICY: { readonly [M in ApiMethod]: MethodPolicy } = {
  remember: { access: 'create', namespace: 'scoped', options: 1 },
  rememberMany: { access: 'create', namespace: 'scoped', options: 1, items: 0 },
  edit: { access: 'change', namespace: 'scoped', options: 1, targets: [0] },
  forget: { access: 'change', namespace: 'scoped', targets: [0] },
  link: { access: 'change', namespace: 'scoped', targets: [0] },
  unlink: { access: 'change', namespace: 'scoped', targets: [0] },
  supersede: { access: 'change', namespace: 'scoped', targets: [0, 1] },
  restore: { access: 'change', namespace: 'scoped', targets: [0], supersession: true },
  importArchive: { access: 'import', namespace: 'refused', options: 1 },
  importChats: { access: 'import', namespace: 'refused', options: 1 },

  recall: { access: 'read', namespace: 'scoped', options: 1, touches: true },
  recallPack: { access: 'read', namespace: 'scoped', options: 1, touches: true },
  contextPack: { access: 'read', namespace: 'refused', options: 1, touches: true },
  suggest: { access: 'read', namespace: 'scoped' },
  get: { access: 'read', namespace: 'scoped' },
  listRecent: { access: 'read', namespace: 'scoped' },
  neighbors: { access: 'read', namespace: 'scoped' },
  subgraph: { access: 'read', namespace: 'scoped' },
  findPath: { access: 'read', namespace: 'scoped' },
  findConflicts: { access: 'read', namespace: 'scoped' },
  history: { access: 'read', namespace: 'scoped' },
  evaluate: { access: 'read', namespace: 'refused' },
  exportArchive: { access: 'read', namespace: 'refused', options: 0, records: true },
  archiveInfo: { access: 'read', namespace: 'free' },
  listPendingConflicts: { access: 'read', namespace: 'refused' },
  decayScores: { access: 'read', namespace: 'refused' },
  health: { access: 'read', namespace: 'refused' },
  trashList: { access: 'read', namespace: 'refused' },
  journalTail: { access: 'read', namespace: 'refused' },
  journalCalls: { access: 'read', namespace: 'refused' },
  stateAt: { access: 'read', namespace: 'refused' },
  count: { access: 'read', namespace: 'refused' },
  stats: { access: 'read', namespace: 'refused' },
  aggregate: { access: 'read', namespace: 'refused' },
  maintenanceStatus: { access: 'read', namespace: 'free' },
  durability: { access: 'read', namespace: 'refused', options: 0, adminWhen: 'acknowledge' },

  resolveConflict: { access: 'admin', namespace: 'refused' },
  undo: { access: 'admin', namespace: 'refused' },
  trashRestore: { access: 'admin', namespace: 'refused' },
  trashPurge: { access: 'admin', namespace: 'refused' },
  compactJournal: { access: 'admin', namespace: 'refused' },
  prune: { access: 'admin', namespace: 'refused' },
  purgeExpired: { access: 'admin', namespace: 'refused' },
  reflect: { access: 'admin', namespace: 'refused' },
  runMaintenance: { access: 'admin', namespace: 'refused' },
  reindex: { access: 'admin', namespace: 'refused' },
  sync: { access: 'admin', namespace: 'refused', options: 0 },
  stopSync: { access: 'admin', namespace: 'refused' },
  syncStatus: { access: 'read', namespace: 'refused' },

  flush: { access: 'cache', namespace: 'free' },
};

/** The methods of one access kind, in table order (for docs and tests). */
export function methodsWith(access: Access): ApiMethod[] {
  return (Object.keys(SCOPE_POLICY) as ApiMethod[]).filter((m) => SCOPE_POLICY[m].access === access);
}

/** Conflict policies a write below `trusted` may use: none of them changes an existing memory. */
export const CAPPED_CONFLICT_POLICIES = ['ignore', 'warn', 'raise', 'review'] as const;
