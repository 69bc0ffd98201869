/**
 * The journal: every mutation appends `{ ts, op, actor, id, before, after, meta }` in the same
 * transaction as the change (storage does the writing). Here: reading it, time travel by replay,
 * compaction to a retention window, and undo. Undo works the same way for every op: the entries of the call (its group) are
 * reverted in reverse order, but only if each memory still equals the entry's after-state
 * (ignoring access tracking), so an undo never clobbers a later change.
 */
import type { CompactResult, JournalRetention, UndoResult } from '../api.ts';
import { embedOne, journalFor, reportChanged, requireOpen, requireVectors, type StoreContext } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import type { JournalEntry, JournalHorizon } from '../ports.ts';

export type { CompactResult, JournalRetention, UndoResult } from '../api.ts';
import type { Memory } from '../types.ts';
import { checkId, checkInteger, checkKnownKeys, checkObject, checkTimestamp } from '../validate.ts';

/** Equality that ignores access tracking (recall changes it all the time). */
export function sameState(a: Memory | null | undefined, b: Memory | null | undefined): boolean {
  if (!a || !b) return a == b;
  const strip = ({ lastAccessed: _l, accessCount: _c, ...rest }: Memory) => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** The newest `n` entries, newest first. */
export async function journalTail(ctx: StoreContext, n = 20): Promise<JournalEntry[]> {
  requireOpen(ctx);
  const count = checkInteger(n, 'n', 0, 100_000);
  if (count === 0) return [];
  return (await ctx.storage.journalRead({ newest: count })).reverse();
}

/** Every entry about one memory, oldest first. */
export async function history(ctx: StoreContext, id: string): Promise<JournalEntry[]> {
  requireOpen(ctx);
  return ctx.storage.journalRead({ id: checkId(id) });
}

/** The error for a moment (or an entry) that compaction has dropped from the journal. */
function compacted(what: string, horizon: JournalHorizon, details: Record<string, unknown>): MemoryError {
  return new MemoryError(
    'JOURNAL_COMPACTED',
    `${what} is older than the journal's retention window: entries written before ${new Date(horizon.ts * 1000).toISOString()} were compacted away`,
    { ...details, horizonTs: horizon.ts, horizonSeq: horizon.seq },
  );
}

/**
 * The store as it was at `ts` (transaction time). It starts from the current memories and undoes,
 * newest first, every journal entry written after `ts`, so it needs only the entries after `ts`
 * and holds after compaction too. A moment before the journal's horizon (whose later entries are
 * not all kept) fails with JOURNAL_COMPACTED rather than answer with a partial state. Vectors
 * are not replayed, and access tracking (`lastAccessed`, `accessCount`) is not journaled: a
 * memory unchanged since `ts` shows its current counters.
 */
export async function stateAt(ctx: StoreContext, ts: number): Promise<Memory[]> {
  requireOpen(ctx);
  const { storage } = ctx;
  const at = checkTimestamp(ts, 'ts');
  const horizon = await storage.journalHorizon();
  if (horizon && at < horizon.ts) throw compacted(`The state at ${new Date(at * 1000).toISOString()}`, horizon, { ts: at });
  // The memories first, then the entries: a write landing between the two reads is in the
  // entries only, and undoing it from the state it never reached gives the same answer (each
  // memory with an entry after `ts` ends as the `before` of its oldest such entry).
  const state = new Map((await storage.allMemories()).map((m) => [m.id, m]));
  const later = await storage.journalRead({ afterTs: at });
  for (const e of later.sort((a, b) => b.seq! - a.seq!)) {
    if (e.id === '*') continue;
    if (e.before) state.set(e.id, e.before);
    else state.delete(e.id);
  }
  return [...state.values()].filter((m) => m.createdAt <= at).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}


/** The reference's journal keeps 90 days; the newest 1000 entries stay whatever their age. */
export const DEFAULT_RETENTION: Required<JournalRetention> = { keepDays: 90, keepLast: 1000 };

export function checkRetention(value: unknown, field = 'journalRetention'): Required<JournalRetention> {
  const raw = checkObject<JournalRetention>(value, field);
  checkKnownKeys(raw, new Set(['keepDays', 'keepLast']), field);
  const out = { ...DEFAULT_RETENTION };
  if (raw.keepDays !== undefined) {
    if (typeof raw.keepDays !== 'number' || !Number.isFinite(raw.keepDays) || raw.keepDays < 0) {
      throw invalid(`${field}.keepDays must be a number of days, 0 or more`, { field: `${field}.keepDays` });
    }
    out.keepDays = raw.keepDays;
  }
  if (raw.keepLast !== undefined) out.keepLast = checkInteger(raw.keepLast, `${field}.keepLast`, 0);
  return out;
}

/**
 * Drops journal entries outside the retention window: older than `keepDays` and not among the
 * newest `keepLast`, never part of a call that still has an entry inside the window (so every
 * undo inside the window keeps working). Writes a `compact` entry when it dropped anything.
 */
export async function compactJournal(ctx: StoreContext, options?: JournalRetention): Promise<CompactResult> {
  requireOpen(ctx);
  const given = Object.entries(checkObject<JournalRetention>(options, 'options')).filter(([, v]) => v !== undefined);
  const retention = checkRetention({ ...ctx.settings.retention, ...Object.fromEntries(given) }, 'options');
  const journal = journalFor(ctx, 'compact', { keepDays: retention.keepDays, keepLast: retention.keepLast });
  const result = await ctx.storage.journalCompact({ olderThanTs: journal.ts - retention.keepDays * 86_400, keepLast: retention.keepLast }, journal);
  // The registry remembers the newest journal seq: refresh it after the journal changed.
  ctx.durability.changed();
  return result;
}

/** Entries that record no change to a memory, so there is nothing to revert. */
const NOT_UNDOABLE = new Set(['undo', 'export', 'reindex', 'compact']);

/**
 * Undoes the call that wrote journal entry `seq` (default: the newest entry that is not itself an
 * undo or export). Refuses, changing nothing, when a memory changed after that call.
 */
export async function undo(ctx: StoreContext, seq?: number): Promise<UndoResult> {
  requireVectors(ctx);
  const { storage } = ctx;
  let target: JournalEntry | undefined;
  if (seq === undefined) {
    const recent = await storage.journalRead({ newest: 200 });
    target = [...recent].reverse().find((e) => !NOT_UNDOABLE.has(e.op) && e.meta['undone'] !== true);
    if (!target) throw new MemoryError('NOT_FOUND', 'Nothing to undo in the recent journal');
  } else {
    checkInteger(seq, 'seq', 1);
    [target] = await storage.journalRead({ seq });
    if (!target) {
      const horizon = await storage.journalHorizon();
      if (horizon && seq < horizon.seq) throw compacted(`Journal entry ${seq}`, horizon, { seq });
      throw new MemoryError('NOT_FOUND', `No journal entry ${seq}`, { seq });
    }
  }
  if (NOT_UNDOABLE.has(target.op)) {
    throw invalid(`A ${target.op} cannot be undone`, { field: 'seq', op: target.op });
  }
  const group = (await storage.journalRead({ group: target.group })).sort((a, b) => b.seq! - a.seq!);
  const ids = [...new Set(group.map((e) => e.id))];
  const current = await storage.getMany(ids);
  // Each memory must still be exactly what the call left (first entry per id, newest first).
  const lastAfter = new Map<string, JournalEntry>();
  for (const e of group) if (!lastAfter.has(e.id)) lastAfter.set(e.id, e);
  for (const [id, e] of lastAfter) {
    const now = current.get(id) ?? null;
    if (!sameState(now, e.after)) {
      return { ok: false, op: target.op, seq: target.seq!, ids, reason: `memory ${id} changed after this ${target.op}` };
    }
  }
  // The state before the call: the `before` of the oldest entry per id.
  const firstBefore = new Map<string, Memory | null>();
  for (const e of [...group].reverse()) if (!firstBefore.has(e.id)) firstBefore.set(e.id, e.before);
  const journal = journalFor(ctx, 'undo', { of: target.seq, ofOp: target.op, ofGroup: target.group });
  // Memories the call moved to the trash (decay pruning, quota eviction): brought back, they leave it.
  const trashed = new Set(group.filter((e) => e.op === 'trash').map((e) => e.id));
  const puts: Memory[] = [];
  for (const [id, before] of firstBefore) {
    const now = current.get(id) ?? null;
    if (before === null && now) {
      const removed = await storage.remove(id, journal);
      if (removed) ctx.commit({ added: [], removedLabels: [removed.label], generation: removed.generation });
    } else if (before && !now) {
      const vector = await embedOne(ctx, before.text);
      const { labels, generation } = await storage.insert([before], [vector], journal);
      ctx.commit({ added: [{ label: labels[0]!, vector }], removedLabels: [], generation });
      if (trashed.has(id)) await storage.purgeTrash({ id });
    } else if (before && now && before.text !== now.text) {
      const vector = await embedOne(ctx, before.text);
      const result = await storage.replace(now, before, vector, journal);
      if (result?.removedLabel !== undefined) ctx.commit({ added: [{ label: result.label, vector }], removedLabels: [result.removedLabel], generation: result.generation });
    } else if (before && now) {
      puts.push({ ...before, lastAccessed: now.lastAccessed, accessCount: now.accessCount });
    }
  }
  if (puts.length) await storage.applyGraphChanges({ put: puts }, journal);
  reportChanged(ctx, ids.filter((id) => id !== '*'));
  return { ok: true, op: target.op, seq: target.seq!, ids };
}
