/**
 * A journal entry for a change of links only, written as the links that changed instead of the
 * memory whole before and after (#31, repro-link-journal): N links out of one memory cost O(N)
 * journal bytes, not O(N²). AI-Houkai journals `link` / `unlink` as deltas too. Pure: the
 * storage adapters write an entry through `compactEntry`, and undo, time travel and sync read
 * one through the helpers below.
 *
 * A patch keeps each changed link with its position, so applying it to the memory as it was
 * gives back exactly the links it had after, and reverting it exactly the links before.
 */
import type { Link, Memory } from '../types.ts';

/** Characters of the memory's text a patch keeps, to name its subject in the journal's views. */
export const PATCH_TEXT_CHARS = 200;

export interface LinksPatch {
  /** The start of the memory's text (what the change was about, for people reading the journal). */
  text: string;
  /** Links the change added, each at its index in the links after. */
  added: { at: number; link: Link }[];
  /** Links the change removed, each at its index in the links before. */
  removed: { at: number; link: Link }[];
}

/** A journal entry as an adapter is handed it: snapshots, which `compactEntry` may turn into a patch. */
export interface EntrySnapshots {
  id: string;
  before: Memory | null;
  after: Memory | null;
  op?: string;
  /** A creation stored without its memory (`after` null): see `compactEntry`. */
  created?: true;
}

const key = (l: Link): string => `${l.rel}\u0000${l.to}`;

/** Every field but links and access tracking, in a form two memories compare by. */
function rest(m: Memory): string {
  const { links: _links, lastAccessed: _l, accessCount: _c, ...others } = m;
  return JSON.stringify(others);
}

/**
 * The patch from `before` to `after` when only their links differ (access tracking aside) and
 * the links both keep stay in the same order; otherwise null (the entry keeps its snapshots).
 */
export function linksPatch(before: Memory, after: Memory): LinksPatch | null {
  if (before.id !== after.id || rest(before) !== rest(after)) return null;
  const had = new Set(before.links.map(key));
  const has = new Set(after.links.map(key));
  // Duplicate links cannot be told apart by position: keep the snapshots.
  if (had.size !== before.links.length || has.size !== after.links.length) return null;
  const keptBefore = before.links.filter((l) => has.has(key(l))).map(key);
  const keptAfter = after.links.filter((l) => had.has(key(l))).map(key);
  if (keptBefore.join('\u0001') !== keptAfter.join('\u0001')) return null;
  const added = after.links.flatMap((link, at) => (had.has(key(link)) ? [] : [{ at, link: { ...link } }]));
  const removed = before.links.flatMap((link, at) => (has.has(key(link)) ? [] : [{ at, link: { ...link } }]));
  if (!added.length && !removed.length) return null;
  return { text: after.text.slice(0, PATCH_TEXT_CHARS), added, removed };
}

/**
 * The entry as stored: a links-only change of an existing memory as a patch; a creation without
 * its memory (#30: the copy was a quarter of a bulk-written memory's bytes), because what a
 * creation made is still held elsewhere, exactly — the `before` of the memory's next entry, or
 * the memory itself when no entry came after (`createdState`); any other as given.
 */
export function compactEntry(entry: EntrySnapshots): EntrySnapshots & { links?: LinksPatch } {
  if (entry.id !== '*' && entry.before === null && entry.after !== null) {
    return { id: entry.id, before: null, after: null, created: true, ...(entry.op === undefined ? {} : { op: entry.op }) };
  }
  if (!entry.before || !entry.after) return entry;
  const patch = linksPatch(entry.before, entry.after);
  return patch ? { id: entry.id, before: null, after: null, links: patch, ...(entry.op === undefined ? {} : { op: entry.op }) } : entry;
}

/** `links` with `drop` taken out and `insert` put at their positions (ascending). */
function move(links: readonly Link[], drop: readonly { link: Link }[], insert: readonly { at: number; link: Link }[]): Link[] {
  const gone = new Set(drop.map((d) => key(d.link)));
  const out = links.filter((l) => !gone.has(key(l)));
  for (const { at, link } of [...insert].sort((a, b) => a.at - b.at)) {
    if (out.some((l) => key(l) === key(link))) continue;
    out.splice(Math.min(at, out.length), 0, { ...link });
  }
  return out;
}

/** The memory after the patched change, from the memory before it. */
export function applyPatch(memory: Memory, patch: LinksPatch): Memory {
  return { ...memory, links: move(memory.links, patch.removed, patch.added) };
}

/** The memory before the patched change, from the memory after it. */
export function revertPatch(memory: Memory, patch: LinksPatch): Memory {
  return { ...memory, links: move(memory.links, patch.added, patch.removed) };
}

/** What an entry did to its memory, read alike for snapshot and patch entries. */
export type EntryEffect = 'created' | 'changed' | 'removed' | 'store';

export function entryEffect(entry: { id: string; before: Memory | null; after: Memory | null; links?: LinksPatch; created?: true }): EntryEffect {
  if (entry.id === '*') return 'store';
  if (entry.links) return 'changed';
  if (entry.created) return 'created';
  if (entry.before === null && entry.after !== null) return 'created';
  if (entry.after === null && entry.before !== null) return 'removed';
  return entry.after ? 'changed' : 'store';
}

/**
 * What a creation stored without its memory made: walking back from the memory as it is now
 * (`now`, null when gone) through the memory's later entries (`later`: same id, written after the
 * creation, any order), the state before the earliest of them. Access tracking is not journaled,
 * so the counters are those of the state found.
 */
export function createdState(later: readonly { seq?: number; before: Memory | null; links?: LinksPatch }[], now: Memory | null): Memory | null {
  let state = now;
  for (const e of [...later].sort((a, b) => b.seq! - a.seq!)) state = e.links ? state && revertPatch(state, e.links) : e.before;
  return state;
}
