/**
 * Planning an undo, pure: from the entries of one call (its journal group) and the memories as
 * they are now, what reverting the call takes — or which memory changed since and blocks it.
 * The rule is the same for every op (an undo of an undo is a redo): every memory the call touched
 * must still be exactly what the call left (access tracking aside), and each goes back to what it
 * was before the call.
 */
import type { JournalEntry } from './ports.ts';
import type { Memory } from './types.ts';

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
 * each memory it touched (`current`, absent ids are gone).
 */
export function planUndo(group: readonly JournalEntry[], current: ReadonlyMap<string, Memory>): UndoPlan | UndoBlocked {
  const ordered = [...group].filter((e) => e.id !== '*').sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  // The state the call left: the `after` of the newest entry per id; before it: the `before` of the oldest.
  const lastAfter = new Map<string, Memory | null>();
  const firstBefore = new Map<string, Memory | null>();
  for (const e of ordered) {
    lastAfter.set(e.id, e.after);
    if (!firstBefore.has(e.id)) firstBefore.set(e.id, e.before);
  }
  for (const [id, after] of lastAfter) {
    const now = current.get(id) ?? null;
    if (!sameState(now, after)) return { ok: false, id, now, expected: after };
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

/** How many memories an undo removes, puts back and changes back. */
export interface UndoEffect {
  removed: number;
  restored: number;
  reverted: number;
}

export function effectOf(plan: UndoPlan): UndoEffect {
  return { removed: plan.remove.length, restored: plan.insert.length, reverted: plan.rewrite.length + plan.put.length };
}
