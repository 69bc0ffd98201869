/**
 * Every store method and the operation that carries it out: one row per `MemoryApi` method
 * (but `close`), each a plain function of a `StoreContext` and the method's own arguments.
 * The table is checked against `MemoryApi` by the compiler, so a method cannot be added to the
 * API without its operation, nor an operation drift from the API's signature.
 */
import type { MemoryApi, StoreMethod } from './api.ts';
import type { StoreContext } from './context.ts';
import { archiveInfo, exportArchive, importArchive } from './ops/archive.ts';
import { importChats } from './chats/import.ts';
import { findConflicts, listPendingConflicts, resolveConflict } from './ops/conflicts.ts';
import { edit, forget } from './ops/edit-forget.ts';
import { findPath, link, neighbors, restore, subgraph, supersede, unlink } from './ops/graph.ts';
import { compactJournal, history, journalCalls, journalTail, stateAt, undo } from './ops/journal.ts';
import { decayScores, health, prune, purgeExpired, reflect } from './ops/lifecycle.ts';
import { maintenanceStatus, runMaintenance } from './ops/maintenance.ts';
import { get, listRecent } from './ops/read.ts';
import { contextPack, evaluate, recall, recallPack, suggest } from './ops/recall.ts';
import { remember, rememberMany } from './ops/remember.ts';
import { aggregate, count, durability, stats } from './ops/stats.ts';
import { trashList, trashPurge, trashRestore } from './ops/trash.ts';
import { flush, reindex } from './ops/vectors.ts';
import { stopSync, sync, syncStatus } from './ops/sync.ts';

/** The operation behind method `M`: the context first, then the method's arguments. */
export type Operation<M extends StoreMethod> = (ctx: StoreContext, ...args: Parameters<MemoryApi[M]>) => ReturnType<MemoryApi[M]>;

export const OPERATIONS: { readonly [M in StoreMethod]: Operation<M> } = {
  remember,
  rememberMany,
  recall,
  recallPack,
  contextPack,
  suggest,
  evaluate,
  exportArchive,
  importArchive,
  archiveInfo,
  importChats,
  link,
  unlink,
  neighbors,
  subgraph,
  findPath,
  supersede,
  restore,
  findConflicts,
  listPendingConflicts,
  resolveConflict,
  decayScores,
  prune,
  purgeExpired,
  reflect,
  health,
  maintenanceStatus,
  runMaintenance,
  trashList,
  trashRestore,
  trashPurge,
  journalTail,
  journalCalls,
  history,
  undo,
  stateAt,
  compactJournal,
  durability,
  forget,
  get,
  edit,
  listRecent,
  count,
  stats,
  aggregate,
  reindex,
  flush,
  sync,
  syncStatus,
  stopSync,
};
