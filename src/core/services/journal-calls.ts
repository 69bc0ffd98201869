/**
 * The journal as a person reads it: one row per call, not per memory. An import of 10,000
 * memories writes 10,000 entries (each memory's before/after, for undo and time travel) under
 * one group; here it is one call with its count, the archive's name, and one Undo. Undo calls
 * name the call they undid, so each call says whether it is undone, and an undo can be redone
 * (undone in its turn) where the journal allows it.
 *
 * The walk reads keys only to skip the entries of a call already listed, and one full entry per
 * call, so listing past a big import costs a key scan, not 10,000 rows.
 */
import type { JournalEntry, JournalStore } from '../ports.ts';
import { memoryIds } from '../domain/undo-plan.ts';

/** Calls whose entries are read whole for an exact summary; a bigger one is summarised from its newest entry. */
const SMALL_CALL = 64;
/** Keys read per step of the walk. */
const KEY_PAGE = 512;

/** Ops that record no change to a memory: nothing to revert. */
export const NOT_UNDOABLE: ReadonlySet<string> = new Set(['export', 'reindex', 'compact']);

export interface JournalCall {
  /** The call's newest entry: pass it to `undo(seq)`. */
  seq: number;
  /** Its oldest entry. */
  firstSeq: number;
  group: string;
  /** The call: 'remember', 'import', 'undo', … */
  op: string;
  actor: string;
  /** Unix seconds of the newest entry. */
  ts: number;
  /** Journal entries of the call. */
  entries: number;
  /** Memories it changed: exact for a small call, the entry count for a big one (an import writes one entry per memory). */
  memories: number;
  /** One memory it changed, with its text (after the call, or before it when the call removed it); null for store-wide entries. */
  subject: { id: string; text: string } | null;
  /** The call's metadata (an import's `archive`, an undo's `of`/`ofOp`/`ofGroup`, …). */
  meta: Record<string, unknown>;
  /** Whether `undo(seq)` applies to this kind of call. */
  undoable: boolean;
  /** For an undo: the sequence number it was asked to undo, and that call's group. */
  undoes: { seq: number; group: string; op: string } | null;
  /**
   * The seq of the undo (among the calls listed) that reverted this call and is itself still in
   * force; null when the call stands. An undo whose own undo (a redo) stands is not in force.
   */
  undoneBy: number | null;
}

/** The op that names a call: merges and resolutions journal their removals as 'forget'. */
export function callOp(entries: readonly JournalEntry[]): string {
  const first = entries[0];
  if (!first) return 'unknown';
  if (typeof first.meta['conflict'] === 'string' && typeof first.meta['resolution'] === 'string') return 'resolve';
  const ops = [...new Set(entries.map((e) => e.op))];
  return ops.find((op) => op !== 'forget') ?? ops[0]!;
}

/** One call from its entries (oldest first; all of them, or only the newest of a big call) and its entry count. */
export function summarizeCall(entries: readonly JournalEntry[], seqs: readonly number[]): JournalCall {
  const newest = entries[entries.length - 1]!;
  const whole = entries.length === seqs.length;
  const op = callOp(entries);
  const touched = entries.find((e) => e.id !== '*');
  const state = touched ? (touched.after ?? touched.before ?? (touched.links ? { text: touched.links.text } : null)) : null;
  const of = newest.meta['of'];
  const ofGroup = newest.meta['ofGroup'];
  return {
    seq: newest.seq!,
    firstSeq: seqs.reduce((min, s) => Math.min(min, s), newest.seq!),
    group: newest.group,
    op,
    actor: newest.actor,
    ts: newest.ts,
    entries: seqs.length,
    memories: whole ? memoryIds(entries).length : seqs.length,
    subject: touched && state ? { id: touched.id, text: state.text } : null,
    meta: newest.meta,
    undoable: !NOT_UNDOABLE.has(op) && touched !== undefined,
    undoes:
      op === 'undo' && typeof of === 'number' && typeof ofGroup === 'string'
        ? { seq: of, group: ofGroup, op: typeof newest.meta['ofOp'] === 'string' ? newest.meta['ofOp'] : 'unknown' }
        : null,
    undoneBy: null,
  };
}

/**
 * Marks which calls are undone (`undoneBy`), from the undo calls among them. `calls` is newest
 * first; an undo only counts while it is in force (not itself undone by a newer call).
 */
export function linkUndos(calls: JournalCall[]): JournalCall[] {
  const undoneBy = new Map<string, number>();
  for (const call of calls) {
    call.undoneBy = undoneBy.get(call.group) ?? null;
    if (call.undoes && call.undoneBy === null && !undoneBy.has(call.undoes.group)) undoneBy.set(call.undoes.group, call.seq);
  }
  return calls;
}

/** The newest `limit` calls, newest first, with `undoneBy` linked among them. */
export async function journalCalls(storage: Pick<JournalStore, 'journalKeys' | 'journalRead'>, limit: number): Promise<JournalCall[]> {
  const calls: JournalCall[] = [];
  // Entries of calls already listed, met again further down the walk.
  const skip = new Set<number>();
  let below: number | undefined;
  walk: for (;;) {
    const keys = await storage.journalKeys(below === undefined ? { limit: KEY_PAGE } : { belowSeq: below, limit: KEY_PAGE });
    if (keys.length === 0) break;
    for (const seq of keys) {
      below = seq;
      if (skip.delete(seq)) continue;
      const [entry] = await storage.journalRead({ seq });
      if (!entry) continue;
      const seqs = await storage.journalKeys({ group: entry.group });
      for (const s of seqs) if (s < seq) skip.add(s);
      const entries = seqs.length <= SMALL_CALL ? (await storage.journalRead({ group: entry.group })).filter((e) => e.seq! <= seq) : [entry];
      calls.push(summarizeCall(entries.length ? entries : [entry], seqs.filter((s) => s <= seq)));
      if (calls.length >= limit) break walk;
    }
  }
  return linkUndos(calls);
}
