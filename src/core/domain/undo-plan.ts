/**
 * Planning an undo, pure: from the entries of one call (its journal group) and the memories as
 * they are now, what reverting the call takes — or which memory changed since and blocks it.
 * The rule is the same for every op (an undo of an undo is a redo): every memory the call touched
 * must still be exactly what the call left (access tracking aside), and each goes back to what it
 * was before the call.
 */
import { revertPatch } from './journal-patch.ts';
import type { JournalEntry } from '../ports.ts';
import type { Memory } from '../types.ts';

/** Equality that ignores access tracking (recall changes it all the time). */
export function sameState(a: Memory | null | undefined, b: Memory | null | undefined): boolean {
  if (!a || !b) return a == b;
  const strip = ({ lastAccessed: _l, accessCount: _c, ...rest }: Memory) => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** What reverting a call does to the store. */
export interface UndoPlan {
  ok: true;
  /** Ids the call created: removed. */
  remove: string[];
  /** Memories the call removed: put back as they were. */
  insert: Memory[];
  /** Memories whose text the call changed: the earlier text comes back (a new vector). */
  rewrite: { now: Memory; before: Memory }[];
  /** Memories whose other fields the call changed: the earlier fields come back (same vector). */
  put: Memory[];
}

/** Why a call cannot be reverted: a memory it touched changed after it. */
export interface UndoBlocked {
  ok: false;
  id: string;
  /** The memory as it is now (null: it is gone). */
  now: Memory | null;
  /** What the call left. */
  expected: Memory | null;
}

/** Distinct memory ids of a call's entries ('*' entries change no memory). */
export function memoryIds(entries: readonly JournalEntry[]): string[] {
  return [...new Set(entries.filter((e) => e.id !== '*').map((e) => e.id))];
}

/**
 * Plans the revert of the call whose entries are `group` (any order), given the current state of
 * each memory it touched (`current`, absent ids are gone). A memory whose last entry in the call
 * is a links patch (journal-patch.ts) has no snapshot of what the call left: it counts as
 * unchanged when it is still there and no entry after the call touched it (`changedAfter`, the
 * ids the journal shows written since).
 */
export function planUndo(
  group: readonly JournalEntry[],
  current: ReadonlyMap<string, Memory>,
  changedAfter: ReadonlySet<string> = new Set(),
): UndoPlan | UndoBlocked {
  const ordered = [...group].filter((e) => e.id !== '*').sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const byId = new Map<string, JournalEntry[]>();
  for (const e of ordered) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
  const firstBefore = new Map<string, Memory | null>();
  for (const [id, entries] of byId) {
    const now = current.get(id) ?? null;
    const last = entries[entries.length - 1]!;
    // The state the call left: the `after` of the newest entry per id (or, after a patch, the memory now).
    if (last.links) {
      if (!now || changedAfter.has(id)) return { ok: false, id, now, expected: null };
    } else if (!sameState(now, last.after)) return { ok: false, id, now, expected: last.after };
    // Before it: back through the call's entries, newest first, from the state it left.
    let state: Memory | null = last.links ? now : last.after;
    for (const e of [...entries].reverse()) state = e.links ? (state && revertPatch(state, e.links)) : e.before;
    firstBefore.set(id, state);
  }
  const plan: UndoPlan = { ok: true, remove: [], insert: [], rewrite: [], put: [] };
  for (const [id, before] of firstBefore) {
    const now = current.get(id) ?? null;
    if (before === null && now) plan.remove.push(id);
    else if (before && !now) plan.insert.push(before);
    else if (before && now && before.text !== now.text) plan.rewrite.push({ now, before });
    else if (before && now) plan.put.push({ ...before, lastAccessed: now.lastAccessed, accessCount: now.accessCount });
  }
  return plan;
}

/** Ids whose newest entry in the call is a links patch: what `planUndo` needs `changedAfter` for. */
export function patchedLast(group: readonly JournalEntry[]): string[] {
  const last = new Map<string, JournalEntry>();
  for (const e of [...group].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) if (e.id !== '*') last.set(e.id, e);
  return [...last.values()].filter((e) => e.links).map((e) => e.id);
}

/** How many memories an undo removes, puts back and changes back. */
export interface UndoEffect {
  removed: number;
  restored: number;
  reverted: number;
}

export function effectOf(plan: UndoPlan): UndoEffect {
  return { removed: plan.remove.length, restored: plan.insert.length, reverted: plan.rewrite.length + plan.put.length };
}
